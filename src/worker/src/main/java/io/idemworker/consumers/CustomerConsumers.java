package io.idemworker.consumers;

import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.core.SubjectRouter;
import io.idemworker.orders.InboxMarkers;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The consumers of the {@code order-events} topic, each a decoder per message type plugged into the
 * one {@code IdempotentConsumer} flow:
 *
 * <table>
 *   <caption>consumers</caption>
 *   <tr><th>role</th><th>Subject</th><th>effect (partition customerId)</th><th>marker</th></tr>
 *   <tr><td>{@code loyalty}</td><td>{@code OrderAccepted}</td>
 *       <td>customer document {@code customerId}: {@code loyaltyPoints} + ⌊total⌋,
 *       {@code loyaltyOrders} + 1</td><td>{@code inbox:loyalty:{eventId}}</td></tr>
 *   <tr><td>{@code customer-stats}</td><td>{@code OrderAccepted}</td>
 *       <td>{@code {customerId}:stats:{currency}}: {@code orderCount} + 1,
 *       {@code spentUnits} + total × 10,000</td><td>{@code inbox:customer-stats:{eventId}}</td></tr>
 * </table>
 */
public final class CustomerConsumers {
  /** The subject both consumers handle. */
  public static final String ORDER_ACCEPTED = OrderAccepted.SUBJECT;

  private CustomerConsumers() {}

  /** A consumer of the topic, named as {@code WORKER_ROLE} names it. */
  public enum Role {
    /** Loyalty points per accepted order. */
    LOYALTY("loyalty"),
    /** Orders and spend per customer and currency. */
    CUSTOMER_STATS("customer-stats");

    private final String roleName;

    Role(String roleName) {
      this.roleName = roleName;
    }

    /**
     * The role's name: the value of {@code WORKER_ROLE} and the default consumer name in markers.
     *
     * @return e.g. {@code customer-stats}
     */
    public String roleName() {
      return roleName;
    }

    /**
     * The role with this name.
     *
     * @param name e.g. {@code loyalty}; case-insensitive
     * @return the role, if there is one
     */
    public static Optional<Role> named(String name) {
      String lower = name.toLowerCase(Locale.ROOT);
      return Stream.of(values()).filter(role -> role.roleName.equals(lower)).findFirst();
    }

    /**
     * Every role's name.
     *
     * @return e.g. {@code loyalty | customer-stats}
     */
    public static String names() {
      return Stream.of(values()).map(Role::roleName).collect(Collectors.joining(" | "));
    }
  }

  /**
   * The session an event belongs in when the consumers run with sessions ({@code
   * SERVICEBUS_SESSIONS=true}): its order, as the relay publishes every event with {@code
   * SessionId} = orderId. A consumer holds one order's session at a time and takes its events one
   * by one, in the order they were published.
   *
   * @param message the event
   * @return the body's {@code orderId}, when the body is a valid {@code OrderAccepted} (an invalid
   *     one is the decoder's to dead-letter, with the field it breaks)
   */
  public static Optional<String> sessionOf(IncomingMessage message) {
    return EventReader.read(message.body()) instanceof EventReader.Read read
        ? Optional.of(read.event().orderId())
        : Optional.empty();
  }

  /**
   * The decoder a consumer runs: its handler for {@code OrderAccepted}, routed by {@code Subject}
   * (any other subject is dead-lettered as {@code UnsupportedMessage}).
   *
   * @param role the consumer
   * @param markers the consumer's marker name (normally the role's name) and the markers' TTL
   * @return the decoder
   */
  public static MessageDecoder decoder(Role role, InboxMarkers markers) {
    CustomerEffect effect =
        switch (role) {
          case LOYALTY -> new CustomerEffect.LoyaltyPoints();
          case CUSTOMER_STATS -> new CustomerEffect.CustomerStats();
        };
    return new SubjectRouter(Map.of(ORDER_ACCEPTED, new OrderAcceptedDecoder(markers, effect)));
  }
}
