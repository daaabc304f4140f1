package io.idemworker.relay;

/**
 * Hears what the relay does, for metrics. Called on the relay's thread; implementations must be
 * fast and must not throw (a listener that throws is logged and ignored).
 */
public interface RelayListener {

  /**
   * Events were accepted by the topic.
   *
   * @param eventType the event type (the message's Subject)
   * @param count how many
   * @param republished how many of them had been sent before (by this or an earlier lease holder)
   *     without the checkpoint moving past them, so the topic or the consumers drop them as
   *     duplicates
   */
  void published(String eventType, int count, int republished);

  /**
   * A publish attempt failed; its events stay pending and are sent again on a later cycle.
   *
   * @param reason {@code transient}, {@code misconfiguration} or {@code unpublishable} (an event
   *     that can never be sent, e.g. too large, marked {@code unpublishable} and left for a person)
   * @param count how many events the attempt carried
   */
  void publishFailed(String reason, int count);

  /**
   * A listener that does nothing.
   *
   * @return the listener
   */
  static RelayListener none() {
    return new RelayListener() {
      @Override
      public void published(String eventType, int count, int republished) {}

      @Override
      public void publishFailed(String reason, int count) {}
    };
  }
}
