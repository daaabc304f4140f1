package io.idemworker.azure;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.relay.RelayProgress;
import io.idemworker.servicebus.deadletter.DeadLetterReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Gathers what the system holds about one message or entity: every document in the entity's
 * partition (the entity document, inbox markers, request records, outbox events, as the library
 * writes them), where the relay stands with those events, and the copies in the dead-letter queues
 * it is given. Reads only; never writes, locks or settles.
 *
 * <pre>{@code
 * MessageExplainer explainer =
 *     MessageExplainer.builder()
 *         .container(shipments)
 *         .register(created).register(scanned)
 *         .deadLetters(
 *             new DeadLetterReader(connection), List.of(new DeadLetterReader.Queue("shipments")), 1000)
 *         .relayTopic("shipment-events")
 *         .build();
 * MessageExplanation found = explainer.explain("scan-17", Optional.empty());
 * }</pre>
 *
 * <p><b>Finding the partition.</b> The container's partition key path is read from the container.
 * The entity id is found cheapest way first, and {@link MessageExplanation#resolution()} says
 * which:
 *
 * <ol>
 *   <li>the one the caller gives;
 *   <li>the entity a dead-lettered copy whose MessageId is the id names: read with the {@link
 *       MessageType} registered for its subject, else from the body's field named like the
 *       partition key;
 *   <li>the first {@linkplain Builder#resolver resolver} that recognises the id (an application's
 *       own id shapes, such as {@code {entityId}:delivery:{version}});
 *   <li>the id itself, when its partition holds documents (the MessageId of a create is usually the
 *       entity id);
 *   <li>else one cross-partition query, {@link #lookUp}, for the documents whose key or MessageId
 *       is the id (an inbox marker, an entity's create), whose request charge is reported.
 * </ol>
 *
 * <p>Immutable once built; not meant for concurrent calls (each call opens its own receivers).
 */
public final class MessageExplainer {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern TOP_LEVEL_FIELD = Pattern.compile("/[A-Za-z_][A-Za-z0-9_]{0,63}");

  /**
   * The most change-feed documents read after the relay's checkpoint to place events; events past
   * it are {@link RelayProgress.State#UNKNOWN}.
   */
  public static final int CHANGE_FEED_READ = 10_000;

  private final CosmosContainer container;
  private final String partitionKeyField;
  private final Map<String, MessageType<?>> types;
  private final List<Resolver> resolvers;
  private final Optional<DeadLetterReader> deadLetters;
  private final List<DeadLetterReader.Source> sources;
  private final int deadLetterMax;
  private final Optional<String> relayTopic;

  private MessageExplainer(Builder builder, String partitionKeyField) {
    this.container = builder.container;
    this.partitionKeyField = partitionKeyField;
    this.types = Map.copyOf(builder.types);
    this.resolvers = List.copyOf(builder.resolvers);
    this.deadLetters = builder.deadLetters;
    this.sources = List.copyOf(builder.sources);
    this.deadLetterMax = builder.deadLetterMax;
    this.relayTopic = builder.relayTopic;
  }

  /**
   * Starts an explainer.
   *
   * @return a builder; {@link Builder#container} is required
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * An application's own way to find the entity from an id: a pattern of its ids, for instance.
   *
   * @param name what it is, reported as the resolution (e.g. {@code "delivery id"})
   * @param entityOf the entity id the id belongs to, or empty when the id is not of this shape
   */
  public record Resolver(String name, Function<String, Optional<String>> entityOf) {
    /** Requires both. */
    public Resolver {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(entityOf, "entityOf");
    }
  }

  /**
   * What the cross-partition look-up found.
   *
   * @param query the query text run, with its parameter {@code @id}
   * @param entityIds the partition key values of the documents found, each once
   * @param requestCharge the request units the query cost, summed over its pages
   */
  public record Lookup(String query, List<String> entityIds, double requestCharge) {
    /** Copies the list. */
    public Lookup {
      Objects.requireNonNull(query, "query");
      entityIds = List.copyOf(entityIds);
    }
  }

  /**
   * Gathers what is stored.
   *
   * @param id a MessageId or an entity id
   * @param entityId the entity (partition key value) when the caller knows it
   * @return what was found; {@link MessageExplanation#found()} tells whether anything was
   * @throws IllegalArgumentException when the id or the entity id is blank
   * @throws com.azure.cosmos.CosmosException when Cosmos DB cannot be read (access denied)
   */
  public MessageExplanation explain(String id, Optional<String> entityId) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(entityId, "entityId");
    if (id.isBlank() || entityId.filter(String::isBlank).isPresent()) {
      throw new IllegalArgumentException("the id and the entity id must not be blank");
    }
    List<MessageExplanation.QueueRead> reads = new ArrayList<>();
    List<DeadLetterReader.DeadLetter> peeked = new ArrayList<>();
    for (DeadLetterReader.Source source : sources) {
      try {
        DeadLetterReader.Peek peek = deadLetters.orElseThrow().peek(source, deadLetterMax);
        peeked.addAll(peek.messages());
        reads.add(
            new MessageExplanation.QueueRead(
                source, peek.messages().size(), peek.truncated(), Optional.empty()));
      } catch (RuntimeException e) {
        reads.add(new MessageExplanation.QueueRead(source, 0, false, Optional.of(firstLine(e))));
      }
    }
    Optional<DeadLetterReader.DeadLetter> copy =
        peeked.stream()
            .filter(d -> d.messageId().filter(id::equals).isPresent())
            .filter(d -> entityOf(d).isPresent())
            .findFirst();
    Optional<MessageExplanation.Resolution> byResolver = Optional.empty();
    Optional<String> resolved = Optional.empty();
    for (Resolver resolver : resolvers) {
      resolved = resolver.entityOf().apply(id).filter(e -> !e.isBlank());
      if (resolved.isPresent()) {
        byResolver = Optional.of(new MessageExplanation.ByResolver(resolver.name()));
        break;
      }
    }
    String entity;
    MessageExplanation.Resolution resolution;
    if (entityId.isPresent()) {
      entity = entityId.get();
      resolution = new MessageExplanation.Given();
    } else if (copy.isPresent()) {
      entity = entityOf(copy.get()).orElseThrow();
      resolution =
          new MessageExplanation.FromDeadLetter(copy.get().source(), copy.get().sequenceNumber());
    } else if (byResolver.isPresent()) {
      entity = resolved.orElseThrow();
      resolution = byResolver.get();
    } else {
      entity = id;
      resolution = new MessageExplanation.IdItself();
    }
    List<JsonNode> documents = partition(entity);
    Optional<Lookup> lookup = Optional.empty();
    if (documents.isEmpty() && resolution instanceof MessageExplanation.IdItself) {
      Lookup found = lookUp(container, partitionKeyField, id);
      lookup = Optional.of(found);
      if (!found.entityIds().isEmpty()) {
        entity = found.entityIds().get(0);
        resolution = new MessageExplanation.ByLookup(found.requestCharge());
        documents = partition(entity);
      }
    }
    String partition = entity;
    List<DeadLetterReader.DeadLetter> copies =
        peeked.stream()
            .filter(
                d ->
                    d.messageId().filter(id::equals).isPresent()
                        || entityOf(d).filter(partition::equals).isPresent())
            .toList();
    Optional<String> relayFailure = Optional.empty();
    Function<JsonNode, RelayProgress.State> relay = e -> RelayProgress.State.UNKNOWN;
    if (relayTopic.isPresent()
        && documents.stream().anyMatch(d -> "outbox".equals(d.path("type").asText()))) {
      try {
        relay = RelayProgress.read(container, relayTopic.get(), CHANGE_FEED_READ)::of;
      } catch (RuntimeException e) {
        relayFailure = Optional.of(firstLine(e));
      }
    }
    return new MessageExplanation(
        id,
        entity,
        "/" + partitionKeyField,
        resolution,
        documents,
        copies,
        relay,
        reads,
        lookup,
        relayFailure);
  }

  /**
   * The look-up by key an operator would run in Data Explorer: the entities holding a document
   * whose key or MessageId is {@code id}, by one cross-partition query (a fan-out over every
   * physical partition on Azure), and what it cost.
   *
   * @param container the container; its partition key path is read from it
   * @param id the id
   * @return what was found
   * @throws IllegalArgumentException when the container is not partitioned by one top-level field
   * @throws com.azure.cosmos.CosmosException when Cosmos DB cannot be read
   */
  public static Lookup lookUp(CosmosContainer container, String id) {
    return lookUp(container, partitionKeyField(container), id);
  }

  private static Lookup lookUp(CosmosContainer container, String field, String id) {
    String query =
        "SELECT DISTINCT VALUE c." + field + " FROM c WHERE c.key = @id OR c.messageId = @id";
    List<String> entityIds = new ArrayList<>();
    double charge = 0;
    for (FeedResponse<JsonNode> page :
        container
            .queryItems(
                new SqlQuerySpec(query, List.of(new SqlParameter("@id", id))),
                new CosmosQueryRequestOptions(),
                JsonNode.class)
            .iterableByPage()) {
      charge += page.getRequestCharge();
      page.getResults().forEach(v -> entityIds.add(v.asText()));
    }
    return new Lookup(query, entityIds, charge);
  }

  private List<JsonNode> partition(String entity) {
    List<JsonNode> documents = new ArrayList<>();
    container
        .queryItems(
            "SELECT * FROM c",
            new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey(entity)),
            JsonNode.class)
        .forEach(documents::add);
    return documents;
  }

  /**
   * The entity a dead-lettered copy names: with the type registered for its subject, else the
   * body's field named like the partition key.
   */
  private Optional<String> entityOf(DeadLetterReader.DeadLetter deadLetter) {
    Optional<String> typed =
        deadLetter.subject().map(types::get).flatMap(type -> type.entityOf(deadLetter.body()));
    if (typed.isPresent()) {
      return typed;
    }
    try {
      JsonNode body = JSON.readTree(deadLetter.body());
      JsonNode field = body == null ? null : body.get(partitionKeyField);
      return field != null && field.isTextual() && !field.asText().isBlank()
          ? Optional.of(field.asText())
          : Optional.empty();
    } catch (IOException e) {
      // Unreadable bodies are dead-lettered for that very reason; they name no entity.
      return Optional.empty();
    }
  }

  private static String partitionKeyField(CosmosContainer container) {
    String path = CosmosContainers.partitionKeyPath(container);
    if (!TOP_LEVEL_FIELD.matcher(path).matches()) {
      throw new IllegalArgumentException(
          "container "
              + container.getId()
              + " is partitioned by "
              + path
              + "; the explainer needs one top-level field, such as /entityId");
    }
    return path.substring(1);
  }

  private static String firstLine(RuntimeException e) {
    String message = Optional.ofNullable(e.getMessage()).orElse(e.getClass().getSimpleName());
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /** Configures a {@link MessageExplainer}. Not thread-safe. */
  public static final class Builder {
    private CosmosContainer container;
    private final Map<String, MessageType<?>> types = new LinkedHashMap<>();
    private final List<Resolver> resolvers = new ArrayList<>();
    private Optional<DeadLetterReader> deadLetters = Optional.empty();
    private final List<DeadLetterReader.Source> sources = new ArrayList<>();
    private int deadLetterMax = 1000;
    private Optional<String> relayTopic = Optional.empty();

    private Builder() {}

    /**
     * The worker's container, where its documents and the relay's lease live. Required.
     *
     * @param container the container
     * @return this builder
     */
    public Builder container(CosmosContainer container) {
      this.container = Objects.requireNonNull(container, "container");
      return this;
    }

    /**
     * A type the worker registers: a dead-lettered copy with its subject is placed by the type's
     * entity. Without it, a copy is placed by the body's field named like the partition key.
     *
     * @param type the type
     * @return this builder
     */
    public Builder register(MessageType<?> type) {
      Objects.requireNonNull(type, "type");
      if (types.putIfAbsent(type.subject(), type) != null) {
        throw new IllegalArgumentException(type.subject() + " is registered already");
      }
      return this;
    }

    /**
     * An application's own id shape, tried in the order added after a dead-lettered copy and before
     * the id is taken as the entity id.
     *
     * @param name what it is, reported as the resolution
     * @param entityOf the entity of an id of this shape, or empty
     * @return this builder
     */
    public Builder resolver(String name, Function<String, Optional<String>> entityOf) {
      resolvers.add(new Resolver(name, entityOf));
      return this;
    }

    /**
     * Where dead-lettered copies are looked for. Without it, none are.
     *
     * @param reader reads dead-letter queues
     * @param sources the queues and subscriptions to look in
     * @param max the most messages to peek per dead-letter queue, at least 1 (default 1000)
     * @return this builder
     */
    public Builder deadLetters(
        DeadLetterReader reader, List<DeadLetterReader.Source> sources, int max) {
      if (max < 1) {
        throw new IllegalArgumentException("max must be at least 1, was " + max);
      }
      this.deadLetters = Optional.of(Objects.requireNonNull(reader, "reader"));
      this.sources.clear();
      this.sources.addAll(sources);
      this.deadLetterMax = max;
      return this;
    }

    /**
     * The topic the worker's relay publishes to ({@code IdempotentWorker.Builder.publishEventsTo}):
     * its lease holds the checkpoint that tells whether an event was published. Without it, every
     * event's relay state is {@link RelayProgress.State#UNKNOWN}.
     *
     * @param topic the topic
     * @return this builder
     */
    public Builder relayTopic(String topic) {
      this.relayTopic = Optional.of(Objects.requireNonNull(topic, "topic"));
      return this;
    }

    /**
     * Reads the container's partition key path and builds the explainer.
     *
     * @return the explainer
     * @throws IllegalStateException when no container was given
     * @throws IllegalArgumentException when the container is not partitioned by one top-level field
     * @throws com.azure.cosmos.CosmosException when the container cannot be read (missing, access
     *     denied)
     */
    public MessageExplainer build() {
      if (container == null) {
        throw new IllegalStateException("container(CosmosContainer) is required");
      }
      return new MessageExplainer(this, partitionKeyField(container));
    }
  }
}
