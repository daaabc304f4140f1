package io.idemworker.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.core.DocumentPatch;
import io.idemworker.core.EffectStore;
import io.idemworker.core.WriteSet;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A store whose first write holds the handler until the test lets it go: the place where a slow
 * store or a pause stalls a real handler, for the lock-fencing tests.
 */
final class StallingStore {
  private StallingStore() {}

  /**
   * Wraps a store.
   *
   * @param store the real store every call goes to
   * @param atFirstWrite counted down when the first write arrives
   * @param goOn what the first write waits for, at most {@code wait}
   * @param wait the bound of that wait
   * @return the wrapping store
   */
  static EffectStore atFirstWrite(
      EffectStore store, CountDownLatch atFirstWrite, CountDownLatch goOn, Duration wait) {
    return new EffectStore() {
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
        return store.apply(writeSet);
      }

      @Override
      public UpdateResult update(String partitionKey, DocumentPatch patch) {
        return store.update(partitionKey, patch);
      }

      @Override
      public ReadResult read(String partitionKey, String id) {
        return store.read(partitionKey, id);
      }
    };
  }
}
