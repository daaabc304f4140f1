package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.testing.FuzzBudget;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.DescribedType;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.security.SaslInit;
import org.apache.qpid.proton.amqp.transport.Attach;
import org.apache.qpid.proton.amqp.transport.Begin;
import org.apache.qpid.proton.amqp.transport.Flow;
import org.apache.qpid.proton.amqp.transport.Open;
import org.apache.qpid.proton.amqp.transport.ReceiverSettleMode;
import org.apache.qpid.proton.amqp.transport.Role;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.amqp.transport.Transfer;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzzes the Service Bus emulator over real sockets with seeded random and mutated AMQP: valid
 * conversations whose performatives carry random fields (link credit across the whole uint range,
 * handles, delivery counts, settle modes, transfer sizes), byte-level mutations of them, undefined
 * descriptors and lying frame headers. Each connection must end (the server closes it, or serves it
 * until the fuzzer hangs up) and a well-behaved SDK client keeps being served in the same run.
 *
 * <p>Bounded by {@link FuzzBudget}: a few seconds in the default build, longer with {@code -Pfuzz}
 * or {@code -Dfuzz.seconds=N}; {@code -Dfuzz.seed=S} replays or varies the cases.
 */
class ServiceBusEmulatorFuzzTest {
  private static final byte[] SASL_HEADER = {'A', 'M', 'Q', 'P', 3, 1, 0, 0};
  private static final byte[] AMQP_HEADER = {'A', 'M', 'Q', 'P', 0, 1, 0, 0};
  private static final long[] CREDITS = {
    0, 1, 100, Integer.MAX_VALUE, 1L << 31, (1L << 31) + 1, (1L << 32) - 1
  };
  private final DecoderImpl decoder = new DecoderImpl();
  private final EncoderImpl encoder = new EncoderImpl(decoder);
  private EmulatorFixture fx;

  @BeforeEach
  void start() {
    AMQPDefinedTypes.registerAllTypes(decoder, encoder);
    fx = new EmulatorFixture(QueueSettings.defaults("orders"), QueueSettings.defaults("probe"));
  }

  @AfterEach
  void stop() {
    fx.close();
  }

  // The suite default (120 s) is for ordinary tests; -Pfuzz runs this one for minutes.
  @Test
  @Timeout(value = 2, unit = TimeUnit.HOURS)
  void randomAndMutatedAmqp_closesOrServesEachConnection_andAWellBehavedClientIsServed()
      throws Exception {
    FuzzBudget budget = FuzzBudget.fromSystemProperties(150);
    Random random = new Random(budget.seed());
    ServiceBusSenderClient orders = fx.sender("orders");
    for (int i = 0; i < 5; i++) {
      orders.sendMessage(new ServiceBusMessage("waiting-" + i));
    }
    ServiceBusSenderClient probe = fx.sender("probe");
    ServiceBusReceiverClient probeReceiver = fx.receiveAndDeleteReceiver("probe");

    long started = System.nanoTime();
    int cases = 0;
    while (budget.allows(started, cases)) {
      byte[] bytes = fuzzCase(random);
      String what = "case " + cases + " (seed " + budget.seed() + ")";
      exchange(bytes);
      cases++;
      if (cases % 50 == 0) {
        assertServed(probe, probeReceiver, what);
      }
    }
    assertServed(probe, probeReceiver, "after " + cases + " cases (seed " + budget.seed() + ")");
    assertThat(cases).isPositive();
  }

  private static void assertServed(
      ServiceBusSenderClient probe, ServiceBusReceiverClient receiver, String when) {
    String body = "probe " + when;
    probe.sendMessage(new ServiceBusMessage(body));
    List<ServiceBusReceivedMessage> got = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (got.isEmpty() && System.nanoTime() < deadline) {
      receiver.receiveMessages(1, Duration.ofSeconds(5)).forEach(got::add);
    }
    assertThat(got).as("a well-behaved client is served " + when).hasSize(1);
    assertThat(got.get(0).getBody().toString()).isEqualTo(body);
  }

  /**
   * Writes the case and reads what the server answers, for at most a few seconds. Any answer is
   * acceptable for the hostile connection itself (a close, a reset, silence, heartbeats); the
   * property under test is that the server keeps serving a well-behaved client, which the caller
   * checks every 50 cases and at the end.
   */
  private void exchange(byte[] bytes) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", fx.emulator.port()), 10_000);
      socket.setSoTimeout(300);
      OutputStream out = socket.getOutputStream();
      try {
        out.write(bytes);
        out.flush();
      } catch (IOException closedWhileWriting) {
        return;
      }
      InputStream in = socket.getInputStream();
      byte[] buf = new byte[16 * 1024];
      // A case ends when the server closes, resets, falls silent (it waits for more), or keeps
      // talking past the deadline: a negotiated short idle timeout makes it send heartbeats, which
      // is serving the connection, not hanging it. What must never happen is a server that stops
      // serving others, which assertServed checks.
      long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      while (System.nanoTime() < deadline) {
        try {
          if (in.read(buf) < 0) {
            return;
          }
        } catch (SocketTimeoutException silent) {
          return;
        } catch (IOException reset) {
          return;
        }
      }
    }
  }

  private byte[] fuzzCase(Random random) {
    byte[] valid = conversation(random);
    return switch (random.nextInt(6)) {
      case 0, 1 -> valid;
      case 2 -> mutate(valid, random);
      case 3 -> truncateAndAppendGarbage(valid, random);
      case 4 -> withFrame(prefix(random), undefinedDescriptor(random));
      default -> withFrame(prefix(random), lyingFrameHeader(random));
    };
  }

  /** SASL ANONYMOUS, then open, begin, a receiver with random credit and a sender transferring. */
  private byte[] conversation(Random random) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(SASL_HEADER);
    SaslInit init = new SaslInit();
    init.setMechanism(Symbol.valueOf(random.nextInt(10) == 0 ? "PLAIN" : "ANONYMOUS"));
    out.writeBytes(frame(1, 0, init, null));
    out.writeBytes(AMQP_HEADER);
    Open open = new Open();
    open.setContainerId("fuzz");
    open.setHostname("localhost");
    if (random.nextBoolean()) {
      open.setMaxFrameSize(UnsignedInteger.valueOf(randomUint(random)));
    }
    out.writeBytes(frame(0, 0, open, null));
    Begin begin = new Begin();
    begin.setNextOutgoingId(UnsignedInteger.valueOf(randomUint(random)));
    begin.setIncomingWindow(UnsignedInteger.valueOf(randomUint(random)));
    begin.setOutgoingWindow(UnsignedInteger.valueOf(randomUint(random)));
    int channel = random.nextInt(8) == 0 ? random.nextInt(65_536) : 0;
    out.writeBytes(frame(0, channel, begin, null));

    Attach receiver = new Attach();
    receiver.setName("r-" + random.nextInt(3));
    receiver.setHandle(UnsignedInteger.valueOf(random.nextInt(4) == 0 ? randomUint(random) : 0));
    receiver.setRole(Role.RECEIVER);
    Source source = new Source();
    source.setAddress(
        random.nextInt(6) == 0
            ? "orders/$deadletterqueue"
            : random.nextInt(8) == 0 ? "" : "orders");
    receiver.setSource(source);
    receiver.setTarget(new Target());
    receiver.setSndSettleMode(SenderSettleMode.values()[random.nextInt(3)]);
    receiver.setRcvSettleMode(ReceiverSettleMode.values()[random.nextInt(2)]);
    out.writeBytes(frame(0, channel, receiver, null));
    Flow flow = new Flow();
    flow.setNextIncomingId(UnsignedInteger.valueOf(randomUint(random)));
    flow.setIncomingWindow(UnsignedInteger.valueOf(randomUint(random)));
    flow.setNextOutgoingId(UnsignedInteger.valueOf(randomUint(random)));
    flow.setOutgoingWindow(UnsignedInteger.valueOf(randomUint(random)));
    flow.setHandle(receiver.getHandle());
    flow.setDeliveryCount(UnsignedInteger.valueOf(randomUint(random)));
    flow.setLinkCredit(UnsignedInteger.valueOf(CREDITS[random.nextInt(CREDITS.length)]));
    flow.setDrain(random.nextInt(4) == 0);
    out.writeBytes(frame(0, channel, flow, null));

    Attach sender = new Attach();
    sender.setName("s-" + random.nextInt(3));
    sender.setHandle(UnsignedInteger.valueOf(1));
    sender.setRole(Role.SENDER);
    sender.setSource(new Source());
    Target target = new Target();
    target.setAddress("orders");
    sender.setTarget(target);
    sender.setInitialDeliveryCount(UnsignedInteger.valueOf(randomUint(random)));
    out.writeBytes(frame(0, channel, sender, null));
    int transfers = random.nextInt(4);
    for (int i = 0; i < transfers; i++) {
      Transfer transfer = new Transfer();
      transfer.setHandle(UnsignedInteger.valueOf(random.nextInt(5) == 0 ? 7 : 1));
      transfer.setDeliveryId(UnsignedInteger.valueOf(randomUint(random)));
      transfer.setDeliveryTag(new Binary(new byte[] {(byte) i}));
      transfer.setMessageFormat(
          UnsignedInteger.valueOf(random.nextInt(4) == 0 ? 0x80013700L : randomUint(random)));
      transfer.setSettled(random.nextBoolean());
      transfer.setMore(random.nextInt(5) == 0);
      out.writeBytes(frame(0, channel, transfer, payload(random)));
    }
    return out.toByteArray();
  }

  private static long randomUint(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> CREDITS[random.nextInt(CREDITS.length)];
      case 1 -> random.nextInt(16);
      default -> random.nextLong() & 0xFFFF_FFFFL;
    };
  }

  private byte[] payload(Random random) {
    if (random.nextInt(4) == 0) {
      byte[] junk = new byte[random.nextInt(300)];
      random.nextBytes(junk);
      return junk;
    }
    Message m = Message.Factory.create();
    byte[] data = new byte[random.nextInt(4) == 0 ? 300 * 1024 : random.nextInt(2048)];
    random.nextBytes(data);
    m.setBody(new Data(new Binary(data)));
    m.setMessageId("fuzz-" + random.nextInt(1000));
    byte[] encoded = new byte[data.length + 1024];
    int n = m.encode(encoded, 0, encoded.length);
    byte[] out = new byte[n];
    System.arraycopy(encoded, 0, out, 0, n);
    return out;
  }

  private byte[] frame(int type, int channel, Object performative, byte[] payload) {
    ByteBuffer body = ByteBuffer.allocate(4096);
    encoder.setByteBuffer(body);
    encoder.writeObject(performative);
    body.flip();
    int payloadLength = payload == null ? 0 : payload.length;
    ByteBuffer frame = ByteBuffer.allocate(8 + body.remaining() + payloadLength);
    frame.putInt(8 + body.remaining() + payloadLength);
    frame.put((byte) 2).put((byte) type).putShort((short) channel);
    frame.put(body);
    if (payload != null) {
      frame.put(payload);
    }
    return frame.array();
  }

  /** The headers and open a real client sends first, so the garbage reaches the frame parser. */
  private byte[] prefix(Random random) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(SASL_HEADER);
    SaslInit init = new SaslInit();
    init.setMechanism(Symbol.valueOf("ANONYMOUS"));
    out.writeBytes(frame(1, 0, init, null));
    out.writeBytes(AMQP_HEADER);
    if (random.nextBoolean()) {
      Open open = new Open();
      open.setContainerId("fuzz");
      out.writeBytes(frame(0, 0, open, null));
    }
    return out.toByteArray();
  }

  private byte[] undefinedDescriptor(Random random) {
    long code = random.nextBoolean() ? 0x10L + random.nextInt(0x30) : random.nextLong();
    DescribedType odd =
        new DescribedType() {
          @Override
          public Object getDescriptor() {
            return UnsignedLong.valueOf(code);
          }

          @Override
          public Object getDescribed() {
            return List.of(random.nextInt(), "x", new Binary(new byte[random.nextInt(64)]));
          }
        };
    return frame(random.nextInt(3), random.nextInt(4), odd, null);
  }

  private static byte[] lyingFrameHeader(Random random) {
    ByteBuffer frame = ByteBuffer.allocate(8 + 16);
    int size =
        switch (random.nextInt(4)) {
          case 0 -> Integer.MAX_VALUE;
          case 1 -> random.nextInt(8);
          case 2 -> -1;
          default -> 8 + random.nextInt(1 << 20);
        };
    frame.putInt(size);
    frame.put((byte) random.nextInt(256)).put((byte) random.nextInt(256));
    frame.putShort((short) random.nextInt(65_536));
    byte[] rest = new byte[16];
    random.nextBytes(rest);
    frame.put(rest);
    return frame.array();
  }

  private static byte[] withFrame(byte[] prefix, byte[] frame) {
    byte[] out = new byte[prefix.length + frame.length];
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    System.arraycopy(frame, 0, out, prefix.length, frame.length);
    return out;
  }

  private static byte[] mutate(byte[] valid, Random random) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(valid);
    byte[] bytes = out.toByteArray();
    int mutations = 1 + random.nextInt(8);
    for (int i = 0; i < mutations; i++) {
      int at = random.nextInt(bytes.length);
      switch (random.nextInt(3)) {
        case 0 -> bytes[at] ^= (byte) (1 << random.nextInt(8));
        case 1 -> bytes[at] = (byte) random.nextInt(256);
        default -> {
          byte[] grown = new byte[bytes.length + 4];
          System.arraycopy(bytes, 0, grown, 0, at);
          random.nextBytes(new byte[0]);
          grown[at] = (byte) 0xff;
          System.arraycopy(bytes, at, grown, at + 4, bytes.length - at);
          bytes = grown;
        }
      }
    }
    return bytes;
  }

  private static byte[] truncateAndAppendGarbage(byte[] valid, Random random) {
    int keep = random.nextInt(valid.length);
    byte[] garbage = new byte[random.nextInt(256)];
    random.nextBytes(garbage);
    byte[] out = new byte[keep + garbage.length];
    System.arraycopy(valid, 0, out, 0, keep);
    System.arraycopy(garbage, 0, out, keep, garbage.length);
    return out;
  }
}
