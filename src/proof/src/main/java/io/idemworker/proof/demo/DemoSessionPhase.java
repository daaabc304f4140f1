package io.idemworker.proof.demo;

import com.azure.core.util.BinaryData;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.KeyStrategies;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.Outcome;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.proof.audit.Check;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.sending.SessionIds;
import io.idemworker.servicebus.sessions.ParkedSessions;
import io.idemworker.servicebus.sessions.SessionEvents;
import io.idemworker.servicebus.sessions.SessionSettings;
import io.idemworker.servicebus.sessions.SessionWorker;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The demo's session phase, on a queue of its own that requires sessions: one order's status
 * versions sent 1, 3, 2 apply as 1, 2, 3 (version 3 waits in the session for 2), and another
 * order's poison message parks the message behind it until {@code dlq discard} drops it with a
 * record. Used once, from the demo's thread.
 */
final class DemoSessionPhase {
  /** How often an operator command meets a busy session before the demo gives up. */
  private static final int BUSY_ATTEMPTS = 20;

  static final String QUEUE = "orders-sessions";

  private final PrintStream out;
  private final Duration timeout;

  DemoSessionPhase(PrintStream out, Duration timeout) {
    this.out = out;
    this.timeout = timeout;
  }

  List<Check> run(ServiceBusEmulator serviceBus, CosmosClient cosmosClient, long seed)
      throws InterruptedException {
    out.println(
        "phase 8: session mode: status versions sent 1, 3, 2 for one order; a poison message in the middle of another");
    serviceBus.createQueue(
        QueueSettings.defaults(QUEUE)
            .withRequiresSession(true)
            .withLockDuration(Duration.ofMinutes(5)));
    CosmosContainer container =
        CosmosContainers.ensureExists(
            cosmosClient, "idemworker", QUEUE, OrderDocumentIds.PARTITION_KEY_PATH);
    String ordered = "ord-" + seed + "-s1";
    String parked = "ord-" + seed + "-s2";
    ServiceBusConnection connection =
        new ServiceBusConnection.ConnectionString(serviceBus.connectionString());
    try (ServiceBusSenderClient sender =
        connection.builder().sender().queueName(QUEUE).buildClient()) {
      sender.sendMessages(
          List.of(
              message(ordered, ordered, "OrderPlaced", placed(ordered)),
              status(ordered, 1, "Confirmed"),
              status(ordered, 3, "Shipped"),
              status(ordered, 2, "Packed"),
              message(parked, parked, "OrderPlaced", placed(parked)),
              message(
                  parked,
                  "cr-" + parked,
                  OrderMessageTypes.ORDER_CREDITED,
                  "{\"orderId\":\""
                      + parked
                      + "\",\"creditId\":\"cr-"
                      + parked
                      + "\",\"amount\":1,\"currency\":\"USD\",\"reason\":\"poison\"}"),
              status(parked, 1, "Confirmed")));
    }
    Map<String, Outcome> outcomes = new ConcurrentHashMap<>();
    // Deliveries that applied a message, settled or not: a version applied after a higher one would
    // be stale instead, so version 2 applied once means it went in before version 3.
    Map<String, Integer> applied = new ConcurrentHashMap<>();
    CountDownLatch finals = new CountDownLatch(6);
    DeliveryObserver observer =
        message ->
            (outcome, elapsed, settled) -> {
              if (outcome instanceof Outcome.Processed) {
                applied.merge(message.messageId().orElse(""), 1, Integer::sum);
              }
              if (settled && !(outcome instanceof Outcome.Retry)) {
                outcomes.put(message.messageId().orElse(""), outcome);
                finals.countDown();
              }
            };
    MessageDecoder decoder =
        OrderMessageTypes.decoder(
            true, new InboxMarkers("orders", Optional.of(Duration.ofDays(14))));
    CosmosEffectStore store =
        new CosmosEffectStore(
            container, (op, status, charge, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH);
    SessionWorker worker =
        new SessionWorker(
            connection,
            ProcessorSettings.defaults(QUEUE),
            SessionSettings.defaults().withMaxConcurrentSessions(2),
            new IdempotentConsumer(
                KeyStrategies.messageId(), decoder, store, Clock.systemUTC(), 64 * 1024),
            decoder,
            store,
            store,
            observer,
            new SessionEvents(),
            Clock.systemUTC());
    boolean settled;
    try {
      worker.start();
      settled = finals.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } finally {
      worker.shutdown(Duration.ofSeconds(10));
    }
    Optional<ParkedSessions.Parking> parking;
    List<ParkedSessions.Moved> discarded;
    try (ParkedSessions operator = new ParkedSessions(connection, QUEUE)) {
      parking = whenFree(() -> operator.look(parked));
      discarded = whenFree(() -> operator.discard(parked));
    }
    ObjectNode order =
        container.readItem(ordered, new PartitionKey(ordered), ObjectNode.class).getItem();
    String second = OrderMessageTypes.statusMessageId(ordered, 2);
    String third = OrderMessageTypes.statusMessageId(ordered, 3);
    boolean inOrder =
        settled
            && applied.getOrDefault(second, 0) == 1
            && applied.getOrDefault(third, 0) == 1
            && order.path("statusVersion").asLong() == 3
            && "Shipped".equals(order.path("status").asText());
    parking.ifPresent(
        p ->
            out.printf(
                "  %s parked behind %s (%s), %d message(s) waiting; dlq discard dropped: %s%n",
                parked,
                p.messageId(),
                p.reason(),
                p.behind().size(),
                discarded.stream().map(ParkedSessions.Moved::messageId).toList()));
    boolean parkedAndDiscarded =
        parking
                .map(p -> p.reason().equals("CurrencyMismatch") && p.behind().size() == 1)
                .orElse(false)
            && discarded.size() == 1
            && discarded.get(0).messageId().equals(OrderMessageTypes.statusMessageId(parked, 1));
    return List.of(
        new Check(
            "sessions: status versions sent 1, 3, 2 applied as 1, 2, 3 (version 3 waited in its"
                + " session)",
            inOrder,
            "versions 2 and 3 applied by "
                + applied.getOrDefault(second, 0)
                + " and "
                + applied.getOrDefault(third, 0)
                + " deliveries; version 2 ended "
                + Optional.ofNullable(outcomes.get(second)).map(Outcome::label).orElse("unsettled")
                + "; the order is at version "
                + order.path("statusVersion").asLong()),
        new Check(
            "sessions: a poison message parked the rest of its order; dlq discard dropped it with a"
                + " record",
            parkedAndDiscarded,
            parking.map(ParkedSessions.Parking::toString).orElse("not parked")));
  }

  private static ServiceBusMessage status(String orderId, long version, String status) {
    return message(
        orderId,
        OrderMessageTypes.statusMessageId(orderId, version),
        OrderMessageTypes.ORDER_STATUS_CHANGED,
        "{\"orderId\":\""
            + orderId
            + "\",\"status\":\""
            + status
            + "\",\"version\":"
            + version
            + ",\"changedAt\":\"2026-11-30T11:00:00Z\"}");
  }

  private static String placed(String orderId) {
    return "{\"orderId\":\""
        + orderId
        + "\",\"customerId\":\"cust-1\",\"currency\":\"EUR\",\"placedAt\":\"2026-11-30T10:00:00Z\","
        + "\"lines\":[{\"sku\":\"SKU-1\",\"quantity\":1,\"unitPrice\":9.99}]}";
  }

  private static ServiceBusMessage message(
      String orderId, String messageId, String subject, String body) {
    ServiceBusMessage message = new ServiceBusMessage(BinaryData.fromString(body));
    message.setMessageId(messageId);
    message.setSubject(subject);
    message.setContentType("application/json");
    return SessionIds.stamp(message, orderId);
  }

  /**
   * Runs an operator command as an operator would: a {@link ParkedSessions.SessionBusy} (the
   * session still held, or its lock lost between accept and read) is repeated after a short
   * back-off, at most {@value #BUSY_ATTEMPTS} times.
   */
  private static <T> T whenFree(java.util.function.Supplier<T> command)
      throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return command.get();
      } catch (ParkedSessions.SessionBusy e) {
        if (attempt == BUSY_ATTEMPTS) {
          throw e;
        }
        TimeUnit.MILLISECONDS.sleep(250);
      }
    }
  }
}
