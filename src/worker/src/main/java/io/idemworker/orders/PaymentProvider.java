package io.idemworker.orders;

import java.math.BigDecimal;

/**
 * The external payment provider, as the two-phase payment flow sees it: one idempotent capture.
 *
 * <p>Contract for implementations: thread-safe; {@link #capture} never throws and always answers
 * one of the {@link CaptureAnswer} cases within a bounded time; a call with an idempotency key
 * already used with the same parameters never captures twice, so the caller may repeat it after any
 * {@link CaptureAnswer.Ambiguous} or {@link CaptureAnswer.InFlight} answer.
 */
public interface PaymentProvider {

  /**
   * Captures {@code amount} in {@code currency} for {@code orderId}, at most once per {@code
   * idempotencyKey}.
   *
   * @param idempotencyKey stable across every attempt for one payment request (1-255 visible ASCII
   *     characters)
   * @param orderId the order paid for
   * @param amount the amount, greater than 0, at most 4 decimal places
   * @param currency an ISO 4217 code such as {@code EUR}
   * @return what the provider answered, classified; never null
   */
  CaptureAnswer capture(String idempotencyKey, String orderId, BigDecimal amount, String currency);
}
