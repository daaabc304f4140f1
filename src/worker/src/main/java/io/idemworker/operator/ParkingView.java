package io.idemworker.operator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.servicebus.sessions.ParkedSessions;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code explain} shows of an order in session mode ({@code SERVICEBUS_SESSIONS=true}):
 * whether it is parked behind a dead-lettered message, and what waits behind it. Read from the
 * order's session state, which only the session's lock holder may read: while a worker holds the
 * session the view says so instead.
 */
final class ParkingView {
  private ParkingView() {}

  /**
   * The parking of an order, when the worker runs in session mode.
   *
   * @return a JSON node ({@code parked}, and the details or why they could not be read); empty
   *     outside session mode
   */
  static Optional<ObjectNode> look(Map<String, String> env, WorkerTarget target, String orderId) {
    if (!"true".equalsIgnoreCase(env.getOrDefault("SERVICEBUS_SESSIONS", "false").strip())) {
      return Optional.empty();
    }
    ObjectNode node = new ObjectMapper().createObjectNode();
    try (ParkedSessions parked =
        new ParkedSessions(target.serviceBus().get(), target.queueName())) {
      Optional<ParkedSessions.Parking> parking = parked.look(orderId);
      node.put("parked", parking.isPresent());
      parking.ifPresent(
          p -> {
            node.put("reason", p.reason());
            node.put("messageId", p.messageId());
            node.put("since", p.since().toString());
            p.behind().forEach(node.withArray("behind")::add);
            p.waitingForVersion().forEach(node.withArray("waitingForVersion")::add);
          });
    } catch (ParkedSessions.SessionBusy busy) {
      node.put("unknown", "a worker holds the order's session now; run explain again");
    } catch (RuntimeException e) {
      node.put("unknown", "the session state could not be read: " + DlqEntities.firstLine(e));
    }
    return Optional.of(node);
  }

  /** One line for the text output. */
  static String describe(ObjectNode node) {
    if (node.has("unknown")) {
      return "session: " + node.get("unknown").asText();
    }
    if (!node.path("parked").asBoolean()) {
      return "session: not parked";
    }
    return "session: PARKED since "
        + node.path("since").asText()
        + " behind message "
        + node.path("messageId").asText()
        + " dead-lettered as "
        + node.path("reason").asText()
        + "; "
        + node.path("behind").size()
        + " message(s) wait behind it (dlq release / dlq discard "
        + "ORDER_ID)";
  }
}
