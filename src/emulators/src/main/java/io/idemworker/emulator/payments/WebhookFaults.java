package io.idemworker.emulator.payments;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Faults of the webhook sender, on top of the at-least-once delivery it always does. Thread-safe; a
 * fault armed here applies to events published after the call returns.
 *
 * <ul>
 *   <li>{@link #duplicate}: an event is sent as several concurrent copies, each redelivered on its
 *       own until answered 2xx: a redelivery storm.
 *   <li>{@link #reverseNext}: the next n events are held until all n exist, then delivered newest
 *       first, each after the one before it has finished: out-of-order delivery.
 * </ul>
 */
public final class WebhookFaults {
  private final List<Copies> duplicates = new CopyOnWriteArrayList<>();
  private final AtomicInteger reverse = new AtomicInteger();
  private volatile Runnable onClear = () -> {};

  WebhookFaults() {}

  private record Copies(int extra, PaymentFaults.Trigger when) {}

  /**
   * Sends each event the trigger fires for {@code extraCopies} more times, concurrently.
   *
   * @param extraCopies 1 to 50
   * @param when which events
   * @return this
   */
  public WebhookFaults duplicate(int extraCopies, PaymentFaults.Trigger when) {
    if (extraCopies < 1 || extraCopies > 50) {
      throw new IllegalArgumentException("extraCopies must be in 1..50, was " + extraCopies);
    }
    duplicates.add(new Copies(extraCopies, Objects.requireNonNull(when, "when")));
    return this;
  }

  /**
   * Holds the next {@code n} events and delivers them in reverse order once the n-th is published.
   * Events held when fewer than n come stay held until {@link #clear()}, which sends them in order.
   *
   * @param n 2 to 1000
   * @return this
   */
  public WebhookFaults reverseNext(int n) {
    if (n < 2 || n > 1000) {
      throw new IllegalArgumentException("n must be in 2..1000, was " + n);
    }
    reverse.set(n);
    return this;
  }

  /**
   * Disarms every fault; held events are delivered in publication order.
   *
   * @return this
   */
  public WebhookFaults clear() {
    duplicates.clear();
    reverse.set(0);
    onClear.run();
    return this;
  }

  int copiesOf() {
    int copies = 1;
    for (Copies armed : duplicates) {
      if (armed.when().fires()) {
        copies += armed.extra();
      }
    }
    return copies;
  }

  int reverseBatch() {
    return reverse.get();
  }

  void onClear(Runnable action) {
    onClear = action;
  }

  void reverseDone() {
    reverse.set(0);
  }
}
