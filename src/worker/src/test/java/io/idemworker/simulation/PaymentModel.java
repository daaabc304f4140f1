package io.idemworker.simulation;

import io.idemworker.core.DeadLetterReason;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.Orders;
import io.idemworker.orders.PaymentProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code PaymentCaptureRequested}: the two-phase call (claim with a lease, capture at the provider
 * with the idempotency key, complete under the attempt fence) against a provider double that
 * executes a key once and replays its answer. Invariants: the provider captures once; a capture
 * never exists without its payment record (a crash after the call is never untraceable); the order
 * is paid, the request counted and the event written at most once, and exactly once when every sent
 * copy is settled, unless a copy was dead-lettered {@code CallInProgress} (never behind {@code
 * MaxDeliveryCountExceeded} alone).
 */
final class PaymentModel implements Model {
  /** 10.00 in the order's integer units of 0.0001. */
  private static final long UNITS = 100_000;

  private static final String REQUEST = "pay-1";

  private static final String MAX_DELIVERY_COUNT_EXCEEDED = "MaxDeliveryCountExceeded";

  /** Shorter than the simulated 60 s lock, as the worker requires. */
  static final Duration LEASE = Duration.ofSeconds(30);

  /** The provider call's bound: a call needs it plus the margin of lock and lease to start. */
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

  private final boolean duplicatesMayExhaustDeliveries;

  /**
   * Creates the model.
   *
   * @param duplicatesMayExhaustDeliveries whether a copy may end dead-lettered ({@code
   *     MaxDeliveryCountExceeded} after faults, or {@code CallInProgress} when the record was
   *     contested on its last delivery); the record must still end {@code Completed}, or, when it
   *     does not, some copy must be dead-lettered {@code CallInProgress} (named, so a resubmission
   *     finishes it) and nothing paid. False holds every copy to "completed"
   */
  PaymentModel(boolean duplicatesMayExhaustDeliveries) {
    this.duplicatesMayExhaustDeliveries = duplicatesMayExhaustDeliveries;
  }

  @Override
  public String name() {
    return "two-phase payment (PaymentCaptureRequested)";
  }

  @Override
  public MessageDecoder decoder(PaymentProvider provider) {
    return OrderMessageTypes.decoder(
        true,
        new InboxMarkers("orders", Optional.empty()),
        Optional.of(new OrderMessageTypes.Payments(provider, LEASE, CALL_TIMEOUT)));
  }

  @Override
  public List<Message> messages(int copies) {
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < copies; i++) {
      messages.add(
          new Message(
              String.valueOf((char) ('A' + i)),
              Orders.payment(Invariants.ORDER, REQUEST, "10.00", "EUR")));
    }
    return messages;
  }

  @Override
  public List<IncomingMessage> seed() {
    return List.of(Orders.order(Invariants.ORDER));
  }

  @Override
  public Optional<String> afterStep(World before, World after) {
    String capture = StoreCall.captureId(REQUEST);
    int captures = after.store().writes(StoreCall.PROVIDER, capture);
    if (captures > 1) {
      return Optional.of("effect exactly once: the provider captured " + captures + " times");
    }
    if (captures == 1 && record(after).isEmpty()) {
      return Optional.of(
          "no untraceable effect: the provider captured "
              + REQUEST
              + " but no payment record "
              + recordId()
              + " exists");
    }
    long paid = Invariants.orderField(after, "amountPaidUnits");
    if (paid > UNITS) {
      return Optional.of("effect exactly once: the order was paid " + paid / UNITS + " times");
    }
    long requests = Invariants.orderField(after, "paymentRequests");
    if (requests > 1) {
      return Optional.of("the payment request was claimed " + requests + " times");
    }
    if (duplicatesMayExhaustDeliveries) {
      return Optional.empty();
    }
    return Invariants.noDeadLetter(before, after);
  }

  @Override
  public Optional<String> whenQuiet(World world) {
    boolean named = false;
    for (World.Copy copy : world.copies()) {
      Optional<String> reason =
          copy.status() == World.Status.DEAD_LETTERED ? copy.deadLetterReason() : Optional.empty();
      boolean allowed =
          reason.equals(Optional.of(MAX_DELIVERY_COUNT_EXCEEDED))
              || reason.equals(Optional.of(DeadLetterReason.CALL_IN_PROGRESS.code()));
      named |= reason.equals(Optional.of(DeadLetterReason.CALL_IN_PROGRESS.code()));
      if (copy.status() != World.Status.UNSENT
          && copy.status() != World.Status.COMPLETED
          && !(duplicatesMayExhaustDeliveries && allowed)) {
        return Optional.of(
            "nothing lost: "
                + copy.label()
                + " ended "
                + copy.status()
                + reason.map(r -> " (" + r + ")").orElse(""));
      }
    }
    String status = record(world).map(r -> r.path("status").asText()).orElse("absent");
    long paid = Invariants.orderField(world, "amountPaidUnits");
    if (!"Completed".equals(status) && named && paid == 0) {
      // Not finished, but a copy waits in the dead-letter queue under a reason that says so, and
      // `dlq resubmit --reason CallInProgress` finishes it (the provider replays the key).
      return Optional.empty();
    }
    if (!"Completed".equals(status) || paid != UNITS) {
      return Optional.of(
          "effect exactly once: every sent copy is settled but the payment record is "
              + status
              + " and the order was paid "
              + paid / UNITS
              + " times"
              + (named ? "" : ", with no copy dead-lettered " + DeadLetterReason.CALL_IN_PROGRESS));
    }
    String recorded = record(world).orElseThrow().path("result").path("providerCaptureId").asText();
    if (!recorded.equals(StoreCall.captureId(REQUEST))) {
      return Optional.of("the record holds capture " + recorded + ", not the provider's");
    }
    return Optional.empty();
  }

  private static String recordId() {
    return "payment:" + new IdempotencyKey(REQUEST).value();
  }

  private static Optional<com.fasterxml.jackson.databind.node.ObjectNode> record(World world) {
    return world.store().visible(Invariants.ORDER, recordId(), world.now());
  }
}
