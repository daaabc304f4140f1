/**
 * The Service Bus adapter: a {@code ServiceBusProcessorClient} in PEEK_LOCK with auto-complete off
 * feeds the {@link io.idemworker.core.IdempotentConsumer} and settles each delivery according to
 * its {@link io.idemworker.core.Outcome}; plus the producer kit ({@link
 * io.idemworker.servicebus.ProducerKit}) that producers, the relay and the operator tools send
 * with.
 */
package io.idemworker.servicebus;
