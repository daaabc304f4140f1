package io.idemworker.testing;

import io.idemworker.core.MessageDecoder;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.PaymentProvider;
import io.idemworker.payments.HttpPaymentProvider;
import java.time.Duration;
import java.util.Optional;

/**
 * The order types as the worker registers them, for tests that hand them to a {@code TestFlow}:
 * session-aware, inbox markers kept 14 days, payments captured through {@code payments}.
 */
public final class OrderFlows {
  private static final InboxMarkers MARKERS =
      new InboxMarkers("orders", Optional.of(Duration.ofDays(14)));

  private OrderFlows() {}

  /**
   * Every order type, payments captured through {@code payments} under a lease of at most {@code
   * leaseCeiling}, with the default call timeout.
   */
  public static MessageDecoder withPayments(PaymentProvider payments, Duration leaseCeiling) {
    return OrderMessageTypes.decoder(
        true, MARKERS, Optional.of(new OrderMessageTypes.Payments(payments, leaseCeiling)));
  }

  /** As {@link #withPayments(PaymentProvider, Duration)}, with the provider call's timeout. */
  public static MessageDecoder withPayments(
      PaymentProvider payments, Duration leaseCeiling, Duration callTimeout) {
    return OrderMessageTypes.decoder(
        true,
        MARKERS,
        Optional.of(new OrderMessageTypes.Payments(payments, leaseCeiling, callTimeout)));
  }

  /** The payment provider emulator over HTTP, with a 5 s call timeout. */
  public static PaymentProvider http(PaymentProviderEmulator provider) {
    return new HttpPaymentProvider(provider.baseUrl(), provider.apiKey(), Duration.ofSeconds(5));
  }
}
