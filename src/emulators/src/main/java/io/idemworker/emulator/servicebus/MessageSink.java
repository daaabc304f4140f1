package io.idemworker.emulator.servicebus;

import java.util.List;
import java.util.Optional;
import org.apache.qpid.proton.message.Message;

/** Where a client's sender link delivers: a queue or a topic. Implementations are thread-safe. */
interface MessageSink {
  /** The entity path, for logs. */
  String path();

  /**
   * Accepts messages sent by a client. A message without message-id gets one; a duplicate inside
   * the entity's window is accepted and dropped.
   *
   * @return the sequence numbers assigned (dropped duplicates get none)
   */
  long[] send(List<Message> messages);

  /**
   * Why this entity refuses a send of {@code messages} as a whole, if it does; checked before
   * {@link #send}.
   *
   * @return the refusal's description, or empty to accept
   */
  default Optional<String> refusal(List<Message> messages) {
    return Optional.empty();
  }
}
