package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.SubQueue;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.consumers.CustomerConsumers;
import io.idemworker.consumers.CustomerConsumers.Role;
import io.idemworker.consumers.CustomerDocumentIds;
import io.idemworker.consumers.Events;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.Outcome;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.servicebus.CorrelationFilter;
import io.idemworker.emulator.servicebus.SubscriptionRule;
import io.idemworker.emulator.servicebus.SubscriptionSettings;
import io.idemworker.emulator.servicebus.TopicSettings;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.processor.ProcessorSessions;
import io.idemworker.servicebus.processor.ServiceBusWorker;
import io.idemworker.servicebus.sending.ProducerStamps;
import io.idemworker.servicebus.sessions.SessionSettings;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.RecordingObserver;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The topic consumers in session mode ({@code SERVICEBUS_SESSIONS=true}), through the real Service
 * Bus and Cosmos DB SDKs on the emulators, on subscriptions that require sessions: every event in
 * its order's session ({@code SessionId} = orderId, as the relay publishes), one at a time per
 * order, several orders at once.
 */
@AzureEmulators
class ConsumerSessionsTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int SESSIONS = 4;

  private final List<ServiceBusWorker> workers = new ArrayList<>();
  private String topic;
  private CosmosContainer customers;

  /** One published copy of an event. */
  private record Copy(String eventId, String sessionId, String orderId, String customerId) {
    ServiceBusMessage message() {
      ServiceBusMessage message =
          new ServiceBusMessage(Events.body(orderId, customerId, "EUR", total()))
              .setMessageId(eventId)
              .setSessionId(sessionId)
              .setSubject(CustomerConsumers.ORDER_ACCEPTED)
              .setContentType("application/json");
      message.getApplicationProperties().put(ProducerStamps.ORIGIN, ProducerStamps.RELAY);
      return message;
    }

    /** A whole amount per event, so each one's loyalty points are its total. */
    String total() {
      return Integer.toString(Math.floorMod(eventId.hashCode(), 90) + 10);
    }
  }

  /** Tracks, per order, the deliveries in flight and the order they started in. */
  private static final class PerOrder implements DeliveryObserver {
    final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    final Map<String, List<String>> started = new ConcurrentHashMap<>();
    final AtomicInteger overlaps = new AtomicInteger();
    final AtomicInteger ordersAtOnce = new AtomicInteger();
    final AtomicInteger mostOrdersAtOnce = new AtomicInteger();

    @Override
    public Observation start(IncomingMessage message) {
      String order = CustomerConsumers.sessionOf(message).orElse("?");
      started
          .computeIfAbsent(order, k -> new CopyOnWriteArrayList<>())
          .add(message.messageId().orElse("?"));
      if (inFlight.computeIfAbsent(order, k -> new AtomicInteger()).incrementAndGet() > 1) {
        overlaps.incrementAndGet();
      }
      mostOrdersAtOnce.accumulateAndGet(ordersAtOnce.incrementAndGet(), Math::max);
      return (outcome, elapsed, settled) -> {
        ordersAtOnce.decrementAndGet();
        inFlight.get(order).decrementAndGet();
      };
    }
  }

  @BeforeEach
  void createTopic() {
    topic = "t-" + UUID.randomUUID().toString().substring(0, 8);
    SubscriptionRule accepted =
        SubscriptionRule.correlation("accepted", CorrelationFilter.subject("OrderAccepted"));
    // No duplicate detection on the topic: every copy published reaches the consumers, so the
    // duplicates below are the flow's to catch, not the broker's.
    azure
        .serviceBus()
        .createTopic(
            TopicSettings.defaults(topic)
                .withSubscription(
                    SubscriptionSettings.defaults("loyalty")
                        .withRequiresSession(true)
                        .withRule(accepted))
                .withSubscription(
                    SubscriptionSettings.defaults("customer-stats")
                        .withRequiresSession(true)
                        .withRule(accepted)));
    customers =
        ConsumerWorkers.customers(
            EmulatorClients.cosmosClient(azure),
            "it-" + UUID.randomUUID().toString().substring(0, 8));
  }

  @AfterEach
  void stop() {
    workers.forEach(worker -> worker.shutdown(Duration.ofSeconds(5)));
  }

  private void startConsumer(Role role, DeliveryObserver observer) {
    ServiceBusWorker worker =
        ConsumerWorkers.sessionWorker(
            role,
            new ServiceBusConnection.ConnectionString(azure.serviceBus().connectionString()),
            ProcessorSettings.defaults(new ProcessorSettings.Subscription(topic, role.roleName())),
            SessionSettings.defaults().withMaxConcurrentSessions(SESSIONS),
            customers,
            Optional.of(Duration.ofDays(14)),
            10,
            StoreCallListener.none(),
            observer,
            Clock.systemUTC());
    workers.add(worker);
    worker.start();
  }

  private void publish(List<Copy> copies) {
    try (ServiceBusSenderClient sender =
        EmulatorClients.serviceBusClient(azure).sender().topicName(topic).buildClient()) {
      for (Copy copy : copies) {
        sender.sendMessage(copy.message());
      }
    }
  }

  @Test
  void consumersInSessionMode_applyEveryEventOnce_inEachOrdersOrder_throughDuplicates() {
    // given 12 orders of 3 events each, the second sent again after the third: per order in order,
    // shuffled across orders
    Map<String, List<Copy>> perOrder = new LinkedHashMap<>();
    for (int o = 0; o < 12; o++) {
      String orderId = "ord-" + o + "-" + UUID.randomUUID().toString().substring(0, 6);
      String customerId = "cust-" + (o % 4);
      List<Copy> copies = new ArrayList<>();
      for (String step : List.of("a", "b", "c", "b")) {
        copies.add(new Copy(orderId + ":" + step, orderId, orderId, customerId));
      }
      perOrder.put(orderId, copies);
    }
    List<Copy> shuffled = interleave(perOrder, new Random(29));
    int events = 12 * 3;

    // published as the relay publishes them (SessionId = orderId); all of them first, so that a
    // session is not released for being idle while its next event is still being sent
    publish(shuffled);

    // when both consumers run in session mode, 4 sessions at once each
    RecordingObserver loyalty = new RecordingObserver();
    RecordingObserver stats = new RecordingObserver();
    PerOrder loyaltyOrders = new PerOrder();
    PerOrder statsOrders = new PerOrder();
    startConsumer(Role.LOYALTY, DeliveryObserver.all(loyalty, loyaltyOrders));
    startConsumer(Role.CUSTOMER_STATS, DeliveryObserver.all(stats, statsOrders));

    // then each consumer applies every event once and takes each late copy as a duplicate
    for (RecordingObserver observer : List.of(loyalty, stats)) {
      observer.await(events, RecordingObserver.is(Outcome.Processed.class), WAIT);
      observer.await(12, RecordingObserver.is(Outcome.Duplicate.class), WAIT);
      assertThat(observer.finished()).hasSize(shuffled.size()).allMatch(f -> f.settled());
    }
    // and each order's copies were handled one at a time, in the order they were published
    for (PerOrder seen : List.of(loyaltyOrders, statsOrders)) {
      assertThat(seen.overlaps).as("deliveries of one order in flight at once").hasValue(0);
      assertThat(seen.mostOrdersAtOnce.get()).isBetween(1, SESSIONS);
      perOrder.forEach(
          (orderId, copies) ->
              assertThat(seen.started.get(orderId))
                  .as("order %s", orderId)
                  .containsExactlyElementsOf(copies.stream().map(Copy::eventId).toList()));
    }
    // and every customer's points and order count count each event exactly once
    Map<String, long[]> expected = new HashMap<>();
    perOrder.values().stream()
        .flatMap(copies -> copies.subList(0, 3).stream())
        .forEach(
            copy -> {
              long[] sums = expected.computeIfAbsent(copy.customerId(), k -> new long[2]);
              sums[0] += Long.parseLong(copy.total());
              sums[1]++;
            });
    expected.forEach(
        (customerId, sums) -> {
          ObjectNode customer = read(customerId, CustomerDocumentIds.customer(customerId));
          assertThat(customer.path(CustomerDocumentIds.LOYALTY_POINTS).asLong())
              .as("points of %s", customerId)
              .isEqualTo(sums[0]);
          ObjectNode statsDocument = read(customerId, CustomerDocumentIds.stats(customerId, "EUR"));
          assertThat(statsDocument.path(CustomerDocumentIds.ORDER_COUNT).asLong())
              .as("orders of %s", customerId)
              .isEqualTo(sums[1]);
          assertThat(statsDocument.path(CustomerDocumentIds.SPENT_UNITS).asLong())
              .isEqualTo(sums[0] * 10_000);
        });
  }

  @Test
  void eventInAnotherOrdersSession_isDeadLetteredAsSessionIdMismatch_andAppliesNothing() {
    // given the loyalty consumer in session mode
    RecordingObserver loyalty = new RecordingObserver();
    startConsumer(Role.LOYALTY, loyalty);

    // when an event of order ord-A is published in the session of ord-B, then a right one in it
    publish(
        List.of(
            new Copy("evt-misplaced", "ord-B", "ord-A", "cust-m"),
            new Copy("evt-right", "ord-B", "ord-B", "cust-r")));

    // then the misplaced one is dead-lettered with the reason, and the session goes on
    Outcome.DeadLettered misplaced =
        (Outcome.DeadLettered)
            loyalty
                .await(1, RecordingObserver.is(Outcome.DeadLettered.class), WAIT)
                .get(0)
                .outcome();
    assertThat(misplaced.reason()).isEqualTo(ProcessorSessions.SESSION_ID_MISMATCH);
    loyalty.await(1, RecordingObserver.is(Outcome.Processed.class), WAIT);
    ServiceBusReceivedMessage letter = deadLetters("loyalty").get(0);
    assertThat(letter.getMessageId()).isEqualTo("evt-misplaced");
    assertThat(letter.getDeadLetterReason()).isEqualTo("SessionIdMismatch");
    assertThat(letter.getDeadLetterErrorDescription()).contains("SessionId", "orderId");
    // and the misplaced event's customer got nothing
    assertThat(
            customers
                .queryItems(
                    "SELECT * FROM c WHERE c.customerId = 'cust-m'",
                    new com.azure.cosmos.models.CosmosQueryRequestOptions(),
                    ObjectNode.class)
                .stream()
                .toList())
        .isEmpty();
  }

  private List<ServiceBusReceivedMessage> deadLetters(String subscription) {
    List<ServiceBusReceivedMessage> all = new ArrayList<>();
    try (ServiceBusReceiverClient receiver =
        EmulatorClients.serviceBusClient(azure)
            .receiver()
            .topicName(topic)
            .subscriptionName(subscription)
            .subQueue(SubQueue.DEAD_LETTER_QUEUE)
            .buildClient()) {
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (all.isEmpty() && System.nanoTime() < deadline) {
        for (ServiceBusReceivedMessage message :
            receiver.receiveMessages(1, Duration.ofMillis(500))) {
          receiver.complete(message);
          all.add(message);
        }
      }
    }
    assertThat(all).as("dead letters of %s", subscription).isNotEmpty();
    return all;
  }

  private ObjectNode read(String customerId, String id) {
    return customers.readItem(id, new PartitionKey(customerId), ObjectNode.class).getItem();
  }

  /** Each order's copies in their order, the orders interleaved at random. */
  private static List<Copy> interleave(Map<String, List<Copy>> perOrder, Random random) {
    List<List<Copy>> queues = new ArrayList<>();
    perOrder.values().forEach(copies -> queues.add(new ArrayList<>(copies)));
    List<Copy> out = new ArrayList<>();
    while (!queues.isEmpty()) {
      int pick = random.nextInt(queues.size());
      out.add(queues.get(pick).remove(0));
      if (queues.get(pick).isEmpty()) {
        queues.remove(pick);
      }
    }
    return out;
  }
}
