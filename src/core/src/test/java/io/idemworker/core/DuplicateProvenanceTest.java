package io.idemworker.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The writer's stamp on what each protection writes, and the duplicate source it yields. */
class DuplicateProvenanceTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  private static final IdempotencyKey KEY = new IdempotencyKey("k-1");

  /** A delivery received at its enqueue time, holding a 60 s lock. */
  private static DeliveryOrigin origin(
      long seq, Instant enqueued, long dc, DeliveryOrigin.Via via) {
    return new DeliveryOrigin(seq, enqueued, enqueued.plusSeconds(60), dc, via, 0);
  }

  private static IdempotentConsumer.Attempt attempt(DeliveryOrigin origin) {
    return new IdempotentConsumer.Attempt(
        KEY, "ord-1", false, Optional.of(origin), Clock.fixed(T0, ZoneOffset.UTC), T0);
  }

  private static Change.Anchored orderChange() {
    ObjectNode order = JSON.objectNode().put("id", "ord-1").put("total", 5);
    return new Change.Anchored(
        WriteSet.of("ord-1", Fingerprint.of(order), order, List.of()), Optional.empty());
  }

  private static DuplicateSource sourceOfSecond(DeliveryOrigin first, DeliveryOrigin second) {
    InMemoryEffectStore store = new InMemoryEffectStore();
    Change.Anchored change = orderChange();
    Fingerprint fingerprint = change.writeSet().fingerprint();
    assertThat(AnchoredWrite.apply(store, change, fingerprint, attempt(first)))
        .isInstanceOf(Outcome.Processed.class);
    Outcome again = AnchoredWrite.apply(store, change, fingerprint, attempt(second));
    return ((Outcome.Duplicate) again).source();
  }

  @Test
  void sameSequenceNumberDeliveredAgain_isARedelivery() {
    DeliveryOrigin first = origin(7, T0, 0, DeliveryOrigin.Via.SEND);

    assertThat(sourceOfSecond(first, origin(7, T0, 1, DeliveryOrigin.Via.SEND)))
        .isEqualTo(DuplicateSource.REDELIVERY);
  }

  @Test
  void otherCopyReceivedAfterTheWrite_isAResend() {
    DeliveryOrigin first = origin(7, T0, 0, DeliveryOrigin.Via.SEND);

    assertThat(sourceOfSecond(first, origin(9, T0.plusMillis(1), 0, DeliveryOrigin.Via.SEND)))
        .isEqualTo(DuplicateSource.RESEND);
  }

  @Test
  void otherCopyReceivedBeforeTheWrite_isConcurrent() {
    // the writer wrote 40 ms after its receipt; the copy was received 30 ms after the writer
    InMemoryEffectStore store = new InMemoryEffectStore();
    Change.Anchored change = orderChange();
    Fingerprint fingerprint = change.writeSet().fingerprint();
    DeliveryOrigin first = origin(7, T0, 0, DeliveryOrigin.Via.SEND);
    AnchoredWrite.apply(
        store,
        change,
        fingerprint,
        new IdempotentConsumer.Attempt(
            KEY,
            "ord-1",
            false,
            Optional.of(first),
            Clock.fixed(T0.plusMillis(40), ZoneOffset.UTC),
            T0));

    Outcome again =
        AnchoredWrite.apply(
            store,
            change,
            fingerprint,
            attempt(origin(8, T0.plusMillis(30), 0, DeliveryOrigin.Via.SEND)));

    assertThat(((Outcome.Duplicate) again).source()).isEqualTo(DuplicateSource.CONCURRENT);
  }

  @Test
  void resubmittedAndRelayedCopies_areNamedForHowTheyCame() {
    DeliveryOrigin first = origin(7, T0, 0, DeliveryOrigin.Via.SEND);

    assertThat(
            sourceOfSecond(first, origin(20, T0.plusSeconds(60), 0, DeliveryOrigin.Via.RESUBMIT)))
        .isEqualTo(DuplicateSource.RESUBMIT);
    assertThat(sourceOfSecond(first, origin(21, T0.plusSeconds(60), 0, DeliveryOrigin.Via.RELAY)))
        .isEqualTo(DuplicateSource.REPUBLISH);
  }

  @Test
  void anchorWithoutStampOrDeliveryWithoutOrigin_isUnknown() {
    InMemoryEffectStore store = new InMemoryEffectStore();
    Change.Anchored change = orderChange();
    Fingerprint fingerprint = change.writeSet().fingerprint();
    AnchoredWrite.apply(
        store, change, fingerprint, new IdempotentConsumer.Attempt(KEY, "ord-1", false));

    Outcome again =
        AnchoredWrite.apply(
            store, change, fingerprint, attempt(origin(9, T0, 0, DeliveryOrigin.Via.SEND)));

    assertThat(((Outcome.Duplicate) again).source()).isEqualTo(DuplicateSource.UNKNOWN);
    assertThat(((EffectStore.Document) store.read("ord-1", "ord-1")).content().has("writtenBy"))
        .isFalse();
  }

  @Test
  void stamp_holdsOnlyTheShortFieldsAndReadsBack() {
    DeliveryOrigin resubmitted =
        new DeliveryOrigin(42, T0, T0.plusSeconds(60), 2, DeliveryOrigin.Via.RESUBMIT, 3);

    ObjectNode stamp = resubmitted.stamp(Duration.ofMillis(35));

    assertThat(stamp.toString())
        .isEqualTo(
            "{\"seq\":42,\"enq\":"
                + T0.toEpochMilli()
                + ",\"lu\":"
                + (T0.toEpochMilli() + 60_000)
                + ",\"w\":35,\"dc\":2,\"via\":\"resubmit\",\"pa\":3}");
    assertThat(DeliveryOrigin.read(stamp))
        .contains(new DeliveryOrigin.Written(resubmitted, Duration.ofMillis(35)));
    assertThat(origin(1, T0, 0, DeliveryOrigin.Via.SEND).stamp(Duration.ZERO).has("via")).isFalse();
    assertThat(DeliveryOrigin.read(JSON.textNode("x"))).isEmpty();
  }

  @Test
  void versionGuard_stampsTheStateAndTellsARedelivery() {
    InMemoryEffectStore store = new InMemoryEffectStore();
    ObjectNode order = JSON.objectNode().put("id", "ord-1");
    store.apply(WriteSet.of("ord-1", Fingerprint.of(order), order, List.of()));
    Change.Versioned change =
        new Change.Versioned(
            "ord-1",
            "ord-1",
            "statusVersion",
            2,
            Map.of("status", JSON.textNode("Packed")),
            new Change.Rejection(new DeadLetterReason("OrderNotFound"), "order missing"));
    DeliveryOrigin first = origin(5, T0, 0, DeliveryOrigin.Via.SEND);

    assertThat(VersionGuard.apply(store, change, attempt(first)))
        .isInstanceOf(Outcome.Processed.class);
    Outcome again =
        VersionGuard.apply(store, change, attempt(origin(5, T0, 1, DeliveryOrigin.Via.SEND)));

    assertThat(((Outcome.Duplicate) again).source()).isEqualTo(DuplicateSource.REDELIVERY);
    assertThat(
            ((EffectStore.Document) store.read("ord-1", "ord-1"))
                .content()
                .path("statusVersionWrittenBy")
                .path("seq")
                .asLong())
        .isEqualTo(5);
  }

  @Test
  void twoPhaseRecord_stampsTheClaimAndTellsAResubmission() {
    InMemoryEffectStore store = new InMemoryEffectStore();
    ObjectNode record = JSON.objectNode().put("id", "payment:pr-1").put("amount", 5);
    Change.TwoPhase change =
        new Change.TwoPhase(
            "ord-1",
            record,
            List.of(),
            new Change.TargetRules(
                new Change.Rejection(new DeadLetterReason("OrderNotFound"), "missing"),
                new Change.Rejection(new DeadLetterReason("Refused"), "refused")),
            () -> new ExternalCall.Done(JSON.objectNode().put("result", "captured")),
            (result, at) ->
                new Change.CompletionPlan(
                    JSON.objectNode().put("id", "event:pr-1").set("result", result), List.of()),
            Duration.ofSeconds(30));
    Fingerprint fingerprint = Fingerprint.of(record);
    Clock clock = Clock.fixed(T0, ZoneOffset.UTC);
    DeliveryOrigin first = origin(11, T0, 0, DeliveryOrigin.Via.SEND);

    assertThat(TwoPhaseCall.apply(store, change, fingerprint, attempt(first), clock))
        .isInstanceOf(Outcome.Processed.class);
    Outcome again =
        TwoPhaseCall.apply(
            store,
            change,
            fingerprint,
            attempt(origin(30, T0.plusSeconds(90), 0, DeliveryOrigin.Via.RESUBMIT)),
            clock);

    assertThat(((Outcome.Duplicate) again).source()).isEqualTo(DuplicateSource.RESUBMIT);
    assertThat(
            ((EffectStore.Document) store.read("ord-1", "payment:pr-1"))
                .content()
                .path("writtenBy")
                .path("seq")
                .asLong())
        .isEqualTo(11);
  }
}
