package io.idemworker.simulation;

import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.orders.PaymentProvider;
import java.util.List;
import java.util.Optional;

/**
 * One message type under simulation: the real decoder, the broker messages, what the store holds
 * before they arrive, and the invariants. A new protection (two-phase payment, the relay) plugs in
 * as one more model.
 */
interface Model {

  /**
   * A message the producer sends.
   *
   * @param label how counterexamples name it ("A", "B (v2)")
   * @param message the message as sent; its delivery count is set by the broker
   */
  record Message(String label, IncomingMessage message) {}

  /**
   * The model's name in reports.
   *
   * @return e.g. {@code credit}
   */
  String name();

  /**
   * The real decoder for the message type.
   *
   * @param provider the simulated payment provider; every capture is a scheduling point
   * @return the decoder
   */
  MessageDecoder decoder(PaymentProvider provider);

  /**
   * The broker messages: {@code copies} copies of the logical message, and any other message the
   * invariants need (a newer status). The first is in the queue at the start; the others are sent
   * at any moment, or never.
   *
   * @param copies how many copies
   * @return the messages
   */
  List<Message> messages(int copies);

  /**
   * Messages handled to completion before the exploration starts (the order a credit needs).
   *
   * @return the messages
   */
  List<IncomingMessage> seed();

  /**
   * The invariants that must hold after every step.
   *
   * @param before the state before the step
   * @param after the state after it
   * @return the violation, if any
   */
  Optional<String> afterStep(World before, World after);

  /**
   * The invariants that must hold once every sent message is settled and no handler runs.
   *
   * @param world the quiet state
   * @return the violation, if any
   */
  Optional<String> whenQuiet(World world);
}
