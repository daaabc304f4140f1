package io.idemworker.servicebus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class DeliveriesTest {
  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

  private static OffsetDateTime lockedFor(Duration left) {
    return OffsetDateTime.ofInstant(NOW.plus(left), ZoneOffset.UTC);
  }

  @Property
  void backoffNeverOutlastsTheLockLessItsMargin(
      @ForAll @LongRange(min = 0, max = 50) long deliveryCount,
      @ForAll @IntRange(min = 0, max = 120_000) int lockLeftMillis) {
    Duration wait =
        Deliveries.backoff(
            deliveryCount,
            lockedFor(Duration.ofMillis(lockLeftMillis)),
            NOW,
            Duration.ofSeconds(30));

    assertThat(wait).isGreaterThanOrEqualTo(Duration.ZERO);
    assertThat(wait.toMillis()).isLessThanOrEqualTo(Math.max(0, lockLeftMillis - 2000));
  }

  @Property
  void backoffGrowsWithDeliveriesUpToTheMaximum(
      @ForAll @LongRange(min = 0, max = 50) long deliveryCount) {
    Duration max = Duration.ofSeconds(2);

    Duration wait = Deliveries.backoff(deliveryCount, lockedFor(Duration.ofMinutes(5)), NOW, max);

    long uncapped = 100L << Math.min(deliveryCount, 10);
    long expectedCeiling = Math.min(uncapped, max.toMillis());
    assertThat(wait.toMillis()).isBetween(expectedCeiling / 2, expectedCeiling);
  }

  @Test
  void aLeaseHeldElsewhere_isWaitedOut_beyondTheMaximumBackoffButInsideTheLock() {
    Duration wait =
        Deliveries.backoff(
            0,
            lockedFor(Duration.ofMinutes(1)),
            NOW,
            Duration.ofSeconds(2),
            java.util.Optional.of(Duration.ofSeconds(20)));
    Duration capped =
        Deliveries.backoff(
            0,
            lockedFor(Duration.ofSeconds(10)),
            NOW,
            Duration.ofSeconds(2),
            java.util.Optional.of(Duration.ofSeconds(20)));

    assertThat(wait).isEqualTo(Duration.ofSeconds(20));
    assertThat(capped).isEqualTo(Duration.ofSeconds(8));
  }

  @Test
  void expiredLock_meansAbandonAtOnce() {
    assertThat(
            Deliveries.backoff(3, lockedFor(Duration.ofMillis(-500)), NOW, Duration.ofSeconds(2)))
        .isZero();
  }

  @Test
  void longDeadLetterDescriptions_areCutToWhatServiceBusAccepts() {
    String description = "x".repeat(10_000);

    assertThat(Settlement.truncate(description)).hasSize(Settlement.MAX_DESCRIPTION_LENGTH);
    assertThat(Settlement.truncate("short")).isEqualTo("short");
  }
}
