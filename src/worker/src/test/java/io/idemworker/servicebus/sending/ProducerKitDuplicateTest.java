package io.idemworker.servicebus.sending;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.core.amqp.exception.AmqpException;
import com.azure.messaging.servicebus.ServiceBusErrorSource;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.app.OrderMessages;
import io.idemworker.core.DuplicateSource;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.orders.OrderDecoder;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.Orders;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.processor.ServiceBusWorker;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.MutableClock;
import io.idemworker.testing.RecordingObserver;
import io.idemworker.testing.RecordingObserver.Finished;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The duplicate checks a producer's copies must pass, run through the real clients against the
 * emulators with the real kit and with a mutant kit that puts a random MessageId on the wire: the
 * checks pass with the first and find the second's violations (a mutation test, as the simulation's
 * {@code MutantSimulationTest} does for the protections).
 *
 * <p>The checks: a send whose acknowledgement is lost is retried as attempt 2 and the broker's
 * duplicate detection drops it inside its window, so the worker processes the order once; a
 * producer that sends again after the window (attempt 3) has its copy completed as a {@code resend}
 * duplicate naming producer attempt 3.
 */
@AzureEmulators(serviceBus = false)
class ProducerKitDuplicateTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Duration WINDOW = Duration.ofMinutes(10);
  private static final String QUEUE = "orders";

  private final MutableClock brokerClock = new MutableClock();
  private final RecordingObserver observer = new RecordingObserver();
  private ServiceBusEmulator serviceBus;
  private ServiceBusWorker worker;

  @BeforeEach
  void start() {
    serviceBus =
        ServiceBusEmulator.builder()
            .port(0)
            .clock(brokerClock)
            .queue(
                QueueSettings.defaults(QUEUE)
                    .withRequiresDuplicateDetection(true)
                    .withDuplicateDetectionHistoryTimeWindow(WINDOW)
                    .withLockDuration(Duration.ofSeconds(30)))
            .start();
    CosmosEffectStore store =
        new CosmosEffectStore(
            EmulatorClients.orders(azure), (o, s, c, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH);
    worker =
        new ServiceBusWorker(
            new ServiceBusConnection.ConnectionString(serviceBus.connectionString()),
            ProcessorSettings.defaults(QUEUE)
                .withMaxConcurrentCalls(2)
                .withMaxRetryBackoff(Duration.ofMillis(50))
                .withProbeInterval(Duration.ofMillis(200)),
            TestFlow.of(new OrderDecoder(true), store).build(),
            store,
            observer,
            Clock.systemUTC());
    worker.start();
  }

  @AfterEach
  void stop() {
    worker.shutdown(Duration.ofSeconds(10));
    serviceBus.close();
  }

  private ServiceBusSenderClient client() {
    return new com.azure.messaging.servicebus.ServiceBusClientBuilder()
        .connectionString(serviceBus.connectionString())
        .sender()
        .queueName(QUEUE)
        .buildClient();
  }

  /** A transport whose first send reaches the broker but loses its acknowledgement. */
  private static ProducerKit.Transport firstAcknowledgementLost(ServiceBusSenderClient client) {
    AtomicInteger sends = new AtomicInteger();
    return messages -> {
      client.sendMessages(messages);
      if (sends.getAndIncrement() == 0) {
        throw new ServiceBusException(
            new AmqpException(true, "acknowledgement lost (test)", null),
            ServiceBusErrorSource.SEND);
      }
    };
  }

  /**
   * Runs the producer's copies of one order through the broker and the worker.
   *
   * @param wireId what the kit puts on the wire as MessageId (identity: the real kit)
   * @return what the checks found wrong; empty when the copies were caught as they must be
   */
  private List<String> violations(UnaryOperator<String> wireId) {
    List<String> violations = new ArrayList<>();
    String orderId = "ord-" + UUID.randomUUID().toString().substring(0, 13);
    Outgoing order = OrderMessages.outgoing(orderId, Orders.body(orderId, "cust-42"), "c");
    ServiceBusSenderClient client = client();
    try (ProducerKit kit = new ProducerKit(client, firstAcknowledgementLost(client), wireId, 3)) {
      // attempts 1 and 2 both reach the broker, inside its window
      int acknowledged = kit.send(order);
      if (acknowledged != 2) {
        violations.add("the lost acknowledgement was not retried: attempt " + acknowledged);
      }
      Finished first = observer.await(1, f -> true, WAIT).get(0);
      if (!(first.outcome() instanceof Outcome.Processed)) {
        violations.add("the first copy was " + describe(first) + ", not processed");
      }

      // the producer sends again after the window
      brokerClock.advance(WINDOW.plusMinutes(1));
      kit.send(order, 3);
      Finished second = observer.await(2, f -> true, WAIT).get(1);
      if (!(second.outcome() instanceof Outcome.Duplicate duplicate)
          || duplicate.source() != DuplicateSource.RESEND
          || duplicate.producerAttempt() != 3) {
        violations.add(
            "the copy after the window was "
                + describe(second)
                + ", not a duplicate from resend (producer attempt 3): attempt 2 got past the"
                + " broker, or the key changed between attempts");
      }
    }
    return violations;
  }

  private static String describe(Finished finished) {
    return finished.outcome() instanceof Outcome.Duplicate duplicate
        ? "duplicate " + duplicate.provenance()
        : finished.outcome().label() + " " + finished.outcome();
  }

  @Test
  void theKitsCopies_areDroppedByTheBrokerOrCompletedAsAResendNamingTheAttempt() {
    assertThat(violations(UnaryOperator.identity())).isEmpty();
    assertThat(observer.finished()).hasSize(2);
  }

  @Test
  void mutant_randomMessageIdsOnTheWire_areFoundByTheDuplicateChecks() {
    List<String> found = violations(businessKey -> UUID.randomUUID().toString());

    assertThat(found)
        .as("random MessageIds: the broker cannot drop the retry, the worker cannot key it")
        .anySatisfy(v -> assertThat(v).startsWith("the first copy was dead_lettered"))
        .anySatisfy(v -> assertThat(v).startsWith("the copy after the window was"));
  }
}
