package io.idemworker.simulation;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.IncomingMessage;
import io.idemworker.core.MessageDecoder;
import io.idemworker.orders.PaymentProvider;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The two-phase payment against a provider that does not always capture: with {@link CallFaults}'
 * provider kinds it may answer in flight, ambiguously (after capturing or before), or decline. The
 * payment model's invariants hold, and a decline is an effect of its own: the request ends {@code
 * Completed} with result {@code declined}, the order unpaid, and the provider never both captured
 * and declined the key.
 */
final class ProviderAnswersModel implements Model {
  private static final String REQUEST = "pay-1";

  private final PaymentModel payment = new PaymentModel(false);
  private final UnaryOperator<PaymentProvider> provider;

  /**
   * The model.
   *
   * @param provider wraps the simulated provider ({@code UnaryOperator.identity()} for the real
   *     flow, a {@link FaultMutants} answer mutant otherwise)
   */
  ProviderAnswersModel(UnaryOperator<PaymentProvider> provider) {
    this.provider = provider;
  }

  @Override
  public String name() {
    return "provider answers (PaymentCaptureRequested)";
  }

  @Override
  public MessageDecoder decoder(PaymentProvider simulated) {
    return payment.decoder(provider.apply(simulated));
  }

  @Override
  public List<Message> messages(int copies) {
    return payment.messages(copies);
  }

  @Override
  public List<IncomingMessage> seed() {
    return payment.seed();
  }

  @Override
  public Optional<String> afterStep(World before, World after) {
    boolean captured = captured(after);
    if (captured && declined(after)) {
      return Optional.of("the provider both captured and declined " + REQUEST);
    }
    String result = result(after);
    if (captured && "declined".equals(result)) {
      return Optional.of(
          "effect recorded as it happened: the provider captured "
              + REQUEST
              + " but the record says declined");
    }
    if (!captured && Invariants.orderField(after, "amountPaidUnits") > 0) {
      return Optional.of(
          "effect recorded as it happened: the order is paid but nothing was captured");
    }
    return payment.afterStep(before, after);
  }

  @Override
  public Optional<String> whenQuiet(World world) {
    if (!declined(world)) {
      return payment.whenQuiet(world);
    }
    Optional<String> settled = Invariants.everySentCompleted(world);
    if (settled.isPresent()) {
      return settled;
    }
    String status = record(world).map(r -> r.path("status").asText()).orElse("absent");
    if (!"Completed".equals(status) || !"declined".equals(result(world))) {
      return Optional.of(
          "the provider declined, but the payment record is " + status + " " + result(world));
    }
    if (Invariants.orderField(world, "amountPaidUnits") != 0) {
      return Optional.of("the provider declined, but the order is paid");
    }
    return Optional.empty();
  }

  private static boolean captured(World world) {
    return world.store().writes(StoreCall.PROVIDER, StoreCall.captureId(REQUEST)) > 0;
  }

  private static boolean declined(World world) {
    return world.store().writes(StoreCall.PROVIDER, StoreCall.declineId(REQUEST)) > 0;
  }

  private static String result(World world) {
    return record(world).map(r -> r.path("result").path("result").asText("")).orElse("");
  }

  private static Optional<ObjectNode> record(World world) {
    return world.store().visible(Invariants.ORDER, "payment:" + REQUEST, world.now());
  }
}
