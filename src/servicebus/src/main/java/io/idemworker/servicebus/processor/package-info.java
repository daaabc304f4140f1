/**
 * The processor host: {@link io.idemworker.servicebus.processor.ServiceBusWorker} runs every
 * delivery of a queue or subscription through the flow and settles it by its outcome; with {@link
 * io.idemworker.servicebus.processor.ProcessorSessions} it runs on the SDK's session processor
 * instead, one message at a time per session.
 */
package io.idemworker.servicebus.processor;
