package io.idemworker.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Keeps the sample order domain out of the library modules: no order type, subject, field,
 * container, queue, topic, metric or environment-variable name, and none of the other business
 * words of the order worker (payments, customers, loyalty), in any main source or POM of {@code
 * src/core}, {@code src/servicebus}, {@code src/cosmos}, {@code src/relay}, {@code src/telemetry}
 * and {@code src/azure}. A source scan rather than an ArchUnit rule, because the names that leak
 * are mostly strings and Javadoc (a span attribute, a log field, a dead-letter description), which
 * class files do not show. An application passes its own names in (the worker's are in {@code
 * io.idemworker.app.OrderTelemetry} and its configuration), and words the library's findings in its
 * own variables' names ({@code io.idemworker.app.StartupRefusals}).
 */
class LibraryFreeOfOrderDomainTest {
  /** English that uses the word: "in order", "in name order", "UTF-16 code unit order". */
  private static final Pattern ENGLISH_ORDER =
      Pattern.compile(
          "\\bin (?:the |their |its |the feed's |sequence |arrival |name |key )?order\\b"
              + "|\\bcode unit order\\b");

  /**
   * The order worker's environment variables, by their prefixes ({@code
   * io.idemworker.app.WorkerVariablesOutOfTheLibraryTest} checks each name the worker reads).
   */
  private static final Pattern WORKER_VARIABLE =
      Pattern.compile("\\b(?:WORKER|SERVICEBUS|COSMOS|HEALTH|RELAY|API|PAYMENTS)_[A-Z]");

  /** What names the order domain, each with what it catches. */
  private static final Map<String, Pattern> DOMAIN =
      Map.of(
          "an order type or subject (OrderPlaced, OrderSession…)",
          Pattern.compile("(?<![A-Za-z])Orders?(?![a-z])|(?<![A-Za-z])Order[A-Z]\\w*"),
          "an order field, container, queue, topic or metric (orderId, orders, order-events…)",
          Pattern.compile("(?<![A-Za-z])orders?(?![a-z])"),
          "an environment variable of the order worker (WORKER_*, SERVICEBUS_*, COSMOS_*, HEALTH_*,"
              + " RELAY_*, API_*, PAYMENTS_*): the library is configured in code, it names its"
              + " builder method or setting instead",
          WORKER_VARIABLE,
          "the order worker's other business (payments, customers, loyalty, credits)",
          Pattern.compile(
              "(?i)payment|customer|loyalty|creditId|(?<![a-z])credited|OrderCredit|\\bsku\\b"),
          "the order worker's sample ids (ord-1, cust-42)",
          Pattern.compile("\\b(?:ord|cust)-[0-9A-Za-z]"));

  @Test
  void libraryModules_nameNothingOfTheOrderDomain() {
    List<String> leaks = new ArrayList<>();
    for (Path file : LibrarySources.files()) {
      List<String> lines = LibrarySources.lines(file);
      for (int i = 0; i < lines.size(); i++) {
        String line = ENGLISH_ORDER.matcher(lines.get(i)).replaceAll("");
        for (Map.Entry<String, Pattern> rule : DOMAIN.entrySet()) {
          Matcher found = rule.getValue().matcher(line);
          if (found.find()) {
            leaks.add(
                LibrarySources.ROOT.relativize(file)
                    + ":"
                    + (i + 1)
                    + ": '"
                    + found.group()
                    + "' is "
                    + rule.getKey());
          }
        }
      }
    }
    assertThat(leaks).as("the library names the sample order domain").isEmpty();
  }

  @Test
  void theScan_findsALeak() {
    String leaky = "line.put(\"orderId\", id); // OrderPlaced on queue orders, WORKER_GAP_TIMEOUT";

    assertThat(DOMAIN.values())
        .allSatisfy(p -> assertThat(p.matcher(leaky + " payment ord-1").find()).isTrue());
    assertThat(ENGLISH_ORDER.matcher("applied in name order").replaceAll(""))
        .doesNotContain("order");
    assertThat(
            List.of(
                "SERVICEBUS_SESSIONS is true",
                "check COSMOS_KEY",
                "{@value HEALTH_PORT}",
                "RELAY_TOPIC_NAME",
                "API_KEY",
                "PAYMENTS_LEASE"))
        .allSatisfy(text -> assertThat(WORKER_VARIABLE.matcher(text).find()).isTrue());
    assertThat(WORKER_VARIABLE.matcher("OTEL_SERVICE_NAME, APPLICATIONINSIGHTS_CONNECTION_STRING"))
        .as("the standard variables of OpenTelemetry and Azure Monitor are no worker's")
        .matches(m -> !m.find());
  }
}
