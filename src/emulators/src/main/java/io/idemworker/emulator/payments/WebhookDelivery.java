package io.idemworker.emulator.payments;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One webhook event as the double's delivery log shows it: what was sent and every attempt.
 *
 * @param eventId the event's id ({@code evt_...})
 * @param type e.g. {@code capture.succeeded}
 * @param orderId the order the capture was for
 * @param copies how many copies were sent (more than 1 under {@link WebhookFaults#duplicate}); 0
 *     while the event is held back
 * @param attempts every attempt of every copy, in the order they ended
 * @param copiesDelivered copies that ended with a 2xx answer
 * @param copiesRejected copies that ended with an answer not worth retrying (4xx but 408 and 429)
 * @param copiesFailed copies given up after the last attempt
 */
public record WebhookDelivery(
    String eventId,
    String type,
    String orderId,
    int copies,
    List<Attempt> attempts,
    int copiesDelivered,
    int copiesRejected,
    int copiesFailed) {
  /** Copies the attempts. */
  public WebhookDelivery {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(orderId, "orderId");
    attempts = List.copyOf(attempts);
  }

  /**
   * Whether every copy has ended (delivered, rejected or failed).
   *
   * @return true when nothing more will be sent for this event
   */
  public boolean finished() {
    return copies > 0 && copiesDelivered + copiesRejected + copiesFailed == copies;
  }

  /**
   * One HTTP attempt.
   *
   * @param copy which copy, from 1
   * @param number which attempt of that copy, from 1
   * @param at when it ended (the double's clock)
   * @param status the receiver's status; empty when there was no answer
   * @param problem why there was no answer ({@code timeout}, {@code connection failed}), when none
   * @param responseBody the start of the receiver's answer (at most 512 characters)
   */
  public record Attempt(
      int copy,
      int number,
      Instant at,
      Optional<Integer> status,
      Optional<String> problem,
      String responseBody) {
    /** Requires every component. */
    public Attempt {
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(problem, "problem");
      Objects.requireNonNull(responseBody, "responseBody");
    }

    /**
     * Whether the receiver took it.
     *
     * @return a 2xx status
     */
    public boolean succeeded() {
      return status.filter(s -> s >= 200 && s < 300).isPresent();
    }
  }
}
