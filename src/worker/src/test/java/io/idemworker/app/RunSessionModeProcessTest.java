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
import io.idemworker.core.IncomingMessage;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.Orders;
import io.idemworker.testing.EmulatorClients;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code run} refuses to start, exit code 2, when {@code SERVICEBUS_SESSIONS} and the queue's
 * sessions disagree, in both directions, as a real process against the emulators.
 */
@AzureEmulators
class RunSessionModeProcessTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration WAIT = Duration.ofSeconds(90);

  private Process process;

  @AfterEach
  void cleanUp() {
    if (process != null) {
      process.destroyForcibly();
    }
  }

  private static Map<String, String> env(String queue, boolean sessions) {
    Map<String, String> env = new HashMap<>();
    env.put("RELAY_ENABLED", "false");
    env.put("SERVICEBUS_CONNECTION_STRING", azure.serviceBus().connectionString());
    env.put("SERVICEBUS_QUEUE_NAME", queue);
    env.put("SERVICEBUS_SESSIONS", Boolean.toString(sessions));
    env.put("COSMOS_ENDPOINT", azure.cosmos().endpoint());
    env.put("COSMOS_KEY", azure.cosmos().key());
    env.put("COSMOS_DATABASE", "db-" + UUID.randomUUID().toString().substring(0, 8));
    env.put("COSMOS_CREATE_CONTAINER", "true");
    env.put("HEALTH_PORT", "0");
    return env;
  }

  private String runToExit(Map<String, String> env) throws Exception {
    ChildJvm.Exited exited = ChildJvm.runToExit(ChildJvm.command("run", env), WAIT);
    process = exited.process();
    return exited.output();
  }

  @Test
  void sessionsOn_queueWithoutSessions_exitsTwoNamingTheVariable() throws Exception {
    String queue = azure.newQueue("q");

    String output = runToExit(env(queue, true));

    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(output)
        .contains("SERVICEBUS_SESSIONS is true, but queue " + queue + " does not require sessions");
  }

  @Test
  void sessionsOff_queueThatRequiresSessions_exitsTwoNamingTheVariable() throws Exception {
    String queue = azure.newQueue("q", "sessions");

    String output = runToExit(env(queue, false));

    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(output)
        .contains("SERVICEBUS_SESSIONS is false, but queue " + queue + " requires sessions");
  }

  /**
   * The proof through the real process: each order's messages in order per session but
   * shuffled across orders, a version arriving late, duplicates, and a SIGKILL in the middle; a
   * second process finishes. Every order ends at its highest version with its credit applied once.
   */
  @Tag("e2e")
  @Test
  void sigkillInSessionMode_secondProcessFinishes_everyOrderAtItsHighestVersion_creditsOnce()
      throws Exception {
    String queue = azure.newQueue("q", "sessions maxDeliveryCount=10");
    Map<String, String> env = env(queue, true);
    env.put("WORKER_MAX_CONCURRENT_SESSIONS", "4");
    List<String> orderIds = new ArrayList<>();
    List<List<ServiceBusMessage>> perOrder = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      String orderId = "ord-" + UUID.randomUUID().toString().substring(0, 12);
      orderIds.add(orderId);
      List<IncomingMessage> sequence =
          List.of(
              Orders.typed("OrderPlaced", orderId, Orders.body(orderId, "cust-1"), 0),
              Orders.status(orderId, "Confirmed", 1),
              Orders.status(orderId, "Shipped", 3),
              Orders.credit(orderId, "cr-" + orderId, "2", "EUR"),
              Orders.status(orderId, "Packed", 2),
              Orders.credit(orderId, "cr-" + orderId, "2", "EUR"),
              Orders.status(orderId, "Shipped", 3));
      perOrder.add(sequence.stream().map(m -> inSession(m, orderId)).toList());
    }
    // Shuffled across orders, in order within each order (its session).
    Random random = new Random(29);
    List<ServiceBusMessage> sendOrder = new ArrayList<>();
    List<Integer> cursors = new ArrayList<>(Collections.nCopies(perOrder.size(), 0));
    while (sendOrder.size() < perOrder.size() * 7) {
      int order = random.nextInt(perOrder.size());
      if (cursors.get(order) < 7) {
        sendOrder.add(perOrder.get(order).get(cursors.get(order)));
        cursors.set(order, cursors.get(order) + 1);
      }
    }
    try (ServiceBusSenderClient sender = EmulatorClients.sender(azure, queue)) {
      for (int from = 0; from < sendOrder.size(); from += 50) {
        sender.sendMessages(sendOrder.subList(from, Math.min(sendOrder.size(), from + 50)));
      }
    }

    process = startWithOutcomes(env);
    awaitOutcomes(40);
    process.destroyForcibly();
    assertThat(process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    process = startWithOutcomes(env);
    CosmosContainer container =
        CosmosContainers.ensureExists(
            EmulatorClients.cosmosClient(azure),
            env.get("COSMOS_DATABASE"),
            "orders",
            OrderDocumentIds.PARTITION_KEY_PATH);
    long deadline = System.nanoTime() + WAIT.toNanos();
    List<String> unfinished = unfinished(container, orderIds);
    while (!unfinished.isEmpty()) {
      assertThat(System.nanoTime())
          .as("orders still unfinished: %s", unfinished)
          .isLessThan(deadline);
      assertThat(process.isAlive()).as("second worker process alive").isTrue();
      synchronized (outcomes) {
        outcomes.wait(500);
      }
      unfinished = unfinished(container, orderIds);
    }
    for (String orderId : orderIds) {
      ObjectNode order =
          container.readItem(orderId, new PartitionKey(orderId), ObjectNode.class).getItem();
      assertThat(order.get("status").asText()).as(orderId).isEqualTo("Shipped");
      assertThat(order.get("creditedUnits").asLong()).as(orderId).isEqualTo(20_000);
    }
  }

  private final List<JsonNode> outcomes = new ArrayList<>();

  private static ServiceBusMessage inSession(IncomingMessage message, String orderId) {
    ServiceBusMessage out = new ServiceBusMessage(message.body());
    out.setMessageId(message.messageId().orElseThrow());
    out.setSubject(message.subject().orElseThrow());
    out.setContentType("application/json");
    out.setSessionId(orderId);
    return out;
  }

  private static List<String> unfinished(CosmosContainer container, List<String> orderIds) {
    List<String> unfinished = new ArrayList<>();
    for (String orderId : orderIds) {
      try {
        ObjectNode order =
            container.readItem(orderId, new PartitionKey(orderId), ObjectNode.class).getItem();
        if (order.path("statusVersion").asLong() < 3 || order.path("creditedUnits").asLong() == 0) {
          unfinished.add(orderId);
        }
      } catch (CosmosException e) {
        unfinished.add(orderId);
      }
    }
    return unfinished;
  }

  private Process startWithOutcomes(Map<String, String> env) throws IOException {
    Process started = ChildJvm.command("run", env).redirectError(Redirect.DISCARD).start();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                  if (line.startsWith("{")) {
                    JsonNode node = new ObjectMapper().readTree(line);
                    synchronized (outcomes) {
                      outcomes.add(node);
                      outcomes.notifyAll();
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
    return started;
  }

  private void awaitOutcomes(int count) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    synchronized (outcomes) {
      while (outcomes.size() < count) {
        long left = deadline - System.nanoTime();
        assertThat(left)
            .as("waiting for %d outcome lines, saw %d", count, outcomes.size())
            .isPositive();
        assertThat(process.isAlive()).as("worker process alive").isTrue();
        TimeUnit.NANOSECONDS.timedWait(outcomes, Math.min(left, 500_000_000L));
      }
    }
  }
}
