package io.idemworker.servicebus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.WorkerStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The drain, event by event, with a processor that records what is done to it: a delivery that
 * arrives while the worker drains is never handled, is abandoned while the processor is still open
 * (so the broker has it back at once), and every slot stays occupied until the processor closes, so
 * that no further message is fetched in the meantime.
 */
class WorkerLifecycleDrainTest {
  private static final long WAIT_SECONDS = 30;

  private final List<String> events = new CopyOnWriteArrayList<>();
  private final WorkerLifecycle lifecycle =
      new WorkerLifecycle(
          ProcessorSettings.defaults("q"),
          Optional::empty,
          WorkerLifecycle.newSupervisor(),
          new WorkerLifecycle.Processor() {
            @Override
            public void start() {
              events.add("start");
            }

            @Override
            public void stop() {
              events.add("stop");
            }

            @Override
            public void close() {
              events.add("close");
            }
          });

  @Test
  void aDeliveryArrivingDuringTheDrain_isAbandonedUnhandledBeforeTheProcessorCloses()
      throws Exception {
    lifecycle.start();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    CountDownLatch inFlight = new CountDownLatch(1);
    CountDownLatch finishInFlight = new CountDownLatch(1);
    CompletableFuture<Void> first =
        CompletableFuture.runAsync(
            () -> {
              lifecycle.onDelivery(
                  () -> {
                    inFlight.countDown();
                    await(finishInFlight);
                    events.add("first settled");
                  },
                  () -> events.add("first abandoned"));
              events.add("first slot freed");
            },
            threads);
    assertThat(inFlight.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

    CompletableFuture<Boolean> shutdown =
        CompletableFuture.supplyAsync(
            () -> lifecycle.shutdown(Duration.ofSeconds(WAIT_SECONDS)), threads);
    awaitStopped();
    Thread second =
        new Thread(
            () -> {
              lifecycle.onDelivery(
                  () -> events.add("second handled"), () -> events.add("second abandoned"));
              events.add("second slot freed");
            });
    second.start();
    awaitWaiting(second);
    assertThat(events)
        .as("the second delivery is held, neither handled nor abandoned")
        .isEqualTo(List.of("start"));
    finishInFlight.countDown();

    assertThat(shutdown.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("drained").isTrue();
    first.get(WAIT_SECONDS, TimeUnit.SECONDS);
    second.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    threads.shutdown();
    assertThat(events)
        .doesNotContain("second handled", "first abandoned")
        .containsSubsequence("first settled", "second abandoned", "close")
        .containsSubsequence("second abandoned", "first slot freed")
        .containsSubsequence("second abandoned", "second slot freed");
  }

  @Test
  void aDrainWithNothingHeld_closesOnce() {
    lifecycle.start();

    assertThat(lifecycle.shutdown(Duration.ofSeconds(1))).isTrue();
    assertThat(lifecycle.shutdown(Duration.ofSeconds(1))).isTrue();
    assertThat(events).containsExactly("start", "close");
  }

  /** The status turns to stopped in the same step as deliveries start being held. */
  private void awaitStopped() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (lifecycle.status().state() != WorkerStatus.State.STOPPED) {
      assertThat(System.nanoTime()).as("the worker began to stop").isLessThan(deadline);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }

  /** Waits until {@code thread} is parked: held by the drain. */
  private static void awaitWaiting(Thread thread) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (thread.getState() != Thread.State.WAITING) {
      assertThat(System.nanoTime()).as("the delivery was held").isLessThan(deadline);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
