package io.idemworker.proof.bench;

import com.azure.core.util.BinaryData;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.KeyStrategies;
import io.idemworker.core.MessageDecoder;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.proof.emulators.LocalClients;
import io.idemworker.servicebus.MessageWorker;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.processor.ServiceBusWorker;
import io.idemworker.servicebus.sending.SessionIds;
import io.idemworker.servicebus.sessions.SessionEvents;
import io.idemworker.servicebus.sessions.SessionSettings;
import io.idemworker.servicebus.sessions.SessionWorker;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench sessions}: what session mode costs. The same messages (each order placed, then its
 * status changes 1..n, sent order after order interleaved) go through the plain worker on a plain
 * queue and through the session worker on a session queue, at the same concurrency (concurrent
 * calls = concurrent sessions), in alternating rounds in one run; messages/s side by side and their
 * ratio. Exit 0 when every run finished, 1 otherwise, 2 for bad options.
 */
@Command(
    name = "sessions",
    mixinStandardHelpOptions = true,
    description = {
      "Measures session mode against the plain worker at the same concurrency.",
      "",
      "Sends each order's OrderPlaced and status changes 1..n to a plain queue and to a session queue (SessionId = orderId), runs the plain worker (concurrent calls) and the session worker (concurrent sessions) in alternating rounds on in-process emulators, and prints messages/s side by side."
    })
final class SessionBench implements Callable<Integer> {
  @Option(
      names = "--orders",
      defaultValue = "200",
      description = "Orders per run (10-10000; default ${DEFAULT-VALUE}).")
  int orders;

  @Option(
      names = "--versions",
      defaultValue = "4",
      description = "Status changes per order (1-50; default ${DEFAULT-VALUE}).")
  int versions;

  @Option(
      names = "--concurrency",
      defaultValue = "8",
      description =
          "Concurrent calls (plain) and concurrent sessions (sessions) (1-256; default"
              + " ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(
      names = "--rounds",
      defaultValue = "2",
      description = "Measured rounds, each running both, alternating who goes first (1-10).")
  int rounds;

  @Option(
      names = "--timeout",
      defaultValue = "PT300S",
      description = "Longest wait for one run (ISO 8601; default ${DEFAULT-VALUE}).")
  Duration timeout;

  private final PrintStream out;

  SessionBench() {
    this(System.out);
  }

  SessionBench(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws Exception {
    if (orders < 10
        || orders > 10_000
        || versions < 1
        || versions > 50
        || concurrency < 1
        || concurrency > 256
        || rounds < 1
        || rounds > 10) {
      System.err.println(
          "idemworker bench sessions: --orders must be 10-10000, --versions 1-50, --concurrency"
              + " 1-256, --rounds 1-10");
      return 2;
    }
    int messages = orders * (versions + 1);
    out.printf(
        Locale.ROOT,
        "idemworker bench sessions: %d orders x (1 placed + %d status changes) = %d messages per"
            + " run, concurrency %d, %d round(s) + 1 warm-up; %s UTC, %d CPUs, load average %.2f%n",
        orders,
        versions,
        messages,
        concurrency,
        rounds,
        Instant.now().truncatedTo(ChronoUnit.SECONDS),
        Runtime.getRuntime().availableProcessors(),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    out.printf(Locale.ROOT, "%-7s %-9s %6s %8s %8s%n", "round", "mode", "msgs", "seconds", "msg/s");
    boolean clean = true;
    double plainSum = 0;
    double sessionSum = 0;
    try (ServiceBusEmulator serviceBus = ServiceBusEmulator.builder().port(0).start();
        CosmosEmulator cosmos = CosmosEmulator.builder().port(0).start();
        CosmosClient cosmosClient = LocalClients.cosmos(cosmos)) {
      for (int r = 0; r <= rounds; r++) {
        String round = r == 0 ? "warm-up" : Integer.toString(r);
        List<Boolean> modes = r % 2 == 0 ? List.of(true, false) : List.of(false, true);
        for (boolean sessions : modes) {
          Optional<Double> seconds = run(serviceBus, cosmosClient, round, sessions, messages);
          String mode = sessions ? "sessions" : "plain";
          if (seconds.isEmpty()) {
            out.printf(Locale.ROOT, "%-7s %-9s  did not finish within %s%n", round, mode, timeout);
            clean = false;
            continue;
          }
          double perSecond = messages / seconds.get();
          out.printf(
              Locale.ROOT,
              "%-7s %-9s %6d %8.2f %8.1f%n",
              round,
              mode,
              messages,
              seconds.get(),
              perSecond);
          if (r > 0) {
            if (sessions) {
              sessionSum += perSecond;
            } else {
              plainSum += perSecond;
            }
          }
        }
      }
    }
    if (clean) {
      out.printf(
          Locale.ROOT,
          "mean of %d round(s): plain %.1f msg/s, sessions %.1f msg/s; sessions/plain %.2f%n",
          rounds,
          plainSum / rounds,
          sessionSum / rounds,
          sessionSum / plainSum);
    }
    return clean ? 0 : 1;
  }

  private Optional<Double> run(
      ServiceBusEmulator serviceBus,
      CosmosClient cosmosClient,
      String round,
      boolean sessions,
      int messages)
      throws InterruptedException {
    String name = "sessions-" + round + "-" + (sessions ? "on" : "off");
    serviceBus.createQueue(
        QueueSettings.defaults(name)
            .withLockDuration(Duration.ofMinutes(5))
            .withRequiresSession(sessions));
    CosmosContainer container =
        CosmosContainers.ensureExists(
            cosmosClient, "idemworker-bench", name, OrderDocumentIds.PARTITION_KEY_PATH);
    ServiceBusConnection connection =
        new ServiceBusConnection.ConnectionString(serviceBus.connectionString());
    try (ServiceBusSenderClient sender =
        connection.builder().sender().queueName(name).buildClient()) {
      send(sender, name, sessions);
    }
    BenchTally tally = new BenchTally(messages);
    CosmosEffectStore store =
        new CosmosEffectStore(
            container, tally.storeListener(), OrderDocumentIds.PARTITION_KEY_PATH);
    MessageDecoder decoder =
        OrderMessageTypes.decoder(true, new InboxMarkers("orders", Optional.empty()));
    IdempotentConsumer consumer =
        new IdempotentConsumer(
            KeyStrategies.messageId(), decoder, store, Clock.systemUTC(), 64 * 1024);
    ProcessorSettings settings =
        ProcessorSettings.defaults(name).withMaxConcurrentCalls(concurrency);
    MessageWorker worker =
        sessions
            ? new SessionWorker(
                connection,
                settings,
                SessionSettings.defaults().withMaxConcurrentSessions(concurrency),
                consumer,
                decoder,
                store,
                store,
                tally.observer(),
                new SessionEvents(),
                Clock.systemUTC())
            : new ServiceBusWorker(
                connection, settings, consumer, store, tally.observer(), Clock.systemUTC());
    long start = System.nanoTime();
    try {
      worker.start();
      if (!tally.await(timeout)) {
        return Optional.empty();
      }
      return Optional.of((tally.lastFinishedNanos() - start) / 1e9);
    } finally {
      worker.shutdown(Duration.ofSeconds(10));
    }
  }

  /** Every order placed first, then each version across all orders, in order. */
  private void send(ServiceBusSenderClient sender, String name, boolean sessions) {
    List<ServiceBusMessage> batch = new ArrayList<>();
    for (int version = 0; version <= versions; version++) {
      for (int i = 0; i < orders; i++) {
        String orderId = name + "-" + i;
        ServiceBusMessage message = version == 0 ? placed(orderId) : status(orderId, version);
        batch.add(sessions ? SessionIds.stamp(message, orderId) : message);
        if (batch.size() == 100) {
          sender.sendMessages(batch);
          batch.clear();
        }
      }
    }
    if (!batch.isEmpty()) {
      sender.sendMessages(batch);
    }
  }

  private static ServiceBusMessage placed(String orderId) {
    return json(
        orderId,
        "OrderPlaced",
        "{\"orderId\":\""
            + orderId
            + "\",\"customerId\":\"cust-1\",\"currency\":\"EUR\","
            + "\"placedAt\":\"2026-11-30T10:00:00Z\","
            + "\"lines\":[{\"sku\":\"SKU-1\",\"quantity\":1,\"unitPrice\":9.99}]}");
  }

  private static ServiceBusMessage status(String orderId, int version) {
    return json(
        OrderMessageTypes.statusMessageId(orderId, version),
        OrderMessageTypes.ORDER_STATUS_CHANGED,
        "{\"orderId\":\""
            + orderId
            + "\",\"status\":\"Packed\",\"version\":"
            + version
            + ",\"changedAt\":\"2026-11-30T11:00:00Z\"}");
  }

  private static ServiceBusMessage json(String messageId, String subject, String body) {
    ServiceBusMessage message = new ServiceBusMessage(BinaryData.fromString(body));
    message.setMessageId(messageId);
    message.setSubject(subject);
    message.setContentType("application/json");
    return message;
  }
}
