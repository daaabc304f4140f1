package io.idemworker.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import io.idemworker.core.EffectStore;
import io.idemworker.core.ForwardingEffectStore;
import io.idemworker.core.Outcome;
import io.idemworker.core.TestFlow;
import io.idemworker.core.WriteSet;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.Orders;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** What the lock-fencing tests of the plain worker and of session mode share. */
public final class FencingFixtures {
  private FencingFixtures() {}

  /** An order placed through the flow straight into the container; answers its id. */
  public static String placedOrder(CosmosContainer container) {
    String orderId = "ord-" + UUID.randomUUID().toString().substring(0, 12);
    assertThat(
            TestFlow.of(
                    OrderMessageTypes.decoder(
                        true, new InboxMarkers("orders", Optional.empty()), Optional.empty()),
                    new CosmosEffectStore(
                        container, (o, s, c, l) -> {}, OrderDocumentIds.PARTITION_KEY_PATH))
                .build()
                .handle(Orders.order(orderId)))
        .isInstanceOf(Outcome.Processed.class);
    return orderId;
  }

  /** Whether an outcome is the retry of a delivery whose lock was lost. */
  public static boolean isLockLost(Outcome outcome) {
    return outcome instanceof Outcome.Retry retry && retry.cause() == Outcome.RetryCause.LOCK_LOST;
  }

  /**
   * A store whose first write holds the handler until the test lets it go: the place where a slow
   * store or a pause stalls a real handler.
   *
   * @param store the real store every call goes to
   * @param atFirstWrite counted down when the first write arrives
   * @param goOn what the first write waits for, at most {@code wait}
   * @param wait the bound of that wait
   * @return the wrapping store
   */
  public static EffectStore stallingAtFirstWrite(
      EffectStore store, CountDownLatch atFirstWrite, CountDownLatch goOn, Duration wait) {
    return new ForwardingEffectStore(store) {
      private boolean stalled;

      @Override
      public WriteResult apply(WriteSet writeSet) {
        if (!stalled) {
          stalled = true;
          atFirstWrite.countDown();
          try {
            assertThat(goOn.await(wait.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        return super.apply(writeSet);
      }
    };
  }
}
