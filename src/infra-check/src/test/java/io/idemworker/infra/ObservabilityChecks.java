package io.idemworker.infra;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks of the alert rules and the workbook: that they query metrics and dimensions the telemetry
 * code declares (so a renamed instrument fails the build instead of a silent alert), and that each
 * rule and panel the operators rely on is there with the condition that matters. Each check returns
 * its problems; empty means it passed.
 */
final class ObservabilityChecks {
  /**
   * Metrics a template may use before the code that emits them exists (none today). Once a name
   * here is declared in the code, the check asks for it to be removed, so that from then on a
   * rename fails the build.
   */
  static final Set<String> AWAITED = Set.of();

  private static final Pattern INSTRUMENT =
      Pattern.compile("(?:counter|histogram|gauge|upDownCounter)Builder\\(\\s*\"([^\"]+)\"\\s*\\)");
  private static final Pattern ATTRIBUTE =
      Pattern.compile("AttributeKey\\.\\w+Key\\(\\s*\"([^\"]+)\"\\s*\\)");
  private static final Pattern METRIC_REFERENCE =
      Pattern.compile("name\\s*==\\s*\\\\?\"(idemworker\\.[^\"\\\\]+)\\\\?\"");
  private static final Pattern DIMENSION_REFERENCE =
      Pattern.compile("customDimensions\\[\\\\?\"([^\"\\\\]+)\\\\?\"\\]");
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private ObservabilityChecks() {}

  static Set<String> declaredMetrics(Collection<String> javaSources) {
    return all(INSTRUMENT, javaSources);
  }

  static Set<String> declaredAttributes(Collection<String> javaSources) {
    return all(ATTRIBUTE, javaSources);
  }

  static Set<String> referencedMetrics(String text) {
    return all(METRIC_REFERENCE, List.of(text));
  }

  static Set<String> referencedDimensions(String text) {
    return all(DIMENSION_REFERENCE, List.of(text));
  }

  private static Set<String> all(Pattern pattern, Collection<String> texts) {
    Set<String> found = new TreeSet<>();
    for (String text : texts) {
      Matcher m = pattern.matcher(text);
      while (m.find()) {
        found.add(m.group(1));
      }
    }
    return found;
  }

  /**
   * Every metric and dimension name the templates query is declared in the code.
   *
   * @param javaSources the main sources
   * @param templates file name to text, for each template that queries metrics
   * @param awaited metric names allowed while undeclared
   * @return the problems
   */
  static List<String> names(
      Collection<String> javaSources, Map<String, String> templates, Set<String> awaited) {
    List<String> problems = new ArrayList<>();
    Set<String> metrics = declaredMetrics(javaSources);
    Set<String> attributes = declaredAttributes(javaSources);
    for (String name : new TreeSet<>(awaited)) {
      if (metrics.contains(name)) {
        problems.add(
            name
                + " is declared in the code now: remove it from ObservabilityChecks.AWAITED so a"
                + " rename fails the build");
      }
    }
    templates.forEach(
        (file, text) -> {
          Set<String> used = referencedMetrics(text);
          if (used.isEmpty()) {
            problems.add(file + " queries no idemworker metric (or the reference pattern broke)");
          }
          for (String name : used) {
            if (!metrics.contains(name) && !awaited.contains(name)) {
              problems.add(file + " queries metric " + name + ", which no instrument declares");
            }
          }
          for (String dimension : referencedDimensions(text)) {
            if (!attributes.contains(dimension)) {
              problems.add(
                  file + " reads dimension " + dimension + ", which no attribute key declares");
            }
          }
        });
    return problems;
  }

  /** The five alert rules, their conditions, and notifications only with an e-mail address. */
  static List<String> alerts(String source) {
    List<String> problems = new ArrayList<>();
    Bicep.Template t = Bicep.parse(source);
    if (!Pattern.compile("var notify = !empty\\(alertEmail\\)").matcher(source).find()
        || !Pattern.compile("resource actionGroup '[^']+' = if \\(notify\\)")
            .matcher(source)
            .find()) {
      problems.add("the action group is not created only when alertEmail is set");
    }
    for (String email : List.of("", "ops@example.com")) {
      BicepEval eval = new BicepEval(t, Map.of("alertEmail", email));
      Object receivers =
          BicepEval.at(eval.resource("actionGroup"), "properties.emailReceivers").orElse(List.of());
      if (!(receivers instanceof List<?> list)
          || list.size() != 1
          || !Objects.equals(BicepEval.at(list.get(0), "emailAddress").orElse(null), email)) {
        problems.add("the action group's e-mail receiver is not alertEmail");
      }
      List<Object> expected =
          email.isEmpty() ? List.of() : List.of(new BicepEval.Opaque("actionGroup.id"));
      for (Bicep.Declaration rule : t.resourcesOfType("Microsoft.Insights/scheduledQueryRules")) {
        Object groups =
            BicepEval.at(eval.resource(rule.name()), "properties.actions.actionGroups")
                .orElse(null);
        if (!expected.equals(groups)) {
          problems.add(
              rule.name()
                  + " notifies "
                  + groups
                  + " with alertEmail '"
                  + email
                  + "' (expected "
                  + expected
                  + ")");
        }
      }
      for (Bicep.Declaration rule : t.resourcesOfType("Microsoft.Insights/metricAlerts")) {
        Object actions =
            BicepEval.at(eval.resource(rule.name()), "properties.actions").orElse(null);
        boolean notifies = actions instanceof List<?> list && !list.isEmpty();
        if (notifies == email.isEmpty()) {
          problems.add(rule.name() + " notifies=" + notifies + " with alertEmail '" + email + "'");
        }
      }
    }
    BicepEval eval = new BicepEval(t, Map.of());
    queryRule(t, eval, "IdempotencyConflict", problems)
        .ifPresent(
            r -> {
              expect(r, "operator", "GreaterThan", problems);
              expect(r, "threshold", 0L, problems);
            });
    queryRule(t, eval, "idemworker.relay.lag", problems)
        .ifPresent(
            r -> {
              expect(r, "operator", "GreaterThan", problems);
              if (!t.find("param", "relayLagThresholdSeconds").isPresent()
                  || !Objects.equals(
                      r.get("threshold"), eval.expression("relayLagThresholdSeconds"))) {
                problems.add("the relay-lag rule's threshold is not relayLagThresholdSeconds");
              }
            });
    queryRule(t, eval, "\"duplicate\"", problems)
        .ifPresent(
            r -> {
              expect(r, "operator", "GreaterThan", problems);
              // Each source has its own cause and fix: the alert says which one rose.
              if (!String.valueOf(r.get("query")).contains("customDimensions[\"duplicate_source\"]")
                  || !String.valueOf(r.get("dimensions")).contains("name=source")) {
                problems.add("the duplicate-rate rule is not split by duplicate_source");
              }
            });
    // The consumer apps and the relay emit the same instruments (idemworker-loyalty,
    // idemworker-customer-stats, idemworker-relay): the worker's rules must not count theirs.
    roleFiltered(t, eval, "IdempotencyConflict", "idemworker", problems);
    roleFiltered(t, eval, "\"duplicate\"", "idemworker", problems);
    roleFiltered(t, eval, "idemworker.relay.lag", "idemworker-relay", problems);
    readiness(t, problems);
    deadLetters(t, eval, problems);
    return problems;
  }

  private static void roleFiltered(
      Bicep.Template t, BicepEval eval, String marker, String role, List<String> problems) {
    queryRule(t, eval, marker, new ArrayList<>())
        .map(r -> String.valueOf(r.get("query")))
        .filter(q -> !q.contains("cloud_RoleName == \"" + role + "\""))
        .ifPresent(
            q ->
                problems.add("the rule on " + marker + " does not keep to cloud_RoleName " + role));
  }

  /**
   * Every workbook query on the outcome metric keeps to the order worker's role, so consumer
   * duplicates and dead-letters do not mix into the worker's figures.
   */
  static List<String> workbookRoles(String workbookJson) {
    List<String> problems = new ArrayList<>();
    Matcher m = Pattern.compile("\"query\": \"((?:[^\"\\\\]|\\\\.)*)\"").matcher(workbookJson);
    while (m.find()) {
      String query = m.group(1).replace("\\\"", "\"");
      if (query.contains("idemworker.messages.outcomes")
          && !query.contains(
              "idemworker.messages.outcomes\" and cloud_RoleName == \"idemworker\"")) {
        problems.add("a workbook query mixes every role's outcomes: " + query);
      }
    }
    return problems;
  }

  private static java.util.Optional<Map<?, ?>> queryRule(
      Bicep.Template t, BicepEval eval, String marker, List<String> problems) {
    for (Bicep.Declaration rule : t.resourcesOfType("Microsoft.Insights/scheduledQueryRules")) {
      Object criterion =
          BicepEval.at(eval.resource(rule.name()), "properties.criteria.allOf")
              .filter(List.class::isInstance)
              .map(l -> ((List<?>) l).isEmpty() ? null : ((List<?>) l).get(0))
              .orElse(null);
      if (criterion instanceof Map<?, ?> map && String.valueOf(map.get("query")).contains(marker)) {
        return java.util.Optional.of(map);
      }
    }
    problems.add("no log alert rule whose query mentions " + marker);
    return java.util.Optional.empty();
  }

  private static void expect(Map<?, ?> criterion, String key, Object value, List<String> problems) {
    Object actual = criterion.get(key);
    if (actual instanceof Number n && value instanceof Number v) {
      if (n.doubleValue() != v.doubleValue()) {
        problems.add("rule " + key + " is " + actual + ", expected " + value);
      }
    } else if (!Objects.equals(actual, value)) {
      problems.add("rule " + key + " is " + actual + ", expected " + value);
    }
  }

  /**
   * Rows the Container Apps platform writes to ContainerAppSystemLogs when a readiness probe fails
   * (both phrasings seen in the platform's logs: the kubelet's and the platform's own), and rows it
   * must not count. Repeated events are folded into one row with a {@code Count}.
   */
  static final List<Map<String, String>> READINESS_FAILURES =
      List.of(
          Map.of(
              "ContainerAppName", "ca-worker-test",
              "Reason", "ProbeFailed",
              "Log", "Probe of readiness failed with status code: 503"),
          Map.of(
              "ContainerAppName", "ca-worker-test",
              "Reason", "Unhealthy",
              "Log", "Readiness probe failed: HTTP probe failed with statuscode: 503"));

  static final List<Map<String, String>> NOT_READINESS_FAILURES =
      List.of(
          Map.of(
              "ContainerAppName", "ca-worker-test",
              "Reason", "ProbeFailed",
              "Log", "Probe of liveness failed with status code: 503"),
          Map.of(
              "ContainerAppName", "ca-other-test",
              "Reason", "ProbeFailed",
              "Log", "Probe of readiness failed with status code: 503"));

  private static void readiness(Bicep.Template t, List<String> problems) {
    BicepEval eval = new BicepEval(t, Map.of("workerAppName", "ca-worker-test"));
    for (Bicep.Declaration rule : t.resourcesOfType("Microsoft.Insights/scheduledQueryRules")) {
      Map<String, Object> body = eval.resource(rule.name());
      Object criteria = BicepEval.at(body, "properties.criteria").orElse("");
      if (!String.valueOf(criteria).contains("ContainerAppSystemLogs")) {
        continue;
      }
      Duration window =
          Duration.parse(String.valueOf(BicepEval.at(body, "properties.windowSize").orElse("")));
      Map<?, ?> criterion =
          (Map<?, ?>)
              ((List<?>) BicepEval.at(body, "properties.criteria.allOf").orElseThrow()).get(0);
      Map<?, ?> periods = (Map<?, ?>) criterion.get("failingPeriods");
      long evaluated = ((Number) periods.get("numberOfEvaluationPeriods")).longValue();
      long failing = ((Number) periods.get("minFailingPeriodsToAlert")).longValue();
      // Folded rows may be written less than once a minute: a rule that wants a row in each of
      // several short periods can miss a worker that never became ready.
      if (!window.equals(Duration.ofMinutes(5)) || evaluated != 1 || failing != 1) {
        problems.add(
            "the readiness rule must count failures over one 5-minute window, not "
                + failing
                + " of "
                + evaluated
                + " x "
                + window);
      }
      String query = String.valueOf(criterion.get("query"));
      KqlFilter filter = KqlFilter.of(query);
      for (Map<String, String> row : READINESS_FAILURES) {
        if (!filter.passes(row)) {
          problems.add("the readiness rule does not see the row " + row.get("Log"));
        }
      }
      for (Map<String, String> row : NOT_READINESS_FAILURES) {
        if (filter.passes(row)) {
          problems.add("the readiness rule counts the row " + row);
        }
      }
      if (!query.replace(" ", "").contains("summarizefailures=sum(") || !query.contains("Count")) {
        problems.add("the readiness rule counts rows, not the Count of folded events");
      }
      Object threshold = criterion.get("threshold");
      if (!(threshold instanceof Long n) || n < 3 || n > 18) {
        problems.add(
            "the readiness rule's threshold is "
                + threshold
                + ": a probe every 10 s fails about 30 times in 5 minutes; 3-18 failures means"
                + " 30 s to 3 min of them");
      }
      return;
    }
    problems.add("no readiness rule over ContainerAppSystemLogs");
  }

  private static void deadLetters(Bicep.Template t, BicepEval eval, List<String> problems) {
    List<Bicep.Declaration> rules = t.resourcesOfType("Microsoft.Insights/metricAlerts");
    for (Bicep.Declaration rule : rules) {
      Map<String, Object> body = eval.resource(rule.name());
      Object all = BicepEval.at(body, "properties.criteria.allOf").orElse(List.of());
      for (Object c : (List<?>) all) {
        Map<?, ?> criterion = (Map<?, ?>) c;
        if (!"DeadletteredMessages".equals(criterion.get("metricName"))) {
          continue;
        }
        expect(criterion, "operator", "GreaterThan", problems);
        expect(criterion, "threshold", 0L, problems);
        if (!String.valueOf(criterion.get("dimensions")).contains("EntityName")) {
          problems.add("the dead-letter rule is not split by EntityName (queue or subscription)");
        }
        if (!String.valueOf(BicepEval.at(body, "properties.scopes").orElse(""))
            .contains("serviceBus.id")) {
          problems.add("the dead-letter rule is not scoped to the Service Bus namespace");
        }
        return;
      }
    }
    problems.add("no metric alert on the Service Bus metric DeadletteredMessages");
  }

  /** The workbook: valid, attached to Application Insights, with every panel the issue lists. */
  static List<String> workbook(String bicep, String json) {
    List<String> problems = new ArrayList<>();
    Bicep.Template t = Bicep.parse(bicep);
    List<Bicep.Declaration> workbooks = t.resourcesOfType("Microsoft.Insights/workbooks");
    if (workbooks.size() != 1) {
      problems.add("expected one Microsoft.Insights/workbooks resource, found " + workbooks.size());
      return problems;
    }
    Map<String, Object> body = new BicepEval(t, Map.of()).resource(workbooks.get(0).name());
    expectAt(body, "kind", "shared", problems);
    expectAt(body, "properties.category", "workbook", problems);
    expectAt(body, "properties.sourceId", new BicepEval.Opaque("applicationInsights.id"), problems);
    if (!t.body(workbooks.get(0)).text("name").orElse("").startsWith("guid(")) {
      problems.add("a workbook's name must be a GUID: use guid(...)");
    }
    for (String placeholder : List.of("__APP_INSIGHTS_ID__", "__SERVICE_BUS_ID__")) {
      if (!bicep.contains("'" + placeholder + "'") || !json.contains(placeholder)) {
        problems.add(placeholder + " is not both in workbook.json and replaced in the template");
      }
    }
    if (!bicep.contains("loadTextContent('workbook.json')")) {
      problems.add("the template does not load workbook.json");
    }
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      problems.add("workbook.json is not valid JSON: " + e.getOriginalMessage());
      return problems;
    }
    if (!"Notebook/1.0".equals(root.path("version").asText())) {
      problems.add("workbook.json version is not Notebook/1.0");
    }
    List<String> panels = new ArrayList<>();
    for (JsonNode item : root.path("items")) {
      JsonNode content = item.path("content");
      panels.add(content.path("query").asText() + " " + content.path("metrics").toString());
      if (item.path("type").asInt() == 3
          && !content.path("crossComponentResources").toString().contains("__APP_INSIGHTS_ID__")) {
        problems.add(
            "query " + item.path("name").asText() + " is not bound to Application Insights");
      }
    }
    Map<String, String> required =
        Map.of(
            "outcome mix", "customDimensions[\"outcome\"]",
            "duplicate rate by message type", "\"duplicate\"",
            "duplicates by source", "customDimensions[\"duplicate_source\"]",
            "round trips per path", "idemworker.cosmos.calls",
            "RU per path", "idemworker.cosmos.request_charge",
            "DLQ depth", "DeadletteredMessages",
            "relay lag", "idemworker.relay.lag");
    required.forEach(
        (panel, marker) -> {
          if (panels.stream().noneMatch(p -> p.contains(marker))) {
            problems.add("the workbook has no " + panel + " panel (" + marker + ")");
          }
        });
    return problems;
  }

  private static void expectAt(
      Map<String, Object> body, String path, Object expected, List<String> problems) {
    Object actual = BicepEval.at(body, path).orElse(null);
    if (!Objects.equals(actual, expected)) {
      problems.add("workbook " + path + " is " + actual + ", expected " + expected);
    }
  }

  /**
   * The Log Analytics daily cap: a parameter of main.bicep (LOG_DAILY_CAP_GB in
   * main.parameters.json) with no cap by default, the one value the workspace and the alerts module
   * are given; and with a cap, a rule on the workspace that fires when the cap is reached (the
   * workspace writes an OverQuota event to its Operation table, which the cap does not stop).
   */
  static List<String> logCap(
      String mainText, String parametersJson, String monitoringText, String alertsText) {
    List<String> problems = new ArrayList<>();
    Bicep.Template main = Bicep.parse(mainText);
    Object byDefault =
        main.find("param", "logDailyCapGb")
            .flatMap(Bicep.Declaration::value)
            .map(v -> new BicepEval(main, Map.of()).node(v))
            .orElse(null);
    if (!Long.valueOf(-1).equals(byDefault)) {
      problems.add("main.bicep: param logDailyCapGb must default to -1 (no cap): " + byDefault);
    }
    if (!parametersJson.contains("\"${LOG_DAILY_CAP_GB=-1}\"")) {
      problems.add("main.parameters.json does not take logDailyCapGb from LOG_DAILY_CAP_GB");
    }
    for (Map.Entry<String, String> e :
        Map.of("modules/monitoring.bicep", "dailyQuotaGb", "modules/alerts.bicep", "logDailyCapGb")
            .entrySet()) {
      String given =
          main.all("module").stream()
              .filter(m -> m.type().equals(e.getKey()))
              .findFirst()
              .flatMap(m -> main.body(m).text("params." + e.getValue()))
              .orElse("(none)");
      if (!given.equals("logDailyCapGb")) {
        problems.add(e.getKey() + " is given " + e.getValue() + ": " + given);
      }
    }
    Bicep.Template monitoring = Bicep.parse(monitoringText);
    String workspace =
        monitoring.resourcesOfType("Microsoft.OperationalInsights/workspaces").get(0).name();
    Object quota =
        BicepEval.at(
                new BicepEval(monitoring, Map.of()).resource(workspace),
                "properties.workspaceCapping.dailyQuotaGb")
            .orElse(null);
    if (!Long.valueOf(-1).equals(quota)) {
      problems.add("monitoring.bicep caps the workspace by default: dailyQuotaGb " + quota);
    }
    Bicep.Template alerts = Bicep.parse(alertsText);
    boolean alerted = false;
    for (long cap : List.of(-1L, 1L)) {
      BicepEval eval = new BicepEval(alerts, Map.of("logDailyCapGb", cap));
      for (Bicep.Declaration rule :
          alerts.resourcesOfType("Microsoft.Insights/scheduledQueryRules")) {
        Map<String, Object> body = eval.resource(rule.name());
        String text = String.valueOf(body);
        if (text.contains("_LogOperation") && text.contains("OverQuota")) {
          boolean deployed = eval.deployed(rule.name());
          if (deployed != (cap > 0)) {
            problems.add(
                "the daily-cap rule is deployed=" + deployed + " with logDailyCapGb " + cap);
          }
          if (!String.valueOf(BicepEval.at(body, "properties.scopes").orElse(""))
              .contains("logAnalytics.id")) {
            problems.add("the daily-cap rule does not query the Log Analytics workspace");
          }
          alerted = true;
        }
      }
    }
    if (!alerted) {
      problems.add("no alert rule fires when the daily cap is reached (_LogOperation, OverQuota)");
    }
    return problems;
  }

  /** main.bicep passes the e-mail parameter (default empty) and calls both modules. */
  static List<String> main(String source) {
    List<String> problems = new ArrayList<>();
    Bicep.Template t = Bicep.parse(source);
    if (!t.find("param", "alertEmail")
        .flatMap(Bicep.Declaration::value)
        .map(Bicep::text)
        .filter("''"::equals)
        .isPresent()) {
      problems.add("main.bicep: param alertEmail must default to '' (no notifications)");
    }
    for (String module : List.of("modules/alerts.bicep", "modules/workbook.bicep")) {
      if (t.all("module").stream().noneMatch(m -> m.type().equals(module))) {
        problems.add("main.bicep does not call " + module);
      }
    }
    t.all("module").stream()
        .filter(m -> m.type().equals("modules/alerts.bicep"))
        .findFirst()
        .ifPresent(
            m -> {
              if (!t.body(m).text("params.alertEmail").filter("alertEmail"::equals).isPresent()) {
                problems.add("main.bicep does not pass alertEmail to the alerts module");
              }
            });
    return problems;
  }
}
