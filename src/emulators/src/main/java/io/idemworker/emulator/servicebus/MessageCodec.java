package io.idemworker.emulator.servicebus;

import io.idemworker.emulator.servicebus.StoredMessage.Snapshot;
import io.idemworker.emulator.servicebus.StoredMessage.State;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.Header;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.proton.message.Message;

/** AMQP encoding helpers. Stateless apart from a per-thread codec; thread-safe. */
final class MessageCodec {
  static final int BATCH_FORMAT = 0x80013700;
  static final Symbol SEQUENCE_NUMBER = Symbol.valueOf("x-opt-sequence-number");
  static final Symbol ENQUEUED_TIME = Symbol.valueOf("x-opt-enqueued-time");
  static final Symbol LOCKED_UNTIL = Symbol.valueOf("x-opt-locked-until");
  static final Symbol LOCK_TOKEN = Symbol.valueOf("x-opt-lock-token");
  static final Symbol MESSAGE_STATE = Symbol.valueOf("x-opt-message-state");
  static final Symbol DEAD_LETTER_SOURCE = Symbol.valueOf("x-opt-deadletter-source");
  static final Symbol ENQUEUE_SEQUENCE_NUMBER = Symbol.valueOf("x-opt-enqueue-sequence-number");

  private static final ThreadLocal<DecoderImpl> DECODER =
      ThreadLocal.withInitial(
          () -> {
            DecoderImpl decoder = new DecoderImpl();
            EncoderImpl encoder = new EncoderImpl(decoder);
            AMQPDefinedTypes.registerAllTypes(decoder, encoder);
            return decoder;
          });
  private static final ThreadLocal<byte[]> ENCODE_BUFFER =
      ThreadLocal.withInitial(() -> new byte[64 * 1024]);

  private MessageCodec() {}

  /** Decodes one transfer's payload; a batch (format 0x80013700) yields one message per Data. */
  static List<Message> decodeTransfer(byte[] bytes, int length, int messageFormat) {
    if (messageFormat != BATCH_FORMAT) {
      Message m = Message.Factory.create();
      m.decode(bytes, 0, length);
      return List.of(m);
    }
    DecoderImpl decoder = DECODER.get();
    decoder.setByteBuffer(ByteBuffer.wrap(bytes, 0, length));
    List<Message> out = new ArrayList<>();
    try {
      ByteBuffer buffer = ByteBuffer.wrap(bytes, 0, length);
      decoder.setByteBuffer(buffer);
      while (buffer.hasRemaining()) {
        Object section = decoder.readObject();
        if (section instanceof Data data) {
          Binary b = data.getValue();
          Message m = Message.Factory.create();
          m.decode(b.getArray(), b.getArrayOffset(), b.getLength());
          out.add(m);
        }
      }
    } finally {
      decoder.setByteBuffer(null);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          "a batch transfer (format 0x80013700) has no Data section");
    }
    return out;
  }

  /** Encodes a message for delivery with the broker's header and annotations. */
  static byte[] encodeForDelivery(Snapshot s, boolean withLock) {
    Message m = deliveryView(s, withLock);
    return encode(m);
  }

  static byte[] encode(Message m) {
    byte[] buffer = ENCODE_BUFFER.get();
    while (true) {
      try {
        int n = m.encode(buffer, 0, buffer.length);
        byte[] out = new byte[n];
        System.arraycopy(buffer, 0, out, 0, n);
        return out;
      } catch (java.nio.BufferOverflowException e) {
        buffer = new byte[buffer.length * 2];
        ENCODE_BUFFER.set(buffer);
      }
    }
  }

  static Message deliveryView(Snapshot s, boolean withLock) {
    Message src = s.message();
    Message m = Message.Factory.create();
    Header h = new Header();
    h.setDurable(true);
    h.setDeliveryCount(UnsignedInteger.valueOf(s.deliveryCount()));
    if (src.getHeader() != null) {
      h.setPriority(src.getHeader().getPriority());
      h.setFirstAcquirer(src.getHeader().getFirstAcquirer());
    }
    h.setTtl(UnsignedInteger.valueOf(s.ttlMillis()));
    m.setHeader(h);
    m.setDeliveryAnnotations(src.getDeliveryAnnotations());
    Map<Symbol, Object> annotations = new HashMap<>();
    if (src.getMessageAnnotations() != null && src.getMessageAnnotations().getValue() != null) {
      annotations.putAll(src.getMessageAnnotations().getValue());
    }
    annotations.put(SEQUENCE_NUMBER, s.sequenceNumber());
    annotations.put(ENQUEUE_SEQUENCE_NUMBER, s.sequenceNumber());
    annotations.put(ENQUEUED_TIME, Date.from(s.enqueuedTime()));
    if (s.scheduledEnqueueTime() != null) {
      annotations.put(EntityStore.SCHEDULED_ENQUEUE_TIME, Date.from(s.scheduledEnqueueTime()));
    }
    if (withLock && s.lockToken() != null) {
      annotations.put(LOCKED_UNTIL, Date.from(s.lockedUntil()));
      annotations.put(LOCK_TOKEN, s.lockToken());
    }
    annotations.put(MESSAGE_STATE, messageState(s.state()));
    if (s.deadLetterSource() != null) {
      annotations.put(DEAD_LETTER_SOURCE, s.deadLetterSource());
    }
    m.setMessageAnnotations(new MessageAnnotations(annotations));
    m.setProperties(src.getProperties());
    m.setApplicationProperties(src.getApplicationProperties());
    m.setBody(src.getBody());
    m.setFooter(src.getFooter());
    return m;
  }

  private static int messageState(State state) {
    return switch (state) {
      case DEFERRED -> 1;
      case SCHEDULED -> 2;
      default -> 0;
    };
  }

  /**
   * Gives a message without message-id a broker-assigned one (32 hex digits), as Service Bus does.
   */
  static void ensureMessageId(Message m) {
    if (m.getProperties() == null) {
      m.setProperties(new Properties());
    }
    if (m.getMessageId() == null) {
      m.setMessageId(UUID.randomUUID().toString().replace("-", ""));
    }
  }

  /** A shallow copy of every section, so that replacing one section leaves the original alone. */
  static Message copy(Message src) {
    Message m = Message.Factory.create();
    m.setHeader(src.getHeader());
    m.setDeliveryAnnotations(src.getDeliveryAnnotations());
    m.setMessageAnnotations(src.getMessageAnnotations());
    m.setProperties(src.getProperties());
    m.setApplicationProperties(src.getApplicationProperties());
    m.setBody(src.getBody());
    m.setFooter(src.getFooter());
    return m;
  }

  /** The 16-byte delivery tag of a lock token: a GUID in .NET byte order. */
  static byte[] lockTokenToTag(UUID token) {
    byte[] b = new byte[16];
    ByteBuffer.wrap(b)
        .putLong(token.getMostSignificantBits())
        .putLong(token.getLeastSignificantBits());
    reverse(b, 0, 4);
    reverse(b, 4, 2);
    reverse(b, 6, 2);
    return b;
  }

  /** Inverse of {@link #lockTokenToTag}; null unless the tag has 16 bytes. */
  static UUID tagToLockToken(byte[] tag) {
    if (tag == null || tag.length != 16) {
      return null;
    }
    byte[] b = tag.clone();
    reverse(b, 0, 4);
    reverse(b, 4, 2);
    reverse(b, 6, 2);
    ByteBuffer buf = ByteBuffer.wrap(b);
    return new UUID(buf.getLong(), buf.getLong());
  }

  private static void reverse(byte[] b, int from, int len) {
    for (int i = 0; i < len / 2; i++) {
      byte t = b[from + i];
      b[from + i] = b[from + len - 1 - i];
      b[from + len - 1 - i] = t;
    }
  }
}
