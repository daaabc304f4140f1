package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import java.time.Duration;
import java.util.List;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transport.ReceiverSettleMode;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * AMQP obligations that the Java Service Bus SDK does not exercise but other clients do, checked
 * with a bare proton-j client: drain, oversize transfers, refused attach.
 */
class ServiceBusEmulatorProtocolTest {
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

  private static Receiver receiver(RawAmqpClient client, String address) {
    Receiver r = client.session.receiver("r-" + address);
    Source source = new Source();
    source.setAddress(address);
    r.setSource(source);
    Target target = new Target();
    target.setAddress("raw-client");
    r.setTarget(target);
    r.setSenderSettleMode(SenderSettleMode.UNSETTLED);
    r.setReceiverSettleMode(ReceiverSettleMode.SECOND);
    r.open();
    return r;
  }

  @Test
  void drain_deliversWhatIsAvailableThenUsesUpTheCredit() throws Exception {
    ServiceBusSenderClient sender = fx.sender("orders");
    sender.sendMessages(List.of(new ServiceBusMessage("1"), new ServiceBusMessage("2")));
    try (RawAmqpClient client = new RawAmqpClient(fx.emulator.port())) {
      Receiver r = receiver(client, "orders");
      client.pumpUntil(() -> r.getRemoteState() == EndpointState.ACTIVE, WAIT);

      r.drain(10);
      client.pumpUntil(() -> r.getQueued() == 2 && !r.draining(), WAIT);

      // proton-j counts undelivered-to-the-application transfers as credit on the receiver side:
      // 2 left means the server used up the other 8 credits and answered the drain.
      assertThat(r.getCredit()).isEqualTo(2);
      Delivery first = r.current();
      assertThat(first.getTag()).hasSize(16);
    }
  }

  @Test
  void transferLargerThanMaxMessageSize_isRejectedWithMessageSizeExceeded() throws Exception {
    try (RawAmqpClient client = new RawAmqpClient(fx.emulator.port())) {
      Sender s = openSender(client, "s-orders");
      assertThat(s.getRemoteMaxMessageSize().longValue()).isEqualTo(256 * 1024);

      Message big = Message.Factory.create();
      big.setBody(new Data(new Binary(new byte[300 * 1024])));
      byte[] encoded = new byte[310 * 1024];
      int n = big.encode(encoded, 0, encoded.length);
      Delivery d = s.delivery(new byte[] {1});
      Rejected rejected = sendAndAwaitRejection(client, s, d, encoded, n);

      assertThat(rejected.getError().getCondition().toString())
          .isEqualTo("amqp:link:message-size-exceeded");
    }
    assertThat(fx.receiver("orders").peekMessages(10)).isEmpty();
  }

  @Test
  void batchTransferWithoutDataSections_isRejectedWithDecodeError() throws Exception {
    try (RawAmqpClient client = new RawAmqpClient(fx.emulator.port())) {
      Sender s = openSender(client, "s-orders-empty-batch");

      Message envelope = Message.Factory.create();
      envelope.setMessageId("envelope-only");
      byte[] encoded = new byte[1024];
      int n = envelope.encode(encoded, 0, encoded.length);
      Delivery d = s.delivery(new byte[] {2});
      d.setMessageFormat(0x80013700);
      Rejected rejected = sendAndAwaitRejection(client, s, d, encoded, n);

      assertThat(rejected.getError().getCondition().toString()).isEqualTo("amqp:decode-error");
    }
    assertThat(fx.receiver("orders").peekMessages(10)).isEmpty();
  }

  /** A sender link to queue {@code orders}, attached and holding credit. */
  private static Sender openSender(RawAmqpClient client, String name) throws Exception {
    Sender s = client.session.sender(name);
    Target target = new Target();
    target.setAddress("orders");
    s.setTarget(target);
    s.setSource(new Source());
    s.open();
    client.pumpUntil(() -> s.getRemoteState() == EndpointState.ACTIVE && s.getCredit() > 0, WAIT);
    return s;
  }

  /** Sends one delivery and waits for the broker's answer, which must be a rejection. */
  private static Rejected sendAndAwaitRejection(
      RawAmqpClient client, Sender s, Delivery d, byte[] encoded, int length) throws Exception {
    s.send(encoded, 0, length);
    s.advance();
    client.pumpUntil(() -> d.getRemoteState() != null, WAIT);
    assertThat(d.getRemoteState()).isInstanceOf(Rejected.class);
    return (Rejected) d.getRemoteState();
  }

  @Test
  void attachToUnknownEntity_isRefusedWithNotFound() throws Exception {
    try (RawAmqpClient client = new RawAmqpClient(fx.emulator.port())) {
      Receiver r = receiver(client, "nope/$deadletterqueue");
      client.pumpUntil(() -> r.getRemoteState() == EndpointState.CLOSED, WAIT);

      assertThat(r.getRemoteCondition().getCondition().toString()).isEqualTo("amqp:not-found");
    }
  }

  @Test
  void idleConnection_getsHeartbeatsWhenThePeerAsksForThem() throws Exception {
    try (RawAmqpClient client = new RawAmqpClient(fx.emulator.port(), 1000)) {
      client.pumpUntil(() -> client.connection.getRemoteState() == EndpointState.ACTIVE, WAIT);
      long afterOpen = client.bytesRead();

      // an empty frame is 8 bytes; the server owes one every 500 ms
      client.pumpUntil(() -> client.bytesRead() >= afterOpen + 16, WAIT);

      assertThat(client.connection.getRemoteState()).isEqualTo(EndpointState.ACTIVE);
    }
  }

  @Test
  void malformedFrameAfterOpen_closesTheConnectionWithAFramingError() throws Exception {
    try (RawAmqpClient client = new RawAmqpClient(fx.emulator.port())) {
      client.pumpUntil(() -> client.connection.getRemoteState() == EndpointState.ACTIVE, WAIT);

      // a frame header announcing 16 bytes with an offset (doff) of 1, i.e. inside the header
      client.writeRaw(new byte[] {0, 0, 0, 16, 1, 0, 0, 0, 9, 9, 9, 9, 9, 9, 9, 9});
      client.pumpUntil(
          () -> client.socketClosed() || client.connection.getRemoteState() == EndpointState.CLOSED,
          WAIT);

      assertThat(client.connection.getRemoteState()).isEqualTo(EndpointState.CLOSED);
      assertThat(client.connection.getRemoteCondition().getCondition().toString())
          .isEqualTo("amqp:connection:framing-error");
    }
    fx.sender("orders").sendMessage(new ServiceBusMessage("still up"));
    assertThat(fx.receiver("orders").peekMessages(1)).hasSize(1);
  }
}
