package io.idemworker.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BoundedParallelTest {
  private final ExecutorService executor = Executors.newFixedThreadPool(8);

  @AfterEach
  void shutDown() {
    executor.shutdownNow();
  }

  @Test
  void actionsRunConcurrently_butNeverMoreThanTheBound() {
    // given a bound of 3, an executor with 8 threads and more items than both
    BoundedParallel parallel = new BoundedParallel(executor, 3);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    CountDownLatch boundReached = new CountDownLatch(1);
    Set<Integer> done = ConcurrentHashMap.newKeySet();

    // when each action holds its item until three run at once
    parallel.forEach(
        IntStream.range(0, 12).boxed().toList(),
        item -> {
          int now = running.incrementAndGet();
          most.accumulateAndGet(now, Math::max);
          if (now == 3) {
            boundReached.countDown();
          }
          try {
            assertThat(boundReached.await(30, TimeUnit.SECONDS)).isTrue();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          done.add(item);
          running.decrementAndGet();
        });

    // then three ran at once, never a fourth, and every item ran
    assertThat(most).hasValue(3);
    assertThat(done).hasSize(12);
  }

  @Test
  void aFailingAction_isThrownOnlyOnceTheActionsStillRunningFinished() {
    // given a bound of 2: a slow item and a failing one run side by side
    BoundedParallel parallel = new BoundedParallel(executor, 2);
    CountDownLatch failing = new CountDownLatch(1);
    AtomicBoolean slowFinished = new AtomicBoolean();
    IllegalStateException failure = new IllegalStateException("mark failed");

    // when the failing one throws while the slow one is still at work
    assertThatThrownBy(
            () ->
                parallel.forEach(
                    List.of("slow", "fail"),
                    item -> {
                      if (item.equals("fail")) {
                        failing.countDown();
                        throw failure;
                      }
                      try {
                        assertThat(failing.await(30, TimeUnit.SECONDS)).isTrue();
                      } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                      }
                      slowFinished.set(true);
                    }))
        // then the call throws that failure, and only after the slow one finished
        .isSameAs(failure);
    assertThat(slowFinished).isTrue();
  }

  @Test
  void afterAFailure_noFurtherItemIsStarted() {
    // given items after one that fails
    BoundedParallel parallel = new BoundedParallel(executor, 1);
    List<String> started = new ArrayList<>();

    // when they are run
    assertThatThrownBy(
            () ->
                parallel.forEach(
                    List.of("a", "fail", "c", "d"),
                    item -> {
                      started.add(item);
                      if (item.equals("fail")) {
                        throw new IllegalStateException("mark failed");
                      }
                    }))
        .hasMessage("mark failed");

    // then none after the failing one started
    assertThat(started).containsExactly("a", "fail");
  }

  @Test
  void aOneThreadExecutorBusyWithTheCaller_degradesToSequentialWork_insteadOfADeadlock()
      throws Exception {
    // given the only thread of the executor is the one calling, as in a relay cycle
    ExecutorService single = Executors.newSingleThreadExecutor();
    try {
      BoundedParallel parallel = new BoundedParallel(single, 4);
      Set<String> threads = ConcurrentHashMap.newKeySet();
      AtomicInteger count = new AtomicInteger();

      // when it runs ten items
      Future<String> caller =
          single.submit(
              () -> {
                parallel.forEach(
                    IntStream.range(0, 10).boxed().toList(),
                    item -> {
                      threads.add(Thread.currentThread().getName());
                      count.incrementAndGet();
                    });
                return Thread.currentThread().getName();
              });

      // then the caller made them all itself and returned
      String callerThread = caller.get(30, TimeUnit.SECONDS);
      assertThat(count).hasValue(10);
      assertThat(threads).containsExactly(callerThread);
    } finally {
      single.shutdownNow();
    }
  }

  @Test
  void aShutDownExecutor_leavesTheWorkToTheCaller() {
    // given an executor that refuses every task
    ExecutorService shut = Executors.newSingleThreadExecutor();
    shut.shutdown();
    BoundedParallel parallel = new BoundedParallel(shut, 4);
    AtomicInteger count = new AtomicInteger();

    // when items are run
    parallel.forEach(List.of(1, 2, 3), item -> count.incrementAndGet());

    // then the caller ran them all
    assertThat(count).hasValue(3);
  }
}
