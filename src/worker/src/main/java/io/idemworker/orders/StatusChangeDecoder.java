package io.idemworker.orders;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.Change;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decodes {@code OrderStatusChanged}: an absolute state, so natural idempotency with a version
 * guard, no marker. {@code MessageId} = {@code {orderId}:status:{version}}; body {@code {orderId,
 * status, version, changedAt}}. The order document gets {@code status}, {@code statusVersion} and
 * {@code statusChangedAt} when {@code version} is above the stored {@code statusVersion} (absent
 * counts as 0).
 *
 * <p>Thread-safe and stateless.
 */
final class StatusChangeDecoder implements MessageDecoder {
  static final String SUBJECT = "OrderStatusChanged";
  static final Set<String> STATUSES =
      Set.of("Confirmed", "Packed", "Shipped", "Delivered", "Cancelled");
  static final long MAX_VERSION = Integer.MAX_VALUE;
  private static final Set<String> CONTRACT_FIELDS =
      Set.of("orderId", "status", "version", "changedAt");

  private final boolean messageIdMustMatchKey;

  StatusChangeDecoder(boolean messageIdMustMatchKey) {
    this.messageIdMustMatchKey = messageIdMustMatchKey;
  }

  /**
   * The MessageId a producer gives a status change: stable across copies, distinct per version.
   *
   * @param orderId the order
   * @param version the status version
   * @return {@code {orderId}:status:{version}}
   */
  static String messageId(String orderId, long version) {
    return orderId + ":status:" + version;
  }

  @Override
  public Decoding decode(IncomingMessage message) {
    return BodyFields.decodeStrict(
        message,
        messageIdMustMatchKey,
        SUBJECT,
        CONTRACT_FIELDS,
        (root, violations) -> {
          Optional<String> orderId = BodyFields.id(root, "orderId", violations);
          Optional<String> status = status(root, violations);
          Optional<Long> version = BodyFields.integer(root, "version", 1, MAX_VERSION, violations);
          Optional<Instant> changedAt = BodyFields.instant(root, "changedAt", violations);
          return new BodyFields.Candidate(
              orderId,
              () -> messageId(orderId.get(), version.get()),
              "MessageId must be {orderId}:status:{version} of the body",
              () -> new StatusChange(orderId.get(), status.get(), version.get(), changedAt.get()));
        });
  }

  private static Optional<String> status(JsonNode root, List<String> violations) {
    JsonNode node = root.get("status");
    if (node == null || node.isNull()) {
      violations.add("status is missing");
      return Optional.empty();
    }
    if (!node.isTextual() || !STATUSES.contains(node.asText())) {
      violations.add("status must be one of Confirmed, Packed, Shipped, Delivered, Cancelled");
      return Optional.empty();
    }
    return Optional.of(node.asText());
  }

  /** A valid status change. */
  record StatusChange(String orderId, String status, long version, Instant changedAt)
      implements ValidMessage {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    @Override
    public String entityId() {
      return orderId;
    }

    @Override
    public ObjectNode immutableFields() {
      ObjectNode fields = JSON.objectNode();
      fields.put("orderId", orderId);
      fields.put("status", status);
      fields.put("version", version);
      fields.put("changedAt", changedAt.toString());
      return fields;
    }

    @Override
    public Change change(IdempotencyKey key, Fingerprint fingerprint, Instant acceptedAt) {
      Map<String, JsonNode> state = new LinkedHashMap<>();
      state.put("status", JSON.textNode(status));
      state.put("statusChangedAt", JSON.textNode(changedAt.toString()));
      return new Change.Versioned(
          orderId,
          orderId,
          "statusVersion",
          version,
          state,
          OrderReasons.orderNotFound(orderId, "status change"));
    }
  }
}
