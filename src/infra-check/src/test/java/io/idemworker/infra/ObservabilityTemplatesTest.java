package io.idemworker.infra;

import static io.idemworker.infra.Mutations.removeLines;
import static io.idemworker.infra.Mutations.replaceOnce;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The alert rules and the workbook: they query names the telemetry code declares, and each rule and
 * panel is there with the condition that matters. Nothing here deploys; every check is shown to
 * notice the defect it guards against on a broken copy.
 */
class ObservabilityTemplatesTest {
  private static final String ALERTS = Repo.read("infra/modules/alerts.bicep");
  private static final String WORKBOOK = Repo.read("infra/modules/workbook.bicep");
  private static final String WORKBOOK_JSON = Repo.read("infra/modules/workbook.json");
  private static final String MAIN = Repo.read("infra/main.bicep");
  private static final String PARAMETERS = Repo.read("infra/main.parameters.json");
  private static final String MONITORING = Repo.read("infra/modules/monitoring.bicep");
  private static final List<String> JAVA = mainSources();

  private static List<String> mainSources() {
    List<String> sources = new ArrayList<>();
    for (String module : List.of("worker", "servicebus", "cosmos", "relay", "telemetry")) {
      try (Stream<Path> files = Files.walk(Repo.ROOT.resolve("src/" + module + "/src/main/java"))) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          sources.add(Files.readString(file));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return sources;
  }

  private static Map<String, String> templates(String alerts, String workbookJson) {
    return Map.of("alerts.bicep", alerts, "workbook.json", workbookJson);
  }

  private static List<String> replaceInJava(String from, String to) {
    List<String> changed = JAVA.stream().map(s -> s.replace(from, to)).toList();
    assertThat(changed).isNotEqualTo(JAVA);
    return changed;
  }

  /**
   * A daily cap stops ingestion until the workspace's reset, silencing four of the five alerts when
   * load makes them matter: none by default, a documented parameter, an alert when it is reached.
   */
  @Test
  void logAnalyticsDailyCap_isNoneByDefault_aParameter_andAlertedWhenReached() {
    assertThat(ObservabilityChecks.logCap(MAIN, PARAMETERS, MONITORING, ALERTS)).isEmpty();
  }

  @Test
  void aOneGigabyteCapFixedInTheModule_asBeforeTheFix_isReported() {
    String monitoring =
        replaceOnce(MONITORING, "param dailyQuotaGb int = -1", "param dailyQuotaGb int = 1");
    String main = replaceOnce(MAIN, "    dailyQuotaGb: logDailyCapGb\n", "");
    String alerts = removeLines(ALERTS, "resource logCapReached", 34);

    assertThat(ObservabilityChecks.logCap(main, PARAMETERS, monitoring, alerts))
        .contains("monitoring.bicep caps the workspace by default: dailyQuotaGb 1")
        .contains("modules/monitoring.bicep is given dailyQuotaGb: (none)")
        .contains("no alert rule fires when the daily cap is reached (_LogOperation, OverQuota)");
  }

  @Test
  void realTemplates_passEveryCheck() {
    assertThat(
            ObservabilityChecks.names(
                JAVA, templates(ALERTS, WORKBOOK_JSON), ObservabilityChecks.AWAITED))
        .isEmpty();
    assertThat(ObservabilityChecks.alerts(ALERTS)).isEmpty();
    assertThat(ObservabilityChecks.workbook(WORKBOOK, WORKBOOK_JSON)).isEmpty();
    assertThat(ObservabilityChecks.main(MAIN)).isEmpty();
  }

  @Test
  void theNameCheckReadsTheTelemetryCode() {
    assertThat(ObservabilityChecks.declaredMetrics(JAVA))
        .contains(
            "idemworker.messages.outcomes",
            "idemworker.cosmos.calls",
            "idemworker.cosmos.request_charge",
            "idemworker.messages.unbalanced");
    assertThat(ObservabilityChecks.declaredAttributes(JAVA))
        .contains("outcome", "reason", "message_type", "operation", "status_code");
    assertThat(ObservabilityChecks.referencedMetrics(WORKBOOK_JSON))
        .contains("idemworker.messages.outcomes", "idemworker.relay.lag");
    assertThat(ObservabilityChecks.referencedDimensions(ALERTS)).contains("outcome", "reason");
  }

  // Names: a renamed instrument or attribute in the code, or a typo in a template, fails.

  @Test
  void instrumentRenamedInTheCode_isReportedForTheTemplatesThatQueryIt() {
    List<String> renamed =
        replaceInJava("\"idemworker.messages.outcomes\"", "\"idemworker.message.outcomes\"");

    assertThat(
            ObservabilityChecks.names(
                renamed, templates(ALERTS, WORKBOOK_JSON), ObservabilityChecks.AWAITED))
        .contains(
            "alerts.bicep queries metric idemworker.messages.outcomes, which no instrument declares",
            "workbook.json queries metric idemworker.messages.outcomes, which no instrument declares");
  }

  @Test
  void attributeRenamedInTheCode_isReported() {
    List<String> renamed =
        replaceInJava("stringKey(\"operation\")", "stringKey(\"cosmos.operation\")");

    assertThat(
            ObservabilityChecks.names(
                renamed, templates(ALERTS, WORKBOOK_JSON), ObservabilityChecks.AWAITED))
        .contains("workbook.json reads dimension operation, which no attribute key declares");
  }

  @Test
  void typoInAnAlertQuery_isReported() {
    String broken =
        replaceOnce(
            ALERTS,
            "customMetrics | where name == \"idemworker.messages.outcomes\" and cloud_RoleName =="
                + " \"idemworker\" | where",
            "customMetrics | where name == \"idemworker.messages.outcome\" | where");

    assertThat(
            ObservabilityChecks.names(
                JAVA, templates(broken, WORKBOOK_JSON), ObservabilityChecks.AWAITED))
        .contains(
            "alerts.bicep queries metric idemworker.messages.outcome, which no instrument declares");
  }

  @Test
  void relayLagRenamedInTheCode_isReported() {
    List<String> renamed = new ArrayList<>();
    JAVA.forEach(
        line -> renamed.add(line.replace("idemworker.relay.lag", "idemworker.relay.delay")));

    assertThat(
            ObservabilityChecks.names(JAVA, templates(ALERTS, WORKBOOK_JSON), java.util.Set.of()))
        .isEmpty();
    assertThat(
            ObservabilityChecks.names(
                renamed, templates(ALERTS, WORKBOOK_JSON), java.util.Set.of()))
        .contains("alerts.bicep queries metric idemworker.relay.lag, which no instrument declares");
  }

  @Test
  void templateWithoutMetricReferences_isReported() {
    assertThat(
            ObservabilityChecks.names(
                JAVA, templates(ALERTS, "{\"items\":[]}"), ObservabilityChecks.AWAITED))
        .contains("workbook.json queries no idemworker metric (or the reference pattern broke)");
  }

  // Alerts.

  @Test
  void actionGroupCreatedWithoutAnEmail_isReported() {
    String broken = replaceOnce(ALERTS, "= if (notify) {", "= {");

    assertThat(ObservabilityChecks.alerts(broken))
        .contains("the action group is not created only when alertEmail is set");
  }

  @Test
  void rulesNotifyingWithoutAnEmail_areReported() {
    String broken =
        replaceOnce(
            ALERTS,
            "  actionGroups: notify ? [\n    actionGroup.id\n  ] : []",
            "  actionGroups: [\n    actionGroup.id\n  ]");

    assertThat(ObservabilityChecks.alerts(broken))
        .anyMatch(p -> p.startsWith("idempotencyConflict notifies") && p.contains("alertEmail ''"));
  }

  @Test
  void hardCodedEmail_isReported() {
    String broken =
        replaceOnce(ALERTS, "emailAddress: alertEmail", "emailAddress: 'ops@example.org'");

    assertThat(ObservabilityChecks.alerts(broken))
        .contains("the action group's e-mail receiver is not alertEmail");
  }

  @Test
  void conflictRuleMissing_isReported() {
    String broken = ALERTS.replace("\"IdempotencyConflict\"", "\"StoreRejected\"");

    assertThat(ObservabilityChecks.alerts(broken))
        .contains("no log alert rule whose query mentions IdempotencyConflict");
  }

  @Test
  void deadLetterThresholdAboveZero_isReported() {
    String broken =
        replaceOnce(
            ALERTS,
            "          operator: 'GreaterThan'\n          threshold: 0\n          timeAggregation: 'Maximum'",
            "          operator: 'GreaterThan'\n          threshold: 10\n          timeAggregation: 'Maximum'");

    assertThat(ObservabilityChecks.alerts(broken)).contains("rule threshold is 10, expected 0");
  }

  @Test
  void readinessInFiveOneMinutePeriods_isReported() {
    String broken =
        Mutations.replaceAfter(
            ALERTS,
            "resource readiness ",
            "            numberOfEvaluationPeriods: 1\n            minFailingPeriodsToAlert: 1",
            "            numberOfEvaluationPeriods: 5\n            minFailingPeriodsToAlert: 5");

    assertThat(ObservabilityChecks.alerts(broken))
        .anyMatch(p -> p.startsWith("the readiness rule must count failures over one 5-minute"));
  }

  @Test
  void readinessQueryMatchingWordFragmentsWithHas_missesTheFailures() {
    // The query before the fix: `has` matches whole terms, so "fail" never matches "failed" and
    // "Probe" never matches "ProbeFailed"; and count() counts folded rows once.
    String broken =
        ALERTS.replaceFirst(
            "\\| where Log contains \"readiness\".*?\\| summarize failures = [^']*'",
            "| where Log has \"readiness\" and (Log has \"fail\" or Reason has \"Probe\" or Reason"
                + " has \"Unhealthy\") | summarize failures = count()'");

    assertThat(broken).isNotEqualTo(ALERTS);
    assertThat(ObservabilityChecks.alerts(broken))
        .anyMatch(p -> p.contains("does not see the row Probe of readiness failed"))
        .anyMatch(p -> p.contains("counts rows, not the Count"));
  }

  @Test
  void rulesAndWorkbookCountingConsumerOutcomes_areReported() {
    String alerts =
        ALERTS
            .replace(" and cloud_RoleName == \"idemworker\"", "")
            .replace(" and cloud_RoleName == \"idemworker-relay\"", "");
    String workbook =
        Repo.read("infra/modules/workbook.json")
            .replace(" and cloud_RoleName == \\\"idemworker\\\"", "");

    assertThat(ObservabilityChecks.workbookRoles(Repo.read("infra/modules/workbook.json")))
        .isEmpty();
    assertThat(ObservabilityChecks.alerts(alerts))
        .contains(
            "the rule on IdempotencyConflict does not keep to cloud_RoleName idemworker",
            "the rule on \"duplicate\" does not keep to cloud_RoleName idemworker",
            "the rule on idemworker.relay.lag does not keep to cloud_RoleName idemworker-relay");
    assertThat(ObservabilityChecks.workbookRoles(workbook)).hasSize(5);
  }

  @Test
  void duplicateAlertNotSplitBySource_isReported() {
    String unsplit =
        ALERTS.replaceFirst(
            "(?s)          dimensions: \\[\\s*\\{\\s*name: 'source'.*?\\]\\s*\\}\\s*\\]\\n", "");

    assertThat(unsplit).isNotEqualTo(ALERTS);
    assertThat(ObservabilityChecks.alerts(ALERTS))
        .noneMatch(p -> p.contains("not split by duplicate_source"));
    assertThat(ObservabilityChecks.alerts(unsplit))
        .contains("the duplicate-rate rule is not split by duplicate_source");
  }

  @Test
  void kustoHas_matchesWholeTermsOnly() {
    assertThat(KqlFilter.hasTerm("Readiness probe failed: 503", "failed")).isTrue();
    assertThat(KqlFilter.hasTerm("Readiness probe failed: 503", "fail")).isFalse();
    assertThat(KqlFilter.hasTerm("ProbeFailed", "Probe")).isFalse();
    assertThat(KqlFilter.of("T | where A has \"x\" or B contains \"Y\"").passes(Map.of("B", "aya")))
        .isTrue();
  }

  @Test
  void relayThresholdNotTheParameter_isReported() {
    String broken = replaceOnce(ALERTS, "threshold: relayLagThresholdSeconds", "threshold: 60");

    assertThat(ObservabilityChecks.alerts(broken))
        .contains("the relay-lag rule's threshold is not relayLagThresholdSeconds");
  }

  // Workbook.

  @Test
  void workbookWithoutTheDeadLetterPanel_isReported() {
    String broken =
        WORKBOOK_JSON.replace(
            "microsoft.servicebus/namespaces--DeadletteredMessages",
            "microsoft.servicebus/namespaces--ActiveMessages");

    assertThat(ObservabilityChecks.workbook(WORKBOOK, broken))
        .contains("the workbook has no DLQ depth panel (DeadletteredMessages)");
  }

  @Test
  void workbookNotAttachedOrInvalid_isReported() {
    String detached = replaceOnce(WORKBOOK, "    sourceId: applicationInsights.id\n", "");

    assertThat(ObservabilityChecks.workbook(detached, WORKBOOK_JSON))
        .anyMatch(p -> p.startsWith("workbook properties.sourceId is null"));
    assertThat(
            ObservabilityChecks.workbook(
                WORKBOOK, WORKBOOK_JSON.strip().substring(0, WORKBOOK_JSON.strip().length() - 1)))
        .anyMatch(p -> p.startsWith("workbook.json is not valid JSON"));
  }

  @Test
  void mainWithoutTheEmailParameterOrAModule_isReported() {
    String noDefault = replaceOnce(MAIN, "param alertEmail string = ''", "param alertEmail string");
    String noWorkbook =
        replaceOnce(
            MAIN,
            "module workbook 'modules/workbook.bicep'",
            "module workbook 'modules/other.bicep'");

    assertThat(ObservabilityChecks.main(noDefault))
        .contains("main.bicep: param alertEmail must default to '' (no notifications)");
    assertThat(ObservabilityChecks.main(noWorkbook))
        .contains("main.bicep does not call modules/workbook.bicep");
  }
}
