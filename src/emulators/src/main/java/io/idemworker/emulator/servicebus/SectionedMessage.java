package io.idemworker.emulator.servicebus;

import java.util.List;
import org.apache.qpid.proton.amqp.messaging.Section;
import org.apache.qpid.proton.message.impl.MessageImpl;

/**
 * A message whose body is several sections — several {@code data} or several {@code amqp-sequence}
 * sections, which AMQP 1.0 allows and proton-j's {@code Message} cannot hold (it keeps one). The
 * first section is also the {@link #getBody() body}, so code reading one body sees the first;
 * {@link MessageCodec} encodes all of them. Immutable apart from the sections proton-j lets callers
 * replace; confined like any other message.
 */
final class SectionedMessage extends MessageImpl {
  private final List<Section> bodySections;

  SectionedMessage(List<Section> bodySections) {
    this.bodySections = List.copyOf(bodySections);
    setBody(this.bodySections.get(0));
  }

  /** Every body section in order, at least two. */
  List<Section> bodySections() {
    return bodySections;
  }
}
