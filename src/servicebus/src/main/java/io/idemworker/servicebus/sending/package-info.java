/**
 * Sending as the message contract asks: {@link io.idemworker.servicebus.sending.ProducerKit} checks
 * each MessageId by how the producer came by it ({@link
 * io.idemworker.servicebus.sending.MessageIds}) and stamps the send attempt; {@link
 * io.idemworker.servicebus.sending.Outgoing} is one message to send.
 */
package io.idemworker.servicebus.sending;
