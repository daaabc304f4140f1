package io.idemworker.relay;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The relay's lease and checkpoint: one document per topic in the outbox's container (id {@value
 * #DOCUMENT_ID}, partition {@code relay:<topic>} in the container's own partition key field),
 * holding who publishes, until when, from which change-feed position, and which events the holder
 * is sending right now.
 *
 * <p>Every write after the first is a replace under {@code If-Match} of the etag the writer last
 * saw, so a replica that lost the lease (paused past its expiry while another took over) can
 * neither renew it nor move the checkpoint: its write answers 412 and it stops. A lease is taken
 * over when its {@code expiresAt}, judged on the taker's clock, has passed; replicas' clocks must
 * agree to well within the lease duration.
 *
 * <p>Not thread-safe; the relay uses it from one thread.
 */
final class RelayLease {
  static final String DOCUMENT_ID = "relay-lease";

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final CosmosContainer container;
  private final String partition;
  private final String ownerId;
  private final Duration duration;
  private volatile String partitionKeyField;

  RelayLease(CosmosContainer container, String topicName, String ownerId, Duration duration) {
    this.container = Objects.requireNonNull(container, "container");
    this.partition = partition(topicName);
    this.ownerId = Objects.requireNonNull(ownerId, "ownerId");
    this.duration = Objects.requireNonNull(duration, "duration");
  }

  /** The partition key of the lease of the relay publishing to {@code topicName}. */
  static String partition(String topicName) {
    return "relay:" + topicName;
  }

  /**
   * The lease as this replica holds it.
   *
   * @param etag the etag of the document as last written
   * @param continuation the checkpoint: every event before it is published
   * @param sending events handed to the topic with the checkpoint not yet past them (possibly by an
   *     earlier holder)
   * @param renewedAt when this replica last wrote the document
   */
  record Held(String etag, Optional<String> continuation, List<String> sending, Instant renewedAt) {
    Held {
      Objects.requireNonNull(etag, "etag");
      Objects.requireNonNull(continuation, "continuation");
      sending = List.copyOf(sending);
      Objects.requireNonNull(renewedAt, "renewedAt");
    }
  }

  /** The lease was taken by another replica; stop publishing. */
  static final class Lost extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Lost(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Takes the lease if it is free, expired or already ours.
   *
   * @param now the current time
   * @return the lease, or empty while another replica holds it
   * @throws RelayFailure when Cosmos DB fails
   */
  Optional<Held> acquire(Instant now) {
    Optional<CosmosItemResponse<JsonNode>> current = read();
    if (current.isEmpty()) {
      ObjectNode document = document(Optional.empty(), List.of(), now, now.plus(duration));
      try {
        CosmosItemResponse<JsonNode> created =
            container.createItem(
                document, new PartitionKey(partition), new CosmosItemRequestOptions());
        return Optional.of(new Held(created.getETag(), Optional.empty(), List.of(), now));
      } catch (CosmosException e) {
        if (e.getStatusCode() == 409) {
          return Optional.empty();
        }
        throw CosmosOutbox.failure("creating the relay lease", e);
      } catch (RuntimeException e) {
        throw CosmosOutbox.failure("creating the relay lease", e);
      }
    }
    JsonNode stored = current.get().getItem();
    String holder = stored.path("holder").asText();
    Instant expiresAt = instant(stored.path("expiresAt").asText());
    if (!holder.equals(ownerId) && now.isBefore(expiresAt)) {
      return Optional.empty();
    }
    Optional<String> continuation =
        stored.path("continuation").isTextual()
            ? Optional.of(stored.path("continuation").asText())
            : Optional.empty();
    List<String> sending = new ArrayList<>();
    stored.path("sending").forEach(id -> sending.add(id.asText()));
    Held previous = new Held(current.get().getETag(), continuation, sending, now);
    try {
      return Optional.of(write(previous, continuation, sending, now));
    } catch (Lost e) {
      return Optional.empty();
    }
  }

  /**
   * Renews the lease and records the checkpoint and the events being sent.
   *
   * @param held the lease as last written
   * @param continuation the new checkpoint
   * @param sending the events about to be sent, or none
   * @param now the current time
   * @return the lease as written
   * @throws Lost when another replica wrote the document since
   * @throws RelayFailure when Cosmos DB fails
   */
  Held write(Held held, Optional<String> continuation, List<String> sending, Instant now) {
    return replace(held, document(continuation, sending, now, now.plus(duration)), now);
  }

  /**
   * Gives the lease up, keeping the checkpoint, so another replica takes over at once rather than
   * after the lease expires.
   *
   * @param held the lease as last written
   * @param continuation the checkpoint
   * @param now the current time
   * @throws Lost when another replica wrote the document since
   * @throws RelayFailure when Cosmos DB fails
   */
  void release(Held held, Optional<String> continuation, Instant now) {
    replace(held, document(continuation, held.sending(), now, now), now);
  }

  private Held replace(Held held, ObjectNode document, Instant now) {
    Optional<String> continuation =
        document.path("continuation").isTextual()
            ? Optional.of(document.path("continuation").asText())
            : Optional.empty();
    List<String> sending = new ArrayList<>();
    document.path("sending").forEach(id -> sending.add(id.asText()));
    try {
      CosmosItemResponse<JsonNode> written =
          container.replaceItem(
              document,
              DOCUMENT_ID,
              new PartitionKey(partition),
              new CosmosItemRequestOptions().setIfMatchETag(held.etag()));
      return new Held(written.getETag(), continuation, sending, now);
    } catch (CosmosException e) {
      if (e.getStatusCode() == 412 || e.getStatusCode() == 404 && e.getSubStatusCode() == 0) {
        throw new Lost("the relay lease was taken by another replica");
      }
      throw CosmosOutbox.failure("writing the relay lease", e);
    } catch (RuntimeException e) {
      throw CosmosOutbox.failure("writing the relay lease", e);
    }
  }

  /**
   * Whether the lease should be renewed now: a third of its duration has passed since the last
   * write.
   */
  boolean renewalDue(Held held, Instant now) {
    return !now.isBefore(held.renewedAt().plus(duration.dividedBy(3)));
  }

  private Optional<CosmosItemResponse<JsonNode>> read() {
    try {
      return Optional.of(
          container.readItem(DOCUMENT_ID, new PartitionKey(partition), JsonNode.class));
    } catch (CosmosException e) {
      if (e.getStatusCode() == 404 && e.getSubStatusCode() == 0) {
        return Optional.empty();
      }
      throw CosmosOutbox.failure("reading the relay lease", e);
    } catch (RuntimeException e) {
      throw CosmosOutbox.failure("reading the relay lease", e);
    }
  }

  private ObjectNode document(
      Optional<String> continuation, List<String> sending, Instant now, Instant expiresAt) {
    ObjectNode document = JSON.objectNode();
    document.put("id", DOCUMENT_ID);
    document.put(partitionKeyField(), partition);
    document.put("type", "relayLease");
    document.put("holder", ownerId);
    document.put("expiresAt", expiresAt.toString());
    document.put("renewedAt", now.toString());
    continuation.ifPresent(c -> document.put("continuation", c));
    ArrayNode ids = document.putArray("sending");
    sending.forEach(ids::add);
    return document;
  }

  private String partitionKeyField() {
    String field = partitionKeyField;
    if (field == null) {
      field = CosmosOutbox.partitionKeyField(container);
      partitionKeyField = field;
    }
    return field;
  }

  private static Instant instant(String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      // An unreadable expiry cannot protect anyone: treat the lease as expired.
      return Instant.EPOCH;
    }
  }
}
