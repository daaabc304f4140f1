package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.AmqpSequence;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.Footer;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sasl;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Wire shapes that the Java SDK never produces but other Service Bus clients (Microsoft's Python
 * and C SDKs, uamqp) do, driven with a bare proton-j client: the {@code MSSBCBS} SASL mechanism,
 * requests without reply-to, and bodies of several sections.
 */
class ServiceBusEmulatorWireShapesTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private EmulatorFixture fx;

  @BeforeEach
  void start() {
    fx = new EmulatorFixture(QueueSettings.defaults("orders"));
  }

  @AfterEach
  void stop() {
    fx.close();
  }

  @Test
  void saslMssbcbs_isAcceptedAndTheConnectionOpens() throws Exception {
    try (RawAmqpClient client = new RawAmqpClient(fx.emulator.port(), 0, "MSSBCBS")) {
      client.pumpUntil(() -> client.connection.getRemoteState() == EndpointState.ACTIVE, WAIT);

      assertThat(client.transport.sasl().getOutcome()).isEqualTo(Sasl.SaslOutcome.PN_SASL_OK);
    }
  }

  @Test
  void cbsRequestWithoutReplyTo_isAnsweredOnTheNodesReceiverLink() throws Exception {
    try (RawAmqpClient client = new RawAmqpClient(fx.emulator.port(), 0, "MSSBCBS")) {
      Sender requests = client.openSender("cbs-requests", "$cbs");
      Receiver replies = client.openReceiver("cbs-replies", "$cbs", "cbs");
      replies.flow(10);
      client.pumpUntil(
          () -> requests.getCredit() > 0 && replies.getRemoteState() == EndpointState.ACTIVE, WAIT);

      Message putToken = Message.Factory.create();
      putToken.setMessageId("put-token-1");
      putToken.setApplicationProperties(
          new ApplicationProperties(
              Map.of(
                  "operation", "put-token",
                  "type", "servicebus.windows.net:sastoken",
                  "name", "amqp://localhost/orders")));
      putToken.setBody(new AmqpValue("SharedAccessSignature sr=x&sig=y&se=1&skn=z"));
      send(requests, "t1", MessageCodec.encode(putToken));
      client.pumpUntil(() -> replies.current() != null && !replies.current().isPartial(), WAIT);

      Message reply = Message.Factory.create();
      byte[] bytes = read(replies);
      reply.decode(bytes, 0, bytes.length);
      assertThat(reply.getCorrelationId()).isEqualTo("put-token-1");
      assertThat(reply.getApplicationProperties().getValue())
          .containsEntry("status-code", 200)
          .containsEntry("status-description", "OK")
          .doesNotContainKey("statusCode");
    }
  }

  @Test
  void bodyOfSeveralDataSections_isDeliveredWithEverySection() throws Exception {
    List<Object> sections =
        roundTrip(
            new Properties(),
            new Data(new Binary(bytes("one"))),
            new Data(new Binary(bytes("two"))),
            new Data(new Binary(bytes("three"))));

    assertThat(sections.stream().filter(Data.class::isInstance).map(s -> text((Data) s)))
        .containsExactly("one", "two", "three");
  }

  @Test
  void bodyOfSeveralSequenceSections_isDeliveredWithEverySection() throws Exception {
    List<Object> sections =
        roundTrip(
            new Properties(),
            new AmqpSequence(List.of("a", 1L)),
            new AmqpSequence(List.of("b", 2L)));

    assertThat(
            sections.stream()
                .filter(AmqpSequence.class::isInstance)
                .map(s -> ((AmqpSequence) s).getValue()))
        .containsExactly(List.of("a", 1L), List.of("b", 2L));
  }

  @Test
  void footerSentWithStringKeys_isDeliveredWithSymbolKeys() throws Exception {
    Map<Object, Object> footer = new HashMap<>();
    footer.put("checksum", "f");

    List<Object> sections =
        roundTrip(new Properties(), new Data(new Binary(bytes("body"))), new Footer(footer));

    Footer delivered =
        (Footer) sections.stream().filter(Footer.class::isInstance).findFirst().orElseThrow();
    Map<?, ?> footerMap = delivered.getValue();
    assertThat(footerMap.get(Symbol.valueOf("checksum"))).isEqualTo("f");
    assertThat(footerMap.keySet()).allMatch(Symbol.class::isInstance);
  }

  /** Sends a message made of {@code sections} to orders and returns the delivered sections. */
  private List<Object> roundTrip(Object... sections) throws Exception {
    try (RawAmqpClient client = new RawAmqpClient(fx.emulator.port())) {
      Sender s = client.openSender("multi-section-sender", "orders");
      Receiver r = client.openReceiver("multi-section-receiver", "orders", "raw-client");
      client.pumpUntil(() -> s.getCredit() > 0, WAIT);
      Delivery sent = send(s, "m1", encode(sections));
      client.pumpUntil(() -> sent.getRemoteState() != null, WAIT);

      r.flow(1);
      client.pumpUntil(() -> r.current() != null && !r.current().isPartial(), WAIT);
      return decode(read(r));
    }
  }

  private static Delivery send(Sender s, String tag, byte[] payload) {
    Delivery d = s.delivery(tag.getBytes(StandardCharsets.US_ASCII));
    s.send(payload, 0, payload.length);
    s.advance();
    return d;
  }

  private static byte[] read(Receiver r) {
    Delivery d = r.current();
    byte[] buffer = new byte[d.pending()];
    int n = r.recv(buffer, 0, buffer.length);
    r.advance();
    d.settle();
    return n == buffer.length ? buffer : java.util.Arrays.copyOf(buffer, n);
  }

  private static byte[] encode(Object... sections) {
    DecoderImpl decoder = new DecoderImpl();
    EncoderImpl encoder = new EncoderImpl(decoder);
    AMQPDefinedTypes.registerAllTypes(decoder, encoder);
    ByteBuffer out = ByteBuffer.allocate(4096);
    encoder.setByteBuffer(out);
    for (Object section : sections) {
      encoder.writeObject(section);
    }
    return java.util.Arrays.copyOf(out.array(), out.position());
  }

  private static List<Object> decode(byte[] bytes) {
    DecoderImpl decoder = new DecoderImpl();
    EncoderImpl encoder = new EncoderImpl(decoder);
    AMQPDefinedTypes.registerAllTypes(decoder, encoder);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    decoder.setByteBuffer(in);
    List<Object> out = new ArrayList<>();
    while (in.hasRemaining()) {
      out.add(decoder.readObject());
    }
    return out;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(Data d) {
    Binary b = d.getValue();
    return new String(b.getArray(), b.getArrayOffset(), b.getLength(), StandardCharsets.UTF_8);
  }
}
