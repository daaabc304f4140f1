package io.idemworker.app;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import io.idemworker.consumers.CustomerConsumers;
import io.idemworker.consumers.CustomerDocumentIds;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.KeyStrategies;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.processor.ProcessorSessions;
import io.idemworker.servicebus.processor.ServiceBusWorker;
import io.idemworker.servicebus.sessions.SessionSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Builds a consumer of a topic subscription ({@code loyalty}, {@code customer-stats}) in code, the
 * way {@code run} builds it from {@code WORKER_ROLE}: for the demo, the bench and tests, against
 * emulators or Azure.
 *
 * <pre>{@code
 * CosmosContainer customers = ConsumerWorkers.customers(cosmosClient, "idemworker");
 * ServiceBusWorker loyalty =
 *     ConsumerWorkers.worker(
 *         CustomerConsumers.Role.LOYALTY,
 *         new ServiceBusConnection.ConnectionString(serviceBus.connectionString()),
 *         ProcessorSettings.defaults(new ProcessorSettings.Subscription("order-events", "loyalty")),
 *         customers, Optional.of(Duration.ofDays(14)), 10, listener, observer, Clock.systemUTC());
 * loyalty.start();   // ... loyalty.shutdown(Duration.ofSeconds(10));
 * }</pre>
 */
public final class ConsumerWorkers {
  /** Bodies above this are dead-lettered, as {@code WORKER_MAX_BODY_BYTES}' default. */
  static final int MAX_BODY_BYTES = 262_144;

  private ConsumerWorkers() {}

  /**
   * The shared {@code customers} container (partition key {@code /customerId}, {@code defaultTtl}
   * -1), created if missing.
   *
   * @param client the Cosmos DB client
   * @param database the database
   * @return the container
   */
  public static CosmosContainer customers(CosmosClient client, String database) {
    return CosmosContainers.ensureExists(
        client, database, WorkerConfig.CUSTOMERS_CONTAINER, CustomerDocumentIds.PARTITION_KEY_PATH);
  }

  /**
   * A worker for one consumer role on its subscription; nothing connects until {@code start()}. Its
   * markers are named after the role ({@code inbox:{role}:{eventId}}).
   *
   * @param role the consumer
   * @param connection the Service Bus namespace
   * @param settings the processor settings; their source must be a {@link
   *     ProcessorSettings.Subscription}
   * @param customers the container partitioned by {@code /customerId}
   * @param markerTtl how long markers live (empty = forever); must outlive every way an event can
   *     come back, relay re-publishes included
   * @param maxDeliveryCount the subscription's MaxDeliveryCount
   * @param storeListener told about every Cosmos DB round trip
   * @param observer told about every delivery and its outcome
   * @param clock stamps acceptance times
   * @return the worker
   */
  public static ServiceBusWorker worker(
      CustomerConsumers.Role role,
      ServiceBusConnection connection,
      ProcessorSettings settings,
      CosmosContainer customers,
      Optional<Duration> markerTtl,
      int maxDeliveryCount,
      StoreCallListener storeListener,
      DeliveryObserver observer,
      Clock clock) {
    return build(
        role,
        connection,
        settings,
        Optional.empty(),
        customers,
        markerTtl,
        maxDeliveryCount,
        storeListener,
        observer,
        clock);
  }

  /**
   * As {@link #worker}, in session mode ({@code SERVICEBUS_SESSIONS=true}): the subscription must
   * require sessions; each event is taken in its order's session ({@code SessionId} = orderId, as
   * the relay publishes), up to {@link SessionSettings#maxConcurrentSessions()} orders at once and
   * one event at a time in each, and an event in another order's session is dead-lettered as {@code
   * SessionIdMismatch}. Idempotency is unchanged.
   *
   * @param role the consumer
   * @param connection the Service Bus namespace
   * @param settings the processor settings (their concurrent calls and prefetch do not apply); the
   *     source must be a {@link ProcessorSettings.Subscription}
   * @param sessions sessions at once and their idle timeout (the gap and parking settings do not
   *     apply: a consumer keeps no session state)
   * @param customers the container partitioned by {@code /customerId}
   * @param markerTtl how long markers live (empty = forever)
   * @param maxDeliveryCount the subscription's MaxDeliveryCount
   * @param storeListener told about every Cosmos DB round trip
   * @param observer told about every delivery and its outcome
   * @param clock stamps acceptance times
   * @return the worker
   */
  public static ServiceBusWorker sessionWorker(
      CustomerConsumers.Role role,
      ServiceBusConnection connection,
      ProcessorSettings settings,
      SessionSettings sessions,
      CosmosContainer customers,
      Optional<Duration> markerTtl,
      int maxDeliveryCount,
      StoreCallListener storeListener,
      DeliveryObserver observer,
      Clock clock) {
    return build(
        role,
        connection,
        settings,
        Optional.of(
            ProcessorSessions.of(
                sessions.withSessionKeyName(OrderDocumentIds.PARTITION_KEY_FIELD),
                CustomerConsumers::sessionOf)),
        customers,
        markerTtl,
        maxDeliveryCount,
        storeListener,
        observer,
        clock);
  }

  private static ServiceBusWorker build(
      CustomerConsumers.Role role,
      ServiceBusConnection connection,
      ProcessorSettings settings,
      Optional<ProcessorSessions> sessions,
      CosmosContainer customers,
      Optional<Duration> markerTtl,
      int maxDeliveryCount,
      StoreCallListener storeListener,
      DeliveryObserver observer,
      Clock clock) {
    if (!(settings.source() instanceof ProcessorSettings.Subscription)) {
      throw new IllegalArgumentException(
          "a " + role.roleName() + " consumer reads a topic subscription, not a queue");
    }
    CosmosEffectStore store =
        new CosmosEffectStore(customers, storeListener, CustomerDocumentIds.PARTITION_KEY_PATH);
    IdempotentConsumer consumer =
        new IdempotentConsumer(
            KeyStrategies.messageId(),
            CustomerConsumers.decoder(role, new InboxMarkers(role.roleName(), markerTtl)),
            store,
            clock,
            MAX_BODY_BYTES,
            maxDeliveryCount);
    return sessions.isPresent()
        ? ServiceBusWorker.withSessions(
            connection, settings, sessions.get(), consumer, store, observer, clock)
        : new ServiceBusWorker(connection, settings, consumer, store, observer, clock);
  }
}
