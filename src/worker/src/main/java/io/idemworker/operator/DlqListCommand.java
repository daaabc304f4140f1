package io.idemworker.operator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.servicebus.deadletter.DeadLetterReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code dlq list}: dead-lettered messages with their ids, reason and description. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = {
      "Lists dead-lettered messages: entity, sequence number, MessageId, Subject, reason, enqueue time and description. Bodies are never shown unless --show-body (they may hold personal data).",
      "",
      "Peeks only: nothing is locked, moved or removed. Exit codes: 0 read (also when nothing matched), 2 configuration problem or a dead-letter queue that could not be read."
    })
final class DlqListCommand implements Callable<Integer> {

  @Mixin DlqEntities entities = new DlqEntities();

  @Option(
      names = "--reason",
      paramLabel = "REASON",
      description = "Only messages with this dead-letter reason (repeatable; default: all).")
  Set<String> reasons = new HashSet<>();

  @Option(
      names = "--show-body",
      description =
          "Also print each body (as UTF-8 text); off by default: bodies may hold personal data.")
  boolean showBody;

  private final Map<String, String> env;
  private final PrintStream out;
  private final PrintStream err;

  DlqListCommand() {
    this(System.getenv(), System.out, System.err);
  }

  DlqListCommand(Map<String, String> env, PrintStream out, PrintStream err) {
    this.env = env;
    this.out = TerminalOut.of(out);
    this.err = TerminalOut.of(err);
  }

  @Override
  public Integer call() {
    Optional<DlqEntities.Selection> selection = entities.select(env, err, "dlq list");
    if (selection.isEmpty()) {
      return 2;
    }
    DeadLetterReader reader = selection.get().reader();
    ObjectNode json = new ObjectMapper().createObjectNode();
    ArrayNode listed = json.putArray("messages");
    boolean failed = false;
    int shown = 0;
    for (DeadLetterReader.Source source : selection.get().sources()) {
      DeadLetterReader.Peek peek;
      try {
        peek = reader.peek(source, entities.max);
      } catch (RuntimeException e) {
        err.printf(
            "idemworker dlq list: %s/$deadletterqueue not read: %s%n",
            source.label(), DlqEntities.firstLine(e));
        failed = true;
        continue;
      }
      for (DeadLetterReader.DeadLetter message : peek.messages()) {
        if (!reasons.isEmpty() && !reasons.contains(message.reason())) {
          continue;
        }
        shown++;
        if (entities.json) {
          listed.add(json(message));
        } else {
          print(message);
        }
      }
      if (peek.truncated()) {
        err.printf(
            "idemworker dlq list: %s/$deadletterqueue has more than --max %d messages; the rest"
                + " were not read%n",
            source.label(), entities.max);
      }
    }
    if (entities.json) {
      out.println(json.toPrettyString());
    } else {
      out.printf("%d message(s)%n", shown);
    }
    return failed ? 2 : 0;
  }

  private void print(DeadLetterReader.DeadLetter message) {
    out.printf(
        "%s #%d  %s  %s  %s  enqueued %s  deliveries %d%n  %s%n",
        message.source().label(),
        message.sequenceNumber(),
        message.messageId().orElse("(no MessageId)"),
        message.subject().orElse("(no Subject)"),
        message.reason().isEmpty() ? "(no reason)" : message.reason(),
        message.enqueuedAt(),
        message.deliveryCount(),
        message.description().orElse("(no description)"));
    if (showBody) {
      out.printf("  body: %s%n", new String(message.body(), StandardCharsets.UTF_8));
    }
  }

  private ObjectNode json(DeadLetterReader.DeadLetter message) {
    ObjectNode node = new ObjectMapper().createObjectNode();
    node.put("entity", message.source().label());
    node.put("sequenceNumber", message.sequenceNumber());
    node.put("messageId", message.messageId().orElse(null));
    node.put("subject", message.subject().orElse(null));
    node.put("correlationId", message.correlationId().orElse(null));
    node.put("reason", message.reason());
    node.put("description", message.description().orElse(null));
    node.put("enqueuedAt", message.enqueuedAt().toString());
    node.put("deliveryCount", message.deliveryCount());
    if (showBody) {
      node.put("body", new String(message.body(), StandardCharsets.UTF_8));
    }
    return node;
  }
}
