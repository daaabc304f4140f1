package io.idemworker.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Fencing by the delivery's lock: no store write and no external call once the lock is gone, a
 * two-phase lease cut at the lock's end, and a contested record named on the last delivery.
 */
class LockFenceTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Instant T0 = Instant.parse("2026-12-02T09:00:00Z");
  private static final Duration CEILING = Duration.ofSeconds(30);
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

  private final MutableClock clock = new MutableClock(T0);
  private final InMemoryEffectStore store = new InMemoryEffectStore();
  private final AtomicInteger calls = new AtomicInteger();

  /** A lock that ends at a settable instant by {@link #clock}, or is gone. */
  private final class TestLock implements DeliveryLock {
    final AtomicReference<Optional<Instant>> end;

    TestLock(Instant end) {
      this.end = new AtomicReference<>(Optional.of(end));
    }

    void lose() {
      end.set(Optional.empty());
    }

    @Override
    public Optional<Duration> holdFor(Duration needed) {
      return end.get()
          .map(e -> Duration.between(clock.instant(), e))
          .filter(left -> !left.minus(needed).isNegative());
    }
  }

  private IdempotentConsumer consumer(ExternalCall call, int maxDeliveryCount) {
    MessageDecoder decoder =
        message ->
            new MessageDecoder.Valid(
                new MessageDecoder.ValidMessage() {
                  @Override
                  public String entityId() {
                    return "ord-1";
                  }

                  @Override
                  public ObjectNode immutableFields() {
                    return JSON.objectNode().put("amount", 5);
                  }

                  @Override
                  public Change change(IdempotencyKey key, Fingerprint fingerprint, Instant at) {
                    return message.subject().orElseThrow().equals("Create")
                        ? new Change.Anchored(
                            WriteSet.of(
                                "ord-1",
                                fingerprint,
                                JSON.objectNode().put("id", "ord-1"),
                                List.of()),
                            Optional.empty())
                        : twoPhase(call);
                  }
                });
    return TestFlow.of(decoder, store)
        .clock(clock)
        .maxBodyBytes(10_000)
        .maxDeliveryCount(maxDeliveryCount)
        .build();
  }

  private static Change.TwoPhase twoPhase(ExternalCall call) {
    return new Change.TwoPhase(
        "ord-1",
        JSON.objectNode().put("id", "payment:pr-1"),
        List.of(),
        new Change.TargetRules(
            new Change.Rejection(new DeadLetterReason("OrderNotFound"), "missing"),
            new Change.Rejection(new DeadLetterReason("Refused"), "refused")),
        call,
        (result, at) ->
            new Change.CompletionPlan(
                JSON.objectNode().put("id", "event:pr-1").set("result", result), List.of()),
        CEILING,
        CALL_TIMEOUT);
  }

  private ExternalCall counted(Runnable during) {
    return () -> {
      calls.incrementAndGet();
      during.run();
      return new ExternalCall.Done(JSON.objectNode().put("result", "captured"));
    };
  }

  private static IncomingMessage message(String subject, long deliveryCount) {
    return new IncomingMessage(
        Optional.of("pr-1"),
        Optional.empty(),
        Optional.of(subject),
        Optional.of("application/json"),
        Map.of(),
        "{}".getBytes(StandardCharsets.UTF_8),
        deliveryCount);
  }

  private Optional<ObjectNode> record() {
    return store.read("ord-1", "payment:pr-1") instanceof EffectStore.Document document
        ? Optional.of(document.content())
        : Optional.empty();
  }

  @Test
  void lostLock_stopsBeforeTheFirstStoreWrite_andSaysLockLost() {
    // given a delivery whose lock is already gone
    TestLock lock = new TestLock(T0.plusSeconds(60));
    lock.lose();

    // when it is handled
    Outcome outcome =
        consumer(counted(() -> {}), 10).handle(message("Create", 0), Optional.empty(), lock);

    // then nothing was written and the outcome names the lost lock
    assertThat(outcome).isInstanceOf(Outcome.Retry.class);
    assertThat(((Outcome.Retry) outcome).cause()).isEqualTo(Outcome.RetryCause.LOCK_LOST);
    assertThat(((Outcome.Retry) outcome).description()).contains("before a store write");
    assertThat(store.read("ord-1", "ord-1")).isInstanceOf(EffectStore.Absent.class);
  }

  @Test
  void lockLostAfterTheClaim_noProviderCallAndNoFurtherWrite() {
    // given a lock that is lost right after the claim was written
    TestLock lock = new TestLock(T0.plusSeconds(60));
    EffectStore losingAfterFirstWrite = StoreFaults.afterEachWrite(store, lock::lose);
    IdempotentConsumer consumer =
        TestFlow.of(
                message ->
                    new MessageDecoder.Valid(
                        new MessageDecoder.ValidMessage() {
                          @Override
                          public String entityId() {
                            return "ord-1";
                          }

                          @Override
                          public ObjectNode immutableFields() {
                            return JSON.objectNode().put("amount", 5);
                          }

                          @Override
                          public Change change(IdempotencyKey key, Fingerprint fp, Instant at) {
                            return twoPhase(counted(() -> {}));
                          }
                        }),
                losingAfterFirstWrite)
            .clock(clock)
            .maxBodyBytes(10_000)
            .build();

    // when the delivery is handled
    Outcome outcome = consumer.handle(message("Pay", 0), Optional.empty(), lock);

    // then the provider was never called, the claim stays as written, and the outcome says why
    assertThat(calls).hasValue(0);
    assertThat(((Outcome.Retry) outcome).cause()).isEqualTo(Outcome.RetryCause.LOCK_LOST);
    assertThat(((Outcome.Retry) outcome).description()).contains("before the call");
    assertThat(record().orElseThrow().path("status").asText()).isEqualTo("InProgress");
  }

  @Test
  void claimLease_endsAtTheLockEnd_whenTheLockEndsBeforeTheCeiling() {
    // given a lock with 20 s left, under a 30 s ceiling
    TestLock lock = new TestLock(T0.plusSeconds(20));

    // when the call runs, then the lease it runs under ends at the lock's end
    AtomicReference<Long> leaseDuringCall = new AtomicReference<>();
    Outcome outcome =
        consumer(
                counted(
                    () ->
                        leaseDuringCall.set(
                            record().orElseThrow().path("leaseUntilMillis").asLong())),
                10)
            .handle(message("Pay", 0), Optional.empty(), lock);

    assertThat(outcome).isInstanceOf(Outcome.Processed.class);
    assertThat(leaseDuringCall.get()).isEqualTo(T0.plusSeconds(20).toEpochMilli());
  }

  @Test
  void claimLease_isTheCeiling_whenTheLockOutlastsIt() {
    TestLock lock = new TestLock(T0.plusSeconds(300));
    AtomicReference<Long> leaseDuringCall = new AtomicReference<>();

    consumer(
            counted(
                () ->
                    leaseDuringCall.set(record().orElseThrow().path("leaseUntilMillis").asLong())),
            10)
        .handle(message("Pay", 0), Optional.empty(), lock);

    assertThat(leaseDuringCall.get()).isEqualTo(T0.plus(CEILING).toEpochMilli());
  }

  @Test
  void lockShorterThanTheCallNeeds_noClaimAndNoCall() {
    // given a lock with less left than the call's timeout plus the margin, and no renewal coming
    TestLock lock = new TestLock(T0.plus(CALL_TIMEOUT).plusSeconds(1));

    Outcome outcome =
        consumer(counted(() -> {}), 10).handle(message("Pay", 0), Optional.empty(), lock);

    assertThat(((Outcome.Retry) outcome).cause()).isEqualTo(Outcome.RetryCause.LOCK_LOST);
    assertThat(((Outcome.Retry) outcome).description()).contains("before the claim");
    assertThat(calls).hasValue(0);
    assertThat(record()).isEmpty();
  }

  @Test
  void leaseMetOnTheLastDelivery_isDeadLetteredCallInProgress_notAbandoned() {
    // given a claim held by another delivery whose lease is still live
    TestLock first = new TestLock(T0.plusSeconds(60));
    IdempotentConsumer stalled =
        consumer(
            () -> {
              throw new IllegalStateException("the first delivery stalls in its call");
            },
            3);
    stalled.handle(message("Pay", 0), Optional.empty(), first);
    assertThat(record().orElseThrow().path("status").asText()).isEqualTo("InProgress");

    // when another copy arrives on the last delivery the queue allows
    Outcome outcome =
        consumer(counted(() -> {}), 3)
            .handle(message("Pay", 2), Optional.empty(), new TestLock(T0.plusSeconds(60)));

    // then it is dead-lettered with a reason that names the cause, and nothing was called
    assertThat(outcome).isInstanceOf(Outcome.DeadLettered.class);
    assertThat(((Outcome.DeadLettered) outcome).reason())
        .isEqualTo(DeadLetterReason.CALL_IN_PROGRESS);
    assertThat(calls).hasValue(0);
  }

  @Test
  void leaseMetBeforeTheLastDelivery_isRetriedAfterTheLease() {
    consumer(
            () -> {
              throw new IllegalStateException("the first delivery stalls in its call");
            },
            3)
        .handle(message("Pay", 0), Optional.empty(), new TestLock(T0.plusSeconds(60)));

    Outcome outcome =
        consumer(counted(() -> {}), 3)
            .handle(message("Pay", 1), Optional.empty(), new TestLock(T0.plusSeconds(60)));

    assertThat(((Outcome.Retry) outcome).cause()).isEqualTo(Outcome.RetryCause.NOT_YET);
    assertThat(((Outcome.Retry) outcome).retryAfter()).contains(CEILING);
  }
}
