package io.idemworker.orders;

import java.util.Objects;

/**
 * What a {@link PaymentProvider#capture} call ended as. Final answers ({@link Captured}, {@link
 * Declined}) are what the payment record should be completed with; {@link InFlight} and {@link
 * Ambiguous} mean "ask again later with the same key"; {@link KeyConflict} and {@link Rejected} are
 * bugs or misconfiguration that a retry will not fix.
 */
public sealed interface CaptureAnswer {

  /**
   * The money was captured (now, or by an earlier attempt with this key if {@code replayed}).
   *
   * @param captureId the provider's id of the capture, the same on every replay
   * @param replayed true when the provider answered from its stored result of an earlier attempt
   */
  record Captured(String captureId, boolean replayed) implements CaptureAnswer {
    public Captured {
      requireText(captureId, "captureId");
    }
  }

  /**
   * The provider declined the capture: a final business answer, replayed like a capture.
   *
   * @param declineCode the provider's reason, for example {@code card_declined}
   * @param replayed true when the provider answered from its stored result of an earlier attempt
   */
  record Declined(String declineCode, boolean replayed) implements CaptureAnswer {
    public Declined {
      requireText(declineCode, "declineCode");
    }
  }

  /**
   * Another attempt with this key is being executed right now (HTTP 409): nothing is known yet; ask
   * again later with the same key.
   */
  record InFlight() implements CaptureAnswer {}

  /**
   * The key was first used with other parameters (HTTP 422): the caller reuses keys for different
   * payments, a bug to alert on; retrying cannot help.
   *
   * @param description the provider's message, naming the differing parameters when it does
   */
  record KeyConflict(String description) implements CaptureAnswer {
    public KeyConflict {
      requireText(description, "description");
    }
  }

  /**
   * The outcome is unknown: a 5xx, 408 or 429, a timeout, a connection refused, reset or closed
   * before the answer, or an answer that could not be read. The capture may or may not have
   * happened; the next attempt with the same key resolves it without capturing twice.
   *
   * @param description what went wrong, for logs
   */
  record Ambiguous(String description) implements CaptureAnswer {
    public Ambiguous {
      requireText(description, "description");
    }
  }

  /**
   * The provider refused the request as ours to fix (401, 403, 400, 404 or another unexpected
   * status), or it was not sent because an argument cannot be sent ({@code status} 0). Nothing was
   * captured; the same request will be refused again.
   *
   * @param status the HTTP status, or 0 when the request was not sent
   * @param description the provider's message, or what was wrong with the argument
   */
  record Rejected(int status, String description) implements CaptureAnswer {
    public Rejected {
      if (status != 0 && (status < 100 || status > 599)) {
        throw new IllegalArgumentException("status must be 0 or 100..599, got " + status);
      }
      requireText(description, "description");
    }
  }

  private static void requireText(String value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
  }
}
