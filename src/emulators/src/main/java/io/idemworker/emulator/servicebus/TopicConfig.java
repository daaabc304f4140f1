package io.idemworker.emulator.servicebus;

import static io.idemworker.emulator.servicebus.ServiceBusEmulatorConfig.array;
import static io.idemworker.emulator.servicebus.ServiceBusEmulatorConfig.bool;
import static io.idemworker.emulator.servicebus.ServiceBusEmulatorConfig.duration;
import static io.idemworker.emulator.servicebus.ServiceBusEmulatorConfig.integer;
import static io.idemworker.emulator.servicebus.ServiceBusEmulatorConfig.name;
import static io.idemworker.emulator.servicebus.ServiceBusEmulatorConfig.refuseUnsupported;
import static io.idemworker.emulator.servicebus.ServiceBusEmulatorConfig.withPath;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the {@code Topics[*]} of a {@code Config.json}: topic properties, {@code Subscriptions[*]}
 * and their {@code Rules[*]} ({@code FilterType} Correlation or Sql). Every error names the JSON
 * path of the bad field. Stateless.
 */
final class TopicConfig {
  private TopicConfig() {}

  static TopicSettings topic(JsonNode node, String path) {
    TopicSettings defaults = TopicSettings.defaults(name(node, path));
    JsonNode props = node.get("Properties");
    String p = path + ".Properties.";
    TopicSettings settings =
        props == null || props.isNull()
            ? defaults
            : withPath(
                p,
                () -> {
                  TopicSettings t = defaults;
                  Boolean dup = bool(props, "RequiresDuplicateDetection", p);
                  if (dup != null) {
                    t = t.withRequiresDuplicateDetection(dup);
                  }
                  Duration window = duration(props, "DuplicateDetectionHistoryTimeWindow", p);
                  if (window != null) {
                    t = t.withDuplicateDetectionHistoryTimeWindow(window);
                  }
                  Duration ttl = duration(props, "DefaultMessageTimeToLive", p);
                  if (ttl != null) {
                    t = t.withDefaultMessageTimeToLive(ttl);
                  }
                  return t;
                });
    JsonNode subscriptions = array(node, "Subscriptions", path);
    for (int i = 0; i < subscriptions.size(); i++) {
      SubscriptionSettings s =
          subscription(subscriptions.get(i), path + ".Subscriptions[" + i + "]");
      TopicSettings before = settings;
      settings = withPath(path + ".Subscriptions[" + i + "]: ", () -> before.withSubscription(s));
    }
    return settings;
  }

  private static SubscriptionSettings subscription(JsonNode node, String path) {
    SubscriptionSettings defaults = SubscriptionSettings.defaults(name(node, path));
    JsonNode props = node.get("Properties");
    String p = path + ".Properties.";
    SubscriptionSettings settings =
        props == null || props.isNull()
            ? defaults
            : withPath(
                p,
                () -> {
                  SubscriptionSettings s = defaults;
                  Duration lock = duration(props, "LockDuration", p);
                  if (lock != null) {
                    s = s.withLockDuration(lock);
                  }
                  Integer max = integer(props, "MaxDeliveryCount", p);
                  if (max != null) {
                    s = s.withMaxDeliveryCount(max);
                  }
                  Duration ttl = duration(props, "DefaultMessageTimeToLive", p);
                  if (ttl != null) {
                    s = s.withDefaultMessageTimeToLive(ttl);
                  }
                  Boolean dlq = bool(props, "DeadLetteringOnMessageExpiration", p);
                  if (dlq != null) {
                    s = s.withDeadLetteringOnMessageExpiration(dlq);
                  }
                  Boolean sessions = bool(props, "RequiresSession", p);
                  if (sessions != null) {
                    s = s.withRequiresSession(sessions);
                  }
                  refuseUnsupported(props, p);
                  return s;
                });
    JsonNode rules = array(node, "Rules", path);
    for (int i = 0; i < rules.size(); i++) {
      String rulePath = path + ".Rules[" + i + "]";
      SubscriptionRule rule = rule(rules.get(i), rulePath);
      SubscriptionSettings before = settings;
      settings = withPath(rulePath + ": ", () -> before.withRule(rule));
    }
    return settings;
  }

  private static SubscriptionRule rule(JsonNode node, String path) {
    String name = name(node, path);
    JsonNode props = node.get("Properties");
    if (props == null || !props.isObject()) {
      throw new IllegalArgumentException(path + ".Properties must be an object");
    }
    String p = path + ".Properties.";
    JsonNode action = props.get("Action");
    if (action != null && !action.isNull()) {
      JsonNode expr = action.get("SqlExpression");
      if (expr != null && expr.isTextual() && !expr.asText().isBlank()) {
        throw new IllegalArgumentException(
            p + "Action: rule actions are not supported by this emulator");
      }
    }
    JsonNode type = props.get("FilterType");
    String filterType = type == null || !type.isTextual() ? "" : type.asText();
    return switch (filterType) {
      case "Correlation" ->
          withPath(
              p + "CorrelationFilter: ",
              () -> SubscriptionRule.correlation(name, correlation(props, p)));
      case "Sql" -> {
        JsonNode sql = props.path("SqlFilter").get("SqlExpression");
        if (sql == null || !sql.isTextual()) {
          throw new IllegalArgumentException(p + "SqlFilter.SqlExpression must be a string");
        }
        yield withPath(
            p + "SqlFilter.SqlExpression: ", () -> SubscriptionRule.sql(name, sql.asText()));
      }
      default ->
          throw new IllegalArgumentException(
              p + "FilterType must be \"Correlation\" or \"Sql\" but was " + type);
    };
  }

  private static CorrelationFilter correlation(JsonNode props, String p) {
    JsonNode filter = props.get("CorrelationFilter");
    if (filter == null || !filter.isObject()) {
      throw new IllegalArgumentException(p + "CorrelationFilter must be an object");
    }
    Map<String, String> system = new LinkedHashMap<>();
    Map<String, Object> application = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> fields = filter.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      if (f.getKey().equals("Properties")) {
        if (!f.getValue().isObject()) {
          throw new IllegalArgumentException(p + "CorrelationFilter.Properties must be an object");
        }
        f.getValue()
            .fields()
            .forEachRemaining(
                e -> application.put(e.getKey(), scalar(e.getValue(), p, e.getKey())));
      } else {
        if (!f.getValue().isTextual()) {
          throw new IllegalArgumentException(
              p + "CorrelationFilter." + f.getKey() + " must be a string but was " + f.getValue());
        }
        system.put(f.getKey(), f.getValue().asText());
      }
    }
    return new CorrelationFilter(system, application);
  }

  private static Object scalar(JsonNode v, String p, String key) {
    if (v.isTextual()) {
      return v.asText();
    }
    if (v.isBoolean()) {
      return v.asBoolean();
    }
    if (v.isIntegralNumber() && v.canConvertToLong()) {
      return v.asLong();
    }
    if (v.isNumber()) {
      return v.decimalValue();
    }
    throw new IllegalArgumentException(
        p + "CorrelationFilter.Properties." + key + " must be a string, number or boolean");
  }
}
