/**
 * The outbox relay: publishes the {@code outbox} documents the worker writes to a Service Bus
 * topic, at least once, reading them from the Cosmos DB change feed. {@link
 * io.idemworker.relay.OutboxRelay} is the entry point; the Cosmos DB and Service Bus specifics stay
 * package-private here because they are thin.
 */
package io.idemworker.relay;
