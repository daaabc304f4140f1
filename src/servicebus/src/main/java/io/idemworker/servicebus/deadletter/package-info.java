/**
 * Dead-letter tools: {@link io.idemworker.servicebus.deadletter.DeadLetterReader} peeks at a
 * dead-letter queue without settling anything; {@link
 * io.idemworker.servicebus.deadletter.DeadLetterResubmitter} sends its messages back unchanged
 * (same MessageId, so the flow takes a copy whose effect committed as a duplicate).
 */
package io.idemworker.servicebus.deadletter;
