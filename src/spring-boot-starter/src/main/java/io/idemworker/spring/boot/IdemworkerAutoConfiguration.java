package io.idemworker.spring.boot;

import com.azure.core.credential.TokenCredential;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import io.idemworker.azure.IdempotentWorker;
import io.idemworker.azure.MessageType;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.servicebus.ServiceBusConnection;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

/**
 * An idempotent worker from the application's {@link MessageType} beans and the {@code
 * idemworker.*} properties, or Spring Cloud Azure's credential, Cosmos DB client builder and {@code
 * spring.cloud.azure.*} properties when the application has them. Every bean backs off when the
 * application declares its own.
 */
@AutoConfiguration(
    afterName = {
      "com.azure.spring.cloud.autoconfigure.implementation.context.AzureTokenCredentialAutoConfiguration",
      "com.azure.spring.cloud.autoconfigure.implementation.cosmos.AzureCosmosAutoConfiguration",
      "com.azure.spring.cloud.autoconfigure.implementation.servicebus.AzureServiceBusAutoConfiguration"
    })
@ConditionalOnClass(IdempotentWorker.class)
@ConditionalOnProperty(
    prefix = "idemworker",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(IdemworkerProperties.class)
public class IdemworkerAutoConfiguration {
  private static final String SCA = "spring.cloud.azure.";

  /** Creates the auto-configuration; Spring Boot does. */
  public IdemworkerAutoConfiguration() {}

  /**
   * The Service Bus namespace: idemworker.servicebus.connection-string (or Spring Cloud Azure's),
   * else idemworker.servicebus.namespace with the application's TokenCredential bean.
   *
   * @param properties the properties
   * @param environment for Spring Cloud Azure's properties
   * @param credential the application's credential, Spring Cloud Azure's chain when present
   * @return the connection
   */
  @Bean
  @ConditionalOnMissingBean
  public ServiceBusConnection idemworkerServiceBusConnection(
      IdemworkerProperties properties,
      Environment environment,
      ObjectProvider<TokenCredential> credential) {
    checked(properties);
    Optional<String> connectionString =
        first(
            properties.getServicebus().getConnectionString(),
            environment.getProperty(SCA + "servicebus.connection-string"));
    if (connectionString.isPresent()) {
      return new ServiceBusConnection.ConnectionString(connectionString.get());
    }
    Optional<String> namespace =
        first(
                properties.getServicebus().getNamespace(),
                environment.getProperty(SCA + "servicebus.namespace"))
            .map(
                ns ->
                    ns.contains(".")
                        ? ns
                        : ns
                            + "."
                            + environment.getProperty(
                                SCA + "servicebus.domain-name", "servicebus.windows.net"));
    if (namespace.isEmpty()) {
      throw misconfigured(
          "set idemworker.servicebus.connection-string, or idemworker.servicebus.namespace with a"
              + " TokenCredential bean (e.g. Spring Cloud Azure's)");
    }
    TokenCredential token = credential.getIfUnique();
    if (token == null) {
      throw misconfigured(
          "idemworker.servicebus.namespace needs one TokenCredential bean (add Spring Cloud"
              + " Azure, or declare one), or set idemworker.servicebus.connection-string instead");
    }
    return new ServiceBusConnection.Namespace(namespace.get(), token);
  }

  /**
   * The Cosmos DB client: from the application's CosmosClientBuilder bean (Spring Cloud Azure's)
   * when there is one, else idemworker.cosmos.endpoint with its key or the TokenCredential bean.
   *
   * @param properties the properties
   * @param environment for Spring Cloud Azure's properties
   * @param builder the application's builder
   * @param credential the application's credential
   * @return the client
   */
  @Bean
  @ConditionalOnMissingBean
  public CosmosClient idemworkerCosmosClient(
      IdemworkerProperties properties,
      Environment environment,
      ObjectProvider<CosmosClientBuilder> builder,
      ObjectProvider<TokenCredential> credential) {
    CosmosClientBuilder theirs = builder.getIfUnique();
    if (theirs != null) {
      return theirs.buildClient();
    }
    IdemworkerProperties.Cosmos cosmos = properties.getCosmos();
    String endpoint =
        first(cosmos.getEndpoint(), environment.getProperty(SCA + "cosmos.endpoint"))
            .orElseThrow(
                () ->
                    misconfigured(
                        "set idemworker.cosmos.endpoint (or declare a CosmosClientBuilder,"
                            + " CosmosClient or CosmosContainer bean)"));
    CosmosClientBuilder ours = new CosmosClientBuilder().endpoint(endpoint);
    Optional<String> key = first(cosmos.getKey(), environment.getProperty(SCA + "cosmos.key"));
    if (key.isPresent()) {
      ours.key(key.get());
    } else {
      TokenCredential token = credential.getIfUnique();
      if (token == null) {
        throw misconfigured(
            "idemworker.cosmos.endpoint needs idemworker.cosmos.key or one TokenCredential bean");
      }
      ours.credential(token);
    }
    if (cosmos.isGatewayMode()) {
      ours.gatewayMode();
    } else {
      ours.directMode();
    }
    return ours.buildClient();
  }

  /**
   * The container the effects go to: idemworker.cosmos.database and idemworker.cosmos.container,
   * created when missing if idemworker.cosmos.create-if-missing.
   *
   * @param properties the properties
   * @param environment for Spring Cloud Azure's properties
   * @param client the client
   * @return the container
   */
  @Bean
  @ConditionalOnMissingBean
  public CosmosContainer idemworkerCosmosContainer(
      IdemworkerProperties properties, Environment environment, CosmosClient client) {
    checked(properties);
    IdemworkerProperties.Cosmos cosmos = properties.getCosmos();
    String database =
        first(cosmos.getDatabase(), environment.getProperty(SCA + "cosmos.database"))
            .orElseThrow(() -> misconfigured("set idemworker.cosmos.database"));
    String container =
        first(cosmos.getContainer())
            .orElseThrow(() -> misconfigured("set idemworker.cosmos.container"));
    if (cosmos.isCreateIfMissing()) {
      return CosmosContainers.ensureExists(
          client, database, container, cosmos.getPartitionKeyPath());
    }
    return client.getDatabase(database).getContainer(container);
  }

  /**
   * The worker, built (so checked against the queue and the container) and not started: a refusal
   * fails the application's start with every problem named.
   *
   * @param properties the properties
   * @param environment for Spring Cloud Azure's properties
   * @param connection the namespace
   * @param container the container
   * @param types the application's message types
   * @param observers the application's observers and the starter's metrics
   * @param customizers changes of the application's to the builder
   * @return the worker
   */
  @Bean
  @ConditionalOnMissingBean
  public IdempotentWorker idempotentWorker(
      IdemworkerProperties properties,
      Environment environment,
      ServiceBusConnection connection,
      CosmosContainer container,
      ObjectProvider<MessageType<?>> types,
      ObjectProvider<DeliveryObserver> observers,
      ObjectProvider<IdempotentWorkerCustomizer> customizers) {
    checked(properties);
    IdempotentWorker.Builder builder = IdempotentWorker.builder().connection(connection);
    if (properties.getTopic() != null) {
      builder.subscription(properties.getTopic(), properties.getSubscription());
    } else {
      String queue =
          first(properties.getQueue(), environment.getProperty(SCA + "servicebus.entity-name"))
              .orElseThrow(
                  () ->
                      misconfigured(
                          "set idemworker.queue, or idemworker.topic with"
                              + " idemworker.subscription"));
      builder.queue(queue);
    }
    builder
        .container(container)
        .maxConcurrentCalls(properties.getMaxConcurrentCalls())
        .prefetchCount(properties.getPrefetchCount())
        .maxBodyBytes(properties.getMaxBodyBytes())
        .maxLockRenewal(properties.getMaxLockRenewal())
        .shutdownTimeout(properties.getShutdownTimeout());
    if (properties.getConsumerName() != null) {
      builder.consumerName(properties.getConsumerName());
    }
    if (properties.getPublishEventsTo() != null) {
      builder.publishEventsTo(properties.getPublishEventsTo());
    }
    types.orderedStream().forEach(builder::register);
    List<DeliveryObserver> all = observers.orderedStream().toList();
    if (!all.isEmpty()) {
      builder.observer(DeliveryObserver.all(all.toArray(DeliveryObserver[]::new)));
    }
    customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
    return builder.build();
  }

  /**
   * Starts the worker when the context is ready and drains it in graceful shutdown.
   *
   * @param worker the worker
   * @param properties the properties
   * @return the lifecycle
   */
  @Bean
  @ConditionalOnMissingBean
  public IdemworkerLifecycle idemworkerLifecycle(
      IdempotentWorker worker, IdemworkerProperties properties) {
    return new IdemworkerLifecycle(worker, properties.getShutdownTimeout());
  }

  /** Outcome and duplicate counters when Micrometer is on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  static class Metrics {
    /**
     * Counts into the application's registry, found at the first delivery.
     *
     * @param registry the registry, when the application has one
     * @return the observer
     */
    @Bean
    @ConditionalOnMissingBean(MicrometerDeliveryObserver.class)
    DeliveryObserver idemworkerMicrometerObserver(ObjectProvider<MeterRegistry> registry) {
      AtomicReference<DeliveryObserver> resolved = new AtomicReference<>();
      return message -> {
        DeliveryObserver observer = resolved.get();
        if (observer == null) {
          MeterRegistry found = registry.getIfUnique();
          observer =
              found == null ? DeliveryObserver.none() : new MicrometerDeliveryObserver(found);
          resolved.compareAndSet(null, observer);
        }
        return observer.start(message);
      };
    }
  }

  /**
   * An observation per delivery when the application has an ObservationRegistry (Actuator's, with
   * Micrometer Tracing when the application traces).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(ObservationRegistry.class)
  static class Observations {
    /**
     * Observes into the application's registry, found at the first delivery.
     *
     * @param registry the registry, when the application has one
     * @return the observer
     */
    @Bean
    @ConditionalOnMissingBean(ObservationDeliveryObserver.class)
    @Order(Ordered.HIGHEST_PRECEDENCE)
    DeliveryObserver idemworkerObservationObserver(ObjectProvider<ObservationRegistry> registry) {
      AtomicReference<DeliveryObserver> resolved = new AtomicReference<>();
      return message -> {
        DeliveryObserver observer = resolved.get();
        if (observer == null) {
          ObservationRegistry found = registry.getIfUnique();
          observer =
              found == null ? DeliveryObserver.none() : new ObservationDeliveryObserver(found);
          resolved.compareAndSet(null, observer);
        }
        return observer.start(message);
      };
    }
  }

  /** The health indicator when Spring Boot's health is on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  static class HealthConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "idemworkerHealthIndicator")
    IdemworkerHealthIndicator idemworkerHealthIndicator(IdempotentWorker worker) {
      return new IdemworkerHealthIndicator(worker);
    }
  }

  private static void checked(IdemworkerProperties properties) {
    List<String> problems = properties.problems();
    if (!problems.isEmpty()) {
      throw new IdemworkerConfigurationException(problems);
    }
  }

  private static IdemworkerConfigurationException misconfigured(String problem) {
    return new IdemworkerConfigurationException(List.of(problem));
  }

  private static Optional<String> first(String... values) {
    for (String value : values) {
      if (value != null && !value.isBlank()) {
        return Optional.of(value);
      }
    }
    return Optional.empty();
  }
}
