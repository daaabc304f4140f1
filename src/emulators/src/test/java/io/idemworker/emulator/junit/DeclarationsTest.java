package io.idemworker.emulator.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idemworker.emulator.cosmos.ContainerSettings;
import io.idemworker.emulator.servicebus.QueueSettings;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The inline options of {@code @AzureEmulators(queues, containers)}, read and refused. */
class DeclarationsTest {

  @Test
  void aQueueWithEveryOption() {
    QueueSettings q =
        Declarations.queue(
            "orders lockDuration=30s maxDeliveryCount=3 sessions duplicateDetection=PT2M"
                + " ttl=1h deadLetterOnExpiry");

    assertThat(q.name()).isEqualTo("orders");
    assertThat(q.lockDuration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(q.maxDeliveryCount()).isEqualTo(3);
    assertThat(q.requiresSession()).isTrue();
    assertThat(q.requiresDuplicateDetection()).isTrue();
    assertThat(q.duplicateDetectionHistoryTimeWindow()).isEqualTo(Duration.ofMinutes(2));
    assertThat(q.defaultMessageTimeToLive()).isEqualTo(Duration.ofHours(1));
    assertThat(q.deadLetteringOnMessageExpiration()).isTrue();
  }

  @Test
  void aBareQueueName_hasTheDefaults_andKeysAreAnyCase() {
    assertThat(Declarations.queue("  orders  ")).isEqualTo(QueueSettings.defaults("orders"));
    assertThat(Declarations.queue("orders LOCKDURATION=500ms sessions=false duplicateDetection"))
        .isEqualTo(
            QueueSettings.defaults("orders")
                .withLockDuration(Duration.ofMillis(500))
                .withRequiresDuplicateDetection(true));
  }

  @Test
  void aContainerWithRangesAndTtl() {
    assertThat(Declarations.container("shop/orders:/orderId ranges=3 ttl=60s"))
        .isEqualTo(new ContainerSettings("shop", "orders", "/orderId", 3, Optional.of(60)));
    assertThat(Declarations.container("shop/orders:/orderId ttl=2m").defaultTimeToLive())
        .contains(120);
    assertThat(Declarations.container("shop/orders:/orderId ttl=45").defaultTimeToLive())
        .contains(45);
    assertThat(Declarations.container("shop/orders:/orderId ttl=on").defaultTimeToLive())
        .contains(-1);
    assertThat(Declarations.container("shop/orders:/orderId ttl=-1").defaultTimeToLive())
        .contains(-1);
    assertThat(Declarations.container("shop/orders:/a/b"))
        .isEqualTo(ContainerSettings.of("shop", "orders", "/a/b"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "orders lockDuration|'lockduration' needs a value",
        "orders lockDuration=soon|'soon' is not a duration",
        "orders maxDeliveryCount=three|needs a whole number",
        "orders maxDeliveryCount=0|maxDeliveryCount must be >= 1",
        "orders sessions=maybe|is a flag",
        "orders colour=blue|unknown option 'colour'",
        "orders sessions sessions|given twice",
        "orders lockDuration=|is not key=value",
        "-orders|is not 1-260 letters",
      })
  void aMalformedQueue_failsNamingTheEntryAndTheOptions(String declaration, String why) {
    assertThatThrownBy(() -> Declarations.queue(declaration))
        .isInstanceOf(ExtensionConfigurationException.class)
        .hasMessageContaining(why)
        .hasMessageContaining(declaration.trim());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "shop/orders:/orderId ranges=65|between 1 and 64",
        "shop/orders:/orderId ranges=0|between 1 and 64",
        "shop/orders:/orderId ttl=0|positive number of seconds",
        "shop/orders:/orderId ttl=1500ms|positive whole number of seconds",
        "shop/orders:/orderId ttl=-2|-1 (on, no default expiry)",
        "shop/orders:/orderId shards=2|unknown option 'shards'",
        "shop/orders ranges=2|is not database/container:/partitionKeyPath",
      })
  void aMalformedContainer_failsNamingTheEntry(String declaration, String why) {
    assertThatThrownBy(() -> Declarations.container(declaration))
        .isInstanceOf(ExtensionConfigurationException.class)
        .hasMessageContaining(why)
        .hasMessageContaining(declaration);
  }
}
