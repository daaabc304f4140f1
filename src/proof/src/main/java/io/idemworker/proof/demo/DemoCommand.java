package io.idemworker.proof.demo;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.core.IdempotentConsumer;
import io.idemworker.core.KeyStrategies;
import io.idemworker.core.Outcome;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.cosmos.Operation;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.OrderReasons;
import io.idemworker.payments.HttpPaymentProvider;
import io.idemworker.proof.audit.AuditedStores;
import io.idemworker.proof.audit.Check;
import io.idemworker.proof.audit.DeadLetters;
import io.idemworker.proof.audit.StateAudit;
import io.idemworker.proof.demo.DemoTally.Delivery;
import io.idemworker.proof.emulators.AdjustableClock;
import io.idemworker.proof.emulators.EventTopic;
import io.idemworker.proof.emulators.LocalClients;
import io.idemworker.proof.faults.FaultInjector;
import io.idemworker.proof.faults.FaultPlan;
import io.idemworker.proof.producer.DemoLifecycle;
import io.idemworker.proof.producer.DemoPayments;
import io.idemworker.proof.producer.DemoScenario;
import io.idemworker.servicebus.ProcessorSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.processor.ServiceBusWorker;
import io.idemworker.telemetry.Telemetry;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code demo}: the whole pattern on in-process emulators, with a producer that exercises every
 * path, a summary, and an audit that reads the results back and says PASS or FAIL.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the whole pattern on in-process emulators and audits the result.",
      "",
      "Starts in-process Service Bus and Cosmos DB emulators and a payment provider double (no Azure, no Docker), two competing worker instances, and a producer that sends new orders, credits, status changes and payment captures plus every kind of repeat and poison the pattern must absorb, then an outbox relay to a topic with the loyalty and customer-stats consumers, re-publishes included. Ends with a summary and an audit that reads Cosmos DB, the dead-letter queue, the topic's audit subscription and the provider's ledger back; exits 0 on PASS, 1 on FAIL."
    })
public final class DemoCommand implements Callable<Integer> {
  static final String QUEUE = "orders";
  static final Duration DUPLICATE_WINDOW = Duration.ofSeconds(30);
  static final int MAX_BODY_BYTES = 64 * 1024;
  static final String SIMULATED_CRASH = DemoStore.SIMULATED_CRASH;
  static final int MAX_DELIVERY_COUNT = 10;
  static final Duration MARKER_TTL = StateAudit.MARKER_TTL;
  static final String ORDER_PLACED = OrderMessageTypes.SUBJECTS.get(0);
  static final String PAYMENT = OrderMessageTypes.PAYMENT_CAPTURE_REQUESTED;

  /** The provider's request timeout; the lease must outlast it (the worker's config rule). */
  static final Duration PAYMENT_TIMEOUT = Duration.ofSeconds(2);

  static final Duration PAYMENT_LEASE = Duration.ofSeconds(3);

  /** The demo's phases that send to the queue; its fault plan's points are their starts. */
  static final int QUEUE_PHASES = 4;

  /**
   * The demo's fault plan, fired through the chaos run's {@link FaultInjector}: Cosmos DB answers
   * 503 to the first transactional batches of phase 1 (the worker retries them), and the payment
   * provider drops its answer after executing each capture meant for it in phase 4 (the worker
   * cannot tell whether it charged). The demo's other hazards are not emulator faults and stay
   * scripted where they happen: the crash between commit and completion and the lease takeover
   * ({@link DemoStore}), the HTTP intake's late and lost answers ({@link DemoHttpPhase}), and the
   * webhook sender's storms, reordering and stalls ({@link DemoWebhookPhase}).
   */
  static FaultPlan faultPlan(DemoScenario scenario) {
    return FaultPlan.of(
        List.of(
            FaultPlan.Event.cosmos(phase(1), FaultPlan.Kind.COSMOS_UNAVAILABLE, Operation.BATCH, 3),
            FaultPlan.Event.ambiguousCaptures(
                phase(4), scenario.payments.requests(DemoPayments.Hazard.AMBIGUOUS).size())));
  }

  /** Where phase {@code n} (1 to {@value #QUEUE_PHASES}) starts, as a point of the fault plan. */
  static double phase(int n) {
    return (n - 1) / (double) QUEUE_PHASES;
  }

  @Option(
      names = "--orders",
      defaultValue = "200",
      description = "How many new orders the producer places (10-5000; default ${DEFAULT-VALUE}).")
  int orders;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description =
          "Seed of the scenario; the same seed sends the same messages (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--instances",
      defaultValue = "2",
      description = "Competing worker instances (1-8; default ${DEFAULT-VALUE}).")
  int instances;

  @Option(
      names = "--concurrency",
      defaultValue = "8",
      description = "Concurrent calls per instance (1-64; default ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(
      names = "--timeout",
      defaultValue = "PT90S",
      description =
          "How long to wait for each phase to settle (ISO 8601; default ${DEFAULT-VALUE}).")
  Duration timeout;

  /**
   * For the tests: runs after the audit, on the stores it read, with that audit to run again; so
   * one run serves a test of the whole demo and one of its audit on stores broken afterwards.
   */
  AfterAudit afterAudit = (stores, auditAgain) -> {};

  /** What runs after the demo's audit (for the tests). */
  interface AfterAudit {
    /**
     * Runs after the audit.
     *
     * @param stores what the producer sent and the containers the audit read
     * @param auditAgain the audit of the stores again, printed as the first one is; it answers the
     *     exit code the demo would give on it
     */
    void accept(AuditedStores stores, Audit auditAgain) throws InterruptedException;
  }

  /** The demo's audit of its stores. */
  interface Audit {
    /**
     * Reads the stores back, prints the audit and its verdict.
     *
     * @return the demo's exit code on it: 0 on PASS, 1 on FAIL
     */
    int run() throws InterruptedException;
  }

  private final PrintStream out;

  /** The command as the command line mounts it: it prints to standard output. */
  public DemoCommand() {
    this(System.out);
  }

  DemoCommand(PrintStream out) {
    this.out = out;
  }

  /**
   * Runs the demo.
   *
   * @return 0 when every check passed (PASS), 1 otherwise (FAIL), 2 for options out of range
   */
  @Override
  public Integer call() throws Exception {
    if (orders < 10
        || orders > 5000
        || instances < 1
        || instances > 8
        || concurrency < 1
        || concurrency > 64) {
      System.err.println(
          "idemworker demo: --orders must be 10-5000, --instances 1-8, --concurrency 1-64");
      return 2;
    }
    long started = System.nanoTime();
    DemoScenario scenario = DemoScenario.generate(orders, seed, MAX_BODY_BYTES);
    AdjustableClock brokerClock = new AdjustableClock();
    DemoTally tally = new DemoTally();
    Telemetry telemetry = io.idemworker.app.OrderTelemetry.fromEnvironment(System.getenv());
    out.printf(
        "idemworker demo: %d orders, seed %d, %d instances x %d concurrent calls%n",
        orders, seed, instances, concurrency);
    try (ServiceBusEmulator serviceBus =
            ServiceBusEmulator.builder()
                .port(0)
                .clock(brokerClock)
                .queue(
                    QueueSettings.defaults(QUEUE)
                        .withRequiresDuplicateDetection(true)
                        .withDuplicateDetectionHistoryTimeWindow(DUPLICATE_WINDOW)
                        .withLockDuration(Duration.ofMinutes(5))
                        .withMaxDeliveryCount(MAX_DELIVERY_COUNT))
                .topic(EventTopic.settings(DemoRelayPhase.topicWindow(timeout)))
                .start();
        CosmosEmulator cosmos = CosmosEmulator.builder().port(0).start();
        CosmosClient cosmosClient = LocalClients.cosmos(cosmos);
        PaymentProviderEmulator provider = PaymentProviderEmulator.builder().port(0).start()) {
      out.printf("  Service Bus emulator  %s%n", serviceBus.connectionString());
      out.printf("  Cosmos DB emulator    %s%n", cosmos.endpoint());
      out.printf("  payment provider      %s%n%n", provider.baseUrl());
      CosmosContainer container =
          CosmosContainers.ensureExists(
              cosmosClient, "idemworker", "orders", OrderDocumentIds.PARTITION_KEY_PATH);
      Set<String> crashPending = ConcurrentHashMap.newKeySet();
      crashPending.addAll(scenario.crashes);
      DemoLifecycle lifecycle = scenario.lifecycle;
      lifecycle.credits(DemoLifecycle.Source.CRASH).forEach(c -> crashPending.add(c.markerId()));
      Map<String, CountDownLatch> meetings = new ConcurrentHashMap<>();
      scenario.concurrentCopies.forEach(orderId -> meetings.put(orderId, new CountDownLatch(2)));
      lifecycle
          .credits(DemoLifecycle.Source.CONCURRENT)
          .forEach(c -> meetings.put(c.markerId(), new CountDownLatch(2)));
      DemoPayments payments = scenario.payments;
      payments
          .requests(DemoPayments.Hazard.CONCURRENT)
          .forEach(r -> meetings.put(r.recordId(), new CountDownLatch(2)));
      Map<String, String> crashBeforeCommit = new ConcurrentHashMap<>();
      payments
          .requests(DemoPayments.Hazard.CRASH)
          .forEach(r -> crashBeforeCommit.put(r.eventId(), r.recordId()));
      DemoProviderCalls providerCalls =
          new DemoProviderCalls(
              new HttpPaymentProvider(provider.baseUrl(), provider.apiKey(), PAYMENT_TIMEOUT));
      OrderMessageTypes.Payments paymentProvider =
          new OrderMessageTypes.Payments(providerCalls, PAYMENT_LEASE);
      List<ServiceBusWorker> workers = new ArrayList<>();
      ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor();
      ScheduledExecutorService faultExecutor = Executors.newSingleThreadScheduledExecutor();
      FaultInjector faults =
          new FaultInjector(
              Optional.empty(),
              Optional.of(serviceBus),
              Optional.of(cosmos),
              Optional.of(provider),
              List.of(QUEUE),
              faultExecutor);
      FaultPlan plan = faultPlan(scenario);
      out.println("fault plan (fired through the chaos run's injector):");
      for (FaultPlan.Event e : plan.events) {
        out.printf(
            "  phase %d: %s%n",
            (int) Math.round(e.at() * QUEUE_PHASES) + 1,
            e.what(
                List.of(), List.of(QUEUE), FaultPlan.OPERATIONS.stream().map(Enum::name).toList()));
      }
      out.println();
      boolean settled;
      try (ServiceBusSenderClient sender =
          new ServiceBusClientBuilder()
              .connectionString(serviceBus.connectionString())
              .sender()
              .queueName(QUEUE)
              .buildClient()) {
        for (int i = 1; i <= instances; i++) {
          CosmosEffectStore cosmosStore = cosmosStore(container, tally, telemetry);
          workers.add(
              worker(
                  serviceBus,
                  tally,
                  telemetry,
                  "instance-" + i,
                  cosmosStore,
                  new DemoStore(cosmosStore, crashPending, crashBeforeCommit, meetings),
                  paymentProvider));
        }
        workers.forEach(ServiceBusWorker::start);
        progress.scheduleAtFixedRate(() -> printProgress(tally, started), 1, 1, TimeUnit.SECONDS);

        out.println(
            "phase 1: new orders, producer retries inside the duplicate-detection window, poison messages");
        faults.fireAndWait(plan.between(phase(1), phase(2)));
        List<ServiceBusMessage> batch = new ArrayList<>();
        Set<String> producerRetries = Set.copyOf(scenario.producerRetries);
        for (String orderId : scenario.firstWave) {
          batch.add(scenario.message(orderId));
          if (producerRetries.contains(orderId)) {
            batch.add(scenario.message(orderId));
          }
          if (batch.size() >= 50) {
            sender.sendMessages(batch);
            batch.clear();
          }
        }
        scenario.poisons.forEach(poison -> batch.add(poison.message()));
        sender.sendMessages(batch);
        batch.clear();
        int firstWaveExpected = scenario.firstWave.size();
        settled =
            tally.awaitQuiet(
                d ->
                    processedCount(d) >= firstWaveExpected
                        && deadLettered(d) >= scenario.poisons.size(),
                timeout);

        out.printf(
            "phase 2: %s later (past the window): late resends, key reuse, concurrent copies%n",
            DUPLICATE_WINDOW);
        brokerClock.advance(DUPLICATE_WINDOW.plusSeconds(1));
        for (String orderId : scenario.lateResends) {
          batch.add(scenario.message(orderId));
        }
        for (String orderId : scenario.conflicts) {
          batch.add(scenario.conflicting(orderId));
        }
        for (String orderId : scenario.concurrentCopies) {
          batch.add(scenario.message(orderId));
        }
        sender.sendMessages(batch);
        batch.clear();
        // The second copies must get past the broker's duplicate detection too.
        brokerClock.advance(DUPLICATE_WINDOW.plusSeconds(1));
        for (String orderId : scenario.concurrentCopies) {
          batch.add(scenario.message(orderId));
        }
        sender.sendMessages(batch);
        int expectedOrders = scenario.orders.size();
        int expectedDuplicates =
            scenario.crashes.size()
                + scenario.lateResends.size()
                + scenario.concurrentCopies.size();
        int expectedDeadLetters = scenario.poisons.size() + scenario.conflicts.size();
        settled &=
            tally.awaitQuiet(
                d ->
                    processedCount(d) >= expectedOrders
                        && duplicates(d) >= expectedDuplicates
                        && deadLettered(d) >= expectedDeadLetters,
                timeout);
        faults.clear();
        settled &= lifecycle(sender, brokerClock, lifecycle, tally);
        settled &=
            new DemoPaymentsPhase(out, timeout)
                .run(sender, brokerClock, payments, tally, faults, plan.between(phase(4), 1.01));
      } finally {
        progress.shutdownNow();
        faultExecutor.shutdownNow();
        workers.forEach(worker -> worker.shutdown(Duration.ofSeconds(10)));
      }
      // Before the relay, so that the orders posted over HTTP are published and projected too.
      DemoHttpPhase.Result http =
          new DemoHttpPhase(out, timeout)
              .run(container, scenario.orders, "ord-" + seed + "-", seed);
      Set<String> orderIds = new LinkedHashSet<>(scenario.orders.keySet());
      orderIds.addAll(http.orders().keySet());
      DemoRelayAudit relayAudit = new DemoRelayAudit(container, orderIds);
      DemoRelayPhase relayPhase = new DemoRelayPhase(out, timeout, concurrency);
      DemoRelayPhase.Result relayed =
          relayPhase.run(serviceBus, brokerClock, cosmosClient, container, relayAudit.outbox());
      settled &= relayed.settled();
      DemoWebhookPhase.Result webhooks =
          new DemoWebhookPhase(out, timeout).run(container, scenario.orders.keySet());
      List<Check> sessions = new DemoSessionPhase(out, timeout).run(serviceBus, cosmosClient, seed);
      out.println();
      DemoReport report = new DemoReport(out);
      report.summary(scenario, tally, instances, provider.stats());
      relayPhase.summary(relayed);
      List<Check> observed =
          new ArrayList<>(
              new DemoAudit(
                      scenario,
                      tally.deliveries(),
                      telemetry.counts(),
                      container,
                      providerCalls.calls())
                  .run(settled));
      observed.addAll(relayAudit.run(relayed, serviceBus.connectionString()));
      observed.addAll(DemoHttpPhase.observed(http));
      observed.addAll(webhooks.observed());
      observed.addAll(sessions);
      Audit audit =
          () -> {
            DeadLetters deadLetters =
                DeadLetters.peek(serviceBus.connectionString(), QUEUE, 100_000);
            StateAudit.Result stores =
                new StateAudit(
                        scenario,
                        new StateAudit.Intake(http.orders(), http.reused().keySet()),
                        new StateAudit.Sources(
                            container,
                            relayed.customers(),
                            deadLetters.queue(),
                            deadLetters.subscriptions(),
                            StateAudit.ledger(provider.baseUrl(), provider.apiKey()),
                            relayAudit.received(),
                            Optional.of(webhooks.log())),
                        4)
                    .run();
            report.deadLetterSamples(deadLetters.queue());
            return report.audit(observed, stores) ? 0 : 1;
          };
      int exit = audit.run();
      out.printf("%nfinished in %.1f s%n", (System.nanoTime() - started) / 1e9);
      afterAudit.accept(new AuditedStores(scenario, container, relayed.customers()), audit);
      telemetry.close();
      return exit;
    }
  }

  /**
   * Phase 3: credits, each repeated from one source, wrong-currency credits, status versions out of
   * order, and a status change for an order that never comes.
   *
   * @return true if both steps settled within the timeout
   */
  private boolean lifecycle(
      ServiceBusSenderClient sender,
      AdjustableClock brokerClock,
      DemoLifecycle lifecycle,
      DemoTally tally)
      throws InterruptedException {
    out.println(
        "phase 3: credits repeated from every source, a wrong currency, status version 3 before 2, a status for an order that never comes");
    List<ServiceBusMessage> batch = new ArrayList<>();
    List<DemoLifecycle.Credit> concurrent = lifecycle.credits(DemoLifecycle.Source.CONCURRENT);
    for (DemoLifecycle.Credit credit : lifecycle.credits) {
      if (credit.source() != DemoLifecycle.Source.CONCURRENT) {
        batch.add(DemoLifecycle.credit(credit));
      }
      if (credit.source() == DemoLifecycle.Source.PRODUCER_RETRY) {
        batch.add(DemoLifecycle.credit(credit));
      }
    }
    lifecycle.wrongCurrency.forEach(c -> batch.add(DemoLifecycle.credit(c)));
    lifecycle.statusOrders.forEach(
        orderId -> batch.add(DemoLifecycle.status(orderId, 3, "Shipped")));
    batch.add(DemoLifecycle.status(lifecycle.neverPlaced, 1, "Confirmed"));
    // Last, so that each first copy waits at the meeting point only briefly for its twin.
    concurrent.forEach(c -> batch.add(DemoLifecycle.credit(c)));
    sendAll(sender, batch);
    // The second copies must get past the broker's duplicate detection too.
    brokerClock.advance(DUPLICATE_WINDOW.plusSeconds(1));
    concurrent.forEach(c -> batch.add(DemoLifecycle.credit(c)));
    sendAll(sender, batch);
    int credits = lifecycle.credits.size();
    int statuses = lifecycle.statusOrders.size();
    int earlyDuplicates = lifecycle.credits(DemoLifecycle.Source.CRASH).size() + concurrent.size();
    boolean settled =
        tally.awaitQuiet(
            d ->
                applied(d, OrderMessageTypes.ORDER_CREDITED) >= credits
                    && duplicates(d, OrderMessageTypes.ORDER_CREDITED) >= earlyDuplicates
                    && applied(d, OrderMessageTypes.ORDER_STATUS_CHANGED) >= statuses
                    && deadLettered(d, OrderReasons.CURRENCY_MISMATCH.code())
                        >= lifecycle.wrongCurrency.size(),
            timeout);

    out.printf("phase 3b: %s later: credits resent, status version 2 after 3%n", DUPLICATE_WINDOW);
    brokerClock.advance(DUPLICATE_WINDOW.plusSeconds(1));
    lifecycle
        .credits(DemoLifecycle.Source.LATE_RESEND)
        .forEach(c -> batch.add(DemoLifecycle.credit(c)));
    lifecycle.statusOrders.forEach(
        orderId -> batch.add(DemoLifecycle.status(orderId, 2, "Packed")));
    sendAll(sender, batch);
    int allDuplicates =
        earlyDuplicates + lifecycle.credits(DemoLifecycle.Source.LATE_RESEND).size();
    settled &=
        tally.awaitQuiet(
            d ->
                duplicates(d, OrderMessageTypes.ORDER_CREDITED) >= allDuplicates
                    && stale(d) >= statuses
                    && deadLettered(d, OrderReasons.ORDER_NOT_FOUND.code()) >= 1,
            timeout);
    return settled;
  }

  /** Sends in batches of at most 50 and clears the list. */
  static void sendAll(ServiceBusSenderClient sender, List<ServiceBusMessage> messages) {
    for (int from = 0; from < messages.size(); from += 50) {
      sender.sendMessages(messages.subList(from, Math.min(messages.size(), from + 50)));
    }
    messages.clear();
  }

  private static CosmosEffectStore cosmosStore(
      CosmosContainer container, DemoTally tally, Telemetry telemetry) {
    StoreCallListener demoCosts = tally.storeListener();
    StoreCallListener metrics = telemetry.storeListener();
    return new CosmosEffectStore(
        container,
        (operation, status, charge, latency) -> {
          demoCosts.onCall(operation, status, charge, latency);
          metrics.onCall(operation, status, charge, latency);
        },
        OrderDocumentIds.PARTITION_KEY_PATH);
  }

  private ServiceBusWorker worker(
      ServiceBusEmulator serviceBus,
      DemoTally tally,
      Telemetry telemetry,
      String instance,
      CosmosEffectStore cosmos,
      DemoStore demoStore,
      OrderMessageTypes.Payments payments) {
    IdempotentConsumer consumer =
        new IdempotentConsumer(
            KeyStrategies.messageId(),
            OrderMessageTypes.decoder(
                true,
                new InboxMarkers(DemoLifecycle.CONSUMER, Optional.of(MARKER_TTL)),
                Optional.of(payments)),
            demoStore,
            Clock.systemUTC(),
            MAX_BODY_BYTES,
            MAX_DELIVERY_COUNT);
    return new ServiceBusWorker(
        new ServiceBusConnection.ConnectionString(serviceBus.connectionString()),
        ProcessorSettings.defaults(QUEUE)
            .withMaxConcurrentCalls(concurrency)
            .withMaxRetryBackoff(Duration.ofMillis(200)),
        consumer,
        cosmos,
        telemetry.observer(tally.observer(instance)),
        // Lock arithmetic against the broker's lockedUntil: the broker's clock runs ahead once the
        // demo jumped it past the detection window, so locks only look longer than they are.
        Clock.systemUTC());
  }

  private void printProgress(DemoTally tally, long started) {
    List<Delivery> d = tally.deliveries();
    out.printf(
        "  [%5.1f s] delivered %d · orders created %d · credits applied %d · payments completed %d · duplicates %d · stale %d · dead-lettered %d · retried %d%n",
        (System.nanoTime() - started) / 1e9,
        d.size(),
        processedCount(d),
        applied(d, OrderMessageTypes.ORDER_CREDITED),
        applied(d, PAYMENT),
        duplicates(d),
        stale(d),
        deadLettered(d),
        d.stream().filter(x -> x.outcome() instanceof Outcome.Retry).count());
  }

  /** Orders created: processed deliveries plus the simulated crashes, which committed first. */
  static long processedCount(List<Delivery> d) {
    return applied(d, ORDER_PLACED);
  }

  /** Deliveries of one message type that applied their effect, the simulated crashes included. */
  static long applied(List<Delivery> d, String subject) {
    return d.stream().filter(x -> isType(x, subject) && applied(x)).count();
  }

  /** Applied now, or committed before a simulated crash. */
  static boolean applied(Delivery d) {
    return d.outcome() instanceof Outcome.Processed || crashedAfterCommit(d);
  }

  static boolean isType(Delivery d, String subject) {
    return d.message().subject().filter(subject::equals).isPresent();
  }

  static boolean crashedAfterCommit(Delivery d) {
    return d.outcome() instanceof Outcome.Retry retry
        && retry.description().contains(SIMULATED_CRASH);
  }

  static long duplicates(List<Delivery> d) {
    return d.stream().filter(x -> x.outcome() instanceof Outcome.Duplicate).count();
  }

  static long duplicates(List<Delivery> d, String subject) {
    return d.stream()
        .filter(x -> isType(x, subject) && x.outcome() instanceof Outcome.Duplicate)
        .count();
  }

  static long stale(List<Delivery> d) {
    return d.stream().filter(x -> x.outcome() instanceof Outcome.Stale).count();
  }

  static long deadLettered(List<Delivery> d) {
    return d.stream().filter(x -> x.outcome() instanceof Outcome.DeadLettered).count();
  }

  static long deadLettered(List<Delivery> d, String reason) {
    return d.stream()
        .filter(
            x ->
                x.outcome() instanceof Outcome.DeadLettered dl && dl.reason().code().equals(reason))
        .count();
  }
}
