package io.idemworker.servicebus.sending;

import com.azure.messaging.servicebus.ServiceBusMessage;
import java.util.Map;

/**
 * What a producer sets in session mode: {@code SessionId} = the session key (the entity the message
 * changes), on every message of a session queue, so that one entity's messages are handled one at a
 * time and in sequence (a session queue refuses a message without it). The relay sets it on every
 * event too: a subscription without sessions ignores it, one with sessions needs it.
 */
public final class SessionIds {
  private SessionIds() {}

  /** The variable that turns session mode on, for the worker and the producers alike. */
  public static final String VARIABLE = "SERVICEBUS_SESSIONS";

  /**
   * Whether the environment asks for session mode.
   *
   * @param env the environment
   * @return true when {@code SERVICEBUS_SESSIONS} is {@code true}
   */
  public static boolean requested(Map<String, String> env) {
    return "true".equalsIgnoreCase(env.getOrDefault(VARIABLE, "false").strip());
  }

  /**
   * Puts a message in its entity's session.
   *
   * @param message the message
   * @param sessionKey the entity it belongs to
   * @return the same message, with {@code SessionId} = the session key
   */
  public static ServiceBusMessage stamp(ServiceBusMessage message, String sessionKey) {
    return message.setSessionId(sessionKey);
  }
}
