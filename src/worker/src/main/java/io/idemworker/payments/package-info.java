/**
 * The external payment provider port and its HTTP adapter: {@link
 * io.idemworker.payments.PaymentProvider} (one idempotent capture), its sealed answer {@link
 * io.idemworker.payments.CaptureAnswer}, and {@link io.idemworker.payments.HttpPaymentProvider},
 * which speaks the provider's {@code POST /v1/captures} with an {@code Idempotency-Key} and
 * classifies every answer and failure at this edge, so the payment flow never sees HTTP.
 */
package io.idemworker.payments;
