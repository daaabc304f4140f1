package io.idemworker.operator;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.relay.RelayProgress;
import io.idemworker.servicebus.deadletter.DeadLetterReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Gathers what the system holds about one message or order: every document in the order's partition
 * (one single-partition query) and the copies in the dead-letter queues it is given.
 *
 * <p><b>Finding the partition.</b> Every document lives in partition {@code orderId}. The order id
 * is found first, cheapest way first: the one the caller gives ({@code --order}); the {@code
 * orderId} in the body of a dead-lettered copy whose MessageId is the id asked about; the prefix of
 * a status-change id {@code {orderId}:status:{v}}; the id itself when partition {@code id} holds
 * documents (an OrderPlaced MessageId is the orderId); else one cross-partition query, {@link
 * #LOOKUP_QUERY}, for the documents whose idempotency key or MessageId is the id (an inbox marker
 * of a credit, a payment record), whose request charge is reported in {@link
 * Explanation#resolvedBy()} or, when it finds nothing, in the problems.
 *
 * <p>Reads only; never writes, locks or settles. Not thread-safe.
 */
final class OrderExplainer {
  private static final Pattern STATUS_ID = Pattern.compile("(.+):status:(\\d+)");
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The look-up by key an operator would run in Data Explorer: a cross-partition query, a fan-out
   * over every physical partition on Azure, so it runs only when cheaper ways found nothing.
   */
  static final String LOOKUP_QUERY =
      "SELECT DISTINCT VALUE c.orderId FROM c WHERE c.key = @id OR c.messageId = @id";

  /** The most change-feed documents read after the relay's checkpoint to place events. */
  static final int RELAY_BACKLOG_READ = 10_000;

  private final CosmosContainer container;
  private final String relayTopic;
  private final DeadLetterReader deadLetters;
  private final List<DeadLetterReader.Source> sources;
  private final int deadLetterMax;

  /**
   * Creates the explainer.
   *
   * @param container the orders container
   * @param relayTopic the relay's topic, whose lease holds the checkpoint
   * @param deadLetters reads dead-letter queues
   * @param sources the dead-letter queues to look in
   * @param deadLetterMax the most messages to peek per dead-letter queue
   */
  OrderExplainer(
      CosmosContainer container,
      String relayTopic,
      DeadLetterReader deadLetters,
      List<DeadLetterReader.Source> sources,
      int deadLetterMax) {
    this.container = Objects.requireNonNull(container, "container");
    this.relayTopic = Objects.requireNonNull(relayTopic, "relayTopic");
    this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
    this.sources = List.copyOf(sources);
    this.deadLetterMax = deadLetterMax;
  }

  /**
   * Gathers what is stored.
   *
   * @param id a MessageId or an orderId
   * @param order the order id when the caller knows it
   * @return what was found; {@link Explanation#found()} tells whether anything was
   * @throws com.azure.cosmos.CosmosException when Cosmos DB cannot be read (the container missing,
   *     access denied)
   */
  Explanation explain(String id, Optional<String> order) {
    List<String> problems = new ArrayList<>();
    List<DeadLetterReader.DeadLetter> peeked = new ArrayList<>();
    for (DeadLetterReader.Source source : sources) {
      try {
        DeadLetterReader.Peek peek = deadLetters.peek(source, deadLetterMax);
        peeked.addAll(peek.messages());
        if (peek.truncated()) {
          problems.add(
              source.label()
                  + "/$deadletterqueue: only the first "
                  + deadLetterMax
                  + " messages were read (--dlq-max)");
        }
      } catch (RuntimeException e) {
        problems.add(source.label() + "/$deadletterqueue not read: " + firstLine(e));
      }
    }
    String orderId;
    String resolvedBy;
    Optional<String> fromCopy =
        peeked.stream()
            .filter(d -> d.messageId().filter(id::equals).isPresent())
            .map(OrderExplainer::orderIdOf)
            .flatMap(Optional::stream)
            .findFirst();
    Matcher status = STATUS_ID.matcher(id);
    if (order.isPresent()) {
      orderId = order.get();
      resolvedBy = "--order";
    } else if (fromCopy.isPresent()) {
      orderId = fromCopy.get();
      resolvedBy = "dead-lettered copy";
    } else if (status.matches()) {
      orderId = status.group(1);
      resolvedBy = "status-change id";
    } else {
      orderId = id;
      resolvedBy = "id taken as the orderId";
    }
    List<JsonNode> documents = partition(orderId);
    if (documents.isEmpty() && order.isEmpty() && fromCopy.isEmpty() && !status.matches()) {
      Lookup lookup = lookUp(container, id);
      String cost = String.format(Locale.ROOT, "%.2f RU", lookup.requestCharge());
      if (lookup.orderIds().isEmpty()) {
        problems.add(
            "a cross-partition query for documents keyed by " + id + " found none (" + cost + ")");
      } else {
        orderId = lookup.orderIds().get(0);
        resolvedBy = "cross-partition query by key, " + cost;
        if (lookup.orderIds().size() > 1) {
          problems.add(
              id
                  + " is the key of documents in several orders: "
                  + lookup.orderIds()
                  + "; showing "
                  + orderId);
        }
        documents = partition(orderId);
      }
    }
    String partition = orderId;
    List<DeadLetterReader.DeadLetter> copies =
        peeked.stream()
            .filter(
                d ->
                    d.messageId().filter(id::equals).isPresent()
                        || orderIdOf(d).filter(partition::equals).isPresent())
            .toList();
    return new Explanation(
        id, orderId, resolvedBy, documents, copies, relayProgress(documents, problems), problems);
  }

  /**
   * What the relay did with the order's events, from its checkpoint: read only when the order has
   * events; when the relay's state cannot be read, every event is unknown and a problem says why.
   */
  private Function<JsonNode, RelayProgress.State> relayProgress(
      List<JsonNode> documents, List<String> problems) {
    if (documents.stream().noneMatch(d -> "outbox".equals(d.path("type").asText()))) {
      return e -> RelayProgress.State.UNKNOWN;
    }
    try {
      return RelayProgress.read(container, relayTopic, RELAY_BACKLOG_READ)::of;
    } catch (RuntimeException e) {
      problems.add("the relay's checkpoint not read: " + firstLine(e));
      return e2 -> RelayProgress.State.UNKNOWN;
    }
  }

  private List<JsonNode> partition(String orderId) {
    List<JsonNode> documents = new ArrayList<>();
    container
        .queryItems(
            "SELECT * FROM c",
            new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey(orderId)),
            JsonNode.class)
        .forEach(documents::add);
    return documents;
  }

  /**
   * The orders holding a document whose idempotency key or MessageId is {@code id}, by one
   * cross-partition query, and what it cost.
   */
  static Lookup lookUp(CosmosContainer container, String id) {
    List<String> orderIds = new ArrayList<>();
    double charge = 0;
    for (FeedResponse<JsonNode> page :
        container
            .queryItems(
                new SqlQuerySpec(LOOKUP_QUERY, List.of(new SqlParameter("@id", id))),
                new CosmosQueryRequestOptions(),
                JsonNode.class)
            .iterableByPage()) {
      charge += page.getRequestCharge();
      page.getResults().forEach(v -> orderIds.add(v.asText()));
    }
    return new Lookup(orderIds, charge);
  }

  /**
   * What the cross-partition look-up found.
   *
   * @param orderIds the orders, each once
   * @param requestCharge the request units the query cost, summed over its pages
   */
  record Lookup(List<String> orderIds, double requestCharge) {
    Lookup {
      orderIds = List.copyOf(orderIds);
    }
  }

  /** The {@code orderId} in a dead-lettered body, when it is a JSON object holding one. */
  static Optional<String> orderIdOf(DeadLetterReader.DeadLetter deadLetter) {
    try {
      JsonNode body = JSON.readTree(deadLetter.body());
      JsonNode orderId = body == null ? null : body.get("orderId");
      return orderId != null && orderId.isTextual() && !orderId.asText().isBlank()
          ? Optional.of(orderId.asText())
          : Optional.empty();
    } catch (IOException e) {
      // Unreadable bodies are dead-lettered for that very reason; they name no order.
      return Optional.empty();
    }
  }

  private static String firstLine(RuntimeException e) {
    String message = Optional.ofNullable(e.getMessage()).orElse(e.getClass().getSimpleName());
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
