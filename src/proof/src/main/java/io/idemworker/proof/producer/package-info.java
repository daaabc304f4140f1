/**
 * The seeded producer every harness sends ({@link io.idemworker.proof.producer.DemoScenario}: the
 * orders, their lifecycle and payments, and every repeat and poison), which is also the audit's
 * expectation, and the {@code send} command that sends its orders to a queue of one's own.
 */
package io.idemworker.proof.producer;
