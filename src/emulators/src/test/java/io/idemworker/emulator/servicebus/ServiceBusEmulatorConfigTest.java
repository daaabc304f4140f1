package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceBusEmulatorConfigTest {
  private static final String SAMPLE =
      """
      {"UserConfig":{"Namespaces":[{"Name":"sbemulatorns","Queues":[{"Name":"orders",
      "Properties":{"DeadLetteringOnMessageExpiration":false,"DefaultMessageTimeToLive":"PT1H",
      "DuplicateDetectionHistoryTimeWindow":"PT20S","ForwardDeadLetteredMessagesTo":"",
      "ForwardTo":"","LockDuration":"PT1M","MaxDeliveryCount":10,
      "RequiresDuplicateDetection":false,"RequiresSession":false}},
      {"Name":"audit","Properties":{"LockDuration":"00:00:30","MaxDeliveryCount":3,
      "RequiresDuplicateDetection":true,"DeadLetteringOnMessageExpiration":true}}],
      "Topics":[]}],"Logging":{"Type":"File"}}}
      """;

  @Test
  void officialEmulatorConfig_isReadIntoQueueSettings(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("Config.json"), SAMPLE);

    List<QueueSettings> queues = ServiceBusEmulatorConfig.load(file).queues();

    assertThat(queues)
        .containsExactly(
            new QueueSettings(
                "orders",
                Duration.ofMinutes(1),
                10,
                false,
                Duration.ofSeconds(20),
                Duration.ofHours(1),
                false),
            QueueSettings.defaults("audit")
                .withLockDuration(Duration.ofSeconds(30))
                .withMaxDeliveryCount(3)
                .withRequiresDuplicateDetection(true)
                .withDeadLetteringOnMessageExpiration(true));
  }

  @Test
  void configFile_feedsTheBuilder(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("Config.json"), SAMPLE);

    try (ServiceBusEmulator emulator = ServiceBusEmulator.builder().configFile(file).start()) {
      assertThat(emulator.broker().resolve("orders")).isPresent();
      assertThat(emulator.broker().resolve("AUDIT/$DeadLetterQueue")).isPresent();
      assertThat(emulator.connectionString())
          .startsWith("Endpoint=sb://localhost:" + emulator.port() + ";")
          .contains("UseDevelopmentEmulator=true;");
    }
  }

  @Test
  void createQueue_isIdempotentAndKeepsTheFirstSettings() {
    try (ServiceBusEmulator emulator = ServiceBusEmulator.builder().build()) {
      emulator.createQueue(QueueSettings.defaults("jobs").withMaxDeliveryCount(2));
      emulator.createQueue(QueueSettings.defaults("JOBS").withMaxDeliveryCount(7));

      assertThat(emulator.broker().resolve("jobs").orElseThrow().settings().maxDeliveryCount())
          .isEqualTo(2);
    }
  }

  @Test
  void badField_isNamedInTheError() {
    String json = SAMPLE.replace("\"MaxDeliveryCount\":3", "\"MaxDeliveryCount\":0");

    assertThatThrownBy(() -> ServiceBusEmulatorConfig.parse(json, "Config.json"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Queues[1].Properties.")
        .hasMessageContaining("maxDeliveryCount");
  }

  @Test
  void badDuration_isNamedInTheError() {
    String json = SAMPLE.replace("\"PT20S\"", "\"twenty seconds\"");

    assertThatThrownBy(() -> ServiceBusEmulatorConfig.parse(json, "Config.json"))
        .hasMessageContaining("Queues[0].Properties.DuplicateDetectionHistoryTimeWindow")
        .hasMessageContaining("twenty seconds");
  }

  @Test
  void requiresSession_isRead() {
    ServiceBusEmulatorConfig.Entities on =
        ServiceBusEmulatorConfig.parse(
            SAMPLE.replace("\"RequiresSession\":false", "\"RequiresSession\":true"), "c");
    ServiceBusEmulatorConfig.Entities off = ServiceBusEmulatorConfig.parse(SAMPLE, "c");

    assertThat(on.queues().get(0).requiresSession()).isTrue();
    assertThat(off.queues().get(0).requiresSession()).isFalse();
  }

  @Test
  void requiresSession_thatIsNotBoolean_namesTheField() {
    assertThatThrownBy(
            () ->
                ServiceBusEmulatorConfig.parse(
                    SAMPLE.replace("\"RequiresSession\":false", "\"RequiresSession\":\"yes\""),
                    "c"))
        .hasMessageContaining("Queues[0].Properties.RequiresSession");
  }

  @Test
  void notJson_failsClearly() {
    assertThatThrownBy(() -> ServiceBusEmulatorConfig.parse("{", "Config.json"))
        .hasMessageContaining("Config.json: not valid JSON");
    assertThatThrownBy(() -> ServiceBusEmulatorConfig.parse("{}", "Config.json"))
        .hasMessageContaining("UserConfig.Namespaces");
  }

  @Test
  void queueSettings_validateThemselves() {
    QueueSettings ok = QueueSettings.defaults("q");
    assertThat(ok.lockDuration()).isEqualTo(Duration.ofMinutes(1));
    assertThat(ok.maxDeliveryCount()).isEqualTo(10);
    assertThat(ok.duplicateDetectionHistoryTimeWindow()).isEqualTo(Duration.ofMinutes(10));
    assertThat(ok.defaultMessageTimeToLive()).isEqualTo(Duration.ofDays(14));

    assertThatThrownBy(() -> QueueSettings.defaults(" ")).hasMessageContaining("name");
    assertThatThrownBy(() -> QueueSettings.defaults("$cbs")).hasMessageContaining("name");
    assertThatThrownBy(() -> ok.withLockDuration(Duration.ZERO))
        .hasMessageContaining("lockDuration");
    assertThatThrownBy(() -> ok.withMaxDeliveryCount(0)).hasMessageContaining("maxDeliveryCount");
    assertThatThrownBy(() -> ok.withDefaultMessageTimeToLive(Duration.ofSeconds(-1)))
        .hasMessageContaining("defaultMessageTimeToLive");
    assertThatThrownBy(() -> ok.withDuplicateDetectionHistoryTimeWindow(null))
        .hasMessageContaining("duplicateDetectionHistoryTimeWindow");
  }

  @Test
  void timeSpanDurations_areParsed() {
    assertThat(ServiceBusEmulatorConfig.parseDuration("1.02:03:04.5"))
        .isEqualTo(Duration.ofDays(1).plusHours(2).plusMinutes(3).plusSeconds(4).plusMillis(500));
    assertThat(ServiceBusEmulatorConfig.parseDuration("P14D")).isEqualTo(Duration.ofDays(14));
  }
}
