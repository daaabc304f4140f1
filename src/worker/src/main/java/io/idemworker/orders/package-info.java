/**
 * The business: the {@code OrderPlaced} message contract, its validation, and the documents an
 * accepted order becomes (the order, one document per line, and an {@code OrderAccepted} outbox
 * event with an id derived deterministically from the idempotency key). The payment flow's port to
 * the external provider, {@link io.idemworker.orders.PaymentProvider} with its sealed answer {@link
 * io.idemworker.orders.CaptureAnswer}, sits here beside its caller; {@code io.idemworker.payments}
 * adapts it over HTTP.
 */
package io.idemworker.orders;
