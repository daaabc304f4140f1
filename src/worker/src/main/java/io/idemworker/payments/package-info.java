/**
 * The HTTP adapter of the payment provider port {@link io.idemworker.orders.PaymentProvider}:
 * {@link io.idemworker.payments.HttpPaymentProvider} speaks the provider's {@code POST
 * /v1/captures} with an {@code Idempotency-Key} and classifies every answer and failure at this
 * edge into a {@link io.idemworker.orders.CaptureAnswer}, so the payment flow never sees HTTP.
 */
package io.idemworker.payments;
