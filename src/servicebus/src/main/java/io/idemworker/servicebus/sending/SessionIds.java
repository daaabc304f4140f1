package io.idemworker.servicebus.sending;

import com.azure.messaging.servicebus.ServiceBusMessage;

/**
 * What a producer sets in session mode: {@code SessionId} = the session key (the entity the message
 * changes), on every message of a session queue, so that one entity's messages are handled one at a
 * time and in sequence (a session queue refuses a message without it). The relay sets it on every
 * event too: a subscription without sessions ignores it, one with sessions needs it.
 */
public final class SessionIds {
  private SessionIds() {}

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
