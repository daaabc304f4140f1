package io.idemworker.core;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a valid message asks of the store, and which protection makes it take effect once. A message
 * type declares one; the flow in {@link IdempotentConsumer} is the same for all.
 *
 * <ul>
 *   <li>{@link Anchored}: a document is created and its creation is the duplicate check. Either the
 *       entity itself is the anchor (a new order: natural idempotency, nothing extra to store), or
 *       an inbox marker is, committed in the same batch as a relative change to an existing
 *       document (a credit: applied twice it would lose money, and the change itself leaves no
 *       trace to check against).
 *   <li>{@link Versioned}: an absolute state with a version, written by a patch guarded by the
 *       stored version. Applying the same state twice is harmless and an older one is refused by
 *       the guard, so no marker is needed and nothing expires.
 * </ul>
 */
public sealed interface Change {

  /**
   * Create-as-check, with optional patches of existing documents in the same atomic write.
   *
   * @param writeSet the anchor, the documents created with it, and the patches
   * @param rules how a patched document that is missing or refuses its condition is answered;
   *     required when the write set has patches
   */
  record Anchored(WriteSet writeSet, Optional<TargetRules> rules) implements Change {
    /** Requires the rules exactly when there are patches. */
    public Anchored {
      Objects.requireNonNull(writeSet, "writeSet");
      Objects.requireNonNull(rules, "rules");
      if (writeSet.patches().isEmpty() == rules.isPresent()) {
        throw new IllegalArgumentException("target rules go with patches, and only with them");
      }
    }
  }

  /**
   * An absolute state guarded by a version: applied when the stored version is absent or lower.
   *
   * @param partitionKey the partition of the target
   * @param targetId the document that holds the state
   * @param versionField the field holding the version
   * @param version this message's version; at least 1
   * @param state the fields set together with the version; on an equal stored version they are
   *     compared to tell a duplicate from a reused key
   * @param ifMissing how a target that never arrives is answered
   */
  record Versioned(
      String partitionKey,
      String targetId,
      String versionField,
      long version,
      Map<String, JsonNode> state,
      Rejection ifMissing)
      implements Change {
    /** Checks the values and copies the state in order. */
    public Versioned {
      Objects.requireNonNull(partitionKey, "partitionKey");
      Objects.requireNonNull(targetId, "targetId");
      Objects.requireNonNull(versionField, "versionField");
      Objects.requireNonNull(ifMissing, "ifMissing");
      if (version < 1) {
        throw new IllegalArgumentException("version must be at least 1, was " + version);
      }
      if (state.isEmpty() || state.containsKey(versionField)) {
        throw new IllegalArgumentException("state needs fields other than the version");
      }
      state = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(state));
    }
  }

  /**
   * How a patched document's absence or refusal is answered.
   *
   * @param ifMissing the target has not arrived: retried, then dead-lettered with this reason on
   *     the delivery the broker would dead-letter anyway
   * @param ifConditionFails the target refuses the change for good: dead-lettered at once
   */
  record TargetRules(Rejection ifMissing, Rejection ifConditionFails) {
    /** Requires both. */
    public TargetRules {
      Objects.requireNonNull(ifMissing, "ifMissing");
      Objects.requireNonNull(ifConditionFails, "ifConditionFails");
    }
  }

  /**
   * A dead-letter reason with its description.
   *
   * @param reason the code
   * @param description names the field or the rule; never a value
   */
  record Rejection(DeadLetterReason reason, String description) {
    /** Requires both. */
    public Rejection {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(description, "description");
    }
  }
}
