package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.cosmos.Fault;
import io.idemworker.emulator.cosmos.Operation;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.servicebus.TopicSettings;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.Orders;
import io.idemworker.testing.EmulatorClients;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code run} command as a real process: configured by environment variables, healthy on its
 * port, and stopped by SIGTERM in the middle of a load without losing or doubling an order.
 */
@AzureEmulators
class RunCommandProcessTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final Duration LOCK = Duration.ofSeconds(10);

  private final List<JsonNode> outcomeLines = new CopyOnWriteArrayList<>();
  private Process process;
  private Thread stdoutReader;
  // The child's stderr (its log), kept so a child that dies says why in the failure message.
  private java.nio.file.Path childLog;

  @AfterEach
  void cleanUp() {
    azure.cosmos().faults().clear();
    if (process != null) {
      process.destroyForcibly();
    }
  }

  @Tag("e2e")
  @Test
  // Two worker JVMs start and drain one after the other: about 40 s at load average 30, more when
  // the machine is busier than that; the build's default of 120 s per test is too tight for it.
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void sigtermDuringLoad_drainsExitsZeroAndNoOrderIsLostOrDoubled() throws Exception {
    // Deliveries that reach the first process during its drain stay unsettled, and their locks
    // outlive its link (as on the service): the second process gets them when the lock ends. A
    // short lock keeps that wait short; the processor renews locks while it works on a message.
    String queue = azure.newQueue("q", "lockDuration=" + LOCK);
    String database = "run-" + UUID.randomUUID().toString().substring(0, 8);
    int healthPort = ChildJvm.freePort();
    List<String> orderIds = new ArrayList<>();
    try (ServiceBusSenderClient sender = EmulatorClients.sender(azure, queue)) {
      List<ServiceBusMessage> batch = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        String orderId = "ord-" + UUID.randomUUID().toString().substring(0, 12);
        orderIds.add(orderId);
        batch.add(OrderMessages.orderPlaced(orderId, Orders.body(orderId, "cust-1"), "c"));
        if (batch.size() == 100) {
          sender.sendMessages(batch);
          batch.clear();
        }
      }
    }
    // Slow writes keep deliveries in flight when the signal arrives.
    azure.cosmos().faults().inject(Operation.BATCH, Fault.latency(Duration.ofMillis(40)));

    process = start(queue, database, healthPort);
    ChildJvm.awaitReadiness(process, "worker process", healthPort, 200, WAIT);
    awaitOutcomeLines(50);
    // SIGTERM through the handle: Process.destroy() would also close our end of its stdout.
    process.toHandle().destroy();
    boolean exited = process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);

    assertThat(exited).as("exited after SIGTERM").isTrue();
    assertThat(process.exitValue()).isZero();
    stdoutReader.join(WAIT.toMillis());
    Set<String> processedByFirst = processedOrderIds();
    assertThat(processedByFirst).isNotEmpty().hasSizeLessThan(orderIds.size());

    outcomeLines.clear();
    process = start(queue, database, ChildJvm.freePort());
    Set<String> remaining = new HashSet<>(orderIds);
    remaining.removeAll(processedByFirst);
    awaitCompleted(remaining);
    process.toHandle().destroy();
    assertThat(process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    stdoutReader.join(WAIT.toMillis());
    Set<String> processedBySecond = processedOrderIds();

    Set<String> both = new HashSet<>(processedByFirst);
    both.retainAll(processedBySecond);
    assertThat(both).as("orders created twice").isEmpty();
    CosmosContainer container =
        CosmosContainers.ensureExists(
            EmulatorClients.cosmosClient(azure),
            database,
            "orders",
            OrderDocumentIds.PARTITION_KEY_PATH);
    for (String orderId : orderIds) {
      assertThat(exists(container, orderId)).as(orderId + " in Cosmos DB").isTrue();
    }
    Set<String> all = new HashSet<>(processedByFirst);
    all.addAll(processedBySecond);
    assertThat(all)
        .as("every order created by exactly one of the two runs")
        .hasSize(orderIds.size());
  }

  @Tag("e2e")
  @Test
  void forbiddenCosmos_turnsReadinessOffWithoutDeadLetteringAndBackOnWhenLifted() throws Exception {
    String queue = azure.newQueue("q");
    String database = "ready-" + UUID.randomUUID().toString().substring(0, 8);
    int healthPort = ChildJvm.freePort();
    // The relay off: its own Cosmos DB reads would turn readiness off before the worker's.
    process = start(queue, database, healthPort, false);
    ChildJvm.awaitReadiness(process, "worker process", healthPort, 200, WAIT);
    azure.cosmos().faults().inject(Operation.BATCH, Fault.status(403));
    azure.cosmos().faults().inject(Operation.READ, Fault.status(403));
    String orderId = "ord-" + UUID.randomUUID().toString().substring(0, 12);

    try (ServiceBusSenderClient sender = EmulatorClients.sender(azure, queue)) {
      sender.sendMessage(OrderMessages.orderPlaced(orderId, Orders.body(orderId, "c"), "c"));
    }
    HttpResponse<String> notReady =
        ChildJvm.awaitReadiness(process, "worker process", healthPort, 503, WAIT);
    azure.cosmos().faults().clear();
    ChildJvm.awaitReadiness(process, "worker process", healthPort, 200, WAIT);
    awaitOutcomeLines(2);

    assertThat(notReady.body()).contains("PAUSED").contains("403");
    // Any delivery that raced the pause is retried too; none may be dead-lettered.
    assertThat(outcomeLines)
        .extracting(line -> line.path("outcome").asText())
        .containsOnly("retried", "processed")
        .containsOnlyOnce("processed")
        .endsWith("processed");
    assertThat(outcomeLines.get(0).path("reason").asText()).isEqualTo("misconfiguration");
    assertThat(EmulatorClients.deadLetters(azure, queue, 1, Duration.ofSeconds(1))).isEmpty();
  }

  @Test
  void badConfiguration_exitsTwoNamingEachVariable() throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("COSMOS_ENDPOINT", "http://not-https");
    env.put("WORKER_MAX_CONCURRENT_CALLS", "many");
    ChildJvm.Exited exited = ChildJvm.runToExit(command(env), WAIT);
    process = exited.process();
    String output = exited.output();

    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(output)
        .contains("SERVICEBUS_CONNECTION_STRING or SERVICEBUS_FULLY_QUALIFIED_NAMESPACE")
        .contains("COSMOS_ENDPOINT: must be an https URL")
        .contains("WORKER_MAX_CONCURRENT_CALLS: must be an integer from 1 to 1000");
  }

  @Test
  void unusableKeyAndTelemetryValues_exitTwoWithOneLineEach_beforeConnecting() throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("SERVICEBUS_CONNECTION_STRING", "Endpoint=sb://localhost:1;SharedAccessKeyName=a;");
    env.put("COSMOS_ENDPOINT", "https://localhost:1/");
    env.put("COSMOS_KEY", "not base64!");
    env.put("APPLICATIONINSIGHTS_CONNECTION_STRING", "InstrumentationKey=");
    env.put("OTEL_EXPORTER_OTLP_ENDPOINT", "localhost 4317");
    ChildJvm.Exited exited = ChildJvm.runToExit(command(env), WAIT);
    process = exited.process();
    String output = exited.output();

    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(output)
        .contains("COSMOS_KEY: must be a base64 account key")
        .contains("APPLICATIONINSIGHTS_CONNECTION_STRING: must be an Application Insights")
        .contains("OTEL_EXPORTER_OTLP_ENDPOINT: must be an http or https URL")
        .doesNotContain("Exception")
        .doesNotContain("\tat ")
        .doesNotContain("could not start");
  }

  private Set<String> processedOrderIds() {
    Set<String> ids = new HashSet<>();
    for (JsonNode line : outcomeLines) {
      if ("processed".equals(line.path("outcome").asText())) {
        assertThat(ids.add(line.path("orderId").asText()))
            .as("processed twice in one run: " + line)
            .isTrue();
      }
    }
    return ids;
  }

  private static boolean exists(CosmosContainer container, String orderId) {
    try {
      container.readItem(orderId, new PartitionKey(orderId), ObjectNode.class);
      return true;
    } catch (CosmosException e) {
      if (e.getStatusCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  private static ProcessBuilder command(Map<String, String> env) {
    return ChildJvm.command("run", env);
  }

  private Process start(String queue, String database, int healthPort) throws IOException {
    return start(queue, database, healthPort, true);
  }

  private Process start(String queue, String database, int healthPort, boolean relay)
      throws IOException {
    Map<String, String> env = new HashMap<>();
    env.put("RELAY_ENABLED", Boolean.toString(relay));
    env.put("SERVICEBUS_CONNECTION_STRING", azure.serviceBus().connectionString());
    env.put("SERVICEBUS_QUEUE_NAME", queue);
    env.put("COSMOS_ENDPOINT", azure.cosmos().endpoint());
    env.put("COSMOS_KEY", azure.cosmos().key());
    env.put("COSMOS_DATABASE", database);
    env.put("COSMOS_CREATE_CONTAINER", "true");
    env.put("WORKER_MAX_CONCURRENT_CALLS", "8");
    env.put("WORKER_SHUTDOWN_TIMEOUT", "PT20S");
    env.put("HEALTH_PORT", Integer.toString(healthPort));
    // The relay runs too (RELAY_ENABLED defaults to true); a missing topic would pause it.
    azure
        .serviceBus()
        .createTopic(TopicSettings.defaults("order-events").withRequiresDuplicateDetection(true));
    childLog = java.nio.file.Files.createTempFile("run-command-child-", ".log");
    childLog.toFile().deleteOnExit();
    Process started = command(env).redirectError(childLog.toFile()).start();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                  if (line.startsWith("{")) {
                    JsonNode node = JSON.readTree(line);
                    synchronized (outcomeLines) {
                      outcomeLines.add(node);
                      outcomeLines.notifyAll();
                    }
                  }
                }
              } catch (IOException e) {
                // the process ended
              }
            },
            "child-stdout");
    reader.setDaemon(true);
    reader.start();
    stdoutReader = reader;
    return started;
  }

  /** Waits until every given order has a processed or duplicate outcome line. */
  private void awaitCompleted(Set<String> orderIds) throws InterruptedException {
    awaitLines(
        lines -> {
          Set<String> done = new HashSet<>();
          for (JsonNode line : lines) {
            String outcome = line.path("outcome").asText();
            if (outcome.equals("processed") || outcome.equals("duplicate")) {
              done.add(line.path("orderId").asText());
            }
          }
          return done.containsAll(orderIds);
        },
        orderIds.size() + " orders completed");
  }

  private void awaitOutcomeLines(int count) throws InterruptedException {
    awaitLines(lines -> lines.size() >= count, count + " outcome lines");
  }

  /** Waits (bounded) for the child's outcome lines to satisfy {@code done}, the child alive. */
  private void awaitLines(java.util.function.Predicate<List<JsonNode>> done, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    synchronized (outcomeLines) {
      while (!done.test(outcomeLines)) {
        long left = deadline - System.nanoTime();
        assertThat(left)
            .as("waiting for " + what + ", saw " + outcomeLines.size() + " lines")
            .isPositive();
        assertThat(process.isAlive())
            .as("worker process alive; the end of its log:%n%s", logTail())
            .isTrue();
        TimeUnit.NANOSECONDS.timedWait(outcomeLines, Math.min(left, 500_000_000L));
      }
    }
  }

  private String logTail() {
    try {
      List<String> lines = java.nio.file.Files.readAllLines(childLog, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException | RuntimeException e) {
      return "(no log: " + e + ")";
    }
  }
}
