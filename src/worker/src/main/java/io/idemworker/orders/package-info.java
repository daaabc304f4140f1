/**
 * The business: the {@code OrderPlaced} message contract, its validation, and the documents an
 * accepted order becomes (the order, one document per line, and an {@code OrderAccepted} outbox
 * event with an id derived deterministically from the idempotency key).
 */
package io.idemworker.orders;
