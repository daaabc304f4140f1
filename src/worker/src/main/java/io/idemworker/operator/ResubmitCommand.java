package io.idemworker.operator;

import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.deadletter.DeadLetterResubmitter;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code resubmit}: dead-lettered messages back to their queue, after the cause is fixed. */
@Command(
    name = "resubmit",
    mixinStandardHelpOptions = true,
    description = {
      "Moves dead-lettered messages back to their queue, unchanged.",
      "",
      "Reads the same Service Bus variables as 'run' (SERVICEBUS_CONNECTION_STRING or SERVICEBUS_FULLY_QUALIFIED_NAMESPACE, and SERVICEBUS_QUEUE_NAME). Each message keeps its MessageId, so resubmitting is safe: an order created meanwhile completes as a duplicate. Prints one line per message (ids and reason only). Resubmit after the queue's duplicate-detection window has passed since the first send: inside it the broker drops the copy.",
      "",
      "Messages protected by an inbox marker (OrderCredited) whose first enqueue is older than WORKER_INBOX_TTL (default P14D) are refused and stay dead-lettered: their marker may have expired, and a copy would apply twice. --force sends them anyway, with a warning."
    })
final class ResubmitCommand implements Callable<Integer> {

  @Option(
      names = "--reason",
      description = "Only messages with this dead-letter reason (repeatable; default: all).")
  Set<String> reasons = new HashSet<>();

  @Option(
      names = "--max",
      defaultValue = "100",
      description = "The most messages to look at (1-100000; default ${DEFAULT-VALUE}).")
  int max;

  @Option(names = "--dry-run", description = "List what would be resubmitted; change nothing.")
  boolean dryRun;

  @Option(
      names = "--force",
      description =
          "Also resubmit marker-protected messages older than the marker TTL (they may apply twice).")
  boolean force;

  @Option(
      names = "--wait",
      defaultValue = "PT5S",
      description =
          "How long to wait for more messages (ISO 8601, PT0.1S-PT10M; default ${DEFAULT-VALUE}).")
  Duration wait;

  /** The shortest and longest {@code --wait}: a receive needs a positive wait. */
  static final Duration MIN_WAIT = Duration.ofMillis(100);

  static final Duration MAX_WAIT = Duration.ofMinutes(10);

  private final Map<String, String> env;
  private final PrintStream out;
  private final PrintStream err;
  private final Clock clock;

  ResubmitCommand() {
    this(System.getenv(), System.out, Clock.systemUTC());
  }

  ResubmitCommand(Map<String, String> env, PrintStream out, Clock clock) {
    this(env, out, System.err, clock);
  }

  ResubmitCommand(Map<String, String> env, PrintStream out, PrintStream err, Clock clock) {
    this.env = env;
    this.out = TerminalOut.of(out);
    this.err = TerminalOut.of(err);
    this.clock = clock;
  }

  @Override
  public Integer call() {
    Optional<ServiceBusTarget> target = ServiceBusTarget.fromEnvironment(env);
    if (target.isEmpty()) {
      err.println("idemworker resubmit: " + ServiceBusTarget.PROBLEM);
      return 2;
    }
    if (max < 1 || max > 100_000) {
      err.println("idemworker resubmit: --max must be 1-100000");
      return 2;
    }
    if (wait.compareTo(MIN_WAIT) < 0 || wait.compareTo(MAX_WAIT) > 0) {
      err.println(
          "idemworker resubmit: --wait must be an ISO 8601 duration from "
              + MIN_WAIT
              + " to "
              + MAX_WAIT
              + ", was "
              + wait);
      return 2;
    }
    Optional<Duration> markerTtl;
    String ttl = env.getOrDefault("WORKER_INBOX_TTL", "P14D").trim();
    try {
      markerTtl =
          "never".equalsIgnoreCase(ttl) ? Optional.empty() : Optional.of(Duration.parse(ttl));
    } catch (DateTimeParseException e) {
      err.println(
          "idemworker resubmit: WORKER_INBOX_TTL: must be an ISO 8601 duration or never, was '"
              + ttl
              + "'");
      return 2;
    }
    String queue = target.get().queue();
    ServiceBusConnection connection = target.get().connection();
    DeadLetterResubmitter.MarkerHorizon horizon =
        new DeadLetterResubmitter.MarkerHorizon(
            OrderMessageTypes::isMarkerProtected, markerTtl, clock, force);
    List<DeadLetterResubmitter.Entry> entries =
        new DeadLetterResubmitter(connection, queue, horizon).resubmit(reasons, max, dryRun, wait);
    long resubmitted = entries.stream().filter(DeadLetterResubmitter.Entry::resubmitted).count();
    for (DeadLetterResubmitter.Entry entry : entries) {
      // A dry run resubmits nothing, so "would resubmit" only for what --reason selects.
      boolean selected = reasons.isEmpty() || reasons.contains(entry.reason());
      String state =
          entry.resubmitted()
              ? (entry.refusal().isPresent() ? "forced" : "resubmitted")
              : entry.refusal().isPresent()
                  ? "refused"
                  : (dryRun && selected ? "would resubmit" : "skipped");
      out.printf("%-12s %-40s %s%n", state, entry.messageId(), entry.reason());
      entry
          .refusal()
          .ifPresent(
              why ->
                  out.printf(
                      "  %s: %s%n",
                      entry.resubmitted() ? "WARNING, forced although" : "refused", why));
    }
    long refused =
        entries.stream().filter(e -> e.refusal().isPresent() && !e.resubmitted()).count();
    if (refused > 0) {
      out.printf(
          "%d message(s) refused: an inbox marker that may have expired (--force sends them"
              + " anyway), or a MessageId this run already resubmitted (a later run may)%n",
          refused);
    }
    out.printf(
        "%s%d of %d dead-lettered message(s) on %s/$deadletterqueue%n",
        dryRun ? "dry run: " : "resubmitted ",
        dryRun
            ? entries.stream()
                .filter(e -> reasons.isEmpty() || reasons.contains(e.reason()))
                .count()
            : resubmitted,
        entries.size(),
        queue);
    return 0;
  }
}
