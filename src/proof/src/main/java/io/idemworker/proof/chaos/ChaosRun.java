package io.idemworker.proof.chaos;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.payments.WebhookDelivery;
import io.idemworker.proof.audit.AuditedStores;
import io.idemworker.proof.audit.Check;
import io.idemworker.proof.audit.DeadLetters;
import io.idemworker.proof.audit.StateAudit;
import io.idemworker.proof.audit.WebhookAudit;
import io.idemworker.proof.emulators.EventTopic;
import io.idemworker.proof.faults.FaultInjector;
import io.idemworker.proof.faults.FaultPlan;
import io.idemworker.proof.producer.DemoScenario;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.deadletter.DeadLetterReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One chaos run, once its broker and database are there (the run's own emulators, or endpoints it
 * was given: {@link ChaosCommand}): the payment provider double, the HTTP intake, the worker
 * processes, the producer under the fault plan, the drain, the dead-letter resubmission, the audit
 * and the report.
 *
 * <p>Not thread-safe: one run, driven by one thread.
 */
final class ChaosRun {
  private static final String QUEUE = ChaosCommand.QUEUE;
  private static final List<String> CONSUMERS = EventTopic.CONSUMERS;

  /** How long one HTTP order's client retries before it gives up. */
  static final Duration HTTP_RETRY_FOR = Duration.ofMinutes(2);

  /**
   * What the run sends and how, the same whatever it runs against.
   *
   * @param scenario the messages
   * @param producer sends them in waves
   * @param waves how many
   * @param log where progress goes
   * @param logs where the worker processes write their logs
   * @param seed the seed of the messages and the fault plan
   * @param workers worker processes (orders role)
   * @param kills process kills
   * @param timeout bound on the whole run
   * @param replay the command line that replays the run
   */
  record Plan(
      DemoScenario scenario,
      ChaosProducer producer,
      int waves,
      PrintStream log,
      Path logs,
      long seed,
      int workers,
      int kills,
      Duration timeout,
      String replay) {}

  private final Plan plan;
  private final PrintStream out;
  private final boolean json;
  private final Consumer<AuditedStores> tamper;

  /**
   * @param plan what to run
   * @param out where the report goes
   * @param json whether the report is JSON
   * @param tamper runs between the drain and the audit (tests)
   */
  ChaosRun(Plan plan, PrintStream out, boolean json, Consumer<AuditedStores> tamper) {
    this.plan = plan;
    this.out = out;
    this.json = json;
    this.tamper = tamper;
  }

  /**
   * Runs against a broker and a database.
   *
   * @param broker the broker (its emulator's faults are injected when it has one)
   * @param cosmos the database's emulator, whose faults are injected; empty for a given account
   * @param cosmosClient a client of the database
   * @param database the database holding the containers, which exist
   * @param base the environment every worker process shares
   * @param trust the worker processes' JVM options for TLS trust
   * @return the exit code: 0 when the audit finds nothing, 1 otherwise
   */
  int against(
      ChaosBroker broker,
      Optional<CosmosEmulator> cosmos,
      CosmosClient cosmosClient,
      String database,
      Map<String, String> base,
      List<String> trust)
      throws Exception {
    DemoScenario scenario = plan.scenario();
    ChaosProducer producer = plan.producer();
    PrintStream log = plan.log();
    Path logs = plan.logs();
    long seed = plan.seed();
    int workers = plan.workers();
    boolean external = broker.emulator().isEmpty();
    FaultPlan faultPlan =
        FaultPlan.generate(
            seed, plan.kills(), workers, CONSUMERS.size(), 3, FaultPlan.OPERATIONS.size(), true);
    FaultPlan injected = external ? faultPlan.withoutEmulatorFaults() : faultPlan;
    CosmosContainer orders = cosmosClient.getDatabase(database).getContainer(QUEUE);
    CosmosContainer customers =
        cosmosClient.getDatabase(database).getContainer(ChaosEnvironment.CUSTOMERS);
    try (ChaosWebhooks webhooks = new ChaosWebhooks(orders);
        PaymentProviderEmulator provider =
            PaymentProviderEmulator.builder().port(0).webhooks(webhooks.settings()).start()) {
      ChaosWebhooks.storms(
          provider.webhooks(), Math.max(2, scenario.payments.requests.size() / 20));
      log.printf(
          "idemworker chaos: seed %d, %d orders in %d waves, %d workers + %d consumers, %d kills,"
              + " %s, logs in %s%n",
          seed,
          scenario.orders.size(),
          plan.waves(),
          workers,
          CONSUMERS.size(),
          plan.kills(),
          external ? "against the endpoints given" : "against its own emulators",
          logs);
      List<String> names = new ArrayList<>();
      for (int i = 1; i <= workers; i++) {
        names.add("worker-" + i);
      }
      names.addAll(CONSUMERS);
      List<String> entities =
          List.of(
              QUEUE,
              EventTopic.NAME + "/Subscriptions/" + CONSUMERS.get(0),
              EventTopic.NAME + "/Subscriptions/" + CONSUMERS.get(1));
      List<String> operationNames = FaultPlan.OPERATIONS.stream().map(Enum::name).toList();
      log.println("fault plan (point of the traffic, delay, fault):");
      faultPlan.events.forEach(
          e ->
              log.println(
                  "  "
                      + e.describe(names, entities, operationNames)
                      + (injected.events.contains(e) ? "" : "  [NOT injected: given endpoints]")));

      boolean settled;
      long started;
      double produceSeconds;
      double totalSeconds;
      Map<String, Integer> killCounts;
      List<String> httpFailures;
      boolean webhooksIdle;
      boolean resubmitted;
      Map<String, Long> httpCounts;
      Map<String, Integer> eventsReceived;
      List<String> pacing = new ArrayList<>();
      List<ChaosProducer.Tagged> heldBack = new ArrayList<>();
      DeadLetterReader reader =
          new DeadLetterReader(
              new ServiceBusConnection.ConnectionString(broker.connectionString()));
      ScheduledExecutorService faults = Executors.newScheduledThreadPool(4);
      try (WorkerFleet fleet = new WorkerFleet(logs, Duration.ofSeconds(20), trust);
          EventTap events =
              new EventTap(
                  broker.connectionString(), EventTopic.NAME, EventTopic.AUDIT_SUBSCRIPTION);
          ServiceBusSenderClient sender =
              new ServiceBusClientBuilder()
                  .connectionString(broker.connectionString())
                  .sender()
                  .queueName(QUEUE)
                  .buildClient();
          ChaosHttp http =
              new ChaosHttp(orders, "chaos-" + seed + "-", HTTP_RETRY_FOR, producer.httpOrders())) {
        ChaosDrain waits = new ChaosDrain(broker, fleet, scenario, log);
        for (int i = 1; i <= workers; i++) {
          fleet.start(
              "worker-" + i, ChaosEnvironment.orders(base, provider.baseUrl(), provider.apiKey()));
        }
        for (String role : CONSUMERS) {
          fleet.start(role, ChaosEnvironment.consumer(base, role));
        }
        FaultInjector injector =
            new FaultInjector(
                Optional.of(fleet),
                broker.emulator(),
                cosmos,
                Optional.of(provider),
                entities,
                faults);
        started = System.nanoTime();
        long deadline = started + plan.timeout().toNanos();
        long lastSend = started;
        List<Future<?>> fired = new ArrayList<>();
        int next = 0;
        settled = true;
        int steps = producer.steps();
        for (int s = 0; s < steps && settled; s++) {
          settled = waits.awaitBacklog(300, deadline);
          ChaosProducer.Step step = producer.step(s);
          // An order's dependents go only once its post has been answered; bounded by the
          // client's own retry budget, past which the order is reported, not waited for.
          for (String late :
              http.awaitAnswered(
                  step.httpAnsweredFirst(),
                  min(HTTP_RETRY_FOR.plusSeconds(30), deadline - System.nanoTime()))) {
            pacing.add(late + ": its dependents were sent before its post was answered");
          }
          step.http().forEach(http::post);
          producer.send(sender, step.beforeAdvance(), Duration.ofMinutes(2));
          lastSend = System.nanoTime();
          if (broker.holdsBackPastWindow()) {
            heldBack.addAll(step.afterAdvance());
          } else {
            broker.pastWindow(lastSend, deadline);
            producer.send(sender, step.afterAdvance(), Duration.ofMinutes(2));
          }
          double progress = (s + 1.0) / steps;
          while (next < injected.events.size() && injected.events.get(next).at() <= progress) {
            fired.add(injector.fire(injected.events.get(next++)));
          }
          if (s % Math.max(1, steps / 10) == 0) {
            log.printf(
                "  [%5.1f s] step %d/%d, sent %d, queue %d, kills %d%n",
                seconds(started),
                s + 1,
                steps,
                producer.sent(),
                broker.unsettled(QUEUE, 1000),
                fleet.kills());
          }
        }
        while (next < injected.events.size()) {
          fired.add(injector.fire(injected.events.get(next++)));
        }
        for (Future<?> f : fired) {
          f.get();
        }
        httpFailures = http.await(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        httpCounts = http.counts();
        produceSeconds = seconds(started);
        log.printf("  [%5.1f s] sent %d; draining%n", produceSeconds, producer.sent());
        Supplier<List<DeadLetterReader.DeadLetter>> deadLetters =
            () -> reader.peek(new DeadLetterReader.Queue(QUEUE), 1_000_000).messages();
        settled &= waits.drain(events, deadLetters, deadline);
        if (settled && !heldBack.isEmpty()) {
          log.printf(
              "  [%5.1f s] drained; waiting out the duplicate-detection window (%s) before the %d"
                  + " held-back copies%n",
              seconds(started), broker.window(), heldBack.size());
          settled = broker.pastWindow(lastSend, deadline);
          for (int from = 0; from < heldBack.size() && settled; from += 300) {
            settled = waits.awaitBacklog(300, deadline);
            producer.send(
                sender,
                heldBack.subList(from, Math.min(heldBack.size(), from + 300)),
                Duration.ofMinutes(2));
          }
          lastSend = System.nanoTime();
          settled = settled && waits.drain(events, deadLetters, deadline);
        }
        resubmitted = settled && broker.pastWindow(lastSend, deadline);
        if (resubmitted) {
          long copies = ChaosResubmit.run(broker.connectionString());
          producer.count(ChaosProducer.Source.DLQ_RESUBMIT, copies);
          log.printf(
              "  [%5.1f s] drained; resubmitted %d dead-lettered copies, draining again%n",
              seconds(started), copies);
          settled = waits.drain(events, deadLetters, deadline);
        } else {
          settled = false;
        }
        eventsReceived = events.received();
        // No capture comes any more: events still held to be reversed (a batch that never filled)
        // go now, in order. Waited for even when the drain failed, so that the check says what the
        // sender did.
        provider.webhooks().faults().clear();
        webhooksIdle =
            provider.webhooks().awaitIdle(min(Duration.ofMinutes(2), deadline - System.nanoTime()));
        if (!waits.released().isEmpty()) {
          log.printf(
              "  the drain did not wait for %d events whose message was dead-lettered (the audit"
                  + " reads those messages' effects)%n",
              waits.released().size());
        }
        totalSeconds = seconds(started);
        killCounts = fleet.counts();
        events.stop();
        injector.clear();
      } finally {
        faults.shutdownNow();
      }
      DeadLetters deadLetters = DeadLetters.peek(broker.connectionString(), QUEUE, 1_000_000);
      JsonNode ledger = StateAudit.ledger(provider.baseUrl(), provider.apiKey());
      tamper.accept(new AuditedStores(scenario, orders, customers));
      List<WebhookDelivery> webhookLog = provider.webhooks().deliveries();
      StateAudit.Result audit =
          new StateAudit(
                  scenario,
                  new StateAudit.Sources(
                      orders,
                      customers,
                      deadLetters.queue(),
                      deadLetters.subscriptions(),
                      ledger,
                      eventsReceived,
                      Optional.of(
                          new WebhookAudit.Log(webhookLog, webhooksIdle, Optional.empty()))),
                  8)
              .run();
      List<String> httpProblems = new ArrayList<>(pacing);
      httpProblems.addAll(httpFailures);
      audit =
          withHttpAndResubmission(
              audit,
              httpCounts,
              httpProblems,
              ChaosResubmit.check(scenario, producer.bySource().get("DLQ_RESUBMIT"), resubmitted));
      ChaosReport report =
          new ChaosReport(
              seed,
              plan.replay(),
              workers,
              CONSUMERS.size(),
              producer.sent(),
              producer.byKind(),
              producer.bySource(),
              httpCounts,
              WebhookAudit.counts(webhookLog),
              killCounts,
              nonKills(injected),
              notInjected(faultPlan, injected),
              external,
              heldBack.size(),
              settled,
              audit,
              produceSeconds,
              totalSeconds,
              ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      if (json) {
        out.println(report.json());
      } else {
        report.printText(out);
      }
      return report.pass() ? 0 : 1;
    }
  }

  /** The plan's faults other than kills, by kind. */
  private static Map<String, Integer> nonKills(FaultPlan plan) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    plan.countByKind()
        .forEach(
            (k, v) -> {
              if (!k.isKill() && v > 0) {
                counts.put(k.name(), v);
              }
            });
    return counts;
  }

  /** What {@code planned} holds that {@code injected} does not, by kind. */
  private static Map<String, Integer> notInjected(FaultPlan planned, FaultPlan injected) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    Map<FaultPlan.Kind, Integer> fired = injected.countByKind();
    planned
        .countByKind()
        .forEach(
            (k, v) -> {
              if (v > fired.get(k)) {
                counts.put(k.name(), v - fired.get(k));
              }
            });
    return counts;
  }

  /**
   * The audit plus the HTTP clients' side (every order posted got 201 under its key, before its
   * dependents were sent; its effect is checked with the scenario's other orders: once, with its
   * exact body) and the dead-letter resubmission's (every refused copy was sent back once).
   */
  private static StateAudit.Result withHttpAndResubmission(
      StateAudit.Result audit,
      Map<String, Long> counts,
      List<String> failures,
      Check resubmission) {
    List<Check> checks = new ArrayList<>(audit.checks());
    checks.add(resubmission);
    checks.add(
        new Check(
            "HTTP intake: every order posted ("
                + counts.get(ChaosHttp.Count.ORDERS.name())
                + ", "
                + counts.get(ChaosHttp.Count.REQUESTS.name())
                + " requests with retries and racers) answered 201 under its Idempotency-Key,"
                + " each before its dependents were sent",
            failures.isEmpty(),
            String.join("; ", failures.stream().limit(20).toList())));
    return new StateAudit.Result(checks, audit.lost(), audit.doubled(), audit.wrongDeadLetters());
  }

  private static Duration min(Duration bound, long nanosLeft) {
    Duration left = Duration.ofNanos(Math.max(1, nanosLeft));
    return left.compareTo(bound) < 0 ? left : bound;
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }
}
