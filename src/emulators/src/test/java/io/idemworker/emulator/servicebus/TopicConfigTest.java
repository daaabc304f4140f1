package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicConfigTest {
  private static final String SAMPLE =
      """
      {"UserConfig":{"Namespaces":[{"Name":"sbemulatorns","Queues":[],
      "Topics":[{"Name":"order-events","Properties":{"DefaultMessageTimeToLive":"PT1H",
        "DuplicateDetectionHistoryTimeWindow":"PT20S","RequiresDuplicateDetection":true},
        "Subscriptions":[
          {"Name":"loyalty","Properties":{"DeadLetteringOnMessageExpiration":true,
            "DefaultMessageTimeToLive":"PT30M","LockDuration":"PT2M","MaxDeliveryCount":3,
            "ForwardTo":"","ForwardDeadLetteredMessagesTo":"","RequiresSession":false},
           "Rules":[{"Name":"accepted","Properties":{"FilterType":"Correlation",
             "CorrelationFilter":{"Label":"OrderAccepted","ContentType":"application/json",
               "Properties":{"region":"eu","priority":2}}}}]},
          {"Name":"eu-sql","Rules":[{"Name":"eu","Properties":{"FilterType":"Sql",
             "SqlFilter":{"SqlExpression":"sys.Label = 'OrderAccepted' AND region = 'eu'"}}}]},
          {"Name":"all"}]}]}],
      "Logging":{"Type":"File"}}}
      """;

  @Test
  void topicsSection_isReadIntoTopicSettings() {
    ServiceBusEmulatorConfig.Entities entities = ServiceBusEmulatorConfig.parse(SAMPLE, "c");

    assertThat(entities.queues()).isEmpty();
    TopicSettings topic = entities.topics().get(0);
    assertThat(topic.name()).isEqualTo("order-events");
    assertThat(topic.requiresDuplicateDetection()).isTrue();
    assertThat(topic.duplicateDetectionHistoryTimeWindow()).isEqualTo(Duration.ofSeconds(20));
    assertThat(topic.defaultMessageTimeToLive()).isEqualTo(Duration.ofHours(1));
    assertThat(topic.subscriptions())
        .containsExactly(
            SubscriptionSettings.defaults("loyalty")
                .withDeadLetteringOnMessageExpiration(true)
                .withDefaultMessageTimeToLive(Duration.ofMinutes(30))
                .withLockDuration(Duration.ofMinutes(2))
                .withMaxDeliveryCount(3)
                .withRule(
                    SubscriptionRule.correlation(
                        "accepted",
                        new CorrelationFilter(
                            Map.of("Label", "OrderAccepted", "ContentType", "application/json"),
                            Map.of("region", "eu", "priority", 2L)))),
            SubscriptionSettings.defaults("eu-sql")
                .withRule(
                    SubscriptionRule.sql("eu", "sys.Label = 'OrderAccepted' AND region = 'eu'")),
            SubscriptionSettings.defaults("all"));
    assertThat(topic.subscriptions().get(2).effectiveRules())
        .containsExactly(SubscriptionRule.DEFAULT);
  }

  @Test
  void repositoryConfig_hasOrderEventsWithTwoSubscriptionsOnOrderAccepted() {
    ServiceBusEmulatorConfig.Entities entities =
        ServiceBusEmulatorConfig.load(Path.of("local", "servicebus", "Config.json"));

    TopicSettings topic = entities.topics().get(0);
    assertThat(topic.name()).isEqualTo("order-events");
    assertThat(topic.subscriptions())
        .extracting(SubscriptionSettings::name)
        .containsExactly("loyalty", "customer-stats");
    assertThat(topic.subscriptions())
        .allSatisfy(
            s ->
                assertThat(s.rules())
                    .extracting(SubscriptionRule::filter)
                    .containsExactly(CorrelationFilter.subject("OrderAccepted")));
  }

  @Test
  void badSubscriptionValue_isNamedInTheError() {
    String json = SAMPLE.replace("\"MaxDeliveryCount\":3", "\"MaxDeliveryCount\":0");

    assertThatThrownBy(() -> ServiceBusEmulatorConfig.parse(json, "Config.json"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Topics[0].Subscriptions[0].Properties.")
        .hasMessageContaining("maxDeliveryCount");
  }

  @Test
  void badTopicDuration_isNamedInTheError() {
    String json = SAMPLE.replace("\"PT20S\"", "\"soon\"");

    assertThatThrownBy(() -> ServiceBusEmulatorConfig.parse(json, "Config.json"))
        .hasMessageContaining("Topics[0].Properties.DuplicateDetectionHistoryTimeWindow")
        .hasMessageContaining("soon");
  }

  @Test
  void badRules_areNamedInTheError() {
    List.of(
            Map.entry(
                SAMPLE.replace("\"FilterType\":\"Sql\"", "\"FilterType\":\"Boolean\""),
                "Subscriptions[1].Rules[0].Properties.FilterType"),
            Map.entry(
                SAMPLE.replace("AND region = 'eu'", "AND region ="),
                "Subscriptions[1].Rules[0].Properties.SqlFilter.SqlExpression"),
            Map.entry(
                SAMPLE.replace("AND region = 'eu'", "AND region = 'eu' + 1"),
                "Subscriptions[1].Rules[0].Properties.SqlFilter.SqlExpression"),
            Map.entry(
                SAMPLE.replace("\"Label\":\"OrderAccepted\",", "\"Colour\":\"red\","),
                "Subscriptions[0].Rules[0].Properties.CorrelationFilter"),
            Map.entry(
                SAMPLE.replace(
                    "\"FilterType\":\"Sql\",",
                    "\"FilterType\":\"Sql\",\"Action\":{\"SqlExpression\":\"SET a = 1\"},"),
                "Subscriptions[1].Rules[0].Properties.Action"))
        .forEach(
            c ->
                assertThatThrownBy(() -> ServiceBusEmulatorConfig.parse(c.getKey(), "Config.json"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(c.getValue()));
  }

  @Test
  void subscriptionRequiresSession_isReadAndForwardingRefused() {
    ServiceBusEmulatorConfig.Entities entities =
        ServiceBusEmulatorConfig.parse(
            SAMPLE.replace("\"RequiresSession\":false", "\"RequiresSession\":true"), "c");
    assertThat(entities.topics().get(0).subscriptions().get(0).requiresSession()).isTrue();
    assertThat(entities.topics().get(0).subscriptions().get(1).requiresSession()).isFalse();
    assertThatThrownBy(
            () ->
                ServiceBusEmulatorConfig.parse(
                    SAMPLE.replace("\"ForwardTo\":\"\"", "\"ForwardTo\":\"q\""), "c"))
        .hasMessageContaining("Subscriptions[0].Properties.ForwardTo");
  }

  @Test
  void settings_validateThemselves() {
    assertThatThrownBy(() -> SubscriptionSettings.defaults("a/b")).hasMessageContaining("'/'");
    assertThatThrownBy(() -> TopicSettings.defaults("t/Subscriptions/x"))
        .hasMessageContaining("Subscriptions");
    assertThatThrownBy(
            () ->
                TopicSettings.defaults("t")
                    .withSubscription(SubscriptionSettings.defaults("s"))
                    .withSubscription(SubscriptionSettings.defaults("S")))
        .hasMessageContaining("used twice");
    assertThatThrownBy(() -> new CorrelationFilter(Map.of(), Map.of()))
        .hasMessageContaining("at least one");
    assertThatThrownBy(() -> new SqlFilter("region = "))
        .hasMessageContaining("position 10")
        .hasMessageContaining("operand");
  }

  @Test
  void queueAndTopicNames_mayNotCollide() {
    try (ServiceBusEmulator emulator = ServiceBusEmulator.builder().build()) {
      emulator.createTopic(
          TopicSettings.defaults("events").withSubscription(SubscriptionSettings.defaults("s")));
      emulator.createQueue(QueueSettings.defaults("jobs"));

      assertThatThrownBy(() -> emulator.createQueue(QueueSettings.defaults("EVENTS")))
          .hasMessageContaining("EVENTS");
      assertThatThrownBy(
              () -> emulator.createQueue(QueueSettings.defaults("events/subscriptions/S")))
          .hasMessageContaining("subscription");
      assertThatThrownBy(() -> emulator.createTopic(TopicSettings.defaults("Jobs")))
          .hasMessageContaining("queue");
      assertThat(emulator.broker().resolve("events/Subscriptions/s")).isPresent();
      assertThat(emulator.broker().resolve("events")).isEmpty();
      assertThat(emulator.broker().resolveSink("events")).isPresent();
    }
  }
}
