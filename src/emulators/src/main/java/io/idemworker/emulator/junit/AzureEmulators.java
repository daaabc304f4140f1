package io.idemworker.emulator.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the in-process Azure emulators for a test class and injects an {@link Emulators} handle into
 * its test and lifecycle method parameters (and into fields of that type).
 *
 * <pre>{@code
 * @AzureEmulators(queues = "orders", containers = "shop/orders:/orderId")
 * class OrderServiceTest {
 *   @Test
 *   void placesAnOrderOnce(Emulators azure) {
 *     var sender = new ServiceBusClientBuilder()
 *         .connectionString(azure.serviceBusConnectionString()).sender().queueName("orders")
 *         .buildClient();
 *     var cosmos = new CosmosClientBuilder()
 *         .endpoint(azure.cosmosEndpoint()).key(azure.cosmosKey()).gatewayMode().buildClient();
 *     ...
 *   }
 * }
 * }</pre>
 *
 * <p>Entities are created before the first test of the class and are idempotent (an existing entity
 * keeps its settings), so classes sharing emulators may declare the same ones. After each test the
 * faults that test armed (on its own thread, in {@code @BeforeEach}, the test or
 * {@code @AfterEach}) are disarmed, and no others, so tests running in parallel keep theirs;
 * whenever no test of the emulators is running, every fault is cleared. Declaring something the
 * emulators do not serve (an auto-forwarding queue in a {@code Config.json}, a malformed
 * declaration) fails the class with an {@link
 * org.junit.jupiter.api.extension.ExtensionConfigurationException} that names the declaration.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(EmulatorsExtension.class)
public @interface AzureEmulators {

  /** How long the emulators live. */
  enum Sharing {
    /**
     * One set for the whole test run (the JVM's JUnit engine run), started on first use and closed
     * when the run ends: the fastest; isolate tests with {@link Emulators#uniqueName(String)}.
     * Classes that ask for other Service Bus settings ({@link #serviceBusAdmin()}, {@link
     * #serviceBusSharedAccessKey()}) share a Service Bus emulator of their own, started with those
     * settings; the Cosmos DB emulator and the payment double are the run's.
     */
    PER_RUN,
    /** A set of the class's own, closed after its last test. */
    PER_CLASS
  }

  /** Whether to run the Service Bus emulator (AMQP 1.0, plain, on a free loopback port). */
  boolean serviceBus() default true;

  /**
   * Whether the Service Bus emulator also serves the administration API ({@code
   * ServiceBusAdministrationClient}: queues, topics, subscriptions and rules as Atom entries,
   * runtime counts) over HTTPS on a free loopback port; off by default. {@link
   * Emulators#serviceBusAdmin()} gives its port and the certificate it presents: the SDK's client
   * takes the credential from {@link Emulators#serviceBusConnectionString()}, trusts that
   * certificate and is sent to that port (it dials 443 otherwise).
   */
  boolean serviceBusAdmin() default false;

  /**
   * The shared access key the Service Bus emulator checks tokens against, as the service does: a
   * token signed with another key, naming another key name, expired or for another entity is
   * refused ({@code UNAUTHORIZED} in the SDK, 401 from the administration API). Empty (the
   * default): no checking, every token accepted. {@link Emulators#serviceBusConnectionString()}
   * carries this key and {@link #serviceBusSharedAccessKeyName()}. Neither may hold {@code ;} (it
   * ends a connection-string field).
   */
  String serviceBusSharedAccessKey() default "";

  /**
   * The name of {@link #serviceBusSharedAccessKey()}, {@code RootManageSharedAccessKey} by default
   * (the service's and Microsoft's emulator's); only with a key.
   */
  String serviceBusSharedAccessKeyName() default "RootManageSharedAccessKey";

  /**
   * Whether to run the Cosmos DB emulator (HTTPS gateway, self-signed, on a free loopback port).
   */
  boolean cosmos() default true;

  /** Whether to run the payment-provider double (HTTP on a free loopback port). */
  boolean payments() default false;

  /** How long the emulators live; {@link Sharing#PER_RUN} by default. */
  Sharing sharing() default Sharing.PER_RUN;

  /**
   * Queues to create, each a name followed by options separated by spaces, for instance {@code
   * "orders lockDuration=30s maxDeliveryCount=3 sessions duplicateDetection=10m"}. Options, keys in
   * any case:
   *
   * <ul>
   *   <li>{@code lockDuration=30s}: LockDuration (default 1 minute);
   *   <li>{@code maxDeliveryCount=3}: MaxDeliveryCount (default 10);
   *   <li>{@code sessions}: RequiresSession;
   *   <li>{@code duplicateDetection} or {@code duplicateDetection=10m}: RequiresDuplicateDetection,
   *       with its history window (default 10 minutes);
   *   <li>{@code ttl=1h}: DefaultMessageTimeToLive (default 14 days);
   *   <li>{@code deadLetterOnExpiry}: DeadLetteringOnMessageExpiration.
   * </ul>
   *
   * Durations are {@code 500ms}, {@code 30s}, {@code 10m}, {@code 1h}, {@code 2d} or ISO-8601
   * ({@code PT30S}); a flag also takes {@code =true} or {@code =false}.
   */
  String[] queues() default {};

  /**
   * Topics to create, each {@code topic} or {@code topic/subscription,subscription}; every
   * subscription gets the defaults and the catch-all rule.
   */
  String[] topics() default {};

  /**
   * Cosmos DB containers to create, each {@code database/container:/partitionKeyPath} (the database
   * is created when missing) followed by options separated by spaces, for instance {@code
   * "shop/orders:/orderId ranges=3 ttl=60s"}:
   *
   * <ul>
   *   <li>{@code ranges=3}: the container's partition key ranges, 1 to 64 (default: the emulator's,
   *       one), so that the SDK fans cross-partition queries and the change feed out over them and
   *       merges the answers;
   *   <li>{@code ttl=60s} (or {@code ttl=60}, {@code ttl=2m}): the container's {@code defaultTtl}
   *       in whole seconds; {@code ttl=-1} or {@code ttl=on} switches time to live on without a
   *       default expiry (items expire by their own {@code ttl}). Without it time to live is off.
   * </ul>
   *
   * A container that exists already is kept when it has the path and the options named, and fails
   * the class otherwise.
   */
  String[] containers() default {};

  /**
   * An official-format Service Bus emulator {@code Config.json} to load entities from: a class-path
   * resource, or else a file path. Empty: none.
   */
  String serviceBusConfig() default "";
}
