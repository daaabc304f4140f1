package io.idemworker.operator;

import com.azure.cosmos.CosmosContainer;
import io.idemworker.azure.MessageExplainer;
import io.idemworker.azure.MessageExplanation;
import io.idemworker.servicebus.deadletter.DeadLetterReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Gathers what the system holds about one message or order through the library's {@link
 * MessageExplainer}: every document in the order's partition (one single-partition query) and the
 * copies in the dead-letter queues it is given, then words it for orders.
 *
 * <p><b>Finding the partition.</b> Every document lives in partition {@code orderId} (the
 * container's partition key). The order id is found first, cheapest way first: the one the caller
 * gives ({@code --order}); the {@code orderId} in the body of a dead-lettered copy whose MessageId
 * is the id asked about; the prefix of a status-change id {@code {orderId}:status:{v}} (this
 * worker's resolver); the id itself when partition {@code id} holds documents (an OrderPlaced
 * MessageId is the orderId); else one cross-partition query, {@link MessageExplainer#lookUp}, for
 * the documents whose idempotency key or MessageId is the id (an inbox marker of a credit, a
 * payment record), whose request charge is reported in {@link Explanation#resolvedBy()} or, when it
 * finds nothing, in the problems.
 *
 * <p>Reads only; never writes, locks or settles. Not thread-safe.
 */
final class OrderExplainer {
  private static final Pattern STATUS_ID = Pattern.compile("(.+):status:(\\d+)");
  private static final String STATUS_CHANGE_ID = "status-change id";

  private final MessageExplainer explainer;
  private final int deadLetterMax;

  /**
   * Creates the explainer; reads the container's partition key path.
   *
   * @param container the orders container
   * @param relayTopic the relay's topic, whose lease holds the checkpoint
   * @param deadLetters reads dead-letter queues
   * @param sources the dead-letter queues to look in
   * @param deadLetterMax the most messages to peek per dead-letter queue
   * @throws com.azure.cosmos.CosmosException when the container cannot be read
   */
  OrderExplainer(
      CosmosContainer container,
      String relayTopic,
      DeadLetterReader deadLetters,
      List<DeadLetterReader.Source> sources,
      int deadLetterMax) {
    this.explainer =
        MessageExplainer.builder()
            .container(Objects.requireNonNull(container, "container"))
            .relayTopic(relayTopic)
            .deadLetters(deadLetters, sources, deadLetterMax)
            .resolver(STATUS_CHANGE_ID, OrderExplainer::orderOfStatusChange)
            .build();
    this.deadLetterMax = deadLetterMax;
  }

  private static Optional<String> orderOfStatusChange(String id) {
    Matcher status = STATUS_ID.matcher(id);
    return status.matches() ? Optional.of(status.group(1)) : Optional.empty();
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
    MessageExplanation found = explainer.explain(id, order);
    MessageExplanation.Resolution resolution = found.resolution();
    String resolvedBy;
    if (resolution instanceof MessageExplanation.Given) {
      resolvedBy = "--order";
    } else if (resolution instanceof MessageExplanation.FromDeadLetter) {
      resolvedBy = "dead-lettered copy";
    } else if (resolution instanceof MessageExplanation.ByResolver resolver) {
      resolvedBy = resolver.name();
    } else if (resolution instanceof MessageExplanation.ByLookup lookup) {
      resolvedBy = "cross-partition query by key, " + cost(lookup.requestCharge());
    } else {
      resolvedBy = "id taken as the orderId";
    }
    return new Explanation(
        id,
        found.entityId(),
        resolvedBy,
        found.documents(),
        found.deadLetters(),
        found::relayState,
        problems(found));
  }

  /** The library's findings in this command's words: its option names, orders. */
  private List<String> problems(MessageExplanation found) {
    List<String> problems = new ArrayList<>();
    for (MessageExplanation.QueueRead read : found.queues()) {
      if (read.truncated()) {
        problems.add(
            read.source().label()
                + "/$deadletterqueue: only the first "
                + deadLetterMax
                + " messages were read (--dlq-max)");
      }
      read.failure()
          .ifPresent(f -> problems.add(read.source().label() + "/$deadletterqueue not read: " + f));
    }
    found
        .lookup()
        .ifPresent(
            lookup -> {
              if (lookup.entityIds().isEmpty()) {
                problems.add(
                    "a cross-partition query for documents keyed by "
                        + found.query()
                        + " found none ("
                        + cost(lookup.requestCharge())
                        + ")");
              } else if (lookup.entityIds().size() > 1) {
                problems.add(
                    found.query()
                        + " is the key of documents in several orders: "
                        + lookup.entityIds()
                        + "; showing "
                        + found.entityId());
              }
            });
    found.relayFailure().ifPresent(f -> problems.add("the relay's checkpoint not read: " + f));
    return problems;
  }

  private static String cost(double requestCharge) {
    return String.format(Locale.ROOT, "%.2f RU", requestCharge);
  }

  /**
   * The orders holding a document whose idempotency key or MessageId is {@code id}, by one
   * cross-partition query, and what it cost.
   */
  static Lookup lookUp(CosmosContainer container, String id) {
    MessageExplainer.Lookup lookup = MessageExplainer.lookUp(container, id);
    return new Lookup(lookup.entityIds(), lookup.requestCharge());
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
}
