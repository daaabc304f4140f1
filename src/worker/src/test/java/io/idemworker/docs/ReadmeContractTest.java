package io.idemworker.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.core.DeadLetterReason;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.orders.OrderMessageTypes.MessageType;
import io.idemworker.orders.OrderReasons;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The README's contract agrees with the code: its table of message types lists exactly the
 * registered types with their keys and protections, the contract describes each, its table of
 * events lists the event types the outbox holds, and its table of reason codes lists exactly the
 * reasons the orders queue's flow and business can give.
 */
class ReadmeContractTest {
  private static final String README = Markdown.read(Path.of("README.md"));

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
  void readmeAndTheLongestReferencePages_stayShort() {
    for (String page : List.of("README.md", "docs/benchmarks.md", "docs/chaos.md")) {
      assertThat(Markdown.read(Path.of(page)).lines().count()).as(page).isLessThanOrEqualTo(250);
    }
  }

  @Test
  void contract_describesEveryRegisteredType() {
    String contract = README.substring(README.indexOf("## The message contract"));

    for (String subject : OrderMessageTypes.SUBJECTS) {
      assertThat(contract).as(subject).contains("`" + subject + "`");
    }
  }

  @Test
  void eventTable_listsEveryEventTypeTheOutboxHolds() {
    assertThat(Markdown.table(README, "event").stream().map(row -> row.get(0)))
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

    assertThat(Markdown.table(README, "reason code").stream().map(row -> row.get(0)))
        .containsExactlyInAnyOrderElementsOf(codes);
  }
}
