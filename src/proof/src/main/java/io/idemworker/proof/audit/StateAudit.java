package io.idemworker.proof.audit;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.OrderReasons;
import io.idemworker.proof.producer.DemoLifecycle;
import io.idemworker.proof.producer.DemoPayments;
import io.idemworker.proof.producer.DemoScenario;
import io.idemworker.servicebus.DeadLetterReader.DeadLetter;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * An external audit that trusts no worker counter: it compares what the producer sent (a {@link
 * DemoScenario}, the producer's ledger) with what the stores hold afterwards: the orders and
 * customers containers of Cosmos DB, the dead-letter queues, the payment provider's ledger and the
 * event ids the topic's audit subscription received. Every valid logical message must have taken
 * effect exactly once, every poison must lie in the dead-letter queue with its reason, and nothing
 * else may.
 *
 * <p>Each violation is counted as lost (an effect missing), doubled (an effect applied more than
 * once, or an effect that must not exist), or a wrong dead-letter (a dead-lettered message that
 * should have been applied, or with another reason).
 *
 * <p>Not thread-safe; run once, after the workers stopped.
 */
public final class StateAudit {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  /**
   * What the audit found. Immutable when its list is.
   *
   * @param checks the claims, each passed or failed
   * @param lost effects missing
   * @param doubled effects applied more than once, or that must not exist
   * @param wrongDeadLetters dead-letters that should not be there (or with another reason)
   */
  public record Result(List<Check> checks, long lost, long doubled, long wrongDeadLetters) {
    /** Whether nothing was lost, doubled or wrongly dead-lettered and every check passed. */
    public boolean pass() {
      return lost == 0
          && doubled == 0
          && wrongDeadLetters == 0
          && checks.stream().allMatch(Check::pass);
    }
  }

  /**
   * Where the audit reads.
   *
   * @param orders the orders container
   * @param customers the topic consumers' container
   * @param queueDeadLetters the orders queue's dead-letters ({@link DeadLetters#queue})
   * @param subscriptionDeadLetters the consumers' subscriptions' dead-letters, which must be empty
   * @param providerLedger every capture the payment provider executed ({@link #ledger})
   * @param eventsReceived event id → copies the topic's audit subscription received
   * @param webhooks the payment double's webhook delivery log; empty where none were sent
   */
  public record Sources(
      CosmosContainer orders,
      CosmosContainer customers,
      List<DeadLetter> queueDeadLetters,
      List<DeadLetter> subscriptionDeadLetters,
      JsonNode providerLedger,
      Map<String, Integer> eventsReceived,
      Optional<WebhookAudit.Log> webhooks) {}

  /**
   * Orders that came over the HTTP intake and are not in the scenario (the demo posts its own), and
   * order ids the intake refused (a key reused with another body): the former must exist once with
   * their exact body and be projected like any other; the latter must not exist. Immutable.
   *
   * @param orders order id → the body posted, in the order posted
   * @param refused order ids whose posts were refused
   */
  public record Intake(Map<String, String> orders, Set<String> refused) {
    /** No order over HTTP. */
    static final Intake NONE = new Intake(Map.of(), Set.of());

    /** Copies both, keeping the orders' order. */
    public Intake {
      orders = Collections.unmodifiableMap(new LinkedHashMap<>(orders));
      refused = Set.copyOf(refused);
    }
  }

  /** How long the inbox markers live, as every harness configures the worker (14 days). */
  public static final Duration MARKER_TTL = Duration.ofDays(14);

  /**
   * The broker's own dead-letter reason when a message's deliveries ran out: the audit accepts it
   * for an {@code OrderNotFound} whose last-delivery settlement was lost.
   */
  public static final String MAX_DELIVERY_COUNT_EXCEEDED = "MaxDeliveryCountExceeded";

  private final DemoScenario scenario;
  private final Intake intake;
  private final Map<String, String> allOrders = new LinkedHashMap<>();
  private final Sources sources;
  private final int parallelism;
  private final Map<String, Map<String, JsonNode>> partitions = new HashMap<>();
  private long lost;
  private long doubled;
  private long wrongDeadLetters;

  /**
   * An audit of a run that sent the scenario and nothing over HTTP.
   *
   * @param scenario what the producer sent
   * @param sources where the audit reads
   * @param parallelism how many Cosmos DB queries run at once, at least 1
   */
  public StateAudit(DemoScenario scenario, Sources sources, int parallelism) {
    this(scenario, Intake.NONE, sources, parallelism);
  }

  /**
   * An audit of a run that sent the scenario and posted {@code intake}'s orders over HTTP.
   *
   * @param scenario what the producer sent
   * @param intake the orders posted over HTTP outside the scenario, and the ids refused
   * @param sources where the audit reads
   * @param parallelism how many Cosmos DB queries run at once, at least 1
   */
  public StateAudit(DemoScenario scenario, Intake intake, Sources sources, int parallelism) {
    this.scenario = scenario;
    this.intake = intake;
    this.sources = sources;
    this.parallelism = parallelism;
    allOrders.putAll(scenario.orders);
    allOrders.putAll(intake.orders());
  }

  /**
   * Reads the payment provider's ledger over its API: every capture it executed.
   *
   * @throws IllegalStateException if the provider does not answer 200 with a JSON array
   */
  public static JsonNode ledger(URI baseUrl, String apiKey) throws InterruptedException {
    try {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(baseUrl + "/v1/captures"))
                      .header("Authorization", "Bearer " + apiKey)
                      .timeout(Duration.ofSeconds(30))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      JsonNode body = JSON.readTree(response.body());
      if (response.statusCode() != 200 || !body.isArray()) {
        throw new IllegalStateException(
            "the provider's ledger answered " + response.statusCode() + ": " + response.body());
      }
      return body;
    } catch (IOException e) {
      throw new IllegalStateException("the provider's ledger could not be read: " + e, e);
    }
  }

  /**
   * An audit of some of the scenario's orders alone, for a run that sent nothing else (the bench):
   * {@link #runOrders} reads only the orders container.
   *
   * @param sent the ids of the orders sent; the scenario's others are not expected
   * @param orders the orders container
   * @param parallelism how many Cosmos DB queries run at once, at least 1
   */
  public static StateAudit ofOrders(
      DemoScenario scenario, Collection<String> sent, CosmosContainer orders, int parallelism) {
    StateAudit audit =
        new StateAudit(
            scenario,
            new Sources(
                orders,
                orders,
                List.of(),
                List.of(),
                JSON.createArrayNode(),
                Map.of(),
                Optional.empty()),
            parallelism);
    audit.allOrders.keySet().retainAll(Set.copyOf(sent));
    return audit;
  }

  /**
   * Only the orders check: every order once with its customer, exact total, lines and OrderAccepted
   * event; none overwritten.
   *
   * @throws IllegalStateException when Cosmos DB could not be read
   */
  public Result runOrders() throws InterruptedException {
    readPartitions();
    List<Check> checks = List.of(orders());
    return new Result(checks, lost, doubled, wrongDeadLetters);
  }

  /**
   * Every check, in this order: orders, credits, statuses, payments, dead-letters, the relay, the
   * consumers' projections, and the webhooks when there is a log.
   *
   * @throws IllegalStateException when Cosmos DB or a dead-letter queue could not be read
   */
  public Result run() throws InterruptedException {
    readPartitions();
    List<Check> checks = new ArrayList<>();
    checks.add(orders());
    checks.add(credits());
    checks.add(statuses());
    checks.add(payments());
    checks.add(deadLetters());
    ProjectionAudit projections =
        new ProjectionAudit(
            allOrders, scenario.payments, this::doc, sources.eventsReceived(), sources.customers());
    checks.add(projections.relay());
    checks.add(projections.consumers());
    lost += projections.lost;
    doubled += projections.doubled;
    if (sources.webhooks().isPresent()) {
      WebhookAudit.Result webhooks = WebhookAudit.run(sources.orders(), sources.webhooks().get());
      checks.add(webhooks.check());
      lost += webhooks.lost();
      doubled += webhooks.doubled();
    }
    return new Result(checks, lost, doubled, wrongDeadLetters);
  }

  /**
   * Every document of every order partition the scenario touches, read with bounded parallelism.
   */
  private void readPartitions() throws InterruptedException {
    Set<String> ids = new LinkedHashSet<>(allOrders.keySet());
    ids.addAll(intake.refused());
    scenario.poisons.forEach(p -> ids.add(p.orderId()));
    ids.add(scenario.lifecycle.neverPlaced);
    ExecutorService pool = Executors.newFixedThreadPool(parallelism);
    try {
      Map<String, Future<Map<String, JsonNode>>> futures = new HashMap<>();
      for (String id : ids) {
        futures.put(id, pool.submit(() -> partition(id)));
      }
      for (Map.Entry<String, Future<Map<String, JsonNode>>> f : futures.entrySet()) {
        partitions.put(f.getKey(), f.getValue().get());
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("the audit could not read Cosmos DB: " + e.getCause(), e);
    } finally {
      pool.shutdownNow();
    }
  }

  private Map<String, JsonNode> partition(String orderId) {
    Map<String, JsonNode> docs = new HashMap<>();
    sources
        .orders()
        .queryItems(
            "SELECT * FROM c",
            new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey(orderId)),
            JsonNode.class)
        .forEach(d -> docs.put(d.path("id").asText(), d));
    return docs;
  }

  private Optional<JsonNode> doc(String orderId, String id) {
    return Optional.ofNullable(partitions.getOrDefault(orderId, Map.of()).get(id));
  }

  private Check orders() {
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, String> sent : allOrders.entrySet()) {
      String orderId = sent.getKey();
      JsonNode body = parse(sent.getValue());
      Optional<JsonNode> order = doc(orderId, orderId);
      if (order.isEmpty()) {
        lost++;
        problems.add(orderId + " missing");
        continue;
      }
      if (!order.get().path("customerId").asText().equals(body.path("customerId").asText())) {
        doubled++;
        problems.add(orderId + " overwritten (customerId " + order.get().path("customerId") + ")");
      }
      if (decimal(order.get().path("total")).compareTo(total(body)) != 0) {
        doubled++;
        problems.add(orderId + " total " + order.get().path("total") + ", sent " + total(body));
      }
      int lines = body.path("lines").size();
      for (int n = 1; n <= lines; n++) {
        if (doc(orderId, OrderDocumentIds.line(orderId, n)).isEmpty()) {
          lost++;
          problems.add(orderId + " line " + n + " missing");
        }
      }
      if (doc(orderId, OrderDocumentIds.line(orderId, lines + 1)).isPresent()) {
        doubled++;
        problems.add(orderId + " has a line " + (lines + 1));
      }
      if (doc(orderId, OrderDocumentIds.outboxEvent(new IdempotencyKey(orderId))).isEmpty()) {
        lost++;
        problems.add(orderId + " has no OrderAccepted outbox event");
      }
    }
    for (String refused : intake.refused()) {
      if (!partitions.getOrDefault(refused, Map.of()).isEmpty()) {
        doubled++;
        problems.add(refused + " (its key reused with another body, refused) was written");
      }
    }
    for (DemoScenario.Poison poison : scenario.poisons) {
      if (!partitions.getOrDefault(poison.orderId(), Map.of()).isEmpty()) {
        doubled++;
        problems.add("poison " + poison.orderId() + " was written");
      }
    }
    if (!partitions.getOrDefault(scenario.lifecycle.neverPlaced, Map.of()).isEmpty()) {
      doubled++;
      problems.add(scenario.lifecycle.neverPlaced + " (never placed) was written");
    }
    return check(
        "every order ("
            + allOrders.size()
            + (intake.orders().isEmpty()
                ? ""
                : ", " + intake.orders().size() + " of them over HTTP")
            + ") read back once with its customer, exact total, lines and OrderAccepted outbox event; none overwritten by a reused id or key; no poison written",
        problems);
  }

  private Check credits() {
    List<String> problems = new ArrayList<>();
    Map<String, List<DemoLifecycle.Credit>> byOrder = scenario.lifecycle.creditsByOrder();
    for (Map.Entry<String, List<DemoLifecycle.Credit>> entry : byOrder.entrySet()) {
      String orderId = entry.getKey();
      Optional<JsonNode> order = doc(orderId, orderId);
      if (order.isEmpty()) {
        continue; // counted as lost by the orders check
      }
      long expectedUnits = entry.getValue().stream().mapToLong(DemoLifecycle.Credit::units).sum();
      long expectedCount = entry.getValue().size();
      long units = order.get().path("creditedUnits").asLong(0);
      long count = order.get().path("creditCount").asLong(0);
      boolean over = count > expectedCount || units > expectedUnits;
      boolean under = !over && (count < expectedCount || units < expectedUnits);
      if (over) {
        doubled += Math.max(1, count - expectedCount);
      } else if (under) {
        lost += Math.max(1, expectedCount - count);
      }
      if (over || under) {
        problems.add(
            orderId
                + " credited "
                + count
                + "x/"
                + units
                + " units, sent "
                + expectedCount
                + "x/"
                + expectedUnits);
      }
      for (DemoLifecycle.Credit c : entry.getValue()) {
        Optional<JsonNode> marker = doc(orderId, c.markerId());
        if (marker.isEmpty()) {
          lost++;
          problems.add(c.creditId() + " has no inbox marker");
        } else if (!describes(marker.get(), c)) {
          problems.add(c.markerId() + " is not its credit's marker with ttl " + MARKER_TTL);
        }
      }
    }
    for (DemoLifecycle.Credit c : scenario.lifecycle.wrongCurrency) {
      if (doc(c.orderId(), c.markerId()).isPresent()) {
        doubled++;
        problems.add(c.creditId() + " (wrong currency) has a marker");
      }
    }
    return check(
        "credited total per order = the sum of its distinct credits ("
            + scenario.lifecycle.credits.size()
            + " credits on "
            + byOrder.size()
            + " orders), exactly; each credit's inbox marker names it and carries the TTL ("
            + MARKER_TTL.toDays()
            + " days); no wrong-currency credit applied",
        problems);
  }

  /** Whether a marker is the inbox marker of that credit, with the configured TTL. */
  private static boolean describes(JsonNode marker, DemoLifecycle.Credit credit) {
    return marker.path("ttl").isIntegralNumber()
        && marker.path("ttl").asLong() == MARKER_TTL.getSeconds()
        && "inbox".equals(marker.path("type").asText())
        && credit.creditId().equals(marker.path("creditId").asText())
        && marker.path("amount").isNumber()
        && marker.path("amount").decimalValue().compareTo(credit.amount()) == 0;
  }

  private Check statuses() {
    List<String> problems = new ArrayList<>();
    for (String orderId : scenario.lifecycle.statusOrders) {
      Optional<JsonNode> order = doc(orderId, orderId);
      if (order.isEmpty()) {
        continue;
      }
      String status = order.get().path("status").asText("");
      long version = order.get().path("statusVersion").asLong(-1);
      if (!"Shipped".equals(status) || version != 3) {
        lost++;
        problems.add(orderId + " status " + status + " version " + version);
      }
    }
    return check(
        "status per order = that of its highest version ("
            + scenario.lifecycle.statusOrders.size()
            + " orders Shipped at version 3, version 2 sent after it)",
        problems);
  }

  private Check payments() {
    List<String> problems = new ArrayList<>();
    Map<String, List<JsonNode>> ledger = new HashMap<>();
    sources
        .providerLedger()
        .forEach(
            c ->
                ledger
                    .computeIfAbsent(c.path("idempotencyKey").asText(), k -> new ArrayList<>())
                    .add(c));
    Set<String> requested = new LinkedHashSet<>();
    for (DemoPayments.Request r : scenario.payments.requests) {
      requested.add(r.paymentRequestId());
      List<JsonNode> captures = ledger.getOrDefault(r.paymentRequestId(), List.of());
      if (captures.isEmpty()) {
        lost++;
        problems.add(r.paymentRequestId() + " never reached the provider");
        continue;
      }
      if (captures.size() > 1) {
        doubled += captures.size() - 1;
        problems.add(r.paymentRequestId() + " executed " + captures.size() + " times");
      }
      JsonNode capture = captures.get(0);
      if (decimal(capture.path("amount")).compareTo(r.amount()) != 0
          || !capture.path("orderId").asText().equals(r.orderId())
          || !capture.path("status").asText().equals(r.declines() ? "declined" : "captured")) {
        doubled++;
        problems.add(r.paymentRequestId() + " executed as " + capture);
      }
      String eventType = r.declines() ? "PaymentDeclined" : "PaymentCaptured";
      if (!doc(r.orderId(), r.eventId())
          .filter(e -> eventType.equals(e.path("eventType").asText()))
          .isPresent()) {
        lost++;
        problems.add(r.paymentRequestId() + " has no " + eventType + " event");
      }
      Optional<JsonNode> record = doc(r.orderId(), r.recordId());
      if (record.isEmpty() || !completedWith(record.get(), r, capture)) {
        lost++;
        problems.add(r.recordId() + " is not Completed with the provider's answer: " + record);
      }
    }
    for (DemoPayments.Request r : scenario.payments.reusedKeys) {
      Optional<JsonNode> record = doc(r.orderId(), r.recordId());
      if (record.isPresent() && decimal(record.get().path("amount")).compareTo(r.amount()) == 0) {
        doubled++;
        problems.add(r.recordId() + " overwritten by its reused key's amount " + r.amount());
      }
    }
    ledger.keySet().stream()
        .filter(key -> !requested.contains(key))
        .forEach(
            key -> {
              doubled++;
              problems.add("the provider executed unknown key " + key);
            });
    for (Map.Entry<String, List<DemoPayments.Request>> e : scenario.payments.byOrder().entrySet()) {
      long expected =
          e.getValue().stream()
              .filter(r -> !r.declines())
              .mapToLong(DemoPayments.Request::units)
              .sum();
      long paid =
          doc(e.getKey(), e.getKey()).map(o -> o.path("amountPaidUnits").asLong(0)).orElse(0L);
      if (paid > expected) {
        doubled++;
        problems.add(e.getKey() + " amountPaidUnits " + paid + ", captured " + expected);
      } else if (paid < expected) {
        lost++;
        problems.add(e.getKey() + " amountPaidUnits " + paid + ", captured " + expected);
      }
      // The status is the last result's: known when every request of the order had the same one.
      long declines = e.getValue().stream().filter(DemoPayments.Request::declines).count();
      String status =
          doc(e.getKey(), e.getKey()).map(o -> o.path("paymentStatus").asText("")).orElse("");
      if ((declines == e.getValue().size() && !status.equals("declined"))
          || (declines == 0 && !status.equals("captured"))) {
        lost++;
        problems.add(e.getKey() + " paymentStatus " + status);
      }
    }
    return check(
        "one capture per payment request at the provider ("
            + scenario.payments.requests.size()
            + ", its ledger read over its API) with its amount and result; its record Completed with that answer, untouched by a reused key; amount paid per order = the sum of its captures, its paymentStatus that of its results; one PaymentCaptured/PaymentDeclined event each",
        problems);
  }

  /** Whether a payment record holds the provider's answer to its one capture. */
  private static boolean completedWith(JsonNode record, DemoPayments.Request r, JsonNode capture) {
    JsonNode result = record.path("result");
    boolean answered =
        r.declines()
            ? "declined".equals(result.path("result").asText())
                && result.path("declineCode").isTextual()
            : "captured".equals(result.path("result").asText())
                && result.path("providerCaptureId").asText().equals(capture.path("id").asText());
    return "Completed".equals(record.path("status").asText())
        && decimal(record.path("amount")).compareTo(r.amount()) == 0
        && answered;
  }

  private Check deadLetters() {
    List<String> problems = new ArrayList<>();
    // messageId → expected reason; poison without a message id matches by reason only.
    Map<String, String> expectedById = new HashMap<>();
    List<String> anyIdReasons = new ArrayList<>();
    for (DemoScenario.Poison p : scenario.poisons) {
      String id = p.message().getMessageId();
      if (id == null) {
        anyIdReasons.add(p.expected().code());
      } else {
        expectedById.put(id, p.expected().code());
      }
    }
    scenario.conflicts.forEach(id -> expectedById.put(id, "IdempotencyConflict"));
    scenario.payments.reusedKeys.forEach(
        r -> expectedById.put(r.paymentRequestId(), "IdempotencyConflict"));
    scenario.lifecycle.wrongCurrency.forEach(
        c -> expectedById.put(c.creditId(), OrderReasons.CURRENCY_MISMATCH.code()));
    expectedById.put(
        OrderMessageTypes.statusMessageId(scenario.lifecycle.neverPlaced, 1),
        OrderReasons.ORDER_NOT_FOUND.code());
    Map<String, String> unmatched = new HashMap<>(expectedById);
    Map<String, Long> reasons = new TreeMap<>();
    long byBroker = 0;
    for (DeadLetter d : sources.queueDeadLetters()) {
      reasons.merge(d.reason(), 1L, Long::sum);
      String id = d.messageId().orElse("");
      String expected = unmatched.remove(id);
      if (expected != null && expected.equals(d.reason())) {
        continue;
      }
      if (lastDeliveryReason(expected) && d.reason().equals(MAX_DELIVERY_COUNT_EXCEEDED)) {
        byBroker++;
        continue;
      }
      if (expected == null && anyIdReasons.remove(d.reason())) {
        continue;
      }
      wrongDeadLetters++;
      problems.add(
          id
              + " dead-lettered as "
              + d.reason()
              + (expected == null ? "" : ", expected " + expected));
    }
    unmatched.forEach(
        (id, reason) -> {
          lost++;
          problems.add(id + " not dead-lettered (expected " + reason + ")");
        });
    anyIdReasons.forEach(
        reason -> {
          lost++;
          problems.add("a poison with reason " + reason + " not dead-lettered");
        });
    for (DeadLetter d : sources.subscriptionDeadLetters()) {
      wrongDeadLetters++;
      problems.add(d.source().label() + ": " + d.messageId().orElse("?") + " " + d.reason());
    }
    return check(
        "the dead-letter queue holds exactly the poison, reused keys, wrong currencies and the status of an order never placed ("
            + (expectedById.size()
                + scenario.poisons.stream().filter(p -> p.message().getMessageId() == null).count())
            + ", each with its reason: "
            + reasons.toString().replaceAll("[{}]", "")
            + (byBroker == 0
                ? ""
                : "; "
                    + byBroker
                    + " OrderNotFound dead-lettered by the broker as "
                    + MAX_DELIVERY_COUNT_EXCEEDED
                    + " instead: the worker refuses it on the last delivery, and when that"
                    + " settlement is lost (a link closed) the broker dead-letters it itself")
            + "); the subscriptions' dead-letter queues are empty",
        problems);
  }

  /**
   * A reason the worker gives only on the last delivery the queue allows (a dependent whose order
   * never came): if that settlement is lost, the broker's own dead-letter is the same outcome.
   */
  private static boolean lastDeliveryReason(String expected) {
    return OrderReasons.ORDER_NOT_FOUND.code().equals(expected);
  }

  /**
   * Reads one document.
   *
   * @param container the container
   * @param pk its partition key
   * @param id its id
   * @return the document; empty when there is none (404)
   * @throws CosmosException on any other failure
   */
  public static Optional<JsonNode> read(CosmosContainer container, String pk, String id) {
    try {
      return Optional.of(container.readItem(id, new PartitionKey(pk), JsonNode.class).getItem());
    } catch (CosmosException e) {
      if (e.getStatusCode() == 404) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** A check from its problems: passes when there are none, else counts them and names five. */
  static Check check(String claim, List<String> problems) {
    return new Check(
        claim,
        problems.isEmpty(),
        problems.isEmpty()
            ? ""
            : problems.size()
                + " problems, e.g. "
                + String.join("; ", problems.subList(0, Math.min(5, problems.size()))));
  }

  /** The order's total as the worker must compute it: the exact sum of quantity × unit price. */
  static BigDecimal total(JsonNode body) {
    BigDecimal total = BigDecimal.ZERO;
    for (JsonNode line : body.path("lines")) {
      total =
          total.add(
              decimal(line.path("unitPrice"))
                  .multiply(BigDecimal.valueOf(line.path("quantity").asLong())));
    }
    return total;
  }

  static BigDecimal decimal(JsonNode node) {
    return node.isNumber() ? node.decimalValue() : new BigDecimal(node.asText("0"));
  }

  static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalStateException("the producer generated invalid JSON", e);
    }
  }
}
