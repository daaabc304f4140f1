package io.idemworker.proof.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.proof.audit.Check;
import io.idemworker.proof.audit.StateAudit;
import io.idemworker.proof.faults.FaultPlan;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The chaos run's report: what was sent (by kind and by duplicate source), what was injected, what
 * the external audit found, and how long it took. Text for people, JSON for machines.
 *
 * @param seed the run's seed: the same seed replays the same messages and faults
 * @param replay the command line that replays the run
 * @param workers worker processes (orders role)
 * @param consumers consumer processes (one per topic consumer role)
 * @param sent messages the producer sent
 * @param byKind sent messages by message type
 * @param bySource sent messages by duplicate source
 * @param http the HTTP intake's requests, by {@link ChaosHttp.Count}
 * @param webhooks the payment webhooks the double sent (events, copies, attempts, duplicates)
 * @param kills process kills executed, by signal, and restarts
 * @param faults faults injected, by kind
 * @param notInjected faults of the plan not injected, by kind (against given endpoints: the
 *     broker's and the database's, which only the emulators' fault APIs inject); empty otherwise
 * @param external whether the run was given its endpoints rather than starting emulators
 * @param heldBack copies meant to arrive past the duplicate-detection window that were held back
 *     and sent together after the drain and the window (given endpoints; 0 otherwise)
 * @param settled whether the system drained within the timeout
 * @param audit what the audit found
 * @param produceSeconds time from the first send to the last
 * @param totalSeconds time from the first send to the drained system
 * @param loadAverage the machine's one-minute load average at the end, when known
 */
record ChaosReport(
    long seed,
    String replay,
    int workers,
    int consumers,
    long sent,
    Map<String, Long> byKind,
    Map<String, Long> bySource,
    Map<String, Long> http,
    Map<String, Long> webhooks,
    Map<String, Integer> kills,
    Map<String, Integer> faults,
    Map<String, Integer> notInjected,
    boolean external,
    long heldBack,
    boolean settled,
    StateAudit.Result audit,
    double produceSeconds,
    double totalSeconds,
    double loadAverage) {

  /** Why {@link #notInjected}'s kinds were not injected. */
  static final String NOT_INJECTED_REASON =
      "given endpoints: broker and database faults are injected only through the in-process"
          + " emulators' fault APIs";

  ChaosReport {
    notInjected = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(notInjected));
  }

  boolean pass() {
    return settled && audit.pass();
  }

  void printText(PrintStream out) {
    out.printf("%nchaos run, seed %d%n", seed);
    out.printf(
        "  %d worker processes (run, orders role, relay on) + %d consumer processes%n",
        workers, consumers);
    out.printf(
        "  against %s%n",
        external ? "the endpoints given (no emulator started)" : "its own in-process emulators");
    out.printf("  sent %d messages%n", sent);
    byKind.forEach((k, v) -> out.printf("    %-26s %8d%n", k, v));
    out.println("  by duplicate source");
    bySource.forEach(
        (k, v) -> out.printf("    %-26s %8d  %s%n", k, v, ChaosProducer.Source.valueOf(k).label));
    out.println("  HTTP intake (POST /orders, Idempotency-Key)");
    http.forEach(
        (k, v) -> out.printf("    %-26s %8d  %s%n", k, v, ChaosHttp.Count.valueOf(k).label));
    out.println("  payment webhooks (signed, storms, out of order, redelivered)");
    webhooks.forEach((k, v) -> out.printf("    %-26s %8d%n", k, v));
    out.println("  kills and faults injected");
    kills.forEach((k, v) -> out.printf("    %-26s %8d%n", k, v));
    faults.forEach(
        (k, v) -> out.printf("    %-26s %8d  %s%n", k, v, FaultPlan.Kind.valueOf(k).label()));
    if (!notInjected.isEmpty()) {
      out.printf("  faults NOT injected (%s), planned%n", NOT_INJECTED_REASON);
      notInjected.forEach(
          (k, v) -> out.printf("    %-26s %8d  %s%n", k, v, FaultPlan.Kind.valueOf(k).label()));
    }
    if (external) {
      out.printf(
          "  %d copies meant to arrive past the duplicate-detection window held back and sent"
              + " together after the drain and the window (so the CONCURRENT copies were not"
              + " concurrent)%n",
          heldBack);
    }
    out.printf(
        "%naudit (reads Cosmos DB, the dead-letter queues, the provider's ledger and the topic; no worker counter)%n");
    if (!settled) {
      out.println("  [FAIL] the system did not drain within the timeout");
    }
    for (Check check : audit.checks()) {
      out.printf("  [%s] %s%n", check.pass() ? "PASS" : "FAIL", check.claim());
      if (!check.pass()) {
        out.printf("         %s%n", check.detail());
      }
    }
    out.printf(
        "%n  lost = %d, double effects = %d, wrong dead-letters = %d%n",
        audit.lost(), audit.doubled(), audit.wrongDeadLetters());
    out.printf(
        Locale.ROOT,
        "  %.1f s to send, %.1f s until drained, %.0f messages/s end to end; load average %.2f%n",
        produceSeconds,
        totalSeconds,
        sent / Math.max(totalSeconds, 0.001),
        loadAverage);
    out.println(pass() ? "PASS" : "FAIL: replay with  " + replay);
  }

  String json() {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    root.put("result", pass() ? "PASS" : "FAIL");
    root.put("seed", seed);
    root.put("replay", replay);
    root.put("workers", workers);
    root.put("consumers", consumers);
    root.put("messagesSent", sent);
    root.set("messagesByKind", mapper.valueToTree(byKind));
    root.set("messagesByDuplicateSource", mapper.valueToTree(bySource));
    root.set("httpIntake", mapper.valueToTree(http));
    root.set("webhooks", mapper.valueToTree(webhooks));
    root.set("kills", mapper.valueToTree(kills));
    root.set("faults", mapper.valueToTree(faults));
    root.put("endpoints", external ? "given" : "emulators");
    root.set("faultsNotInjected", mapper.valueToTree(notInjected));
    if (!notInjected.isEmpty()) {
      root.put("faultsNotInjectedReason", NOT_INJECTED_REASON);
    }
    root.put("heldBackPastWindow", heldBack);
    root.put("settled", settled);
    root.put("lost", audit.lost());
    root.put("doubleEffects", audit.doubled());
    root.put("wrongDeadLetters", audit.wrongDeadLetters());
    ArrayNode checks = root.putArray("checks");
    List<Check> list = audit.checks();
    for (Check check : list) {
      ObjectNode c = checks.addObject();
      c.put("claim", check.claim());
      c.put("pass", check.pass());
      if (!check.pass()) {
        c.put("detail", check.detail());
      }
    }
    root.put("produceSeconds", round(produceSeconds));
    root.put("totalSeconds", round(totalSeconds));
    root.put("messagesPerSecond", round(sent / Math.max(totalSeconds, 0.001)));
    root.put("loadAverage", round(loadAverage));
    try {
      return mapper.writeValueAsString(root);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }
}
