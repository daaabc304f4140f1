package io.idemworker.relay;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosChangeFeedRequestOptions;
import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The outbox in a business container: its change feed (latest-version mode, pull model, the whole
 * container), and the mark the relay puts on an event that can never be published. Published events
 * get no mark: the relay's checkpoint is their progress, and their own {@code ttl} ages them out.
 *
 * <p>Thread-safe as the SDK's container is.
 */
final class CosmosOutbox {
  /** Sub-status of a 404 that means the container or database itself is missing. */
  private static final int OWNER_RESOURCE_NOT_FOUND = 1003;

  private final CosmosContainer container;
  private final int pageSize;
  // Read once, on the relay's thread; the container's partition key cannot change.
  private volatile String partitionKeyField;

  CosmosOutbox(CosmosContainer container, int pageSize) {
    this.container = Objects.requireNonNull(container, "container");
    this.pageSize = pageSize;
  }

  /**
   * The container's partition key field, read from the container the first time: the outbox events
   * carry their partition key value in it, and so does the relay's lease document.
   *
   * @return the field, e.g. {@code shipmentId}
   * @throws RelayFailure when the container cannot be read, or when it is not partitioned by one
   *     top-level field (a misconfiguration)
   */
  String partitionKeyField() {
    String field = partitionKeyField;
    if (field == null) {
      field = partitionKeyField(container);
      partitionKeyField = field;
    }
    return field;
  }

  /**
   * Reads a container's partition key field.
   *
   * @param container the container
   * @return the field
   * @throws RelayFailure as {@link #partitionKeyField()}
   */
  static String partitionKeyField(CosmosContainer container) {
    List<String> paths;
    try {
      paths = container.read().getProperties().getPartitionKeyDefinition().getPaths();
    } catch (RuntimeException e) {
      throw failure("reading the container's partition key", e);
    }
    if (paths == null
        || paths.size() != 1
        || !paths.get(0).matches("/[A-Za-z_][A-Za-z0-9_]{0,63}")) {
      throw new RelayFailure(
          RelayFailure.Kind.MISCONFIGURATION,
          "the relay needs a container partitioned by one top-level field, such as /entityId;"
              + " this one is partitioned by "
              + paths,
          null);
    }
    return paths.get(0).substring(1);
  }

  /**
   * One page of the feed.
   *
   * @param documents the documents, in the feed's order
   * @param continuation the position after them
   */
  record Page(List<JsonNode> documents, String continuation) {}

  /**
   * The pages after a position, fetched lazily; the iteration ends when the feed has nothing new.
   * The iterator throws {@link RelayFailure} when Cosmos DB fails.
   *
   * @param continuation the position, or empty for the beginning of the container's history
   * @return the pages
   */
  Iterator<Page> pagesAfter(Optional<String> continuation) {
    CosmosChangeFeedRequestOptions options =
        continuation
            .map(CosmosChangeFeedRequestOptions::createForProcessingFromContinuation)
            .orElseGet(
                () ->
                    CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(
                        FeedRange.forFullRange()));
    options.setMaxItemCount(pageSize);
    Iterator<FeedResponse<JsonNode>> responses;
    try {
      responses =
          container.queryChangeFeed(options, JsonNode.class).iterableByPage(pageSize).iterator();
    } catch (RuntimeException e) {
      throw failure("reading the change feed", e);
    }
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        try {
          return responses.hasNext();
        } catch (RuntimeException e) {
          throw failure("reading the change feed", e);
        }
      }

      @Override
      public Page next() {
        try {
          FeedResponse<JsonNode> response = responses.next();
          return new Page(List.copyOf(response.getResults()), response.getContinuationToken());
        } catch (RuntimeException e) {
          throw failure("reading the change feed", e);
        }
      }
    };
  }

  /**
   * Marks a pending document as one that can never be published, for a person to look at; it keeps
   * no TTL.
   *
   * @param id the document id
   * @param partitionKey its partition key value
   * @param problem why
   * @param now when
   * @throws RelayFailure when Cosmos DB fails
   */
  void markUnpublishable(String id, String partitionKey, String problem, Instant now) {
    patch(
        id,
        partitionKey,
        CosmosPatchOperations.create()
            .set("/status", "unpublishable")
            .set("/unpublishableReason", problem)
            .set("/checkedAt", now.toString()));
  }

  private void patch(String id, String partitionKey, CosmosPatchOperations operations) {
    try {
      container.patchItem(id, new PartitionKey(partitionKey), operations, JsonNode.class);
    } catch (CosmosException e) {
      if (e.getStatusCode() == 404 && e.getSubStatusCode() != OWNER_RESOURCE_NOT_FOUND) {
        return;
      }
      throw failure("marking event " + id, e);
    } catch (RuntimeException e) {
      throw failure("marking event " + id, e);
    }
  }

  /**
   * Classifies a Cosmos DB failure: no permission, a missing container, or a request Cosmos DB
   * refuses as malformed (400: a document the container's partition key cannot take) is
   * misconfiguration, which no retry mends; everything else is retried.
   */
  static RelayFailure failure(String what, RuntimeException e) {
    if (e instanceof RelayFailure relayFailure) {
      return relayFailure;
    }
    if (e instanceof CosmosException cosmos) {
      boolean misconfigured =
          cosmos.getStatusCode() == 401
              || (cosmos.getStatusCode() == 403 && cosmos.getSubStatusCode() != 3)
              || cosmos.getStatusCode() == 400
              || (cosmos.getStatusCode() == 404
                  && cosmos.getSubStatusCode() == OWNER_RESOURCE_NOT_FOUND);
      return new RelayFailure(
          misconfigured ? RelayFailure.Kind.MISCONFIGURATION : RelayFailure.Kind.TRANSIENT,
          what + ": Cosmos DB answered " + cosmos.getStatusCode() + "/" + cosmos.getSubStatusCode(),
          e);
    }
    return new RelayFailure(
        RelayFailure.Kind.TRANSIENT, what + ": " + e.getClass().getSimpleName(), e);
  }
}
