package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.QueueRetentionCheck;
import io.idemworker.servicebus.QueueRetentionCheck.Difference;
import io.idemworker.servicebus.QueueRetentionCheck.Property;
import io.idemworker.servicebus.SessionRequirementCheck;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The worker words the library's start-up findings in its own variables: the library names session
 * mode and {@code MarkerRetention}, {@code run} names {@code SERVICEBUS_SESSIONS} and the queue
 * variables (the process tests hold the whole refusal).
 */
class StartupRefusalsTest {

  @Test
  void sessionsOnAgainstAPlainQueue_namesTheVariableAndTheBicepParameter() {
    var differs = new SessionRequirementCheck.Differs(new ProcessorSettings.Queue("inbound"), true);

    assertThat(StartupRefusals.sessions(differs))
        .isEqualTo(
            "SERVICEBUS_SESSIONS is true, but queue inbound does not require sessions: create it"
                + " with requiresSession (the Bicep parameter serviceBusSessions), or set"
                + " SERVICEBUS_SESSIONS to false");
    assertThat(differs.problem())
        .startsWith("session mode is on, but queue inbound")
        .doesNotContain("SERVICEBUS_SESSIONS", "Bicep");
  }

  @Test
  void sessionsOffAgainstASessionSubscription_namesTheVariableAndWhoSetsSessionIds() {
    var differs =
        new SessionRequirementCheck.Differs(
            new ProcessorSettings.Subscription("events", "audit"), false);

    assertThat(StartupRefusals.sessions(differs))
        .isEqualTo(
            "SERVICEBUS_SESSIONS is false, but subscription events/audit requires sessions, so"
                + " Service Bus refuses the worker's receiver: set SERVICEBUS_SESSIONS to true (the"
                + " relay sets SessionId on every event)");
  }

  @Test
  void queueDifferences_nameTheWorkersVariables() {
    var differs =
        new QueueRetentionCheck.Differs(
            List.of(
                new Difference(Property.LOCK_DURATION, "PT1M", "PT30S"),
                new Difference(Property.MAX_DELIVERY_COUNT, "10", "5"),
                new Difference(Property.MESSAGE_TIME_TO_LIVE, "PT24H", "P14D")));

    assertThat(StartupRefusals.queue(differs))
        .containsExactly(
            "SERVICEBUS_LOCK_DURATION is PT1M, the queue's lock duration PT30S",
            "SERVICEBUS_MAX_DELIVERY_COUNT is 10, the queue's 5",
            "SERVICEBUS_MESSAGE_TTL is PT24H, shorter than the queue's default message time to live"
                + " P14D");
    assertThat(differs.differences())
        .containsExactly(
            "MarkerRetention.lockDuration is PT1M, the queue's lock duration PT30S",
            "MarkerRetention.maxDeliveryCount is 10, the queue's 5",
            "MarkerRetention.messageTimeToLive is PT24H, shorter than the queue's default message"
                + " time to live P14D");
  }
}
