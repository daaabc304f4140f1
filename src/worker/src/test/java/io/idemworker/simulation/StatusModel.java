package io.idemworker.simulation;

import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.Orders;
import io.idemworker.orders.PaymentProvider;
import io.idemworker.simulation.World.Copy;
import io.idemworker.simulation.World.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code OrderStatusChanged}: an absolute state behind a version guard. Copies of version 1 ({@code
 * Packed}) race one newer message, version 2 ({@code Shipped}). Invariants: the stored version
 * never goes down and always carries its own status (stale never overwrites newer), and once every
 * sent message is settled the order holds the newest version sent.
 */
final class StatusModel implements Model {
  private static final List<String> STATUS = List.of("", "Packed", "Shipped");

  @Override
  public String name() {
    return "versioned status (OrderStatusChanged)";
  }

  @Override
  public MessageDecoder decoder(PaymentProvider provider) {
    return OrderMessageTypes.decoder(true, new InboxMarkers("orders", Optional.empty()));
  }

  @Override
  public List<Message> messages(int copies) {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < copies; i++) {
      messages.add(
          new Message(
              (char) ('A' + i) + " (v1)", Orders.status(Invariants.ORDER, STATUS.get(1), 1)));
    }
    messages.add(
        new Message(
            (char) ('A' + copies) + " (v2)", Orders.status(Invariants.ORDER, STATUS.get(2), 2)));
    return messages;
  }

  @Override
  public List<IncomingMessage> seed() {
    return List.of(Orders.order(Invariants.ORDER));
  }

  @Override
  public Optional<String> afterStep(World before, World after) {
    long was = Invariants.orderField(before, "statusVersion");
    long is = Invariants.orderField(after, "statusVersion");
    if (is < was) {
      return Optional.of(
          "stale never overwrites newer: statusVersion went from " + was + " to " + is);
    }
    String status = after.store().text(Invariants.ORDER, Invariants.ORDER, "status", after.now());
    if (!status.equals(STATUS.get((int) is))) {
      return Optional.of("the stored status " + status + " does not belong to statusVersion " + is);
    }
    return Invariants.noDeadLetter(before, after);
  }

  @Override
  public Optional<String> whenQuiet(World world) {
    Optional<String> lost = Invariants.everySentCompleted(world);
    if (lost.isPresent()) {
      return lost;
    }
    long newest = 0;
    List<Copy> copies = world.copies();
    for (int i = 0; i < copies.size(); i++) {
      if (copies.get(i).status() != Status.UNSENT) {
        newest = Math.max(newest, i == copies.size() - 1 ? 2 : 1);
      }
    }
    long stored = Invariants.orderField(world, "statusVersion");
    if (stored != newest) {
      return Optional.of(
          "nothing lost: the newest version sent is "
              + newest
              + " but the order holds statusVersion "
              + stored);
    }
    return Optional.empty();
  }
}
