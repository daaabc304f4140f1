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
import org.apache.qpid.proton.amqp.messaging.AmqpSequence;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.DeliveryAnnotations;
import org.apache.qpid.proton.amqp.messaging.Footer;
import org.apache.qpid.proton.amqp.messaging.Header;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.apache.qpid.proton.amqp.messaging.Section;
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
  static final Symbol ENQUEUE_SEQUENCE_NUMBER = Symbol.valueOf("x-opt-enqueue-sequence-number");

  private record Codec(DecoderImpl decoder, EncoderImpl encoder) {}

  private static final ThreadLocal<Codec> CODEC =
      ThreadLocal.withInitial(
          () -> {
            DecoderImpl decoder = new DecoderImpl();
            EncoderImpl encoder = new EncoderImpl(decoder);
            AMQPDefinedTypes.registerAllTypes(decoder, encoder);
            return new Codec(decoder, encoder);
          });
  private static final ThreadLocal<byte[]> ENCODE_BUFFER =
      ThreadLocal.withInitial(() -> new byte[64 * 1024]);

  private MessageCodec() {}

  /** Decodes one transfer's payload; a batch (format 0x80013700) yields one message per Data. */
  static List<Message> decodeTransfer(byte[] bytes, int length, int messageFormat) {
    if (messageFormat != BATCH_FORMAT) {
      return List.of(decode(bytes, 0, length));
    }
    List<Message> out = new ArrayList<>();
    for (Object section : sections(bytes, 0, length)) {
      if (section instanceof Data data) {
        Binary b = data.getValue();
        out.add(decode(b.getArray(), b.getArrayOffset(), b.getLength()));
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          "a batch transfer (format 0x80013700) has no Data section");
    }
    return out;
  }

  /**
   * Decodes one AMQP message section by section, keeping every body section: a body of several
   * {@code data} or {@code amqp-sequence} sections comes back as a {@link SectionedMessage}.
   *
   * @throws IllegalArgumentException for a section that is not a message section
   */
  static Message decode(byte[] bytes, int offset, int length) {
    Message m = Message.Factory.create();
    List<Section> body = new ArrayList<>();
    Header header = null;
    DeliveryAnnotations deliveryAnnotations = null;
    MessageAnnotations messageAnnotations = null;
    Properties properties = null;
    ApplicationProperties applicationProperties = null;
    Footer footer = null;
    for (Object section : sections(bytes, offset, length)) {
      if (section instanceof Header h) {
        header = h;
      } else if (section instanceof DeliveryAnnotations d) {
        deliveryAnnotations = d;
      } else if (section instanceof MessageAnnotations a) {
        messageAnnotations = a;
      } else if (section instanceof Properties p) {
        properties = p;
      } else if (section instanceof ApplicationProperties a) {
        applicationProperties = a;
      } else if (section instanceof Data || section instanceof AmqpSequence) {
        body.add((Section) section);
      } else if (section instanceof AmqpValue v) {
        body.add(v);
      } else if (section instanceof Footer f) {
        footer = f;
      } else {
        throw new IllegalArgumentException(
            "not an AMQP message section: "
                + (section == null ? "null" : section.getClass().getSimpleName()));
      }
    }
    if (body.size() > 1) {
      m = new SectionedMessage(body);
    } else if (body.size() == 1) {
      m.setBody(body.get(0));
    }
    m.setHeader(header);
    m.setDeliveryAnnotations(deliveryAnnotations);
    m.setMessageAnnotations(messageAnnotations);
    m.setProperties(properties);
    m.setApplicationProperties(applicationProperties);
    m.setFooter(footer);
    return m;
  }

  private static List<Object> sections(byte[] bytes, int offset, int length) {
    DecoderImpl decoder = CODEC.get().decoder();
    ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
    decoder.setByteBuffer(buffer);
    List<Object> out = new ArrayList<>();
    try {
      while (buffer.hasRemaining()) {
        out.add(decoder.readObject());
      }
    } finally {
      decoder.setByteBuffer(null);
    }
    return out;
  }

  /** Encodes a message for delivery with the broker's header and annotations. */
  static byte[] encodeForDelivery(Snapshot s, boolean withLock) {
    Message m = deliveryView(s, withLock);
    return encode(m);
  }

  /**
   * Encodes a message for a management reply ({@code receive-by-sequence-number}): as a delivery,
   * and when locked with its lock token also in the delivery annotations ({@code
   * x-opt-lock-token}), where the service puts it: uamqp-based SDKs (Python) take the lock token of
   * a message received this way only from there, the Java SDK from the reply's {@code lock-token}.
   */
  static byte[] encodeForManagementReply(Snapshot s, boolean withLock) {
    Message m = deliveryView(s, withLock);
    if (withLock && s.lockToken() != null) {
      Map<Symbol, Object> delivery = new HashMap<>();
      if (m.getDeliveryAnnotations() != null) {
        delivery.putAll(m.getDeliveryAnnotations().getValue());
      }
      delivery.put(LOCK_TOKEN, s.lockToken());
      m.setDeliveryAnnotations(new DeliveryAnnotations(delivery));
    }
    return encode(m);
  }

  /** Encodes every section of {@code m}, all body sections of a {@link SectionedMessage}. */
  static byte[] encode(Message m) {
    byte[] buffer = ENCODE_BUFFER.get();
    while (true) {
      try {
        int n =
            m instanceof SectionedMessage sm
                ? encodeSections(sm, buffer)
                : m.encode(buffer, 0, buffer.length);
        byte[] out = new byte[n];
        System.arraycopy(buffer, 0, out, 0, n);
        return out;
      } catch (java.nio.BufferOverflowException e) {
        buffer = new byte[buffer.length * 2];
        ENCODE_BUFFER.set(buffer);
      }
    }
  }

  private static int encodeSections(SectionedMessage m, byte[] buffer) {
    EncoderImpl encoder = CODEC.get().encoder();
    ByteBuffer out = ByteBuffer.wrap(buffer);
    encoder.setByteBuffer(out);
    try {
      List<Object> sections = new ArrayList<>();
      sections.add(m.getHeader());
      sections.add(m.getDeliveryAnnotations());
      sections.add(m.getMessageAnnotations());
      sections.add(m.getProperties());
      sections.add(m.getApplicationProperties());
      sections.addAll(m.bodySections());
      sections.add(m.getFooter());
      for (Object section : sections) {
        if (section != null) {
          encoder.writeObject(section);
        }
      }
      return out.position();
    } finally {
      encoder.setByteBuffer((ByteBuffer) null);
    }
  }

  static Message deliveryView(Snapshot s, boolean withLock) {
    Message src = s.message();
    Message m = newLike(src);
    Header h = new Header();
    h.setDurable(true);
    h.setDeliveryCount(UnsignedInteger.valueOf(s.deliveryCount()));
    if (src.getHeader() != null) {
      h.setPriority(src.getHeader().getPriority());
      h.setFirstAcquirer(src.getHeader().getFirstAcquirer());
    }
    h.setTtl(UnsignedInteger.valueOf(s.ttlMillis()));
    m.setHeader(h);
    if (src.getDeliveryAnnotations() != null) {
      m.setDeliveryAnnotations(
          new DeliveryAnnotations(symbolKeys(src.getDeliveryAnnotations().getValue())));
    }
    Map<Symbol, Object> annotations = new HashMap<>();
    if (src.getMessageAnnotations() != null) {
      annotations.putAll(symbolKeys(src.getMessageAnnotations().getValue()));
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
    m.setMessageAnnotations(new MessageAnnotations(annotations));
    m.setProperties(src.getProperties());
    m.setApplicationProperties(src.getApplicationProperties());
    if (!(m instanceof SectionedMessage)) {
      m.setBody(src.getBody());
    }
    if (src.getFooter() != null) {
      m.setFooter(new Footer(symbolKeys(src.getFooter().getValue())));
    }
    return m;
  }

  /**
   * The keys of an annotations or footer map as symbols, which AMQP requires there and the SDKs
   * cast to: a client may have sent them as strings.
   */
  private static Map<Symbol, Object> symbolKeys(Map<?, ?> map) {
    Map<Symbol, Object> out = new HashMap<>();
    if (map != null) {
      map.forEach(
          (k, v) -> out.put(k instanceof Symbol sym ? sym : Symbol.valueOf(String.valueOf(k)), v));
    }
    return out;
  }

  /** An empty message of the same shape: a {@link SectionedMessage} keeps its body sections. */
  private static Message newLike(Message src) {
    return src instanceof SectionedMessage sm
        ? new SectionedMessage(sm.bodySections())
        : Message.Factory.create();
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
    Message m = newLike(src);
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
