package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusMessage;
import java.time.Duration;
import java.util.List;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transport.ReceiverSettleMode;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Receiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Link credit is an AMQP uint: a receiver may grant anything up to 2^32 - 1, and a grant of 2^31 or
 * more must deliver like any other.
 */
class ServiceBusEmulatorCreditTest {
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

  @ParameterizedTest
  @ValueSource(longs = {1L << 31, (1L << 31) + 5, (1L << 32) - 1})
  void creditAtOrAboveTwoToThe31_deliversTheWaitingMessages(long credit) throws Exception {
    fx.sender("orders")
        .sendMessages(List.of(new ServiceBusMessage("1"), new ServiceBusMessage("2")));
    try (RawAmqpClient client = new RawAmqpClient(fx.emulator.port())) {
      Receiver r = client.session.receiver("r-big-credit");
      Source source = new Source();
      source.setAddress("orders");
      r.setSource(source);
      Target target = new Target();
      target.setAddress("raw-client");
      r.setTarget(target);
      r.setSenderSettleMode(SenderSettleMode.UNSETTLED);
      r.setReceiverSettleMode(ReceiverSettleMode.SECOND);
      r.open();
      client.pumpUntil(() -> r.getRemoteState() == EndpointState.ACTIVE, WAIT);

      // proton-j takes an int and sends its bits as the uint link-credit of the flow frame
      r.flow((int) credit);
      client.pumpUntil(() -> r.getQueued() == 2, WAIT);

      assertThat(r.getQueued()).isEqualTo(2);
      assertThat(client.connection.getRemoteState()).isEqualTo(EndpointState.ACTIVE);
    }
  }
}
