/**
 * The Idempotent Consumer pattern, free of Azure types.
 *
 * <p>{@link io.idemworker.core.IdempotentConsumer} turns one {@link
 * io.idemworker.core.IncomingMessage} into exactly one {@link io.idemworker.core.Outcome}: it takes
 * the idempotency key ({@link io.idemworker.core.KeyStrategy}), lets the business decode and
 * validate the body ({@link io.idemworker.core.MessageDecoder}), and hands one atomic {@link
 * io.idemworker.core.WriteSet} to the {@link io.idemworker.core.EffectStore}. The create of the
 * write set's anchor document <em>is</em> the duplicate check: there is no read before the write,
 * so two consumers racing on copies of one message are arbitrated by the store alone.
 *
 * <p>Nothing in this package imports {@code com.azure}; an architecture test keeps it so.
 */
package io.idemworker.core;
