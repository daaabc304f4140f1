package io.idemworker.proof;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/** What the benches share: sending a scenario's orders and reading this JVM's CPU time. */
final class BenchSupport {
  /** Messages per send call: the preload is not what a bench measures. */
  private static final int SEND_BATCH = 100;

  private BenchSupport() {}

  /**
   * Sends the scenario's message for each id, in order, in batches of {@value #SEND_BATCH}.
   *
   * @throws RuntimeException whatever the sender throws; a partial send is not rolled back
   */
  static void sendInBatches(
      ServiceBusSenderClient sender, DemoScenario scenario, List<String> orderIds) {
    List<ServiceBusMessage> batch = new ArrayList<>(SEND_BATCH);
    for (String orderId : orderIds) {
      batch.add(scenario.message(orderId));
      if (batch.size() == SEND_BATCH) {
        sender.sendMessages(batch);
        batch.clear();
      }
    }
    if (!batch.isEmpty()) {
      sender.sendMessages(batch);
    }
  }

  /** CPU time this JVM has used so far; 0 on a JVM that does not report it. */
  static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return 0;
  }
}
