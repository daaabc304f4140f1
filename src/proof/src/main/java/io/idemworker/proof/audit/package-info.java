/**
 * The external audit the demo, the chaos run and the bench share: it reads the stores back (Cosmos
 * DB, the dead-letter queues, the provider's ledger, the topic, the webhook log), trusts no worker
 * counter, and compares them with what the producer sent. {@link
 * io.idemworker.proof.audit.StateAudit} is its entry point; its checks, one class per store, are
 * package-private.
 */
package io.idemworker.proof.audit;
