package io.idemworker.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KeyStrategiesTest {

  private static IncomingMessage message(String messageId, Map<String, Object> properties) {
    return new IncomingMessage(
        Optional.ofNullable(messageId),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        properties,
        new byte[0],
        3);
  }

  @Test
  void messageIdStrategy_usesTheSendersMessageId() {
    assertThat(KeyStrategies.messageId().keyOf(message("ord-1", Map.of())))
        .isEqualTo(new KeyStrategy.Found(new IdempotencyKey("ord-1")));
  }

  @Test
  void messageIdStrategy_rejectsAMissingOrEmptyMessageId() {
    assertThat(KeyStrategies.messageId().keyOf(message("", Map.of())))
        .isInstanceOfSatisfying(
            KeyStrategy.Missing.class,
            missing -> assertThat(missing.reason()).isEqualTo(DeadLetterReason.MISSING_MESSAGE_ID));
  }

  @Test
  void cloudEventsStrategy_combinesSourceAndIdFromEitherBinding() {
    KeyStrategy strategy = KeyStrategies.cloudEvents();

    assertThat(
            strategy.keyOf(
                message("x", Map.of("cloudEvents:source", "/shop", "cloudEvents:id", "e-1"))))
        .isEqualTo(new KeyStrategy.Found(new IdempotencyKey("/shop|e-1")));
    assertThat(strategy.keyOf(message(null, Map.of("ce-source", "/shop", "ce-id", "e-1"))))
        .isEqualTo(new KeyStrategy.Found(new IdempotencyKey("/shop|e-1")));
  }

  @Test
  void cloudEventsStrategy_namesTheMissingAttribute() {
    assertThat(KeyStrategies.cloudEvents().keyOf(message("x", Map.of("ce-source", "/shop"))))
        .isInstanceOfSatisfying(
            KeyStrategy.Missing.class,
            missing -> assertThat(missing.description()).contains("cloudEvents:id"));
  }

  @Test
  void prefixedStrategy_separatesConsumersSharingOneStore() {
    KeyStrategy billing = KeyStrategies.prefixed("billing", KeyStrategies.messageId());

    assertThat(billing.keyOf(message("ord-1", Map.of())))
        .isEqualTo(new KeyStrategy.Found(new IdempotencyKey("billing:ord-1")));
    assertThatThrownBy(() -> KeyStrategies.prefixed(" ", KeyStrategies.messageId()))
        .hasMessageContaining("consumer name");
  }

  @Test
  void keyNeverDependsOnTheDeliveryCount() {
    IncomingMessage first =
        new IncomingMessage(
            Optional.of("ord-1"),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Map.of(),
            new byte[0],
            0);
    IncomingMessage redelivered =
        new IncomingMessage(
            Optional.of("ord-1"),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Map.of(),
            new byte[0],
            7);

    assertThat(KeyStrategies.messageId().keyOf(redelivered))
        .isEqualTo(KeyStrategies.messageId().keyOf(first));
  }

  @Test
  void blankOrOverlongKeys_areRejectedNotThrown() {
    assertThat(KeyStrategies.messageId().keyOf(message("   ", Map.of())))
        .isInstanceOf(KeyStrategy.Missing.class);
    assertThat(
            KeyStrategies.cloudEvents()
                .keyOf(message("x", Map.of("ce-source", "s".repeat(600), "ce-id", "1"))))
        .isInstanceOfSatisfying(
            KeyStrategy.Missing.class,
            missing -> assertThat(missing.description()).contains("longer than 512"));
  }

  @Test
  void nullApplicationPropertyValues_areDroppedNotFatal() {
    java.util.Map<String, Object> properties = new java.util.HashMap<>();
    properties.put("nothing", null);
    properties.put("ce-id", "1");

    IncomingMessage message = message("ord-1", properties);

    assertThat(message.applicationProperties()).containsOnlyKeys("ce-id");
  }
}
