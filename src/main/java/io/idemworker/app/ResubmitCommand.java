package io.idemworker.app;

import io.idemworker.servicebus.DeadLetterResubmitter;
import io.idemworker.servicebus.ServiceBusConnection;
import java.io.PrintStream;
import java.time.Duration;
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
      "Reads the same Service Bus variables as 'run' (SERVICEBUS_CONNECTION_STRING or SERVICEBUS_FULLY_QUALIFIED_NAMESPACE, and SERVICEBUS_QUEUE_NAME). Each message keeps its MessageId, so resubmitting is safe: an order created meanwhile completes as a duplicate. Prints one line per message (ids and reason only). Resubmit after the queue's duplicate-detection window has passed since the first send: inside it the broker drops the copy."
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
      names = "--wait",
      defaultValue = "PT5S",
      description = "How long to wait for more messages (ISO 8601; default ${DEFAULT-VALUE}).")
  Duration wait;

  private final Map<String, String> env;
  private final PrintStream out;

  ResubmitCommand() {
    this(System.getenv(), System.out);
  }

  ResubmitCommand(Map<String, String> env, PrintStream out) {
    this.env = env;
    this.out = out;
  }

  @Override
  public Integer call() {
    Optional<ServiceBusTarget> target = ServiceBusTarget.fromEnvironment(env);
    if (target.isEmpty()) {
      System.err.println("idemworker resubmit: " + ServiceBusTarget.PROBLEM);
      return 2;
    }
    if (max < 1 || max > 100_000) {
      System.err.println("idemworker resubmit: --max must be 1-100000");
      return 2;
    }
    String queue = target.get().queue();
    ServiceBusConnection connection = target.get().connection();
    List<DeadLetterResubmitter.Entry> entries =
        new DeadLetterResubmitter(connection, queue).resubmit(reasons, max, dryRun, wait);
    long resubmitted = entries.stream().filter(DeadLetterResubmitter.Entry::resubmitted).count();
    for (DeadLetterResubmitter.Entry entry : entries) {
      out.printf(
          "%-12s %-40s %s%n",
          entry.resubmitted() ? "resubmitted" : (dryRun ? "would resubmit" : "skipped"),
          entry.messageId(),
          entry.reason());
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
