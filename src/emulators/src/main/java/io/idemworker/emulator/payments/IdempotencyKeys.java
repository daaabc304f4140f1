package io.idemworker.emulator.payments;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The idempotency-key table: per key, the canonical request that claimed it and, once executed, the
 * stored answer until it expires. Thread-safe; every decision about one key is one atomic {@link
 * ConcurrentHashMap#compute}, so two requests with one key can never both execute.
 */
final class IdempotencyKeys {
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final Duration retention;
  private final AtomicReference<Instant> nextSweep = new AtomicReference<>(Instant.MIN);

  IdempotencyKeys(Duration retention) {
    this.retention = Objects.requireNonNull(retention, "retention");
  }

  /** An answer as it went out the first time: replays send exactly these bytes. */
  record StoredResponse(int status, byte[] body) {
    StoredResponse {
      Objects.requireNonNull(body, "body");
    }
  }

  /** What a request with a key may do. */
  sealed interface Claim {}

  /** The key is new (or its stored answer expired): the caller executes and then completes it. */
  record Claimed() implements Claim {}

  /** The key was executed with the same parameters: answer with the stored response. */
  record Replay(StoredResponse response) implements Claim {}

  /** The key is held by a request that is still executing. */
  record InFlight() implements Claim {}

  /** The key was used with other parameters; {@code fields} names them. */
  record Mismatch(List<String> fields) implements Claim {}

  private record Entry(
      CaptureRequest request, Optional<StoredResponse> response, Instant expiresAt) {
    boolean expired(Instant now) {
      return response.isPresent() && !now.isBefore(expiresAt);
    }
  }

  Claim claim(String key, CaptureRequest request, Instant now) {
    sweepIfDue(now);
    AtomicReference<Claim> claim = new AtomicReference<>();
    entries.compute(
        key,
        (k, entry) -> {
          if (entry == null || entry.expired(now)) {
            claim.set(new Claimed());
            return new Entry(request, Optional.empty(), Instant.MAX);
          }
          if (!entry.request().equals(request)) {
            claim.set(new Mismatch(entry.request().differingFields(request)));
          } else if (entry.response().isEmpty()) {
            claim.set(new InFlight());
          } else {
            claim.set(new Replay(entry.response().get()));
          }
          return entry;
        });
    return claim.get();
  }

  /** Stores the answer of a claimed key until {@code now} + retention. */
  void complete(String key, StoredResponse response, Instant now) {
    entries.computeIfPresent(
        key, (k, entry) -> new Entry(entry.request(), Optional.of(response), now.plus(retention)));
  }

  /** Gives a claimed key up without an answer, as if the request had never arrived. */
  void release(String key) {
    entries.computeIfPresent(key, (k, entry) -> entry.response().isEmpty() ? null : entry);
  }

  int size() {
    return entries.size();
  }

  /** Drops expired answers at most once per hour of clock time, so the table stays bounded. */
  private void sweepIfDue(Instant now) {
    Instant due = nextSweep.get();
    if (now.isBefore(due) || !nextSweep.compareAndSet(due, now.plus(Duration.ofHours(1)))) {
      return;
    }
    entries.values().removeIf(entry -> entry.expired(now));
  }
}
