package io.idemworker.app;

import io.idemworker.servicebus.QueueRetentionCheck;
import io.idemworker.servicebus.SessionRequirementCheck;
import java.util.List;

/**
 * The worker's wording of the library's start-up findings: the library names its settings (session
 * mode, {@code MarkerRetention}), the worker names the environment variables that set them and the
 * values to give them.
 */
final class StartupRefusals {
  private StartupRefusals() {}

  /**
   * The queue's or subscription's sessions disagree with {@code SERVICEBUS_SESSIONS}.
   *
   * @param differs the library's finding
   * @return the problem, naming the variable, the entity and what to change
   */
  static String sessions(SessionRequirementCheck.Differs differs) {
    String entity = differs.source().describe();
    return differs.sessions()
        ? "SERVICEBUS_SESSIONS is true, but "
            + entity
            + " does not require sessions: create it with requiresSession (the Bicep parameter"
            + " serviceBusSessions), or set SERVICEBUS_SESSIONS to false"
        : "SERVICEBUS_SESSIONS is false, but "
            + entity
            + " requires sessions, so Service Bus refuses the worker's receiver: set"
            + " SERVICEBUS_SESSIONS to true ("
            + differs.whoSetsSessionIds()
            + ")";
  }

  /**
   * The queue's properties differ from {@code SERVICEBUS_LOCK_DURATION}, {@code
   * SERVICEBUS_MAX_DELIVERY_COUNT} or {@code SERVICEBUS_MESSAGE_TTL}.
   *
   * @param differs the library's finding
   * @return each difference, naming the variable, its value and the queue's
   */
  static List<String> queue(QueueRetentionCheck.Differs differs) {
    return differs.found().stream().map(d -> variable(d.property()) + d.after()).toList();
  }

  private static String variable(QueueRetentionCheck.Property property) {
    return switch (property) {
      case LOCK_DURATION -> "SERVICEBUS_LOCK_DURATION";
      case MAX_DELIVERY_COUNT -> "SERVICEBUS_MAX_DELIVERY_COUNT";
      case MESSAGE_TIME_TO_LIVE -> "SERVICEBUS_MESSAGE_TTL";
    };
  }
}
