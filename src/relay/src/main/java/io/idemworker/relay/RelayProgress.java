package io.idemworker.relay;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Where the relay stands, for readers that want to know whether an event was published (the {@code
 * explain} tool, the proof's audits). Events carry no status: an event is published once the
 * relay's checkpoint (the change-feed position in its lease document) is past it. This reads the
 * lease and then the change feed after the checkpoint, which holds exactly the events not yet
 * published (the relay keeps it short: its lag); an event that exists and is not there is behind
 * the checkpoint.
 *
 * <p>Immutable once read. Reading costs one point read plus the feed after the checkpoint, so it is
 * bounded by {@code maxDocuments}: a longer backlog leaves events that are not in the part read
 * {@link State#UNKNOWN}.
 */
public final class RelayProgress {

  /** What the relay did with one event. */
  public enum State {
    /** The checkpoint is past it: the topic accepted it. */
    PUBLISHED,
    /** Handed to the topic by the lease holder, the checkpoint not yet past it. */
    SENDING,
    /** Not yet read by the relay. */
    PENDING,
    /** Marked {@code unpublishable} for a person to look at. */
    UNPUBLISHABLE,
    /** The backlog after the checkpoint was longer than what was read. */
    UNKNOWN
  }

  private final boolean checkpointed;
  private final Set<String> sending;
  private final Set<String> after;
  private final boolean complete;

  private RelayProgress(
      boolean checkpointed, Set<String> sending, Set<String> after, boolean complete) {
    this.checkpointed = checkpointed;
    this.sending = Set.copyOf(sending);
    this.after = Set.copyOf(after);
    this.complete = complete;
  }

  /**
   * Reads the lease of the relay publishing to {@code topicName} and the feed after its checkpoint.
   *
   * @param container the outbox's container (the lease lives there)
   * @param topicName the relay's topic
   * @param maxDocuments the most change-feed documents to read after the checkpoint
   * @return the progress
   * @throws RelayFailure when Cosmos DB cannot be read
   */
  public static RelayProgress read(CosmosContainer container, String topicName, int maxDocuments) {
    Objects.requireNonNull(container, "container");
    Optional<JsonNode> lease = lease(container, topicName);
    Set<String> sending = new HashSet<>();
    lease.ifPresent(l -> l.path("sending").forEach(id -> sending.add(id.asText())));
    Optional<String> continuation =
        lease.map(l -> l.path("continuation")).filter(JsonNode::isTextual).map(JsonNode::asText);
    if (continuation.isEmpty()) {
      return new RelayProgress(false, sending, Set.of(), true);
    }
    Set<String> after = new HashSet<>();
    int read = 0;
    Iterator<CosmosOutbox.Page> pages =
        new CosmosOutbox(container, Math.min(1000, Math.max(1, maxDocuments)))
            .pagesAfter(continuation);
    while (pages.hasNext()) {
      if (read >= maxDocuments) {
        return new RelayProgress(true, sending, after, false);
      }
      for (JsonNode document : pages.next().documents()) {
        read++;
        if ("outbox".equals(document.path("type").asText())) {
          after.add(document.path("id").asText());
        }
      }
    }
    return new RelayProgress(true, sending, after, true);
  }

  /**
   * What the relay did with an event document read from the container.
   *
   * @param event the outbox document
   * @return its state
   */
  public State of(JsonNode event) {
    String status = event.path("status").asText();
    if ("unpublishable".equals(status)) {
      return State.UNPUBLISHABLE;
    }
    if ("published".equals(status)) {
      // marked by a relay of an earlier release
      return State.PUBLISHED;
    }
    String id = event.path("id").asText();
    if (sending.contains(id)) {
      return State.SENDING;
    }
    if (!checkpointed || after.contains(id)) {
      return State.PENDING;
    }
    return complete ? State.PUBLISHED : State.UNKNOWN;
  }

  private static Optional<JsonNode> lease(CosmosContainer container, String topicName) {
    try {
      return Optional.of(
          container
              .readItem(
                  RelayLease.DOCUMENT_ID,
                  new PartitionKey(RelayLease.partition(topicName)),
                  JsonNode.class)
              .getItem());
    } catch (CosmosException e) {
      if (e.getStatusCode() == 404 && e.getSubStatusCode() == 0) {
        return Optional.empty();
      }
      throw CosmosOutbox.failure("reading the relay lease", e);
    } catch (RuntimeException e) {
      throw CosmosOutbox.failure("reading the relay lease", e);
    }
  }
}
