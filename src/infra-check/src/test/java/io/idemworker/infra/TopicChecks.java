package io.idemworker.infra;

import io.idemworker.infra.Bicep.Declaration;
import io.idemworker.infra.Bicep.Obj;
import io.idemworker.infra.Bicep.Template;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What infra/modules/servicebus.bicep must say about the outbox relay's topic: duplicate detection
 * with an explicit window, partitioned exactly when the queue is, the two subscriptions that take
 * OrderAccepted events only, and the worker's Data Sender role on the topic itself. A function from
 * template text to a list of problems, like {@link BicepChecks}.
 */
final class TopicChecks {
  static final String TOPIC = "order-events";
  static final List<String> SUBSCRIPTIONS = List.of("loyalty", "customer-stats");
  static final String SUBJECT = "OrderAccepted";

  private TopicChecks() {}

  static List<String> topic(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    Obj topic = BicepChecks.single(t, "Microsoft.ServiceBus/namespaces/topics", problems);
    if (topic == null) {
      return problems;
    }
    String symbol = t.resourcesOfType("Microsoft.ServiceBus/namespaces/topics").get(0).name();
    BicepChecks.expect(t, topic, "name", TOPIC, problems);
    BicepChecks.expect(t, topic, "properties.requiresDuplicateDetection", "true", problems);
    String window = topic.text("properties.duplicateDetectionHistoryTimeWindow").orElse("");
    if (t.find("param", window).flatMap(Declaration::value).isEmpty()) {
      problems.add("the topic's duplicate window is not an explicit parameter: " + window);
    }
    BicepChecks.duration(
        t, topic, "properties.duplicateDetectionHistoryTimeWindow", "PT20S", "P7D", problems);
    BicepChecks.duration(
        t, topic, "properties.defaultMessageTimeToLive", "PT5M", "P10675199D", problems);
    partitioning(t, symbol, problems);
    subscriptions(t, symbol, problems);
    sender(t, symbol, problems);
    if (t.find("output", "topicName")
        .map(o -> o.value().map(Bicep::text).orElse(""))
        .orElse("")
        .equals(symbol + ".name")) {
      return problems;
    }
    problems.add("no output topicName = " + symbol + ".name");
    return problems;
  }

  /** In every tier the topic is partitioned exactly when the queue is. */
  private static void partitioning(Template t, String topic, List<String> problems) {
    String queue = t.resourcesOfType("Microsoft.ServiceBus/namespaces/queues").get(0).name();
    for (Map<String, Object> tier :
        List.of(
            Map.<String, Object>of("sku", "Standard", "premiumPartitions", 1L),
            Map.<String, Object>of("sku", "Premium", "premiumPartitions", 2L),
            Map.<String, Object>of("sku", "Premium", "premiumPartitions", 1L))) {
      BicepEval eval = new BicepEval(t, tier);
      Object topicPartitioned =
          BicepEval.at(eval.resource(topic), "properties.enablePartitioning").orElse("(unset)");
      Object queuePartitioned =
          BicepEval.at(eval.resource(queue), "properties.enablePartitioning").orElse("(unset)");
      if (!topicPartitioned.equals(queuePartitioned)) {
        problems.add(
            tier
                + ": topic enablePartitioning "
                + topicPartitioned
                + ", queue "
                + queuePartitioned);
      }
    }
  }

  private static void subscriptions(Template t, String topic, List<String> problems) {
    BicepEval eval = new BicepEval(t, Map.of());
    List<Declaration> subs =
        t.resourcesOfType("Microsoft.ServiceBus/namespaces/topics/subscriptions").stream()
            .filter(d -> t.body(d).text("parent").orElse("").equals(topic))
            .toList();
    List<String> names = new ArrayList<>();
    for (Declaration sub : subs) {
      Map<String, Object> body = eval.resource(sub.name());
      String name = String.valueOf(body.get("name"));
      names.add(name);
      Object properties = body.getOrDefault("properties", Map.of());
      for (String key : List.of("lockDuration", "maxDeliveryCount", "defaultMessageTimeToLive")) {
        if (BicepEval.at(properties, key).filter(v -> !(v instanceof BicepEval.Opaque)).isEmpty()) {
          problems.add("subscription " + name + " has no explicit " + key);
        }
      }
      if (!Boolean.TRUE.equals(
          BicepEval.at(properties, "deadLetteringOnMessageExpiration").orElse(null))) {
        problems.add("subscription " + name + " does not dead-letter expired events");
      }
      rules(t, eval, sub.name(), name, problems);
    }
    if (!names.containsAll(SUBSCRIPTIONS)) {
      problems.add("the topic's subscriptions are " + names + ", expected " + SUBSCRIPTIONS);
    }
  }

  /**
   * One rule, named $Default so it replaces the catch-all rule every new subscription starts with,
   * and a correlation filter on the subject.
   */
  private static void rules(
      Template t, BicepEval eval, String symbol, String name, List<String> problems) {
    List<Declaration> rules =
        t.resourcesOfType("Microsoft.ServiceBus/namespaces/topics/subscriptions/rules").stream()
            .filter(d -> t.body(d).text("parent").orElse("").equals(symbol))
            .toList();
    if (rules.size() != 1) {
      problems.add("subscription " + name + " has " + rules.size() + " rules, expected one");
      return;
    }
    Map<String, Object> rule = eval.resource(rules.get(0).name());
    if (!"$Default".equals(rule.get("name"))) {
      problems.add(
          "subscription "
              + name
              + "'s rule is "
              + rule.get("name")
              + ", so the catch-all $Default rule stays and every event arrives");
    }
    Object filterType = BicepEval.at(rule, "properties.filterType").orElse("(none)");
    Object label = BicepEval.at(rule, "properties.correlationFilter.label").orElse("(none)");
    if (!"CorrelationFilter".equals(filterType) || !SUBJECT.equals(label)) {
      problems.add(
          "subscription "
              + name
              + " filters "
              + filterType
              + " on label "
              + label
              + ", not "
              + SUBJECT);
    }
  }

  /** Azure Service Bus Data Sender for the worker, scoped to the topic. */
  private static void sender(Template t, String topic, List<String> problems) {
    boolean sends =
        BicepChecks.rolesOf(t, "workerPrincipalId", topic)
            .contains(BicepChecks.SERVICE_BUS_DATA_SENDER);
    if (!sends) {
      problems.add("the worker has no Data Sender role scoped to the topic " + topic);
    }
    boolean namespaceWide =
        t.resourcesOfType("Microsoft.Authorization/roleAssignments").stream()
            .map(t::body)
            .anyMatch(
                b ->
                    b.text("scope")
                        .orElse("")
                        .equals(
                            t.resourcesOfType("Microsoft.ServiceBus/namespaces").get(0).name()));
    if (namespaceWide) {
      problems.add("a role is assigned on the whole namespace; scope it to the topic or queue");
    }
  }
}
