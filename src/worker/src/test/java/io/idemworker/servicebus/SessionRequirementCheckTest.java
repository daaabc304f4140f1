package io.idemworker.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.testing.Emulators;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The start-up check of {@code SERVICEBUS_SESSIONS} against the queue, through the real SDK. */
class SessionRequirementCheckTest {
  private static final Duration BOUND = Duration.ofSeconds(3);

  private static ServiceBusConnection connection() {
    return new ServiceBusConnection.ConnectionString(Emulators.serviceBus().connectionString());
  }

  @Test
  void sessionsConfigured_onAQueueWithoutSessions_isRefusedNamingTheVariable() {
    String queue = Emulators.newQueue(s -> s);

    SessionRequirementCheck.Result result =
        SessionRequirementCheck.check(
            connection(), new ProcessorSettings.Queue(queue), true, BOUND);

    assertThat(result).isInstanceOf(SessionRequirementCheck.Differs.class);
    assertThat(((SessionRequirementCheck.Differs) result).problem())
        .contains("SERVICEBUS_SESSIONS", queue, "requiresSession");
  }

  @Test
  void sessionsNotConfigured_onAQueueThatRequiresThem_isRefusedNamingTheVariable() {
    String queue = Emulators.newQueue(s -> s.withRequiresSession(true));

    SessionRequirementCheck.Result result =
        SessionRequirementCheck.check(
            connection(), new ProcessorSettings.Queue(queue), false, BOUND);

    assertThat(result).isInstanceOf(SessionRequirementCheck.Differs.class);
    assertThat(((SessionRequirementCheck.Differs) result).problem())
        .contains("SERVICEBUS_SESSIONS", queue);
  }

  @Test
  void agreeingQueues_passBothWays_andTheProbesTakeNoMessage() {
    String plain = Emulators.newQueue(s -> s);
    String sessions = Emulators.newQueue(s -> s.withRequiresSession(true));
    try (ServiceBusSenderClient toPlain = Emulators.sender(plain);
        ServiceBusSenderClient toSessions = Emulators.sender(sessions)) {
      toPlain.sendMessage(new ServiceBusMessage("x").setMessageId("m-1"));
      toSessions.sendMessage(new ServiceBusMessage("y").setMessageId("m-2").setSessionId("ord-1"));
    }

    assertThat(
            SessionRequirementCheck.check(
                connection(), new ProcessorSettings.Queue(plain), false, BOUND))
        .isInstanceOf(SessionRequirementCheck.Agrees.class);
    assertThat(
            SessionRequirementCheck.check(
                connection(), new ProcessorSettings.Queue(sessions), true, BOUND))
        .isInstanceOf(SessionRequirementCheck.Agrees.class);

    try (var receiver = Emulators.serviceBusClient().receiver().queueName(plain).buildClient()) {
      ServiceBusReceivedMessage message = receiver.peekMessage();
      assertThat(message.getDeliveryCount()).isZero();
    }
    try (var receiver =
        Emulators.serviceBusClient().sessionReceiver().queueName(sessions).buildClient()) {
      ServiceBusReceivedMessage message = receiver.acceptSession("ord-1").peekMessage();
      assertThat(message.getDeliveryCount()).isZero();
    }
  }
}
