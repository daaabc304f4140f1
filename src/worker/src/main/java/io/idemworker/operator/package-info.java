/**
 * The operator tools that act on a running deployment: {@code explain} (what Cosmos DB and the
 * dead-letter queues hold about one message or order), {@code dlq} and {@code dlq list} (peeks by
 * reason) and {@code resubmit} (dead-lettered messages back to their queue). They read and move,
 * never process; {@link io.idemworker.operator.OperatorCommands} mounts them, and the composition
 * root passes in what it reads of the worker's configuration ({@link
 * io.idemworker.operator.WorkerTarget}).
 */
package io.idemworker.operator;
