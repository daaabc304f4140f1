package io.idemworker.proof.bench;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.EffectStore;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.KeyStrategies;
import io.idemworker.core.Outcome;
import io.idemworker.core.ReadinessProbe;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.orders.OrderDecoder;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.proof.audit.StateAudit;
import io.idemworker.proof.bench.BenchTally.Costs;
import io.idemworker.proof.bench.BenchTally.Delivery;
import io.idemworker.proof.emulators.LocalClients;
import io.idemworker.proof.faults.FaultInjector;
import io.idemworker.proof.faults.FaultPlan;
import io.idemworker.proof.producer.DemoScenario;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.processor.ServiceBusWorker;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench}: this worker against a naive consumer without duplicate protection, on in-process
 * emulators, side by side in one run.
 *
 * <p>Each measured round runs both contenders (alternating which goes first, so that neither always
 * meets a colder JVM) on a fresh queue without broker duplicate detection and a fresh container:
 * every message, new orders and second copies, is sent before the consumer starts, and the clock
 * runs from {@link ServiceBusWorker#start} until the last message is settled.
 *
 * <p>Exits 0 when every run finished and this worker took exactly one store round trip per new
 * order and two per duplicate; 1 otherwise; 2 for bad options. The throughput target (this worker
 * at least 90 % of the naive consumer) is reported, not enforced: it depends on the machine.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    subcommands = {
      ProcessBench.class,
      ColdStartBench.class,
      BoundBench.class,
      HttpBench.class,
      SessionBench.class
    },
    description = {
      "Measures this worker against a naive consumer without duplicate protection.",
      "",
      "Pushes a fixed set of orders, a share of them twice, through this worker and through a naive consumer that writes the same documents with upserts and no duplicate protection, both on in-process Service Bus and Cosmos DB emulators. Prints messages/s, store round trips and RU per new message and per duplicate, side by side. Exits 1 unless this worker took exactly 1 round trip per new order and 2 per duplicate."
    })
public final class BenchCommand implements Callable<Integer> {
  static final int MAX_BODY_BYTES = 64 * 1024;
  static final double THROUGHPUT_TARGET = 0.90;
  private static final String DATABASE = "idemworker-bench";

  /** The Cosmos DB operations the consumers use, the first of {@link FaultPlan#OPERATIONS}. */
  private static final int BENCH_OPERATIONS = 2;

  @Option(
      names = "--orders",
      defaultValue = "2000",
      description = "New orders per run (10-100000; default ${DEFAULT-VALUE}).")
  int orders;

  @Option(
      names = "--duplicate-ratio",
      defaultValue = "0.05",
      description =
          "Share of the orders sent a second time, to measure duplicates (0-1; default ${DEFAULT-VALUE}).")
  double duplicateRatio;

  @Option(
      names = "--concurrency",
      defaultValue = "16",
      description =
          "Concurrent calls of the processor, both contenders (1-256; default ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(
      names = "--rounds",
      defaultValue = "4",
      description =
          "Measured rounds, each running both contenders, which goes first alternating; an even"
              + " number lets each go first equally often (1-20; default ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--warm-up",
      defaultValue = "2",
      description = "Warm-up rounds, not counted (0-5; default ${DEFAULT-VALUE}).")
  int warmUpRounds;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Seed of the orders and of the send order (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--faults",
      defaultValue = "none",
      description =
          "Fault plan fired during each run through the chaos run's injector: none (the default, so"
              + " that the figures compare), or seed (Service Bus connection drops, lock loss,"
              + " late dispositions and Cosmos DB 429/503/408/latency, drawn from --seed and placed"
              + " at points of the run's progress). Under faults the round-trip target is reported,"
              + " not enforced; the audit still is.")
  String faults;

  @Option(
      names = "--cosmos-latency",
      defaultValue = "PT0S",
      description =
          "Mean latency the Cosmos DB emulator adds to every request while a contender runs (ISO"
              + " 8601, e.g. PT0.005S; default ${DEFAULT-VALUE}: none), the same for both"
              + " contenders.")
  Duration cosmosLatency;

  @Option(
      names = "--servicebus-latency",
      defaultValue = "PT0S",
      description =
          "Mean latency the Service Bus emulator adds to every delivery and every settlement while"
              + " a contender runs (ISO 8601; default ${DEFAULT-VALUE}: none).")
  Duration serviceBusLatency;

  @Option(
      names = "--latency-spread",
      defaultValue = "0",
      description =
          "Each added latency is drawn uniformly between mean × (1 - spread) and mean × (1 +"
              + " spread), so that concurrent calls come back at different times (0-1; default"
              + " ${DEFAULT-VALUE}: constant).")
  double latencySpread;

  @Option(
      names = "--timeout",
      defaultValue = "PT180S",
      description = "Longest wait for one run to finish (ISO 8601; default ${DEFAULT-VALUE}).")
  Duration timeout;

  private final PrintStream out;

  /** The command as the command line mounts it: it prints to standard output. */
  public BenchCommand() {
    this(System.out);
  }

  BenchCommand(PrintStream out) {
    this.out = out;
  }

  /** Who consumes the queue in a run. */
  enum Contender {
    WORKER("this worker"),
    NAIVE("naive consumer");

    final String label;

    Contender(String label) {
      this.label = label;
    }
  }

  /** The figures of one run of one contender. */
  record Run(
      String round,
      Contender contender,
      int messages,
      double seconds,
      Costs fresh,
      Costs duplicates,
      double cpuMillisPerMessage,
      String storeCalls,
      StateAudit.Result audit,
      long appliedAgain,
      Optional<RelayPhase.Figures> relay,
      List<String> problems) {

    double perSecond() {
      return messages / seconds;
    }

    /**
     * RU per new order end to end: what the consumer paid for every delivery (new orders and
     * duplicates) plus what the relay paid to publish the run's events, over the new orders.
     */
    double requestChargePerOrder() {
      double consumer =
          fresh.deliveries() * fresh.requestChargeEach()
              + (duplicates.deliveries() == 0
                  ? 0
                  : duplicates.deliveries() * duplicates.requestChargeEach());
      return relay.map(r -> (consumer + r.requestCharge()) / fresh.deliveries()).orElse(Double.NaN);
    }
  }

  /**
   * Runs the bench.
   *
   * @return 0 when every run was clean and (without faults) this worker took exactly 1 round trip
   *     per new order and 2 per duplicate; 1 otherwise; 2 for options out of range
   */
  @Override
  public Integer call() throws Exception {
    if (orders < 10
        || orders > 100_000
        || !(duplicateRatio >= 0 && duplicateRatio <= 1)
        || concurrency < 1
        || concurrency > 256
        || rounds < 1
        || rounds > 20
        || warmUpRounds < 0
        || warmUpRounds > 5
        || timeout.isNegative()
        || timeout.isZero()
        || cosmosLatency.isNegative()
        || serviceBusLatency.isNegative()
        || !(latencySpread >= 0 && latencySpread <= 1)
        || !(faults.equals("none") || faults.equals("seed"))) {
      System.err.println(
          "idemworker bench: --orders must be 10-100000, --duplicate-ratio 0-1, --concurrency"
              + " 1-256, --rounds 1-20, --warm-up 0-5, --faults none or seed, --timeout positive,"
              + " --cosmos-latency and --servicebus-latency not negative, --latency-spread 0-1");
      return 2;
    }
    FaultPlan plan =
        faults.equals("seed")
            ? FaultPlan.generate(seed, 0, 0, 0, 1, BENCH_OPERATIONS, false)
            : FaultPlan.none();
    DemoScenario scenario = DemoScenario.generate(orders, seed, MAX_BODY_BYTES);
    List<String> sendOrder = sendOrder(scenario.firstWave);
    int duplicates = sendOrder.size() - orders;
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    double loadBefore = os.getSystemLoadAverage();
    out.printf(
        Locale.ROOT,
        "idemworker bench: %d orders + %d second copies (--duplicate-ratio %s) = %d messages per"
            + " run, %d concurrent calls, %d measured round(s) + %d warm-up, seed %d%n",
        orders,
        duplicates,
        duplicateRatio,
        sendOrder.size(),
        concurrency,
        rounds,
        warmUpRounds,
        seed);
    if (!cosmosLatency.isZero() || !serviceBusLatency.isZero()) {
      out.printf(
          Locale.ROOT,
          "  latencies added while each contender runs: Cosmos DB %d ms a request, Service Bus %d"
              + " ms a delivery and a settlement, %s%n",
          cosmosLatency.toMillis(),
          serviceBusLatency.toMillis(),
          latencySpread == 0
              ? "constant"
              : String.format(Locale.ROOT, "spread ±%.0f %%", latencySpread * 100));
    }
    if (!plan.events.isEmpty()) {
      out.println("  fault plan in each run (point of the run's progress, delay, fault):");
      List<String> operations = FaultPlan.OPERATIONS.stream().map(Enum::name).toList();
      plan.events.forEach(
          e -> out.println("    " + e.describe(List.of(), List.of("the run's queue"), operations)));
    }
    out.printf(
        Locale.ROOT,
        "  %s UTC; %d CPUs, %s %s (%s), %s %s; load average %.2f at start%n",
        Instant.now().truncatedTo(ChronoUnit.SECONDS),
        os.getAvailableProcessors(),
        System.getProperty("java.vm.name"),
        System.getProperty("java.runtime.version"),
        System.getProperty("java.vm.vendor"),
        System.getProperty("os.name"),
        System.getProperty("os.arch"),
        loadBefore);
    out.println(
        "  Both emulators run in this JVM on loopback; RU are the Cosmos DB emulator's charge model"
            + " (approximate), and CPU is the whole process (consumer, SDKs and both emulators).");
    out.println();

    BenchReport report = new BenchReport(out);
    List<Run> measured = new ArrayList<>();
    List<Run> all = new ArrayList<>();
    try (ServiceBusEmulator serviceBus = ServiceBusEmulator.builder().port(0).start();
        CosmosEmulator cosmos = CosmosEmulator.builder().port(0).start();
        CosmosClient cosmosClient = LocalClients.cosmos(cosmos)) {
      out.printf(
          Locale.ROOT,
          "%-7s %-15s %6s %7s %8s %9s %9s %7s %7s %10s%n",
          "round",
          "contender",
          "msgs",
          "seconds",
          "msg/s",
          "trips/new",
          "trips/dup",
          "RU/new",
          "RU/dup",
          "CPU ms/msg");
      for (int r = 1; r <= warmUpRounds + rounds; r++) {
        boolean warmUp = r <= warmUpRounds;
        String round = warmUp ? "warm-" + r : Integer.toString(r - warmUpRounds);
        List<Contender> contenders =
            !warmUp && (r - warmUpRounds) % 2 == 0
                ? List.of(Contender.NAIVE, Contender.WORKER)
                : List.of(Contender.WORKER, Contender.NAIVE);
        for (Contender contender : contenders) {
          Run run =
              run(serviceBus, cosmos, cosmosClient, scenario, sendOrder, round, contender, plan);
          report.print(run);
          all.add(run);
          if (!warmUp) {
            measured.add(run);
          }
          if (!run.problems().isEmpty()) {
            run.problems().forEach(p -> out.printf(Locale.ROOT, "    PROBLEM: %s%n", p));
          }
        }
      }
    }
    out.printf(Locale.ROOT, "  load average %.2f at the end%n%n", os.getSystemLoadAverage());
    return report.summary(rounds, !faults.equals("none"), measured, all);
  }

  /** The order ids in the order they are sent: every order once, a share of them twice. */
  private List<String> sendOrder(List<String> orderIds) {
    Random random = new Random(seed);
    List<String> shuffled = new ArrayList<>(orderIds);
    Collections.shuffle(shuffled, random);
    int duplicates = (int) Math.round(orderIds.size() * duplicateRatio);
    List<String> send = new ArrayList<>(orderIds);
    send.addAll(shuffled.subList(0, duplicates));
    Collections.shuffle(send, random);
    return List.copyOf(send);
  }

  private Run run(
      ServiceBusEmulator serviceBus,
      CosmosEmulator cosmos,
      CosmosClient cosmosClient,
      DemoScenario scenario,
      List<String> sendOrder,
      String round,
      Contender contender,
      FaultPlan plan)
      throws InterruptedException {
    String name = "bench-" + round + "-" + contender.name().toLowerCase(Locale.ROOT);
    serviceBus.createQueue(QueueSettings.defaults(name).withLockDuration(Duration.ofMinutes(5)));
    CosmosContainer container =
        CosmosContainers.ensureExists(
            cosmosClient, DATABASE, name, OrderDocumentIds.PARTITION_KEY_PATH);
    warmRoutingCaches(container);
    preload(serviceBus, name, scenario, sendOrder);

    BenchTally tally = new BenchTally(sendOrder.size());
    EffectStore store;
    ReadinessProbe probe;
    if (contender == Contender.WORKER) {
      CosmosEffectStore effects =
          new CosmosEffectStore(
              container, tally.storeListener(), OrderDocumentIds.PARTITION_KEY_PATH);
      store = effects;
      probe = effects;
    } else {
      NaiveEffectStore naive = new NaiveEffectStore(container, tally.storeListener());
      store = naive;
      probe = naive;
    }
    IdempotentConsumer consumer =
        new IdempotentConsumer(
            KeyStrategies.messageId(),
            new OrderDecoder(true),
            store,
            Clock.systemUTC(),
            MAX_BODY_BYTES);
    ServiceBusWorker worker =
        new ServiceBusWorker(
            new ServiceBusConnection.ConnectionString(serviceBus.connectionString()),
            ProcessorSettings.defaults(name).withMaxConcurrentCalls(concurrency),
            consumer,
            probe,
            tally.observer(),
            Clock.systemUTC());

    ScheduledExecutorService faultExecutor = Executors.newSingleThreadScheduledExecutor();
    FaultInjector injector =
        new FaultInjector(
            Optional.empty(),
            Optional.of(serviceBus),
            Optional.of(cosmos),
            Optional.empty(),
            List.of(name),
            faultExecutor);
    long cpuStart = BenchSupport.processCpuNanos();
    long start = System.nanoTime();
    boolean finished = false;
    long end;
    long cpuEnd;
    try {
      serviceBus.faults().delayDeliveries(serviceBusLatency, latencySpread);
      serviceBus.faults().delayDispositions(serviceBusLatency, latencySpread);
      cosmos.faults().injectLatency(cosmosLatency, latencySpread);
      worker.start();
      finished =
          plan.events.isEmpty()
              ? tally.await(timeout)
              : awaitFiring(tally, plan, injector, sendOrder.size());
    } finally {
      cpuEnd = BenchSupport.processCpuNanos();
      end = finished ? tally.lastFinishedNanos() : System.nanoTime();
      worker.shutdown(Duration.ofSeconds(10));
      faultExecutor.shutdownNow();
      injector.clear();
      serviceBus.faults().clear();
      cosmos.faults().clear();
    }
    // After the clock: the audit the chaos run uses, on what this run left in its container.
    StateAudit.Result audit = StateAudit.ofOrders(scenario, sendOrder, container, 8).runOrders();
    Optional<RelayPhase.Figures> relay =
        contender == Contender.WORKER && finished && plan.events.isEmpty()
            ? Optional.of(RelayPhase.drain(serviceBus, cosmos, container, name, timeout))
            : Optional.empty();
    return measure(
        round,
        contender,
        tally,
        sendOrder.size(),
        finished,
        end - start,
        cpuEnd - cpuStart,
        audit,
        relay,
        !plan.events.isEmpty());
  }

  /**
   * Waits for the run to finish while firing the plan's events at their points of its progress (the
   * share of the messages settled).
   */
  private boolean awaitFiring(
      BenchTally tally, FaultPlan plan, FaultInjector injector, int expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    int next = 0;
    while (true) {
      double progress = (double) tally.finished() / expected;
      while (next < plan.events.size() && plan.events.get(next).at() <= progress) {
        injector.fire(plan.events.get(next++));
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      if (tally.await(Duration.ofNanos(Math.min(left, 20_000_000L)))) {
        return true;
      }
    }
  }

  private Run measure(
      String round,
      Contender contender,
      BenchTally tally,
      int expected,
      boolean finished,
      long elapsedNanos,
      long cpuNanos,
      StateAudit.Result audit,
      Optional<RelayPhase.Figures> relay,
      boolean underFaults) {
    List<String> problems = new ArrayList<>();
    relay
        .filter(r -> r.events() == 0)
        .ifPresent(r -> problems.add("the relay did not catch up within " + timeout));
    List<Delivery> deliveries = tally.deliveries();
    if (!finished) {
      problems.add(
          String.format(
              Locale.ROOT,
              "timed out after %s: %d of %d messages settled",
              timeout,
              deliveries.stream().filter(Delivery::isFinal).count(),
              expected));
    }
    long retried = deliveries.stream().filter(d -> d.outcome() instanceof Outcome.Retry).count();
    if (retried > 0 && !underFaults) {
      problems.add(retried + " deliveries were retried");
    }
    deliveries.stream()
        .filter(d -> d.outcome() instanceof Outcome.DeadLettered)
        .limit(3)
        .forEach(d -> problems.add("dead-lettered " + d.messageId() + ": " + d.outcome()));
    List<Delivery> fresh;
    List<Delivery> copies;
    if (contender == Contender.WORKER) {
      fresh = ofOutcome(deliveries, Outcome.Processed.class);
      copies = ofOutcome(deliveries, Outcome.Duplicate.class);
      int duplicates = expected - orders;
      if (finished && !underFaults && (fresh.size() != orders || copies.size() != duplicates)) {
        problems.add(
            String.format(
                Locale.ROOT,
                "expected %d processed and %d duplicates, got %d and %d",
                orders,
                duplicates,
                fresh.size(),
                copies.size()));
      }
    } else {
      List<List<Delivery>> split = tally.byCopy();
      fresh = split.get(0);
      copies = split.get(1);
    }
    long settleFailures = deliveries.stream().filter(d -> !d.settled()).count();
    if (settleFailures > 0 && !underFaults) {
      problems.add(settleFailures + " settlements failed");
    }
    int messages = (int) deliveries.stream().filter(Delivery::isFinal).count();
    long appliedAgain = appliedAgain(deliveries);
    if (contender == Contender.WORKER && (!audit.pass() || appliedAgain > 0)) {
      problems.add(
          "the audit found "
              + audit.lost()
              + " lost and "
              + audit.doubled()
              + " doubled in the store, "
              + appliedAgain
              + " messages applied more than once; "
              + audit.checks().get(0).detail());
    }
    return new Run(
        round,
        contender,
        messages,
        elapsedNanos / 1e9,
        Costs.of(fresh),
        Costs.of(copies),
        messages == 0 ? Double.NaN : cpuNanos / 1e6 / messages,
        tally.storeCalls(),
        audit,
        appliedAgain,
        relay,
        List.copyOf(problems));
  }

  /**
   * The double effects the consumer itself caused: deliveries answered as applied (not as a
   * duplicate) beyond the first, per message id, settled or not (a delivery whose lock was lost
   * after it applied its effect is redelivered). The naive consumer's second copies are all here;
   * the store cannot show them (its upsert rewrites the same documents), a side effect (a charge,
   * an event) would happen again.
   */
  private static long appliedAgain(List<Delivery> deliveries) {
    Map<String, Long> applied =
        deliveries.stream()
            .filter(d -> d.outcome() instanceof Outcome.Processed)
            .collect(Collectors.groupingBy(Delivery::messageId, Collectors.counting()));
    return applied.values().stream().mapToLong(n -> n - 1).sum();
  }

  private static List<Delivery> ofOutcome(
      List<Delivery> deliveries, Class<? extends Outcome> type) {
    return deliveries.stream()
        .filter(Delivery::isFinal)
        .filter(d -> type.isInstance(d.outcome()))
        .toList();
  }

  /**
   * One read of a document that does not exist, so that the client's container and partition
   * metadata are cached before the clock starts, for both contenders alike.
   */
  private static void warmRoutingCaches(CosmosContainer container) {
    try {
      container.readItem("bench-warm-up", new PartitionKey("bench-warm-up"), ObjectNode.class);
    } catch (CosmosException e) {
      if (e.getStatusCode() != 404) {
        throw e;
      }
    }
  }

  private static void preload(
      ServiceBusEmulator serviceBus, String queue, DemoScenario scenario, List<String> sendOrder) {
    try (ServiceBusSenderClient sender =
        new ServiceBusClientBuilder()
            .connectionString(serviceBus.connectionString())
            .sender()
            .queueName(queue)
            .buildClient()) {
      BenchSupport.sendInBatches(sender, scenario, sendOrder);
    }
  }
}
