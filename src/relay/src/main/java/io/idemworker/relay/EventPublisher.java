package io.idemworker.relay;

import java.util.List;

/** Sends events to the topic. */
interface EventPublisher extends AutoCloseable {

  /**
   * Sends the events in their order. Either every event not returned as rejected was accepted by
   * the topic, or it throws; after a throw any prefix of the events may have been accepted.
   *
   * @param events the events
   * @return the events that can never be sent (e.g. larger than the topic allows), with why
   * @throws RelayFailure when the topic did not accept them
   */
  List<Rejected> publish(List<OutboxEvent> events);

  @Override
  void close();

  /**
   * An event the topic can never take.
   *
   * @param event the event
   * @param problem why
   */
  record Rejected(OutboxEvent event, String problem) {}
}
