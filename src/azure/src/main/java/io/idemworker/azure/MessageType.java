package io.idemworker.azure;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.idemworker.core.Change;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.DocumentPatch;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.WriteSet;
import io.idemworker.servicebus.deadletter.DeadLetterResubmitter;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One message type a worker handles, registered by its {@code Subject}: what its body must hold,
 * which entity it changes, what its MessageId must be, the protection that makes its effect take
 * place once, and the events it emits. Every type gets the same flow: the key from the MessageId,
 * the body checked and bound, the fingerprint of its content, one atomic write in the entity's
 * partition, the outcome settled.
 *
 * <pre>{@code
 * MessageType<ShipmentCreated> created =
 *     MessageType.of("ShipmentCreated", ShipmentCreated.class)
 *         .fields(f -> f.id("shipmentId").text("origin", 1, 64))
 *         .entity(ShipmentCreated::shipmentId)
 *         .key("shipmentId", ShipmentCreated::shipmentId)
 *         .creates(s -> Json.object().put("origin", s.origin()).set("scans", Json.array()))
 *         .emits("ShipmentRegistered", s -> Json.object().put("shipmentId", s.shipmentId()));
 * }</pre>
 *
 * <p><b>Protections</b> (exactly one per type):
 *
 * <ul>
 *   <li>{@link #creates}: the entity's document is created; its creation is the duplicate check
 *       (nothing else is stored and nothing expires);
 *   <li>{@link #changesOnce}: a relative change of the existing entity document (an increment, an
 *       {@link DocumentPatch.AppendToArray append}), protected by an inbox marker {@code
 *       inbox:{consumer}:{key}} written in the same batch, which lives the worker's marker TTL;
 *   <li>{@link #versioned}: an absolute state with a version, applied when the stored version is
 *       absent or lower (an older or equal version is a no-op); no marker.
 * </ul>
 *
 * <p><b>Keys</b> are unique across every type on one queue: the broker's duplicate detection and
 * the marker ids ({@code inbox:{consumer}:{key}}) do not look at the type. Derive them from the
 * business so that every copy carries the same one: {@code shipmentId} for a create, a scan's own
 * id for a scan, {@code {shipmentId}:delivery:{version}} for a versioned change.
 *
 * <p>Immutable once registered; the functions given must be stateless, thread-safe and must not
 * touch the store. Not thread-safe while it is being configured.
 *
 * @param <T> the type the body binds to (a record, usually), with Jackson; Java time types work
 */
public final class MessageType<T> {
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  private static final Pattern SUBJECT = Pattern.compile("[A-Za-z0-9_.\\-]{1,64}");
  private static final Pattern ENTITY_ID = Pattern.compile("[^/\\\\?#]{1,255}");
  private static final Pattern TRACEPARENT =
      Pattern.compile("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

  /** The reason a change whose entity does not exist is dead-lettered with, by default. */
  public static final DeadLetterReason TARGET_MISSING = new DeadLetterReason("TargetMissing");

  /** The reason a change whose condition fails is dead-lettered with, by default. */
  public static final DeadLetterReason CONDITION_FAILED = new DeadLetterReason("ConditionFailed");

  private final String subject;
  private final Class<T> bodyType;
  private FieldRules rules = new FieldRules();
  private Function<T, String> entity;
  private Optional<Key<T>> key = Optional.empty();
  private Protection<T> protection;
  private final List<Event<T>> events = new ArrayList<>();
  private String documentType;
  private Change.Rejection ifMissing;

  private record Key<T>(String name, Function<T, String> value) {}

  private record Event<T>(String type, Function<T, ObjectNode> payload) {}

  private sealed interface Protection<T> {}

  private record Creates<T>(Function<T, ObjectNode> document) implements Protection<T> {}

  private record ChangesOnce<T>(
      Function<T, List<DocumentPatch.Operation>> operations,
      Optional<Function<T, DocumentPatch.Condition>> condition,
      Change.Rejection ifConditionFails)
      implements Protection<T> {}

  private record Versioned<T>(
      String versionField, ToLongFunction<T> version, Function<T, Map<String, JsonNode>> state)
      implements Protection<T> {}

  private MessageType(String subject, Class<T> bodyType) {
    this.subject = subject;
    this.bodyType = bodyType;
    this.documentType = subject;
  }

  /**
   * Starts a message type.
   *
   * @param <T> the body's type
   * @param subject the {@code Subject} producers set: 1-64 letters, digits and {@code _.-}
   * @param bodyType the class the body binds to; {@link ObjectNode} takes it as it is
   * @return the type, to configure further
   */
  public static <T> MessageType<T> of(String subject, Class<T> bodyType) {
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(bodyType, "bodyType");
    if (!SUBJECT.matcher(subject).matches()) {
      throw new IllegalArgumentException(
          "subject must be 1-64 letters, digits or _.-, was " + subject);
    }
    return new MessageType<>(subject, bodyType);
  }

  /**
   * The body's contract, checked before it is bound: a body that breaks it is dead-lettered as
   * {@code SchemaViolation}. The fields named are the message's content (fingerprinted); without
   * rules the whole body is.
   *
   * @param contract fills the rules
   * @return this type
   */
  public MessageType<T> fields(Consumer<FieldRules> contract) {
    FieldRules filled = new FieldRules();
    contract.accept(filled);
    this.rules = filled.copy();
    return this;
  }

  /**
   * The entity the message changes: its document's id and its partition key value (the container's
   * partition key field is set to it). Required.
   *
   * @param entityId reads it from the body
   * @return this type
   */
  public MessageType<T> entity(Function<T, String> entityId) {
    this.entity = Objects.requireNonNull(entityId, "entityId");
    return this;
  }

  /**
   * What the MessageId (the idempotency key) must equal: a message whose MessageId differs is
   * dead-lettered as {@code MessageIdMismatch}, naming the field. Optional; without it any
   * MessageId is taken as the key.
   *
   * @param name how the message contract names it, for descriptions (e.g. {@code scanId})
   * @param expected reads it from the body
   * @return this type
   */
  public MessageType<T> key(String name, Function<T, String> expected) {
    this.key = Optional.of(new Key<>(Objects.requireNonNull(name, "name"), expected));
    return this;
  }

  /**
   * Protection: the entity's document is created, and its creation is the duplicate check. The
   * library adds {@code id}, the partition key field, {@code type} (when absent), {@code
   * idempotencyKey}, {@code messageId} and {@code acceptedAt}.
   *
   * @param document the document's own fields
   * @return this type
   */
  public MessageType<T> creates(Function<T, ObjectNode> document) {
    return protect(new Creates<>(Objects.requireNonNull(document, "document")));
  }

  /**
   * Protection: a relative change of the existing entity document, applied once by an inbox marker
   * committed in the same batch. A missing entity is retried (it may not have arrived yet), then
   * dead-lettered with {@link #ifTargetMissing}'s reason.
   *
   * @param operations the field operations (increments, sets, appends)
   * @return this type
   */
  public MessageType<T> changesOnce(Function<T, List<DocumentPatch.Operation>> operations) {
    return protect(
        new ChangesOnce<>(
            Objects.requireNonNull(operations, "operations"),
            Optional.empty(),
            new Change.Rejection(CONDITION_FAILED, "the " + documentType + " refused the change")));
  }

  /**
   * Protection: as {@link #changesOnce(Function)}, applied only when the stored entity holds a
   * condition; a message whose condition fails is dead-lettered with the given reason.
   *
   * @param operations the field operations
   * @param condition the condition on the stored entity
   * @param reason the dead-letter reason when it fails
   * @param description names the rule, never a value
   * @return this type
   */
  public MessageType<T> changesOnce(
      Function<T, List<DocumentPatch.Operation>> operations,
      Function<T, DocumentPatch.Condition> condition,
      DeadLetterReason reason,
      String description) {
    return protect(
        new ChangesOnce<>(
            Objects.requireNonNull(operations, "operations"),
            Optional.of(Objects.requireNonNull(condition, "condition")),
            new Change.Rejection(reason, description)));
  }

  /**
   * Protection: an absolute state with a version, written to the entity document when its stored
   * version is absent or lower; an older or equal version is a no-op ({@code stale}). No marker.
   *
   * @param versionField the entity document's version field
   * @param version reads this message's version (at least 1)
   * @param state the fields set with it
   * @return this type
   */
  public MessageType<T> versioned(
      String versionField, ToLongFunction<T> version, Function<T, Map<String, JsonNode>> state) {
    return protect(
        new Versioned<>(
            Objects.requireNonNull(versionField, "versionField"),
            Objects.requireNonNull(version, "version"),
            Objects.requireNonNull(state, "state")));
  }

  /**
   * An event written in the same atomic write as the effect, and published by the outbox relay with
   * {@code MessageId} = an id derived from the event type and the message's key ({@link EventIds}),
   * so a re-publish is a duplicate downstream. Not with {@link #versioned}: its write is a patch,
   * which cannot carry a new document.
   *
   * @param eventType the event's {@code Subject}
   * @param payload its body
   * @return this type
   */
  public MessageType<T> emits(String eventType, Function<T, ObjectNode> payload) {
    if (!SUBJECT.matcher(Objects.requireNonNull(eventType, "eventType")).matches()) {
      throw new IllegalArgumentException(
          "eventType must be 1-64 letters, digits or _.-, was " + eventType);
    }
    events.add(new Event<>(eventType, Objects.requireNonNull(payload, "payload")));
    return this;
  }

  /**
   * The {@code type} field of the documents this type creates; the subject by default.
   *
   * @param type the document type
   * @return this type
   */
  public MessageType<T> documentType(String type) {
    this.documentType = Objects.requireNonNull(type, "type");
    return this;
  }

  /**
   * How a change whose entity never arrives is dead-lettered (after the retries); {@link
   * #TARGET_MISSING} by default.
   *
   * @param reason the reason code
   * @param description names the rule, never a value
   * @return this type
   */
  public MessageType<T> ifTargetMissing(DeadLetterReason reason, String description) {
    this.ifMissing = new Change.Rejection(reason, description);
    return this;
  }

  /**
   * The subject this type is registered under.
   *
   * @return the subject
   */
  public String subject() {
    return subject;
  }

  /**
   * Whether an inbox marker catches this type's repeats ({@link #changesOnce}): the marker expires
   * with the worker's marker TTL, so a copy resubmitted from the dead-letter queue after that would
   * apply again. A create and a versioned change keep nothing that expires.
   *
   * @return true for a type registered with {@link #changesOnce}
   */
  public boolean protectedByMarker() {
    return protection instanceof ChangesOnce<T>;
  }

  /**
   * What {@link DeadLetterResubmitter} must know of a queue's registered types: a dead-lettered
   * message of a type {@linkplain #protectedByMarker() protected by a marker}, first enqueued
   * longer ago than the marker TTL, is refused (unless forced); every other subject goes back.
   *
   * <pre>{@code
   * new DeadLetterResubmitter(connection, "shipments",
   *         MessageType.markerHorizon(List.of(created, scanned), Optional.of(Duration.ofDays(14)),
   *             Clock.systemUTC(), false))
   *     .resubmit(Set.of(), 100, false, Duration.ofSeconds(5));
   * }</pre>
   *
   * @param types the types registered on the queue
   * @param markerTtl the worker's marker TTL ({@code IdempotentWorker.Builder.markerTtl}); empty
   *     when markers never expire
   * @param clock now, to age the messages
   * @param force resubmit messages past the horizon anyway (the entry says why it is risky)
   * @return the horizon for the resubmitter
   */
  public static DeadLetterResubmitter.MarkerHorizon markerHorizon(
      Collection<? extends MessageType<?>> types,
      Optional<Duration> markerTtl,
      Clock clock,
      boolean force) {
    Set<String> marked =
        types.stream()
            .filter(MessageType::protectedByMarker)
            .map(MessageType::subject)
            .collect(Collectors.toUnmodifiableSet());
    return new DeadLetterResubmitter.MarkerHorizon(
        subject -> subject != null && marked.contains(subject), markerTtl, clock, force);
  }

  /**
   * The entity a body of this type names, read as the worker would: bound to the body type, then
   * the {@link #entity} function. For {@link MessageExplainer}, which places a dead-lettered copy.
   *
   * @param body the raw body
   * @return the entity id; empty when the body does not bind or names none
   */
  Optional<String> entityOf(byte[] body) {
    if (entity == null) {
      return Optional.empty();
    }
    try {
      JsonNode root = JSON.readTree(body);
      if (!(root instanceof ObjectNode)) {
        return Optional.empty();
      }
      String id = entity.apply(JSON.treeToValue(root, bodyType));
      return id != null && ENTITY_ID.matcher(id).matches() ? Optional.of(id) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      // A body that does not bind was dead-lettered for that very reason; it names no entity.
      return Optional.empty();
    }
  }

  private MessageType<T> protect(Protection<T> chosen) {
    if (protection != null) {
      throw new IllegalStateException(subject + " has a protection already");
    }
    this.protection = chosen;
    return this;
  }

  /**
   * The decoder of this type, checking the registration first.
   *
   * @param documents how documents are keyed and what markers and events carry
   * @return the decoder
   * @throws IllegalStateException naming what the registration lacks
   */
  MessageDecoder decoder(Documents documents) {
    if (entity == null) {
      throw new IllegalStateException(subject + " needs entity(...): the entity it changes");
    }
    if (protection == null) {
      throw new IllegalStateException(
          subject + " needs a protection: creates, changesOnce or versioned");
    }
    if (protection instanceof Versioned<T> && !events.isEmpty()) {
      throw new IllegalStateException(
          subject + ": a versioned change cannot emit events (its write is a patch)");
    }
    Change.Rejection missing =
        ifMissing != null
            ? ifMissing
            : new Change.Rejection(
                TARGET_MISSING,
                "the " + documentType + " this " + subject + " changes never arrived");
    return new Decoder(documents, missing, rules.copy(), List.copyOf(events));
  }

  /**
   * How the documents of every registered type are keyed and stamped.
   *
   * @param partitionKeyField the container's partition key field, set on every document
   * @param consumer the consumer's name in inbox marker ids
   * @param markerTtl how long a marker lives; empty: as long as the container keeps documents
   * @param eventTtlSeconds how long an outbox event lives
   */
  record Documents(
      String partitionKeyField, String consumer, Optional<Long> markerTtl, long eventTtlSeconds) {}

  private final class Decoder implements MessageDecoder {
    private final Documents documents;
    private final Change.Rejection missing;
    private final FieldRules contract;
    private final List<Event<T>> emitted;

    Decoder(
        Documents documents,
        Change.Rejection missing,
        FieldRules contract,
        List<Event<T>> emitted) {
      this.documents = documents;
      this.missing = missing;
      this.contract = contract;
      this.emitted = emitted;
    }

    @Override
    public Decoding decode(IncomingMessage message) {
      JsonNode root;
      try {
        root = JSON.readTree(message.body());
      } catch (IOException e) {
        return invalid(DeadLetterReason.UNREADABLE_BODY, "the body is not JSON", Optional.empty());
      }
      if (!(root instanceof ObjectNode body)) {
        return invalid(
            DeadLetterReason.UNREADABLE_BODY, "the body is not a JSON object", Optional.empty());
      }
      List<String> violations = contract.violations(body);
      if (!violations.isEmpty()) {
        return invalid(
            DeadLetterReason.SCHEMA_VIOLATION, String.join("; ", violations), Optional.empty());
      }
      T value;
      try {
        value = JSON.treeToValue(body, bodyType);
      } catch (JsonProcessingException | IllegalArgumentException e) {
        return invalid(
            DeadLetterReason.SCHEMA_VIOLATION,
            "the body does not bind to " + bodyType.getSimpleName() + fieldOf(e),
            Optional.empty());
      }
      String entityId;
      try {
        entityId = entity.apply(value);
      } catch (RuntimeException e) {
        entityId = null;
      }
      if (entityId == null || !ENTITY_ID.matcher(entityId).matches()) {
        return invalid(
            DeadLetterReason.SCHEMA_VIOLATION,
            "the entity id must be 1-255 characters without / \\ ? #",
            Optional.empty());
      }
      if (key.isPresent()) {
        String expected;
        try {
          expected = key.get().value().apply(value);
        } catch (RuntimeException e) {
          expected = null;
        }
        if (expected == null || !message.messageId().filter(expected::equals).isPresent()) {
          return invalid(
              DeadLetterReason.MESSAGE_ID_MISMATCH,
              "MessageId must equal " + key.get().name() + " of the body",
              Optional.of(entityId));
        }
      }
      return new Valid(new Message(value, body, entityId, message));
    }

    private Decoding invalid(
        DeadLetterReason reason, String description, Optional<String> entityId) {
      return new Invalid(reason, subject + ": " + description, entityId);
    }

    private final class Message implements ValidMessage {
      private final T value;
      private final ObjectNode body;
      private final String entityId;
      private final IncomingMessage message;

      Message(T value, ObjectNode body, String entityId, IncomingMessage message) {
        this.value = value;
        this.body = body;
        this.entityId = entityId;
        this.message = message;
      }

      @Override
      public String entityId() {
        return entityId;
      }

      @Override
      public ObjectNode immutableFields() {
        return contract.isEmpty() ? body.deepCopy() : contract.contentOf(body);
      }

      @Override
      public Change change(IdempotencyKey key, Fingerprint fingerprint, Instant acceptedAt) {
        if (protection instanceof Creates<T> creates) {
          ObjectNode document = creates.document().apply(value).deepCopy();
          document.put("id", entityId);
          document.put(documents.partitionKeyField(), entityId);
          if (!document.has("type")) {
            document.put("type", documentType);
          }
          document.put("idempotencyKey", key.value());
          message.messageId().ifPresent(id -> document.put("messageId", id));
          document.put("acceptedAt", acceptedAt.toString());
          return new Change.Anchored(
              WriteSet.of(entityId, fingerprint, document, events(key, acceptedAt)),
              Optional.empty());
        }
        if (protection instanceof ChangesOnce<T> changes) {
          ObjectNode marker = body.objectNode();
          marker.put("id", markerId(documents.consumer(), key));
          marker.put(documents.partitionKeyField(), entityId);
          marker.put("type", "inbox");
          marker.put("consumer", documents.consumer());
          marker.put("key", key.value());
          marker.put("messageType", subject);
          marker.put("processedAt", acceptedAt.toString());
          marker.put("ttl", documents.markerTtl().orElse(-1L));
          DocumentPatch patch =
              new DocumentPatch(
                  entityId,
                  changes.operations().apply(value),
                  changes.condition().map(c -> c.apply(value)));
          return new Change.Anchored(
              WriteSet.of(entityId, fingerprint, marker, events(key, acceptedAt), List.of(patch)),
              Optional.of(new Change.TargetRules(missing, changes.ifConditionFails())));
        }
        Versioned<T> versioned = (Versioned<T>) protection;
        return new Change.Versioned(
            entityId,
            entityId,
            versioned.versionField(),
            versioned.version().applyAsLong(value),
            new LinkedHashMap<>(versioned.state().apply(value)),
            missing);
      }

      private List<ObjectNode> events(IdempotencyKey key, Instant acceptedAt) {
        List<ObjectNode> outbox = new ArrayList<>(emitted.size());
        for (Event<T> event : emitted) {
          ObjectNode document = body.objectNode();
          document.put("id", EventIds.of(event.type(), key));
          document.put(documents.partitionKeyField(), entityId);
          document.put("type", "outbox");
          document.put("eventType", event.type());
          document.put("ttl", documents.eventTtlSeconds());
          document.put("causationId", key.value());
          message.correlationId().ifPresent(id -> document.put("correlationId", id));
          Optional.ofNullable(message.applicationProperties().get("traceparent"))
              .map(Object::toString)
              .filter(t -> TRACEPARENT.matcher(t).matches())
              .ifPresent(t -> document.put("traceparent", t));
          document.put("createdAt", acceptedAt.toString());
          document.set("payload", event.payload().apply(value).deepCopy());
          outbox.add(document);
        }
        return outbox;
      }
    }
  }

  /**
   * The id of a consumer's inbox marker for a message.
   *
   * @param consumer the consumer's name
   * @param key the message's idempotency key
   * @return {@code inbox:{consumer}:{key}}
   */
  public static String markerId(String consumer, IdempotencyKey key) {
    return "inbox:" + consumer + ":" + key.value();
  }

  private static String fieldOf(Exception e) {
    if (e instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()) {
      return ": field "
          + mapping.getPath().stream()
              .map(
                  ref ->
                      ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
              .collect(Collectors.joining("."));
    }
    return "";
  }
}
