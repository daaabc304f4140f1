package io.idemworker.azure;

import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.relay.RelayProgress;
import io.idemworker.servicebus.deadletter.DeadLetterReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * What {@link MessageExplainer} found about one message or entity: the documents of the entity's
 * partition sorted by what wrote them, the dead-lettered copies, where the relay stands with each
 * event, and what could not be read. Holds the documents as stored (payloads included): rendering
 * them, and leaving payloads out, is the caller's concern.
 *
 * <p>Documents the library writes are told apart by their {@code type}: {@code inbox} (an inbox
 * marker, {@link #markers()}), {@code outbox} (an event, {@link #events()}), {@code requestRecord}
 * (a request record of a two-phase call, {@link #requestRecords()}); every other document is an
 * entity's ({@link #entities()}).
 *
 * <p>Immutable.
 */
public final class MessageExplanation {
  private final String query;
  private final String entityId;
  private final String partitionKeyPath;
  private final Resolution resolution;
  private final List<JsonNode> documents;
  private final List<DeadLetterReader.DeadLetter> deadLetters;
  private final Function<JsonNode, RelayProgress.State> relay;
  private final List<QueueRead> queues;
  private final Optional<MessageExplainer.Lookup> lookup;
  private final Optional<String> relayFailure;

  MessageExplanation(
      String query,
      String entityId,
      String partitionKeyPath,
      Resolution resolution,
      List<JsonNode> documents,
      List<DeadLetterReader.DeadLetter> deadLetters,
      Function<JsonNode, RelayProgress.State> relay,
      List<QueueRead> queues,
      Optional<MessageExplainer.Lookup> lookup,
      Optional<String> relayFailure) {
    this.query = Objects.requireNonNull(query, "query");
    this.entityId = Objects.requireNonNull(entityId, "entityId");
    this.partitionKeyPath = Objects.requireNonNull(partitionKeyPath, "partitionKeyPath");
    this.resolution = Objects.requireNonNull(resolution, "resolution");
    this.documents = documents.stream().<JsonNode>map(JsonNode::deepCopy).toList();
    this.deadLetters = List.copyOf(deadLetters);
    this.relay = Objects.requireNonNull(relay, "relay");
    this.queues = List.copyOf(queues);
    this.lookup = Objects.requireNonNull(lookup, "lookup");
    this.relayFailure = Objects.requireNonNull(relayFailure, "relayFailure");
  }

  /** How the entity (partition) was found. */
  public sealed interface Resolution
      permits Given, FromDeadLetter, ByResolver, IdItself, ByLookup {}

  /** The caller gave the entity id. */
  public record Given() implements Resolution {}

  /**
   * A dead-lettered copy with the MessageId asked about named the entity in its body.
   *
   * @param source the dead-letter queue's entity
   * @param sequenceNumber the copy's sequence number there
   */
  public record FromDeadLetter(DeadLetterReader.Source source, long sequenceNumber)
      implements Resolution {}

  /**
   * An application's {@linkplain MessageExplainer.Builder#resolver resolver} recognised the id.
   *
   * @param name the resolver's name
   */
  public record ByResolver(String name) implements Resolution {}

  /** The id was taken as the entity id (nothing else placed it). */
  public record IdItself() implements Resolution {}

  /**
   * The cross-partition look-up by key found the entity ({@link #lookup()} holds what it found).
   *
   * @param requestCharge the request units the query cost
   */
  public record ByLookup(double requestCharge) implements Resolution {}

  /**
   * How one dead-letter queue was read.
   *
   * @param source the queue or subscription
   * @param read how many messages were peeked
   * @param truncated whether the most allowed stopped the peek before the end
   * @param failure why it could not be read (the error's first line), when it could not
   */
  public record QueueRead(
      DeadLetterReader.Source source, int read, boolean truncated, Optional<String> failure) {
    /** Requires every component. */
    public QueueRead {
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(failure, "failure");
    }
  }

  /**
   * The id asked about.
   *
   * @return a MessageId or an entity id
   */
  public String query() {
    return query;
  }

  /**
   * The entity whose partition was read (the id itself when nothing placed it).
   *
   * @return the partition key value
   */
  public String entityId() {
    return entityId;
  }

  /**
   * The container's partition key path, as read from the container.
   *
   * @return e.g. {@code /shipmentId}
   */
  public String partitionKeyPath() {
    return partitionKeyPath;
  }

  /**
   * How the entity was found.
   *
   * @return the resolution
   */
  public Resolution resolution() {
    return resolution;
  }

  /**
   * Every document in the entity's partition, as stored.
   *
   * @return the documents, each a copy
   */
  public List<JsonNode> documents() {
    return documents.stream().<JsonNode>map(JsonNode::deepCopy).toList();
  }

  /**
   * The inbox markers ({@code type} {@code inbox}): which messages of a relative change applied.
   *
   * @return the markers
   */
  public List<JsonNode> markers() {
    return ofType("inbox");
  }

  /**
   * The outbox events ({@code type} {@code outbox}); {@link #relayState} tells each one's fate.
   *
   * @return the events
   */
  public List<JsonNode> events() {
    return ofType("outbox");
  }

  /**
   * The request records of two-phase calls ({@code type} {@code requestRecord}).
   *
   * @return the records
   */
  public List<JsonNode> requestRecords() {
    return ofType("requestRecord");
  }

  /**
   * The entity documents: every document that is not a marker, an event or a request record.
   *
   * @return the documents
   */
  public List<JsonNode> entities() {
    List<String> library = List.of("inbox", "outbox", "requestRecord");
    return documents.stream()
        .filter(d -> !library.contains(d.path("type").asText()))
        .<JsonNode>map(JsonNode::deepCopy)
        .toList();
  }

  private List<JsonNode> ofType(String type) {
    return documents.stream()
        .filter(d -> type.equals(d.path("type").asText()))
        .<JsonNode>map(JsonNode::deepCopy)
        .toList();
  }

  /**
   * Whether a document records the message asked about: its {@code messageId}, {@code
   * idempotencyKey}, {@code causationId} (an event it emitted) or {@code key} (its marker) is the
   * id.
   *
   * @param document a document of {@link #documents()}
   * @return true when it does
   */
  public boolean matches(JsonNode document) {
    for (String field : List.of("messageId", "idempotencyKey", "causationId", "key")) {
      if (query.equals(document.path(field).asText(null))) {
        return true;
      }
    }
    return false;
  }

  /**
   * The dead-lettered copies of the message, or of other messages for the same entity.
   *
   * @return the copies, in the order the queues were read
   */
  public List<DeadLetterReader.DeadLetter> deadLetters() {
    return deadLetters;
  }

  /**
   * What the relay did with an event, read from its checkpoint; {@link RelayProgress.State#UNKNOWN}
   * when no relay topic was given or its state could not be read.
   *
   * @param event an event of {@link #events()}
   * @return its state
   */
  public RelayProgress.State relayState(JsonNode event) {
    return relay.apply(event);
  }

  /**
   * How each dead-letter queue was read, in the order given.
   *
   * @return one entry per queue
   */
  public List<QueueRead> queues() {
    return queues;
  }

  /**
   * The cross-partition look-up, when it ran (nothing cheaper placed the id, and its partition was
   * empty).
   *
   * @return what it found and cost
   */
  public Optional<MessageExplainer.Lookup> lookup() {
    return lookup;
  }

  /**
   * Why the relay's checkpoint could not be read, when it could not (its events are then {@link
   * RelayProgress.State#UNKNOWN}).
   *
   * @return the error's first line
   */
  public Optional<String> relayFailure() {
    return relayFailure;
  }

  /**
   * Whether anything at all was found.
   *
   * @return true when a document or a dead-lettered copy was found
   */
  public boolean found() {
    return !documents.isEmpty() || !deadLetters.isEmpty();
  }

  /**
   * What could not be read, or was read only in part, or was ambiguous, in words: the dead-letter
   * queues, then the look-up, then the relay.
   *
   * @return one sentence each; empty when everything was read
   */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    for (QueueRead read : queues) {
      String dlq = read.source().label() + "/$deadletterqueue";
      read.failure().ifPresent(f -> problems.add(dlq + " not read: " + f));
      if (read.truncated()) {
        problems.add(dlq + ": only the first " + read.read() + " messages were read");
      }
    }
    lookup.ifPresent(
        l -> {
          String cost = String.format(Locale.ROOT, "%.2f RU", l.requestCharge());
          if (l.entityIds().isEmpty()) {
            problems.add(
                "a cross-partition query for documents keyed by "
                    + query
                    + " found none ("
                    + cost
                    + ")");
          } else if (l.entityIds().size() > 1) {
            problems.add(
                query
                    + " is the key of documents in several partitions: "
                    + l.entityIds()
                    + "; showing "
                    + entityId);
          }
        });
    relayFailure.ifPresent(f -> problems.add("the relay's checkpoint not read: " + f));
    return problems;
  }
}
