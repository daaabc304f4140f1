package io.idemworker.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.servicebus.SubscriptionSettings;
import io.idemworker.emulator.servicebus.TopicSettings;
import io.idemworker.testing.EmulatorClients;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The start-up check of {@code SERVICEBUS_SESSIONS} against the queue and against a consumer's
 * topic subscription, through the real SDK.
 */
@AzureEmulators(cosmos = false)
class SessionRequirementCheckTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration BOUND = Duration.ofSeconds(3);

  /**
   * The first Service Bus client of a JVM spends seconds loading classes and connecting, which the
   * probes' bound is not meant to cover: whichever test ran first missed a refusal on a loaded
   * machine. One send here pays for it.
   */
  @BeforeAll
  static void connectOnce() {
    try (ServiceBusSenderClient sender = EmulatorClients.sender(azure, azure.newQueue("q"))) {
      sender.sendMessage(new ServiceBusMessage("warm-up"));
    }
  }

  private static ServiceBusConnection connection() {
    return new ServiceBusConnection.ConnectionString(azure.serviceBus().connectionString());
  }

  @Test
  void sessionsConfigured_onAQueueWithoutSessions_isRefusedNamingTheVariable() {
    String queue = azure.newQueue("q");

    SessionRequirementCheck.Result result =
        SessionRequirementCheck.check(
            connection(), new ProcessorSettings.Queue(queue), true, BOUND);

    assertThat(result).isInstanceOf(SessionRequirementCheck.Differs.class);
    assertThat(((SessionRequirementCheck.Differs) result).problem())
        .contains("session mode is on, but queue " + queue, "requiresSession");
  }

  @Test
  void sessionsNotConfigured_onAQueueThatRequiresThem_isRefusedNamingTheVariable() {
    String queue = azure.newQueue("q", "sessions");

    SessionRequirementCheck.Result result =
        SessionRequirementCheck.check(
            connection(), new ProcessorSettings.Queue(queue), false, BOUND);

    assertThat(result).isInstanceOf(SessionRequirementCheck.Differs.class);
    assertThat(((SessionRequirementCheck.Differs) result).problem())
        .contains("session mode is off, but queue " + queue + " requires sessions");
  }

  @Test
  void agreeingQueues_passBothWays_andTheProbesTakeNoMessage() {
    String plain = azure.newQueue("q");
    String sessions = azure.newQueue("q", "sessions");
    try (ServiceBusSenderClient toPlain = EmulatorClients.sender(azure, plain);
        ServiceBusSenderClient toSessions = EmulatorClients.sender(azure, sessions)) {
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

    try (var receiver =
        EmulatorClients.serviceBusClient(azure).receiver().queueName(plain).buildClient()) {
      ServiceBusReceivedMessage message = receiver.peekMessage();
      assertThat(message.getDeliveryCount()).isZero();
    }
    try (var receiver =
        EmulatorClients.serviceBusClient(azure)
            .sessionReceiver()
            .queueName(sessions)
            .buildClient()) {
      ServiceBusReceivedMessage message = receiver.acceptSession("ord-1").peekMessage();
      assertThat(message.getDeliveryCount()).isZero();
    }
  }

  /** A topic with a subscription {@code plain} and one {@code sessions} that requires sessions. */
  private static String newTopic() {
    String topic = "t-" + UUID.randomUUID().toString().substring(0, 8);
    azure
        .serviceBus()
        .createTopic(
            TopicSettings.defaults(topic)
                .withSubscription(SubscriptionSettings.defaults("plain"))
                .withSubscription(
                    SubscriptionSettings.defaults("sessions").withRequiresSession(true)));
    return topic;
  }

  @Test
  void sessionsConfigured_onASubscriptionWithoutSessions_isRefusedNamingVariableAndSubscription() {
    String topic = newTopic();

    SessionRequirementCheck.Result result =
        SessionRequirementCheck.check(
            connection(), new ProcessorSettings.Subscription(topic, "plain"), true, BOUND);

    assertThat(result).isInstanceOf(SessionRequirementCheck.Differs.class);
    assertThat(((SessionRequirementCheck.Differs) result).problem())
        .contains(
            "session mode is on, but subscription " + topic + "/plain does not require sessions",
            "requiresSession");
  }

  @Test
  void sessionsNotConfigured_onASubscriptionThatRequiresThem_isRefusedNamingTheVariable() {
    String topic = newTopic();

    SessionRequirementCheck.Result result =
        SessionRequirementCheck.check(
            connection(), new ProcessorSettings.Subscription(topic, "sessions"), false, BOUND);

    assertThat(result).isInstanceOf(SessionRequirementCheck.Differs.class);
    assertThat(((SessionRequirementCheck.Differs) result).problem())
        .contains(
            "session mode is off, but subscription " + topic + "/sessions requires",
            "the relay sets SessionId on every event");
  }

  @Test
  void agreeingSubscriptions_passBothWays() {
    String topic = newTopic();

    assertThat(
            SessionRequirementCheck.check(
                connection(), new ProcessorSettings.Subscription(topic, "plain"), false, BOUND))
        .isInstanceOf(SessionRequirementCheck.Agrees.class);
    assertThat(
            SessionRequirementCheck.check(
                connection(), new ProcessorSettings.Subscription(topic, "sessions"), true, BOUND))
        .isInstanceOf(SessionRequirementCheck.Agrees.class);
  }
}
