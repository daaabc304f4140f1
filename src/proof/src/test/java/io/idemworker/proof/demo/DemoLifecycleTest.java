package io.idemworker.proof.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.proof.producer.DemoLifecycle;
import io.idemworker.proof.producer.DemoScenario;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class DemoLifecycleTest {
  private static final Pattern CURRENCY = Pattern.compile("\"currency\":\"([A-Z]{3})\"");

  @Test
  void sameSeed_generatesTheSameLifecycle() {
    DemoLifecycle a = DemoScenario.generate(40, 7, DemoCommand.MAX_BODY_BYTES).lifecycle;
    DemoLifecycle b = DemoScenario.generate(40, 7, DemoCommand.MAX_BODY_BYTES).lifecycle;

    assertThat(a.credits).isEqualTo(b.credits);
    assertThat(a.wrongCurrency).isEqualTo(b.wrongCurrency);
    assertThat(a.statusOrders).isEqualTo(b.statusOrders);
  }

  @Test
  void credits_areInTheirOrdersCurrency_withUpToFourDecimals_andEachIsRepeatedFromOneSource() {
    DemoScenario scenario = DemoScenario.generate(40, 7, DemoCommand.MAX_BODY_BYTES);
    DemoLifecycle lifecycle = scenario.lifecycle;

    assertThat(lifecycle.credits).isNotEmpty();
    for (DemoLifecycle.Credit credit : lifecycle.credits) {
      assertThat(credit.currency()).isEqualTo(currency(scenario.orders.get(credit.orderId())));
      assertThat(credit.amount().scale()).isBetween(1, 4);
      assertThat(credit.amount().signum()).isPositive();
    }
    Set<DemoLifecycle.Source> used =
        lifecycle.credits.stream().map(DemoLifecycle.Credit::source).collect(Collectors.toSet());
    assertThat(used)
        .isEqualTo(
            EnumSet.of(
                DemoLifecycle.Source.PRODUCER_RETRY,
                DemoLifecycle.Source.CRASH,
                DemoLifecycle.Source.LATE_RESEND,
                DemoLifecycle.Source.CONCURRENT));
    assertThat(lifecycle.credits.stream().map(DemoLifecycle.Credit::creditId).distinct())
        .hasSameSizeAs(lifecycle.credits);
    int mostCreditsOnOneOrder =
        lifecycle.credits.stream()
            .collect(Collectors.groupingBy(DemoLifecycle.Credit::orderId))
            .values()
            .stream()
            .mapToInt(List::size)
            .max()
            .orElse(0);
    assertThat(mostCreditsOnOneOrder).isBetween(2, 3);
  }

  @Test
  void wrongCurrencyCredits_differFromTheirOrder_andTheNeverPlacedOrderIsNeverPlaced() {
    DemoScenario scenario = DemoScenario.generate(40, 7, DemoCommand.MAX_BODY_BYTES);
    DemoLifecycle lifecycle = scenario.lifecycle;

    assertThat(lifecycle.wrongCurrency).hasSize(2);
    for (DemoLifecycle.Credit credit : lifecycle.wrongCurrency) {
      assertThat(credit.currency()).isNotEqualTo(currency(scenario.orders.get(credit.orderId())));
    }
    assertThat(scenario.orders).doesNotContainKey(lifecycle.neverPlaced);
    assertThat(lifecycle.statusOrders).allMatch(scenario.orders::containsKey);
  }

  private static String currency(String body) {
    Matcher m = CURRENCY.matcher(body);
    assertThat(m.find()).isTrue();
    return m.group(1);
  }
}
