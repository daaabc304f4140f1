package io.idemworker.emulator.junit;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How long both emulators take to start, and what they hold once started: the first start in this
 * JVM (class loading included, what a test run pays once) and the median of later starts, each to
 * "listening" and to "first SDK call answered" (a Cosmos DB create, a Service Bus send), and the
 * heap and threads a running pair holds. Run with {@code mvn -B verify -Pbench -pl src/emulators
 * -am -Dtest=EmulatorStartupBenchmark -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("benchmark")
class EmulatorStartupBenchmark {
  private static final int RUNS = Integer.getInteger("bench.starts", 10);

  private record Start(long listeningMs, long answeredMs) {}

  @Test
  void bothEmulators_startInUnderASecond() {
    List<Start> starts = new ArrayList<>();
    for (int i = 0; i <= RUNS; i++) {
      starts.add(startBoth());
    }
    Start first = starts.get(0);
    List<Start> later = starts.subList(1, starts.size());
    long medianListening = median(later.stream().map(Start::listeningMs).toList());
    long medianAnswered = median(later.stream().map(Start::answeredMs).toList());
    long[] footprint = footprint();

    System.out.printf(
        Locale.ROOT,
        "emulator start-up: first in this JVM %d ms to listening, %d ms to first answers;"
            + " median of %d later starts %d ms to listening, %d ms to first answers;"
            + " a running, idle pair holds %d KiB of heap and %d threads%n",
        first.listeningMs(),
        first.answeredMs(),
        later.size(),
        medianListening,
        medianAnswered,
        footprint[0] / 1024,
        footprint[1]);
    assertThat(medianListening).isLessThan(1000);
  }

  /**
   * A Service Bus emulator as {@code @AzureEmulators(serviceBusAdmin = true,
   * serviceBusSharedAccessKey = ...)} starts it: the administration API's HTTPS listener, with a
   * certificate made at start-up, and SAS checking. Prints the first start of this kind in the JVM
   * and the median of later ones, to "listening".
   */
  @Test
  void serviceBusWithAdministrationApiAndSas_startTimes() {
    List<Long> starts = new ArrayList<>();
    for (int i = 0; i <= RUNS; i++) {
      long t0 = System.nanoTime();
      try (ServiceBusEmulator serviceBus =
          ServiceBusEmulator.builder().adminPort(0).sharedAccessKey("Root", "a2V5").start()) {
        assertThat(serviceBus.admin().port()).isPositive();
        starts.add((System.nanoTime() - t0) / 1_000_000);
      }
    }
    long medianLater = median(starts.subList(1, starts.size()));

    System.out.printf(
        Locale.ROOT,
        "service bus with the administration API and SAS: first of its kind in this JVM %d ms,"
            + " median of %d later starts %d ms to listening%n",
        starts.get(0),
        starts.size() - 1,
        medianLater);
    assertThat(medianLater).isLessThan(1000);
  }

  private static Start startBoth() {
    long t0 = System.nanoTime();
    try (ServiceBusEmulator serviceBus =
            ServiceBusEmulator.builder().queue(QueueSettings.defaults("bench")).start();
        CosmosEmulator cosmos = CosmosEmulator.builder().start()) {
      long listening = System.nanoTime();
      cosmos.createContainer("bench", "items", "/pk");
      try (CosmosClient client =
              new CosmosClientBuilder()
                  .endpoint(cosmos.endpoint())
                  .key(cosmos.key())
                  .gatewayMode()
                  .buildClient();
          ServiceBusSenderClient sender =
              new ServiceBusClientBuilder()
                  .connectionString(serviceBus.connectionString())
                  .sender()
                  .queueName("bench")
                  .buildClient()) {
        client
            .getDatabase("bench")
            .getContainer("items")
            .createItem(JsonNodeFactory.instance.objectNode().put("id", "a").put("pk", "a"));
        sender.sendMessage(new ServiceBusMessage("x").setMessageId("a"));
      }
      long answered = System.nanoTime();
      return new Start((listening - t0) / 1_000_000, (answered - t0) / 1_000_000);
    }
  }

  /**
   * Heap and live threads one started, idle pair adds, after a full collection: ten pairs at once,
   * divided by ten, since one pair is within the collector's noise.
   */
  private static long[] footprint() {
    int pairs = 10;
    System.gc();
    long heapBefore = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
    List<AutoCloseable> running = new ArrayList<>();
    try {
      for (int i = 0; i < pairs; i++) {
        running.add(ServiceBusEmulator.builder().start());
        running.add(CosmosEmulator.builder().start());
      }
      System.gc();
      long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() - heapBefore;
      int threads = ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore;
      return new long[] {Math.max(0, heap) / pairs, threads / pairs};
    } finally {
      for (AutoCloseable emulator : running) {
        try {
          emulator.close();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    }
  }

  private static long median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }
}
