package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.consumers.CustomerConsumers.Role;
import io.idemworker.consumers.CustomerDocumentIds;
import io.idemworker.core.DuplicateSource;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.Outcome;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.servicebus.CorrelationFilter;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.emulator.servicebus.SubscriptionRule;
import io.idemworker.emulator.servicebus.SubscriptionSettings;
import io.idemworker.emulator.servicebus.TopicSettings;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.processor.ServiceBusWorker;
import io.idemworker.servicebus.sending.ProducerStamps;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.MutableClock;
import io.idemworker.testing.RecordingObserver;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Both consumers on their own subscriptions of one topic, through the real Service Bus and Cosmos
 * DB SDKs on the emulators, writing into one shared {@code customers} container.
 */
@AzureEmulators(serviceBus = false)
class TopicConsumersTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final String TOPIC = "order-events";
  private static final Duration WINDOW = Duration.ofMinutes(10);
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final MutableClock clock = new MutableClock();
  private final List<AutoCloseable> open = new ArrayList<>();
  private ServiceBusEmulator serviceBus;
  private CosmosContainer customers;

  private record Event(
      String eventId, String orderId, String customerId, String currency, BigDecimal total) {
    String body() {
      return Events.body(orderId, customerId, currency, total.toPlainString());
    }
  }

  @BeforeEach
  void start() {
    SubscriptionRule accepted =
        SubscriptionRule.correlation("accepted", CorrelationFilter.subject("OrderAccepted"));
    serviceBus =
        ServiceBusEmulator.builder()
            .clock(clock)
            .topic(
                TopicSettings.defaults(TOPIC)
                    .withRequiresDuplicateDetection(true)
                    .withDuplicateDetectionHistoryTimeWindow(WINDOW)
                    .withSubscription(SubscriptionSettings.defaults("loyalty").withRule(accepted))
                    .withSubscription(
                        SubscriptionSettings.defaults("customer-stats").withRule(accepted)))
            .start();
    open.add(serviceBus);
    customers =
        ConsumerWorkers.customers(
            EmulatorClients.cosmosClient(azure),
            "it-" + UUID.randomUUID().toString().substring(0, 8));
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private RecordingObserver startConsumer(Role role) {
    RecordingObserver observer = new RecordingObserver();
    ServiceBusWorker worker =
        ConsumerWorkers.worker(
            role,
            new ServiceBusConnection.ConnectionString(serviceBus.connectionString()),
            ProcessorSettings.defaults(new ProcessorSettings.Subscription(TOPIC, role.roleName()))
                .withMaxConcurrentCalls(4),
            customers,
            Optional.of(Duration.ofDays(14)),
            10,
            StoreCallListener.none(),
            observer,
            clock);
    open.add(worker);
    worker.start();
    return observer;
  }

  private void publish(List<Event> events) {
    try (ServiceBusSenderClient sender =
        new ServiceBusClientBuilder()
            .connectionString(serviceBus.connectionString())
            .sender()
            .topicName(TOPIC)
            .buildClient()) {
      for (Event event : events) {
        ServiceBusMessage message =
            new ServiceBusMessage(event.body())
                .setMessageId(event.eventId())
                .setSubject("OrderAccepted")
                .setContentType("application/json");
        // as the relay stamps what it publishes (ServiceBusEventPublisher)
        message.getApplicationProperties().put(ProducerStamps.ORIGIN, ProducerStamps.RELAY);
        sender.sendMessage(message);
      }
    }
  }

  private static List<Event> events() {
    List<Event> events = new ArrayList<>();
    String[] currencies = {"EUR", "EUR", "USD"};
    for (int i = 1; i <= 12; i++) {
      String orderId = "ord-" + UUID.randomUUID().toString().substring(0, 8);
      events.add(
          new Event(
              OrderDocumentIds.outboxEvent(new IdempotencyKey(orderId)),
              orderId,
              "cust-" + (i % 3),
              currencies[i % 3 == 0 ? 2 : i % 2],
              new BigDecimal(i * 7).add(new BigDecimal("0.3337").multiply(BigDecimal.valueOf(i)))));
    }
    return events;
  }

  private ObjectNode read(String customerId, String id) {
    return customers.readItem(id, new PartitionKey(customerId), ObjectNode.class).getItem();
  }

  @Test
  void bothConsumersApplyEveryEventExactlyOnce_throughBrokerDuplicatesAndLateRepublishes() {
    // given both consumers, each on its own subscription
    RecordingObserver loyalty = startConsumer(Role.LOYALTY);
    RecordingObserver stats = startConsumer(Role.CUSTOMER_STATS);
    List<Event> events = events();

    // when every event is published twice inside the duplicate window (the broker drops copies)
    publish(events);
    publish(events);
    loyalty.await(events.size(), RecordingObserver.is(Outcome.Processed.class), WAIT);
    stats.await(events.size(), RecordingObserver.is(Outcome.Processed.class), WAIT);
    // and re-published again after the window, as a relay that lost its "published" mark does
    clock.advance(WINDOW.plusMinutes(1));
    serviceBus.evaluateExpiries();
    publish(events);

    // then each consumer sees each late copy once more and takes it as a re-published duplicate
    for (RecordingObserver observer : List.of(loyalty, stats)) {
      assertThat(observer.await(events.size(), RecordingObserver.is(Outcome.Duplicate.class), WAIT))
          .extracting(finished -> ((Outcome.Duplicate) finished.outcome()).source())
          .containsOnly(DuplicateSource.REPUBLISH);
    }
    assertThat(loyalty.finished()).hasSize(2 * events.size());
    assertThat(stats.finished()).hasSize(2 * events.size());

    // and every customer's points and stats are exactly what the accepted orders imply
    Map<String, Long> points = new HashMap<>();
    Map<String, long[]> perCurrency = new HashMap<>();
    for (Event e : events) {
      points.merge(
          e.customerId(), e.total().setScale(0, RoundingMode.DOWN).longValueExact(), Long::sum);
      long[] sums =
          perCurrency.computeIfAbsent(e.customerId() + "|" + e.currency(), k -> new long[2]);
      sums[0]++;
      sums[1] += e.total().movePointRight(4).longValueExact();
    }
    points.forEach(
        (customerId, expected) ->
            assertThat(
                    read(customerId, CustomerDocumentIds.customer(customerId))
                        .path(CustomerDocumentIds.LOYALTY_POINTS)
                        .asLong())
                .as("points of %s", customerId)
                .isEqualTo(expected));
    perCurrency.forEach(
        (key, expected) -> {
          String customerId = key.split("\\|")[0];
          String currency = key.split("\\|")[1];
          ObjectNode doc = read(customerId, CustomerDocumentIds.stats(customerId, currency));
          assertThat(doc.path(CustomerDocumentIds.ORDER_COUNT).asLong())
              .as(key)
              .isEqualTo(expected[0]);
          assertThat(doc.path(CustomerDocumentIds.SPENT_UNITS).asLong())
              .as(key)
              .isEqualTo(expected[1]);
        });
    // and each consumer recorded its own marker for every event, in the customer's partition
    for (Event e : events) {
      assertThat(read(e.customerId(), "inbox:loyalty:" + e.eventId()).path("consumer").asText())
          .isEqualTo("loyalty");
      assertThat(read(e.customerId(), "inbox:customer-stats:" + e.eventId()).path("ttl").asLong())
          .isEqualTo(Duration.ofDays(14).toSeconds());
    }
  }

  @Test
  void firstEventOfACustomerSeedsItsDocuments_inThreeRoundTripsAndLaterEventsInOne() {
    // given a loyalty consumer counting its Cosmos DB round trips
    List<String> calls = java.util.Collections.synchronizedList(new ArrayList<>());
    RecordingObserver observer = new RecordingObserver();
    ServiceBusWorker worker =
        ConsumerWorkers.worker(
            Role.LOYALTY,
            new ServiceBusConnection.ConnectionString(serviceBus.connectionString()),
            ProcessorSettings.defaults(new ProcessorSettings.Subscription(TOPIC, "loyalty"))
                .withMaxConcurrentCalls(1),
            customers,
            Optional.of(Duration.ofDays(14)),
            10,
            (operation, status, charge, latency) -> calls.add(operation + " " + status),
            observer,
            Clock.systemUTC());
    open.add(worker);
    worker.start();
    Event first = new Event("evt-a", "ord-a", "cust-new", "EUR", new BigDecimal("12.5"));
    Event second = new Event("evt-b", "ord-b", "cust-new", "EUR", new BigDecimal("3"));

    // when its first event arrives, then a second
    publish(List.of(first));
    observer.await(1, RecordingObserver.is(Outcome.Processed.class), WAIT);
    List<String> firstCalls = List.copyOf(calls);
    publish(List.of(second));
    observer.await(2, RecordingObserver.is(Outcome.Processed.class), WAIT);

    // then the first took: batch (target missing), seed, batch; the second one batch
    assertThat(firstCalls).containsExactly("batch 404", "batch 200", "batch 200");
    assertThat(calls.subList(firstCalls.size(), calls.size())).containsExactly("batch 200");
    assertThat(read("cust-new", "cust-new").path("loyaltyPoints").asLong()).isEqualTo(15);
  }

  /** Event bodies as the relay publishes them. */
  private static final class Events {
    static String body(String orderId, String customerId, String currency, String total) {
      return """
          {"orderId":"%s","customerId":"%s","currency":"%s","total":%s,"lineCount":2,
           "placedAt":"2026-11-30T10:00:00Z"}
          """
          .formatted(orderId, customerId, currency, total);
    }
  }
}
