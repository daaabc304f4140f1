package io.idemworker.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * What a valid message asks of the store, and which protection makes it take effect once. A message
 * type declares one; the flow in {@link IdempotentConsumer} is the same for all.
 *
 * <ul>
 *   <li>{@link Anchored}: a document is created and its creation is the duplicate check. Either the
 *       entity itself is the anchor (a new entity: natural idempotency, nothing extra to store), or
 *       an inbox marker is, committed in the same batch as a relative change to an existing
 *       document (an amount added: applied twice it would count twice, and the change itself leaves
 *       no trace to check against).
 *   <li>{@link Versioned}: an absolute state with a version, written by a patch guarded by the
 *       stored version. Applying the same state twice is harmless and an older one is refused by
 *       the guard, so no marker is needed and nothing expires.
 *   <li>{@link TwoPhase}: a side effect outside the store (a provider's API) that cannot join the
 *       transaction. A record is claimed as in progress with a lease before the call, the call
 *       passes the idempotency key on so the other side drops repeats, and the record is completed
 *       with the answer in one batch with the effect's documents.
 * </ul>
 */
public sealed interface Change {

  /**
   * Applies the function for this change's protection. The flow dispatches with it, so a new
   * protection does not compile until the flow (and every other caller) handles it.
   *
   * @param <T> what the caller makes of the change
   * @param anchored create-as-check
   * @param versioned a version guard
   * @param twoPhase a two-phase record around an external call
   * @return the chosen function's value
   */
  <T> T fold(
      Function<Anchored, T> anchored,
      Function<Versioned, T> versioned,
      Function<TwoPhase, T> twoPhase);

  /**
   * Create-as-check, with optional patches of existing documents in the same atomic write.
   *
   * <p><b>Seeds.</b> A relative change to a document that is created by nobody in particular (a
   * per-account running totals, first touched by whichever event arrives first) declares a seed for
   * it: a document holding only the target's identity fields. When the write set meets the target
   * missing, the flow creates the seed (as a one-document write set: a 409 means someone else
   * seeded it, which is as good) and applies the write set once more. The seed is created outside
   * the write set on purpose: a write set that created the target would collide with a concurrent
   * first event for the same target, and a seed carries no effect, so creating it twice or
   * needlessly changes nothing. The first event for a target therefore costs three round trips
   * (write set → target missing, seed, write set) instead of one; every later event costs one.
   *
   * @param writeSet the anchor, the documents created with it, and the patches
   * @param rules how a patched document that is missing or refuses its condition is answered;
   *     required when the write set has patches
   * @param seeds documents to create when a patched document with the same {@code id} is missing;
   *     each seed's id must be a patch's id, and it must carry no effect of its own (identity
   *     fields only), because it is created once for every message that finds the target missing
   */
  record Anchored(WriteSet writeSet, Optional<TargetRules> rules, List<ObjectNode> seeds)
      implements Change {
    /** Requires the rules exactly when there are patches, and a patch for every seed. */
    public Anchored {
      Objects.requireNonNull(writeSet, "writeSet");
      Objects.requireNonNull(rules, "rules");
      seeds = List.copyOf(seeds);
      if (writeSet.patches().isEmpty() == rules.isPresent()) {
        throw new IllegalArgumentException("target rules go with patches, and only with them");
      }
      Set<String> patched = new HashSet<>();
      writeSet.patches().forEach(patch -> patched.add(patch.id()));
      Set<String> seeded = new HashSet<>();
      for (ObjectNode seed : seeds) {
        JsonNode id = seed.get("id");
        if (id == null || !id.isTextual() || !patched.contains(id.asText())) {
          throw new IllegalArgumentException("every seed needs the id of a patched document");
        }
        if (!seeded.add(id.asText())) {
          throw new IllegalArgumentException("document " + id.asText() + " is seeded twice");
        }
      }
    }

    /**
     * Create-as-check without seeds: a missing target is answered by the rules alone.
     *
     * @param writeSet the anchor, the documents created with it, and the patches
     * @param rules how a patched document that is missing or refuses its condition is answered
     */
    public Anchored(WriteSet writeSet, Optional<TargetRules> rules) {
      this(writeSet, rules, List.of());
    }

    /**
     * The seed for a patched document, if one was declared.
     *
     * @param id the missing document's id
     * @return a copy of the seed
     */
    public Optional<ObjectNode> seedFor(String id) {
      return seeds.stream()
          .filter(seed -> seed.get("id").asText().equals(id))
          .findFirst()
          .map(ObjectNode::deepCopy);
    }

    @Override
    public <T> T fold(
        Function<Anchored, T> anchored,
        Function<Versioned, T> versioned,
        Function<TwoPhase, T> twoPhase) {
      return anchored.apply(this);
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
      state = Collections.unmodifiableMap(new LinkedHashMap<>(state));
    }

    @Override
    public <T> T fold(
        Function<Anchored, T> anchored,
        Function<Versioned, T> versioned,
        Function<TwoPhase, T> twoPhase) {
      return versioned.apply(this);
    }
  }

  /**
   * A side effect outside the store, made effectively-once in two phases around the call.
   *
   * @param partitionKey the partition of the record and of every document the completion writes
   * @param record the record's business fields, with its {@code id}; the flow adds {@code status},
   *     {@code attempt} and {@code leaseUntilMillis}, and the fingerprint
   * @param claimPatches patches committed with the claim, e.g. a guard that the target exists in
   *     the right currency, so nothing is called for a message that cannot be recorded afterwards
   * @param rules how a claim patch's missing target or failed condition is answered
   * @param call the external call, passing the idempotency key on
   * @param completion what the call's answer becomes
   * @param lease the most a claim protects an attempt from takeover (a ceiling): the lease a claim
   *     or a takeover writes ends at this or at the delivery's lock end ({@link DeliveryLock}),
   *     whichever comes first, so a crashed attempt's lease is over when its message comes back
   * @param callTimeout the most one call takes ({@link ExternalCall}'s bound): the call starts only
   *     when the lock and the lease both have at least this plus {@link #CALL_MARGIN} left
   */
  record TwoPhase(
      String partitionKey,
      ObjectNode record,
      List<DocumentPatch> claimPatches,
      TargetRules rules,
      ExternalCall call,
      Completion completion,
      Duration lease,
      Duration callTimeout)
      implements Change {
    /**
     * What a call needs beyond its timeout, of both the lock and the lease: the completion's write
     * after the answer, and clock differences between the broker and the replicas.
     */
    public static final Duration CALL_MARGIN = Duration.ofSeconds(2);

    /**
     * A two-phase change whose call does not block (an in-process double): it needs only {@link
     * #CALL_MARGIN}.
     *
     * @param partitionKey the partition
     * @param record the record's business fields
     * @param claimPatches patches committed with the claim
     * @param rules how a claim patch's failure is answered
     * @param call the external call
     * @param completion what the answer becomes
     * @param lease the lease's ceiling
     */
    public TwoPhase(
        String partitionKey,
        ObjectNode record,
        List<DocumentPatch> claimPatches,
        TargetRules rules,
        ExternalCall call,
        Completion completion,
        Duration lease) {
      this(partitionKey, record, claimPatches, rules, call, completion, lease, Duration.ZERO);
    }

    /**
     * How much of the lock and of the lease a call needs to start.
     *
     * @return the call's timeout plus {@link #CALL_MARGIN}
     */
    public Duration callNeeds() {
      return callTimeout.plus(CALL_MARGIN);
    }

    /** Checks the values and copies the patches. */
    public TwoPhase {
      Objects.requireNonNull(partitionKey, "partitionKey");
      Objects.requireNonNull(record, "record");
      Objects.requireNonNull(rules, "rules");
      Objects.requireNonNull(call, "call");
      Objects.requireNonNull(completion, "completion");
      claimPatches = List.copyOf(claimPatches);
      if (!record.path("id").isTextual()) {
        throw new IllegalArgumentException("the record needs a string id");
      }
      if (lease.isNegative() || lease.isZero()) {
        throw new IllegalArgumentException("the lease must be positive");
      }
      if (callTimeout.isNegative() || lease.compareTo(callTimeout.plus(CALL_MARGIN)) <= 0) {
        throw new IllegalArgumentException(
            "the lease's ceiling must be longer than the call's timeout plus "
                + CALL_MARGIN
                + ", or no call could ever start");
      }
    }

    @Override
    public <T> T fold(
        Function<Anchored, T> anchored,
        Function<Versioned, T> versioned,
        Function<TwoPhase, T> twoPhase) {
      return twoPhase.apply(this);
    }
  }

  /** What a two-phase call's final answer becomes. */
  @FunctionalInterface
  interface Completion {
    /**
     * Plans the documents that complete the work.
     *
     * @param result the answer to record ({@link ExternalCall.Done#result()})
     * @param completedAt now
     * @return the outgoing event (whose create marks the completion) and the patches beside it
     */
    CompletionPlan plan(ObjectNode result, Instant completedAt);
  }

  /**
   * The documents that complete a two-phase change, committed in one batch with the record's move
   * to {@code Completed}.
   *
   * @param event an outbox event with an id derived from the key; its create is what a second
   *     completion collides with
   * @param patches changes to other documents, e.g. the target's amount paid
   */
  record CompletionPlan(ObjectNode event, List<DocumentPatch> patches) {
    /** Copies the patches. */
    public CompletionPlan {
      Objects.requireNonNull(event, "event");
      patches = List.copyOf(patches);
    }
  }

  /**
   * How a patched document's absence or refusal is answered.
   *
   * @param ifMissing the target has not arrived: retried, then dead-lettered with this reason on
   *     the delivery the broker would dead-letter anyway
   * @param ifConditionFails the target refuses the change for good: dead-lettered at once
   * @param explain when a patch guards several rules (a currency and a bound), which one the target
   *     as it is now breaks; the flow reads the target once, on the refusal path only, and falls
   *     back to {@code ifConditionFails} when the read fails or the function returns empty
   */
  record TargetRules(
      Rejection ifMissing,
      Rejection ifConditionFails,
      Optional<Function<ObjectNode, Optional<Rejection>>> explain) {
    /** Requires every value. */
    public TargetRules {
      Objects.requireNonNull(ifMissing, "ifMissing");
      Objects.requireNonNull(ifConditionFails, "ifConditionFails");
      Objects.requireNonNull(explain, "explain");
    }

    /** Rules with one rejection for any refusal. */
    public TargetRules(Rejection ifMissing, Rejection ifConditionFails) {
      this(ifMissing, ifConditionFails, Optional.empty());
    }

    /**
     * Why the target refused, reading it when the rules can tell several apart.
     *
     * @param store the store
     * @param partitionKey the target's partition
     * @param targetId the patched document
     * @return the rejection to dead-letter with
     */
    Rejection refusal(EffectStore store, String partitionKey, String targetId) {
      if (explain.isEmpty()) {
        return ifConditionFails;
      }
      if (store.read(partitionKey, targetId) instanceof EffectStore.Document document) {
        return explain.get().apply(document.content()).orElse(ifConditionFails);
      }
      return ifConditionFails;
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
