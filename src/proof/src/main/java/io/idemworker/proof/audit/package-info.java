/**
 * The external audit the demo, the chaos run and the bench share: it reads the stores back (Cosmos
 * DB, the dead-letter queues, the provider's ledger, the topic, the webhook log), trusts no worker
 * counter, and compares them with what the producer sent. {@link
 * io.idemworker.proof.audit.StateAudit} is its entry point.
 */
package io.idemworker.proof.audit;
