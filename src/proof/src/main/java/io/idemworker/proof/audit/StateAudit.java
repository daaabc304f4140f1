package io.idemworker.proof.audit;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.proof.emulators.EventTopic;
import io.idemworker.proof.producer.DemoScenario;
import io.idemworker.relay.RelayProgress;
import io.idemworker.servicebus.deadletter.DeadLetterReader.DeadLetter;
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
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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
 * should have been applied, or with another reason). The checks are those of the stores audited:
 * the orders container's orders, credits and statuses ({@link OrdersAudit}), the payments ({@link
 * PaymentsAudit}), the dead-letter queues ({@link DeadLetterAudit}), the topic and the consumers'
 * projections ({@link ProjectionAudit}) and the webhooks ({@link WebhookAudit}); this class reads
 * the orders' partitions once for all of them and adds their counts up.
 *
 * <p>Not thread-safe; run once, after the workers stopped.
 */
public final class StateAudit {
  /** The most change-feed documents read after the relay's checkpoint (its backlog). */
  private static final int RELAY_BACKLOG_READ = 100_000;

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
    OrdersAudit orders = new OrdersAudit(scenario, intake, allOrders, readPartitions());
    List<Check> checks = List.of(orders.orders());
    return new Result(checks, orders.lost, orders.doubled, 0);
  }

  /**
   * Every check, in this order: orders, credits, statuses, payments, dead-letters, the relay, the
   * consumers' projections, and the webhooks when there is a log.
   *
   * @throws IllegalStateException when Cosmos DB or a dead-letter queue could not be read
   */
  public Result run() throws InterruptedException {
    OrderPartitions docs = readPartitions();
    List<Check> checks = new ArrayList<>();
    OrdersAudit orders = new OrdersAudit(scenario, intake, allOrders, docs);
    checks.add(orders.orders());
    checks.add(orders.credits());
    checks.add(orders.statuses());
    PaymentsAudit payments = new PaymentsAudit(scenario.payments, sources.providerLedger(), docs);
    checks.add(payments.check());
    DeadLetterAudit deadLetters =
        new DeadLetterAudit(
            scenario, sources.queueDeadLetters(), sources.subscriptionDeadLetters());
    checks.add(deadLetters.check());
    ProjectionAudit projections =
        new ProjectionAudit(
            allOrders,
            scenario.payments,
            docs::doc,
            sources.eventsReceived(),
            RelayProgress.read(sources.orders(), EventTopic.NAME, RELAY_BACKLOG_READ),
            sources.customers());
    checks.add(projections.relay());
    checks.add(projections.consumers());
    long lost = orders.lost + payments.lost + deadLetters.lost + projections.lost;
    long doubled = orders.doubled + payments.doubled + projections.doubled;
    if (sources.webhooks().isPresent()) {
      WebhookAudit.Result webhooks = WebhookAudit.run(sources.orders(), sources.webhooks().get());
      checks.add(webhooks.check());
      lost += webhooks.lost();
      doubled += webhooks.doubled();
    }
    return new Result(checks, lost, doubled, deadLetters.wrongDeadLetters);
  }

  /** Every document of every order partition the scenario touches. */
  private OrderPartitions readPartitions() throws InterruptedException {
    Set<String> ids = new LinkedHashSet<>(allOrders.keySet());
    ids.addAll(intake.refused());
    scenario.poisons.forEach(p -> ids.add(p.orderId()));
    ids.add(scenario.lifecycle.neverPlaced);
    return OrderPartitions.read(sources.orders(), ids, parallelism);
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
