package io.idemworker.emulator.junit;

import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.servicebus.AdminEndpoint;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import java.net.URI;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/**
 * What a test gets from {@link AzureEmulators}: the running emulators, the values a client needs to
 * reach them, and fresh names for isolation. Thread-safe: the emulators are, and the handle is
 * immutable.
 *
 * <p>Asking for an emulator the class did not switch on throws {@link IllegalStateException} naming
 * the {@code @AzureEmulators} attribute to set.
 */
public final class Emulators {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Optional<ServiceBusEmulator> serviceBus;
  private final Optional<CosmosEmulator> cosmos;
  private final Optional<PaymentProviderEmulator> payments;

  Emulators(
      Optional<ServiceBusEmulator> serviceBus,
      Optional<CosmosEmulator> cosmos,
      Optional<PaymentProviderEmulator> payments) {
    this.serviceBus = serviceBus;
    this.cosmos = cosmos;
    this.payments = payments;
  }

  /** The Service Bus emulator, for its fault controls and counters. */
  public ServiceBusEmulator serviceBus() {
    return serviceBus.orElseThrow(() -> off("serviceBus"));
  }

  /** The Cosmos DB emulator, for its fault controls and request statistics. */
  public CosmosEmulator cosmos() {
    return cosmos.orElseThrow(() -> off("cosmos"));
  }

  /** The payment-provider double, for its faults, ledger and webhooks. */
  public PaymentProviderEmulator payments() {
    return payments.orElseThrow(() -> off("payments"));
  }

  /**
   * The connection string for {@code ServiceBusClientBuilder.connectionString} ({@code
   * UseDevelopmentEmulator=true}: plain AMQP on loopback), carrying the key of {@link
   * AzureEmulators#serviceBusSharedAccessKey()} when the class set one.
   */
  public String serviceBusConnectionString() {
    return serviceBus().connectionString();
  }

  /**
   * The Service Bus administration API's HTTPS endpoint: its port and the certificate it presents.
   * Build {@code ServiceBusAdministrationClient} with {@link #serviceBusConnectionString()} (the
   * credential), an HTTP client that trusts {@link AdminEndpoint#certificate()} and a pipeline
   * policy that sets each request's port to {@link AdminEndpoint#port()}: the SDK keeps only the
   * host of a connection string and dials 443.
   *
   * @return the endpoint
   * @throws IllegalStateException when the class did not set {@code @AzureEmulators(serviceBusAdmin
   *     = true)}, naming it
   */
  public AdminEndpoint serviceBusAdmin() {
    ServiceBusEmulator emulator = serviceBus();
    try {
      return emulator.admin();
    } catch (IllegalStateException e) {
      throw new IllegalStateException(
          "the Service Bus administration API is not served for this test class: set"
              + " @AzureEmulators(serviceBusAdmin = true)",
          e);
    }
  }

  /** The endpoint for {@code CosmosClientBuilder.endpoint} (HTTPS; use gateway mode). */
  public String cosmosEndpoint() {
    return cosmos().endpoint();
  }

  /** The master key for {@code CosmosClientBuilder.key}. */
  public String cosmosKey() {
    return cosmos().key();
  }

  /** The payment double's base URL. */
  public URI paymentsBaseUrl() {
    return payments().baseUrl();
  }

  /** The API key the payment double accepts. */
  public String paymentsApiKey() {
    return payments().apiKey();
  }

  /**
   * A name no other call returns: {@code prefix}, a dash and 12 hexadecimal characters; valid for
   * queues, topics, subscriptions, databases, containers and item ids.
   *
   * @param prefix 1-40 letters, digits, dashes or dots
   * @throws IllegalArgumentException for another prefix
   */
  public String uniqueName(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    if (!prefix.matches("[A-Za-z0-9][A-Za-z0-9.-]{0,39}")) {
      throw new IllegalArgumentException(
          "prefix must be 1-40 letters, digits, dashes or dots, starting with a letter or digit: '"
              + prefix
              + "'");
    }
    byte[] bytes = new byte[6];
    RANDOM.nextBytes(bytes);
    return prefix + "-" + HexFormat.of().formatHex(bytes);
  }

  /**
   * Creates a queue with a fresh name and the emulator's defaults, for a test of its own.
   *
   * @param prefix as for {@link #uniqueName(String)}
   * @return the queue's name
   */
  public String newQueue(String prefix) {
    String name = uniqueName(prefix);
    serviceBus().createQueue(QueueSettings.defaults(name));
    return name;
  }

  /**
   * Creates a queue with a fresh name and the options an {@link AzureEmulators#queues()} entry
   * takes, for a test of its own.
   *
   * @param prefix as for {@link #uniqueName(String)}
   * @param options options separated by spaces, such as {@code "lockDuration=5s sessions"}
   * @return the queue's name
   * @throws IllegalArgumentException for a malformed prefix or option
   */
  public String newQueue(String prefix, String options) {
    String name = uniqueName(prefix);
    try {
      serviceBus().createQueue(Declarations.queue(name + " " + options));
    } catch (org.junit.jupiter.api.extension.ExtensionConfigurationException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    return name;
  }

  /**
   * Creates a container with a fresh name in a database (created when missing), with the partition
   * key path and options an {@link AzureEmulators#containers()} entry takes, for a test of its own:
   * {@code newContainer("shop", "orders", "/orderId ranges=3 ttl=60s")}.
   *
   * @param database the database's id
   * @param prefix as for {@link #uniqueName(String)}
   * @param partitionKeyAndOptions the partition key path, then options separated by spaces
   * @return the container's id
   * @throws IllegalArgumentException for a malformed prefix, path or option
   */
  public String newContainer(String database, String prefix, String partitionKeyAndOptions) {
    String name = uniqueName(prefix);
    try {
      cosmos()
          .createContainer(
              Declarations.container(database + "/" + name + ":" + partitionKeyAndOptions.trim()));
    } catch (org.junit.jupiter.api.extension.ExtensionConfigurationException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    return name;
  }

  /**
   * Clears every fault of every running emulator, whoever armed it: in a class whose tests run in
   * parallel, also those of the tests running beside. The extension disarms what each test armed
   * after it, and calls this whenever no test of the emulators is running.
   */
  public void clearFaults() {
    serviceBus.ifPresent(s -> s.faults().clear());
    cosmos.ifPresent(c -> c.faults().clear());
    payments.ifPresent(p -> p.faults().clear());
  }

  private static IllegalStateException off(String attribute) {
    return new IllegalStateException(
        "the "
            + attribute
            + " emulator is not running for this test class: set @AzureEmulators("
            + attribute
            + " = true)");
  }
}
