package io.idemworker.servicebus.sending;

import io.idemworker.servicebus.deadletter.DeadLetterResubmitter;

/**
 * The application properties that say how a copy came to be enqueued, read back on delivery as its
 * {@link io.idemworker.core.DeliveryOrigin}: which producer attempt sent it, and whether the relay
 * published it ({@code dlq resubmit} stamps {@link DeadLetterResubmitter#FIRST_ENQUEUED_PROPERTY}).
 */
public final class ProducerStamps {
  /** The producer's send attempt, 1 on the first send of a message. */
  public static final String SEND_ATTEMPT = "idemworker-send-attempt";

  /** Who enqueued the copy when it was not an ordinary producer: {@value #RELAY}. */
  public static final String ORIGIN = "idemworker-origin";

  /** {@link #ORIGIN}'s value on what the outbox relay publishes. */
  public static final String RELAY = "relay";

  private ProducerStamps() {}
}
