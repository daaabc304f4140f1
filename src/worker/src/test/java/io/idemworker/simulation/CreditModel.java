package io.idemworker.simulation;

import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.Orders;
import io.idemworker.orders.PaymentProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code OrderCredited}: a relative change (an increment of the order) behind an inbox marker
 * created in the same batch. Invariants: the credit is applied at most once, and exactly once when
 * every sent copy is settled; the marker, once written, stays while any copy may still arrive (the
 * horizon).
 */
final class CreditModel implements Model {
  /** 5.00 in the order's integer units of 0.0001. */
  private static final long UNITS = 50_000;

  private static final String CREDIT = "cr-1";

  private final InboxMarkers markers;

  /**
   * Creates the model.
   *
   * @param markers the marker naming and TTL under test
   */
  CreditModel(InboxMarkers markers) {
    this.markers = markers;
  }

  /**
   * The model with the markers the worker uses by default (14 days).
   *
   * @return the model
   */
  static CreditModel withDefaultMarkers() {
    return new CreditModel(
        new InboxMarkers(
            InboxMarkers.DEFAULT_CONSUMER, Optional.of(java.time.Duration.ofDays(14))));
  }

  @Override
  public String name() {
    return "credit behind a marker (OrderCredited)";
  }

  @Override
  public MessageDecoder decoder(PaymentProvider provider) {
    return OrderMessageTypes.decoder(true, markers);
  }

  @Override
  public List<Message> messages(int copies) {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < copies; i++) {
      messages.add(
          new Message(
              String.valueOf((char) ('A' + i)),
              Orders.credit(Invariants.ORDER, CREDIT, "5.00", "EUR")));
    }
    return messages;
  }

  @Override
  public List<IncomingMessage> seed() {
    return List.of(Orders.order(Invariants.ORDER));
  }

  @Override
  public Optional<String> afterStep(World before, World after) {
    long count = Invariants.orderField(after, "creditCount");
    if (count > 1) {
      return Optional.of("effect exactly once: credit " + CREDIT + " applied " + count + " times");
    }
    long units = Invariants.orderField(after, "creditedUnits");
    if (units != count * UNITS) {
      return Optional.of("creditedUnits " + units + " do not match " + count + " credit(s)");
    }
    if (marker(before).isPresent() && marker(after).isEmpty() && Invariants.copyMayArrive(after)) {
      return Optional.of(
          "marker horizon: the inbox marker "
              + markerId()
              + " expired at virtual second "
              + after.now()
              + " while a copy of "
              + CREDIT
              + " may still arrive (marker TTL "
              + markers.ttl().map(Object::toString).orElse("none")
              + ")");
    }
    return Invariants.noDeadLetter(before, after);
  }

  @Override
  public Optional<String> whenQuiet(World world) {
    Optional<String> lost = Invariants.everySentCompleted(world);
    if (lost.isPresent()) {
      return lost;
    }
    long count = Invariants.orderField(world, "creditCount");
    if (count != 1) {
      return Optional.of(
          "effect exactly once: every sent copy is completed but credit "
              + CREDIT
              + " was applied "
              + count
              + " times");
    }
    return Optional.empty();
  }

  private String markerId() {
    return InboxMarkers.id(markers.consumer(), new IdempotencyKey(CREDIT));
  }

  private Optional<?> marker(World world) {
    return world.store().visible(Invariants.ORDER, markerId(), world.now());
  }
}
