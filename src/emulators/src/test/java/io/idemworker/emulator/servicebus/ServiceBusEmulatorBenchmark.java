package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusMessageBatch;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Throughput of the emulator with the real client: 1 KiB messages sent in batches of 100, then
 * received and completed by a processor with 16 concurrent calls. Run with {@code mvn -B verify
 * -Pbench -Dtest=ServiceBusEmulatorBenchmark}.
 */
@Tag("benchmark")
class ServiceBusEmulatorBenchmark {
  private static final int MESSAGES = 40_000;
  private static final int BATCH = 100;
  private static final double SEND_FLOOR = 10_000;
  private static final double RECEIVE_FLOOR = 2_500;

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** CPU nanoseconds of the emulator's threads and of the whole process at one instant. */
  private record CpuSample(Map<Long, Long> emulatorThreads, long process) {
    static CpuSample take() {
      Map<Long, Long> threads = new HashMap<>();
      for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
        if (info != null
            && info.getThreadName().startsWith(ServiceBusEmulator.THREAD_NAME_PREFIX)) {
          threads.put(info.getThreadId(), THREADS.getThreadCpuTime(info.getThreadId()));
        }
      }
      long process =
          ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
              .getProcessCpuTime();
      return new CpuSample(threads, process);
    }

    /** The emulator's share of the process CPU used since {@code start}, in percent. */
    double emulatorShareSince(CpuSample start) {
      long emulator = 0;
      for (Map.Entry<Long, Long> e : emulatorThreads.entrySet()) {
        if (e.getValue() > 0) {
          emulator +=
              e.getValue() - Math.max(0, start.emulatorThreads.getOrDefault(e.getKey(), 0L));
        }
      }
      long total = process - start.process;
      return total <= 0 ? 0 : 100.0 * emulator / total;
    }

    double processCpuSecondsSince(CpuSample start) {
      return (process - start.process) / 1e9;
    }
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void sendInBatchesThenReceiveWithSixteenConcurrentCalls() throws Exception {
    THREADS.setThreadCpuTimeEnabled(true);
    try (ServiceBusEmulator emulator =
        ServiceBusEmulator.builder().queue(QueueSettings.defaults("bench")).start()) {
      byte[] payload = new byte[1024];
      try (ServiceBusSenderClient sender =
          Clients.builder(emulator).sender().queueName("bench").buildClient()) {
        sendAll(sender, payload, 2_000); // warm-up, received below as well
        CpuSample cpu0 = CpuSample.take();
        long t0 = System.nanoTime();
        sendAll(sender, payload, MESSAGES);
        double seconds = (System.nanoTime() - t0) / 1e9;
        CpuSample cpu1 = CpuSample.take();
        double rate = MESSAGES / seconds;
        System.out.printf(
            "BENCH send: %d x 1 KiB in batches of %d: %.0f messages/s (%.2f s); emulator %.1f%%"
                + " of %.2f s process CPU%n",
            MESSAGES,
            BATCH,
            rate,
            seconds,
            cpu1.emulatorShareSince(cpu0),
            cpu1.processCpuSecondsSince(cpu0));
        assertThat(rate).as("send messages/s").isGreaterThanOrEqualTo(SEND_FLOOR);
      }

      int total = MESSAGES + 2_000;
      CountDownLatch done = new CountDownLatch(total);
      AtomicInteger warm = new AtomicInteger();
      CountDownLatch warmedUp = new CountDownLatch(1);
      ServiceBusProcessorClient processor =
          Clients.builder(emulator)
              .processor()
              .queueName("bench")
              .maxConcurrentCalls(16)
              .processMessage(
                  ctx -> {
                    done.countDown();
                    if (warm.incrementAndGet() == 2_000) {
                      warmedUp.countDown();
                    }
                  })
              .processError(e -> {})
              .buildProcessorClient();
      try {
        processor.start();
        assertThat(warmedUp.await(120, TimeUnit.SECONDS)).isTrue();
        CpuSample cpu0 = CpuSample.take();
        long before = done.getCount();
        long t0 = System.nanoTime();
        assertThat(done.await(5, TimeUnit.MINUTES)).as("all received").isTrue();
        double seconds = (System.nanoTime() - t0) / 1e9;
        CpuSample cpu1 = CpuSample.take();
        double rate = before / seconds;
        System.out.printf(
            "BENCH receive+complete: %d messages, processor maxConcurrentCalls=16: %.0f messages/s"
                + " (%.2f s); emulator %.1f%% of %.2f s process CPU%n",
            before,
            rate,
            seconds,
            cpu1.emulatorShareSince(cpu0),
            cpu1.processCpuSecondsSince(cpu0));
        assertThat(rate).as("receive messages/s").isGreaterThanOrEqualTo(RECEIVE_FLOOR);
      } finally {
        processor.close();
      }
    }
  }

  private static void sendAll(ServiceBusSenderClient sender, byte[] payload, int count) {
    int sent = 0;
    while (sent < count) {
      ServiceBusMessageBatch batch = sender.createMessageBatch();
      int n = Math.min(BATCH, count - sent);
      for (int i = 0; i < n; i++) {
        if (!batch.tryAddMessage(new ServiceBusMessage(payload))) {
          throw new IllegalStateException("batch full at " + i);
        }
      }
      sender.sendMessages(batch);
      sent += n;
    }
  }
}
