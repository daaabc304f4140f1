/**
 * Receiving the payment provider's signed webhooks: signature and timestamp checks, then the same
 * idempotent flow as the queue's messages ({@code io.idemworker.core}), with an inbox marker per
 * event. Free of Azure: the store is the {@link io.idemworker.core.EffectStore} port.
 */
package io.idemworker.webhooks;
