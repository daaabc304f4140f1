package io.idemworker.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.servicebus.SubscriptionSettings;
import io.idemworker.emulator.servicebus.TopicSettings;
import io.idemworker.testing.EmulatorClients;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The {@code dlq} family through the real SDK on the Service Bus emulator. */
@AzureEmulators(cosmos = false)
class DlqCommandTest {
  static Emulators azure; // injected by @AzureEmulators
  private String queue;

  @BeforeEach
  void deadLetterThreeMessages() {
    queue = azure.newQueue("q");
    try (ServiceBusSenderClient sender = EmulatorClients.sender(azure, queue);
        ServiceBusReceiverClient receiver =
            EmulatorClients.serviceBusClient(azure)
                .receiver()
                .queueName(queue)
                .disableAutoComplete()
                .buildClient()) {
      deadLetterAll(
          sender,
          receiver,
          List.of(
              message("m-1", "{\"orderId\":\"secret-customer-data\"}"),
              message("m-2", "{}"),
              message("m-3", "{}")),
          List.of("SchemaViolation", "IdempotencyConflict", "SchemaViolation"));
    }
  }

  private static ServiceBusMessage message(String id, String body) {
    ServiceBusMessage message = new ServiceBusMessage(body);
    message.setMessageId(id);
    message.setSubject("OrderPlaced");
    return message;
  }

  private static void deadLetterAll(
      ServiceBusSenderClient sender,
      ServiceBusReceiverClient receiver,
      List<ServiceBusMessage> messages,
      List<String> reasons) {
    messages.forEach(sender::sendMessage);
    List<ServiceBusReceivedMessage> received = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (received.size() < messages.size() && System.nanoTime() < deadline) {
      receiver
          .receiveMessages(messages.size() - received.size(), Duration.ofSeconds(1))
          .forEach(received::add);
    }
    assertThat(received).hasSize(messages.size());
    for (ServiceBusReceivedMessage message : received) {
      int index = Integer.parseInt(message.getMessageId().substring(2)) - 1;
      receiver.deadLetter(
          message,
          new DeadLetterOptions()
              .setDeadLetterReason(reasons.get(index))
              .setDeadLetterErrorDescription("description of " + message.getMessageId()));
    }
  }

  private Map<String, String> env() {
    return Map.of(
        "SERVICEBUS_CONNECTION_STRING",
        azure.serviceBus().connectionString(),
        "SERVICEBUS_QUEUE_NAME",
        queue);
  }

  private record Run(int exit, String out, String err) {
    JsonNode json() {
      try {
        return new ObjectMapper().readTree(out);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + out, e);
      }
    }
  }

  /** Runs {@code dlq ...} with every command of the family on the given environment. */
  private static Run dlq(Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    CommandLine.IFactory factory =
        new CommandLine.IFactory() {
          @Override
          public <K> K create(Class<K> type) throws Exception {
            if (type == DlqListCommand.class) {
              return type.cast(new DlqListCommand(env, o, e));
            }
            if (type == ResubmitCommand.class) {
              return type.cast(new ResubmitCommand(env, o, e, Clock.systemUTC()));
            }
            return CommandLine.defaultFactory().create(type);
          }
        };
    int exit = new CommandLine(new DlqCommand(env, o, e), factory).execute(args);
    return new Run(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void counts_byReasonPerQueue_withoutRemovingAnything() {
    Run text = dlq(env());
    Run json = dlq(env(), "--json");

    assertThat(text.exit()).as(text.err()).isZero();
    assertThat(text.out())
        .containsPattern(queue + " +SchemaViolation +2")
        .containsPattern(queue + " +IdempotencyConflict +1")
        .containsPattern(queue + " +total +3");
    assertThat(json.exit()).isZero();
    JsonNode entity = json.json().at("/entities/0");
    assertThat(entity.get("entity").asText()).isEqualTo(queue);
    assertThat(entity.get("total").asInt()).isEqualTo(3);
    assertThat(entity.get("truncated").asBoolean()).isFalse();
    assertThat(entity.at("/reasons/SchemaViolation").asInt()).isEqualTo(2);
    assertThat(entity.at("/reasons/IdempotencyConflict").asInt()).isEqualTo(1);
    assertThat(EmulatorClients.deadLetters(azure, queue, 3, Duration.ofSeconds(5))).hasSize(3);
  }

  @Test
  void maxBelowTheDepth_saysTheCountIsTruncated() {
    Run json = dlq(env(), "--json", "--max", "2");

    assertThat(json.exit()).isZero();
    assertThat(json.json().at("/entities/0/total").asInt()).isEqualTo(2);
    assertThat(json.json().at("/entities/0/truncated").asBoolean()).isTrue();
  }

  @Test
  void list_byReason_showsIdsAndDescriptions_butNoBodyUnlessAsked() {
    Run list = dlq(env(), "list", "--reason", "SchemaViolation");
    Run withBody = dlq(env(), "list", "--reason", "SchemaViolation", "--show-body");
    Run json = dlq(env(), "list", "--reason", "IdempotencyConflict", "--json");

    assertThat(list.exit()).as(list.err()).isZero();
    assertThat(list.out())
        .contains("m-1  OrderPlaced  SchemaViolation")
        .contains("description of m-1")
        .contains("m-3")
        .doesNotContain("m-2")
        .doesNotContain("secret-customer-data")
        .contains("2 message(s)");
    assertThat(withBody.out()).contains("body: {\"orderId\":\"secret-customer-data\"}");
    assertThat(json.json().get("messages")).hasSize(1);
    JsonNode only = json.json().at("/messages/0");
    assertThat(only.get("messageId").asText()).isEqualTo("m-2");
    assertThat(only.get("description").asText()).isEqualTo("description of m-2");
    assertThat(only.has("body")).isFalse();
  }

  @Test
  void resubmitDryRun_labelsOnlyTheSelectedReason_asWouldResubmit() {
    // given three dead-lettered messages, one with IdempotencyConflict

    // when an operator previews resubmitting that reason only
    Run preview =
        dlq(env(), "resubmit", "--dry-run", "--reason", "IdempotencyConflict", "--wait", "PT2S");

    // then only that message is "would resubmit"; the others are skipped; nothing moved
    assertThat(preview.exit()).as(preview.err()).isZero();
    assertThat(preview.out())
        .containsPattern("would resubmit +m-2")
        .containsPattern("skipped +m-1")
        .containsPattern("skipped +m-3")
        .doesNotContainPattern("would resubmit +m-1")
        .doesNotContainPattern("would resubmit +m-3")
        .contains("dry run: 1 of 3");
    assertThat(EmulatorClients.deadLetters(azure, queue, 3, Duration.ofSeconds(5))).hasSize(3);
  }

  @Test
  void resubmitWithAZeroOrNegativeWait_exitsTwoWithOneLine() {
    for (String wait : List.of("PT0S", "-PT1S", "PT11M")) {
      // when
      Run run = dlq(env(), "resubmit", "--wait", wait);

      // then
      assertThat(run.exit()).as(wait).isEqualTo(2);
      assertThat(run.err().lines()).as(wait).hasSize(1);
      assertThat(run.err()).contains("--wait").doesNotContain("Exception").doesNotContain("\tat ");
    }
  }

  @Test
  void senderChosenControlCharacters_areShownEscaped_neverSentToTheTerminal() {
    // given a dead-lettered message whose MessageId, Subject and description carry terminal
    // escapes (colour, window title, bell) and a fake line
    String hostileQueue = azure.newQueue("q");
    try (ServiceBusSenderClient sender = EmulatorClients.sender(azure, hostileQueue);
        ServiceBusReceiverClient receiver =
            EmulatorClients.serviceBusClient(azure)
                .receiver()
                .queueName(hostileQueue)
                .disableAutoComplete()
                .buildClient()) {
      ServiceBusMessage message = new ServiceBusMessage("{}");
      message.setMessageId("m-\u001b[31mred");
      message.setSubject("Order\u001b]0;owned\u0007Placed\u009b2J");
      sender.sendMessage(message);
      ServiceBusReceivedMessage received =
          receiver.receiveMessages(1, Duration.ofSeconds(5)).iterator().next();
      receiver.deadLetter(
          received,
          new DeadLetterOptions()
              .setDeadLetterReason("SchemaViolation")
              .setDeadLetterErrorDescription("field\r\nresubmitted  fake-line  ok\u202e"));
    }
    Map<String, String> env =
        Map.of(
            "SERVICEBUS_CONNECTION_STRING",
            azure.serviceBus().connectionString(),
            "SERVICEBUS_QUEUE_NAME",
            hostileQueue);

    // when the operator lists and previews the dead-letter queue
    Run list = dlq(env, "list");
    Run preview = dlq(env, "resubmit", "--dry-run", "--wait", "PT2S");

    // then no control character reaches the output, and no fake line appears
    for (Run run : List.of(list, preview)) {
      assertThat(run.exit()).as(run.err()).isZero();
      assertThat(run.out().chars().filter(c -> c != '\n' && (c < 0x20 || (c >= 0x7f && c <= 0x9f))))
          .isEmpty();
      assertThat(run.out()).doesNotContain("\u202e").doesNotContain("\r");
      assertThat(run.out().lines()).noneMatch(line -> line.startsWith("resubmitted  fake-line"));
    }
    assertThat(list.out())
        .contains("m-\\x1b[31mred")
        .contains("Order\\x1b]0;owned\\x07Placed\\u009b2J")
        .contains("field\\r\\nresubmitted  fake-line  ok\\u202e");
    assertThat(preview.out()).contains("m-\\x1b[31mred");
  }

  @Test
  void subscriptionDeadLetterQueue_isCountedBesideTheQueue() {
    String topic = "t-" + UUID.randomUUID().toString().substring(0, 8);
    azure
        .serviceBus()
        .createTopic(
            TopicSettings.defaults(topic).withSubscription(SubscriptionSettings.defaults("audit")));
    try (ServiceBusSenderClient sender =
            EmulatorClients.serviceBusClient(azure).sender().topicName(topic).buildClient();
        ServiceBusReceiverClient receiver =
            EmulatorClients.serviceBusClient(azure)
                .receiver()
                .topicName(topic)
                .subscriptionName("audit")
                .disableAutoComplete()
                .buildClient()) {
      deadLetterAll(sender, receiver, List.of(message("m-1", "{}")), List.of("UnsupportedMessage"));
    }

    Run json = dlq(env(), "--json", "--queue", queue, "--subscription", topic + "/audit");

    assertThat(json.exit()).as(json.err()).isZero();
    assertThat(json.json().at("/entities/1/entity").asText()).isEqualTo(topic + "/audit");
    assertThat(json.json().at("/entities/1/reasons/UnsupportedMessage").asInt()).isEqualTo(1);
    assertThat(json.json().at("/entities/0/total").asInt()).isEqualTo(3);
  }

  @Test
  void resubmit_isPartOfTheFamily() {
    Run run =
        dlq(env(), "resubmit", "--reason", "IdempotencyConflict", "--dry-run", "--wait", "PT1S");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("would resubmit m-2").contains("dry run: 1 of 3");
  }

  @Test
  void unknownQueue_exitsTwo_namingIt() {
    Run run = dlq(env(), "--queue", "no-such-queue-" + UUID.randomUUID());

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("no-such-queue-").contains("not read");
  }

  @Test
  void badEntityOrMissingSettings_exitTwo() {
    assertThat(dlq(env(), "--subscription", "only-a-topic").exit()).isEqualTo(2);
    assertThat(dlq(env(), "--queue", "a/b").exit()).isEqualTo(2);
    Run none = dlq(Map.of());
    assertThat(none.exit()).isEqualTo(2);
    assertThat(none.err()).contains("SERVICEBUS_CONNECTION_STRING");
  }
}
