package io.idemworker.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The request records' decisions on the in-memory store, with time moved by hand. */
class RequestRecordsTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration WINDOW = Duration.ofHours(1);
  private static final String ID = "request:abc";

  private final InMemoryEffectStore store = new InMemoryEffectStore();
  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T00:00:00Z"));
  private final RequestRecords records = new RequestRecords(store, "orderId", LEASE, WINDOW, clock);

  private static Fingerprint fingerprint(String orderId) {
    return Fingerprint.of(JsonNodeFactory.instance.objectNode().put("orderId", orderId));
  }

  private static ObjectNode answer(int status) {
    return JsonNodeFactory.instance.objectNode().put("status", status);
  }

  @Test
  void aNewKey_isClaimedAsAttemptOne_inItsOwnPartition() {
    RequestRecords.Claim claim = records.claim(ID, fingerprint("ord-1"));

    assertThat(claim).isEqualTo(new RequestRecords.Claimed(1));
    assertThat(store.document(ID, ID).orElseThrow().path("orderId").asText()).isEqualTo(ID);
  }

  @Test
  void theSameRequestWhileTheFirstHoldsTheLease_isInFlightForTheRestOfIt() {
    records.claim(ID, fingerprint("ord-1"));
    clock.advance(Duration.ofSeconds(10));

    RequestRecords.Claim claim = records.claim(ID, fingerprint("ord-1"));

    assertThat(claim).isEqualTo(new RequestRecords.InFlight(Duration.ofSeconds(20)));
  }

  @Test
  void anotherRequestUnderTheKey_isReusedNamingTheField_evenWhileInFlight() {
    records.claim(ID, fingerprint("ord-1"));

    RequestRecords.Claim claim = records.claim(ID, fingerprint("ord-2"));

    assertThat(claim).isEqualTo(new RequestRecords.Reused(java.util.List.of("orderId")));
  }

  @Test
  void aCompletedRequest_isReplayedWithItsAnswerUntilTheWindowEnds_thenClaimedAfresh() {
    records.claim(ID, fingerprint("ord-1"));
    assertThat(records.complete(ID, 1, answer(201))).isInstanceOf(EffectStore.Applied.class);
    clock.advance(WINDOW.minusSeconds(1));

    RequestRecords.Claim inside = records.claim(ID, fingerprint("ord-1"));
    clock.advance(Duration.ofSeconds(1));
    RequestRecords.Claim outside = records.claim(ID, fingerprint("ord-2"));

    assertThat(inside).isEqualTo(new RequestRecords.Replay(answer(201)));
    assertThat(outside).isEqualTo(new RequestRecords.Claimed(2));
    assertThat(records.claim(ID, fingerprint("ord-1")))
        .isEqualTo(new RequestRecords.Reused(java.util.List.of("orderId")));
  }

  @Test
  void aCrashedRequest_isTakenOverAfterItsLease_andItsLateCompletionIsFencedOff() {
    records.claim(ID, fingerprint("ord-1"));
    clock.advance(LEASE.plusMillis(1));

    RequestRecords.Claim takeover = records.claim(ID, fingerprint("ord-1"));
    EffectStore.UpdateResult late = records.complete(ID, 1, answer(201));
    EffectStore.UpdateResult current = records.complete(ID, 2, answer(201));

    assertThat(takeover).isEqualTo(new RequestRecords.Claimed(2));
    assertThat(late).isInstanceOf(EffectStore.ConditionFailed.class);
    assertThat(current).isInstanceOf(EffectStore.Applied.class);
  }

  @Test
  void aReleasedClaim_isTakenOverAtOnce() {
    records.claim(ID, fingerprint("ord-1"));

    records.release(ID, 1);
    RequestRecords.Claim retry = records.claim(ID, fingerprint("ord-1"));

    assertThat(retry).isEqualTo(new RequestRecords.Claimed(2));
  }

  @Test
  void theStoredAnswerCarriesATtlThatOutlivesTheWindow() {
    records.claim(ID, fingerprint("ord-1"));
    records.complete(ID, 1, answer(201));

    long ttl = store.document(ID, ID).orElseThrow().path("ttl").asLong();

    assertThat(Duration.ofSeconds(ttl)).isGreaterThan(WINDOW);
  }

  @Test
  void aLeaseAsLongAsTheWindow_isRefused() {
    assertThatThrownBy(() -> new RequestRecords(store, "orderId", WINDOW, WINDOW, clock))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
