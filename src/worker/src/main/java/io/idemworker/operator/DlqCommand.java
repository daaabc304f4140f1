package io.idemworker.operator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.servicebus.deadletter.DeadLetterReader;
import java.io.PrintStream;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code dlq}: dead-lettered messages counted by reason; {@code list} and {@code resubmit}. */
@Command(
    name = "dlq",
    mixinStandardHelpOptions = true,
    subcommands = {
      DlqListCommand.class,
      ResubmitCommand.class,
      ParkedCommands.Release.class,
      ParkedCommands.Discard.class
    },
    description = {
      "Counts dead-lettered messages by reason, per queue or subscription.",
      "",
      "Reads the same Service Bus variables as 'run' (SERVICEBUS_CONNECTION_STRING or SERVICEBUS_FULLY_QUALIFIED_NAMESPACE, and SERVICEBUS_QUEUE_NAME). Peeks only: nothing is locked, moved or removed. 'dlq list --reason R' shows ids and descriptions (bodies only with --show-body); 'dlq resubmit' sends messages back (the same command as 'resubmit').",
      "",
      "Exit codes: 0 read (also when empty), 2 configuration problem or a dead-letter queue that could not be read."
    })
final class DlqCommand implements Callable<Integer> {

  @Mixin DlqEntities entities = new DlqEntities();

  private final Map<String, String> env;
  private final PrintStream out;
  private final PrintStream err;

  DlqCommand() {
    this(System.getenv(), System.out, System.err);
  }

  DlqCommand(Map<String, String> env, PrintStream out, PrintStream err) {
    this.env = env;
    this.out = TerminalOut.of(out);
    this.err = TerminalOut.of(err);
  }

  @Override
  public Integer call() {
    Optional<DlqEntities.Selection> selection = entities.select(env, err, "dlq");
    if (selection.isEmpty()) {
      return 2;
    }
    DeadLetterReader reader = selection.get().reader();
    ObjectNode json = new ObjectMapper().createObjectNode();
    ArrayNode counted = json.putArray("entities");
    boolean failed = false;
    for (DeadLetterReader.Source source : selection.get().sources()) {
      DeadLetterReader.Peek peek;
      try {
        peek = reader.peek(source, entities.max);
      } catch (RuntimeException e) {
        err.printf(
            "idemworker dlq: %s/$deadletterqueue not read: %s%n",
            source.label(), DlqEntities.firstLine(e));
        failed = true;
        continue;
      }
      Map<String, Long> byReason = new TreeMap<>();
      peek.messages()
          .forEach(
              m -> byReason.merge(m.reason().isEmpty() ? "(none)" : m.reason(), 1L, Long::sum));
      ObjectNode entity = counted.addObject();
      entity.put("entity", source.label());
      entity.put("total", peek.messages().size());
      entity.put("truncated", peek.truncated());
      ObjectNode reasons = entity.putObject("reasons");
      byReason.forEach(reasons::put);
      if (!entities.json) {
        String more = peek.truncated() ? "+ (stopped at --max)" : "";
        byReason.forEach(
            (reason, count) -> out.printf("%-40s %-24s %8d%n", source.label(), reason, count));
        out.printf("%-40s %-24s %8d%s%n", source.label(), "total", peek.messages().size(), more);
      }
    }
    if (entities.json) {
      out.println(json.toPrettyString());
    }
    return failed ? 2 : 0;
  }
}
