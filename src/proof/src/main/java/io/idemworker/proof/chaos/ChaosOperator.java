package io.idemworker.proof.chaos;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.deadletter.DeadLetterReader;
import io.idemworker.servicebus.sessions.ParkedSessions;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The operator of {@code chaos --sessions}: looks at the parked orders, then releases or discards
 * them, through {@link ParkedSessions}, which is what {@code explain}, {@code dlq release} and
 * {@code dlq discard} run (in this process, as {@code ChaosResubmit} runs {@code resubmit}'s code).
 * A command that meets a session a worker holds is repeated, as an operator would on exit code 3.
 * Not thread-safe.
 */
final class ChaosOperator {
  /** How often a command may meet a busy session before the run gives up on it. */
  private static final int BUSY_ATTEMPTS = 40;

  private final PrintStream log;
  private final ServiceBusConnection connection;
  private final String queue;

  ChaosOperator(PrintStream log, ServiceBusConnection connection, String queue) {
    this.log = log;
    this.connection = connection;
    this.queue = queue;
  }

  /** Each poisoned order's parking and its order document's progress, as found now. */
  Map<String, SessionsAudit.Seen> look(List<SessionsAudit.Plan> poisoned, CosmosContainer orders)
      throws InterruptedException {
    Map<String, SessionsAudit.Seen> seen = new LinkedHashMap<>();
    try (ParkedSessions operator = new ParkedSessions(connection, queue)) {
      for (SessionsAudit.Plan plan : poisoned) {
        String id = plan.orderId();
        Optional<ParkedSessions.Parking> parking = whenFree(() -> operator.look(id));
        Optional<ObjectNode> order = order(orders, id);
        seen.put(
            id,
            new SessionsAudit.Seen(
                parking,
                order.map(o -> o.path("statusVersion").asLong(0)).orElse(0L),
                order.map(o -> o.path("creditCount").asLong(0)).orElse(0L)));
      }
    }
    long parked = seen.values().stream().filter(s -> s.parking().isPresent()).count();
    log.printf("  explain: %d of %d poisoned orders parked%n", parked, poisoned.size());
    return seen;
  }

  /** {@code dlq release} for the orders planned so, {@code dlq discard} for the others. */
  Map<String, SessionsAudit.Operated> act(List<SessionsAudit.Plan> poisoned)
      throws InterruptedException {
    Map<String, SessionsAudit.Operated> operated = new LinkedHashMap<>();
    try (ParkedSessions operator = new ParkedSessions(connection, queue)) {
      for (SessionsAudit.Plan plan : poisoned) {
        String id = plan.orderId();
        if (plan.fate() == SessionsAudit.Fate.RELEASE) {
          Optional<ParkedSessions.Released> released =
              whenFree(() -> operator.release(id, Duration.ofSeconds(2)));
          boolean resubmitted = released.flatMap(ParkedSessions.Released::resubmitted).isPresent();
          log.printf(
              "    dlq release %s: %s%n",
              id,
              released.isEmpty()
                  ? "not parked"
                  : resubmitted
                      ? "resubmitted " + plan.poisonId()
                      : plan.poisonId() + " not in the dead-letter queue");
          operated.put(id, new SessionsAudit.Operated(resubmitted, List.of()));
        } else {
          List<ParkedSessions.Moved> dropped = whenFree(() -> operator.discard(id));
          dropped.forEach(
              m ->
                  log.printf(
                      "    dlq discard %s: discarded %s %s sequence %d%n",
                      id, m.messageId(), m.subject(), m.sequenceNumber()));
          operated.put(id, new SessionsAudit.Operated(false, dropped));
        }
      }
    }
    return operated;
  }

  /** The queue's dead-letter queue now. */
  List<SessionsAudit.Letter> deadLetters() {
    return new DeadLetterReader(connection)
        .peek(new DeadLetterReader.Queue(queue), 1_000_000).messages().stream()
            .map(d -> new SessionsAudit.Letter(d.messageId().orElse(""), d.reason()))
            .toList();
  }

  static Optional<ObjectNode> order(CosmosContainer container, String orderId) {
    try {
      return Optional.of(
          container.readItem(orderId, new PartitionKey(orderId), ObjectNode.class).getItem());
    } catch (CosmosException e) {
      if (e.getStatusCode() == 404) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private static <T> T whenFree(Supplier<T> command) throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return command.get();
      } catch (ParkedSessions.SessionBusy e) {
        if (attempt == BUSY_ATTEMPTS) {
          throw e;
        }
        TimeUnit.MILLISECONDS.sleep(250); // the operator's "try again" on exit code 3
      }
    }
  }
}
