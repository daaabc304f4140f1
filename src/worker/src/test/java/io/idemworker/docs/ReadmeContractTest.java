package io.idemworker.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.core.DeadLetterReason;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.OrderMessageTypes.MessageType;
import io.idemworker.orders.OrderReasons;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The contract agrees with the code: the README's table of message types lists exactly the
 * registered types with their keys and protections; the contract page (docs/message-contract.md)
 * describes each, its table of events lists the event types the outbox holds, its table of the
 * orders queue's reason codes lists exactly the reasons the flow and the business can give, and
 * every dead-letter reason any module defines is one of its rows.
 */
class ReadmeContractTest {
  private static final String README = Markdown.read(Path.of("README.md"));
  private static final String CONTRACT = Markdown.read(Path.of("docs/message-contract.md"));
  private static final Pattern REASON = Pattern.compile("new DeadLetterReason\\(\"(\\w+)\"\\)");

  @Test
  void messageTypeTable_listsEveryRegisteredTypeWithItsKeyAndProtection() {
    List<List<String>> rows = Markdown.table(README, "Subject");

    assertThat(rows.stream().map(row -> row.get(0)).toList())
        .containsExactlyElementsOf(OrderMessageTypes.SUBJECTS);
    for (int i = 0; i < rows.size(); i++) {
      MessageType type = OrderMessageTypes.TYPES.get(i);
      List<String> row = rows.get(i);
      assertThat(row.get(1)).as(type.subject() + " key").isEqualTo(type.key());
      assertThat(row.get(2).replace('-', ' '))
          .as(type.subject() + " protection")
          .startsWith(type.protection().name().toLowerCase(Locale.ROOT).replace('_', ' '));
    }
  }

  @Test
  void contract_describesEveryRegisteredType() {
    String bodies = CONTRACT.substring(CONTRACT.indexOf("## The bodies"));

    for (String subject : OrderMessageTypes.SUBJECTS) {
      assertThat(bodies).as(subject).contains("`" + subject + "`");
    }
  }

  @Test
  void eventTable_listsEveryEventTypeTheOutboxHolds() {
    assertThat(Markdown.table(CONTRACT, "event").stream().map(row -> row.get(0)))
        .containsExactlyElementsOf(OrderDocumentIds.EVENT_TYPES);
  }

  @Test
  void reasonCodeTable_listsExactlyTheReasonsOfTheFlowAndTheOrders() throws Exception {
    Set<String> codes = new TreeSet<>();
    for (Class<?> holder : List.of(DeadLetterReason.class, OrderReasons.class)) {
      for (Field field : holder.getFields()) {
        if (Modifier.isStatic(field.getModifiers()) && field.getType() == DeadLetterReason.class) {
          codes.add(((DeadLetterReason) field.get(null)).code());
        }
      }
    }

    assertThat(Markdown.table(CONTRACT, "reason code").stream().map(row -> row.get(0)))
        .containsExactlyInAnyOrderElementsOf(codes);
  }

  @Test
  void everyDeadLetterReasonAnyModuleDefines_isARowOfTheContract() throws IOException {
    Set<String> defined = new TreeSet<>();
    try (Stream<Path> modules = Files.list(Path.of("src"))) {
      for (Path main : modules.map(m -> m.resolve("src/main/java")).toList()) {
        if (!Files.isDirectory(main)) {
          continue;
        }
        try (Stream<Path> sources = Files.walk(main)) {
          for (Path source : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
            Matcher reason = REASON.matcher(Files.readString(source));
            while (reason.find()) {
              defined.add(reason.group(1));
            }
          }
        }
      }
    }
    List<String> documented = new ArrayList<>();
    Markdown.table(CONTRACT, "reason code").forEach(row -> documented.add(row.get(0)));
    Markdown.table(CONTRACT, "reason code (other roles)")
        .forEach(row -> documented.add(row.get(0)));

    assertThat(defined).contains("CustomerDocumentMissing", "SessionIdMismatch", "OrderNotFound");
    assertThat(documented).containsExactlyInAnyOrderElementsOf(defined);
  }
}
