package io.idemworker.emulator.payments;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * Every capture the emulator executed, in execution order: the provider's side effect, what an
 * audit counts. Replays add nothing. Thread-safe.
 */
final class Ledger {
  private final List<Capture> captures = new ArrayList<>();

  /** One executed capture; {@code declineCode} is present exactly when it was declined. */
  record Capture(
      String id,
      String idempotencyKey,
      CaptureRequest request,
      Optional<String> declineCode,
      Instant createdAt) {
    Capture {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(idempotencyKey, "idempotencyKey");
      Objects.requireNonNull(request, "request");
      Objects.requireNonNull(declineCode, "declineCode");
      Objects.requireNonNull(createdAt, "createdAt");
    }

    String status() {
      return declineCode.isPresent() ? "declined" : "captured";
    }
  }

  /** Executes a capture: decides it by the decline rule and records it. */
  Capture execute(String idempotencyKey, CaptureRequest request, Instant now) {
    Optional<String> declineCode =
        request.declines() ? Optional.of("card_declined") : Optional.empty();
    Capture capture =
        new Capture(
            "cap_" + UUID.randomUUID().toString().replace("-", "").substring(0, 24),
            idempotencyKey,
            request,
            declineCode,
            now);
    synchronized (captures) {
      captures.add(capture);
    }
    return capture;
  }

  /** The captures of one order, or all when {@code orderId} is empty, oldest first. */
  List<Capture> list(Optional<String> orderId) {
    synchronized (captures) {
      return captures.stream()
          .filter(c -> orderId.map(c.request().orderId()::equals).orElse(true))
          .toList();
    }
  }
}
