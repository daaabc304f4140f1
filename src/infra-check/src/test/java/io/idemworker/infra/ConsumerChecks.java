package io.idemworker.infra;

import io.idemworker.infra.Bicep.Arr;
import io.idemworker.infra.Bicep.Declaration;
import io.idemworker.infra.Bicep.Expr;
import io.idemworker.infra.Bicep.Obj;
import io.idemworker.infra.Bicep.Template;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the templates must say about the topic's consumers (issue 12): the shared customers
 * container, one Container App per consumer role reading its own subscription, each identity
 * receiving from its own subscription only, and main.bicep wiring each app to its subscription's
 * settings. Functions from template text to a list of problems, like {@link BicepChecks}.
 */
final class ConsumerChecks {
  /** Consumer role to the principal parameter its identity has in the modules. */
  static final Map<String, String> PRINCIPALS =
      Map.of("loyalty", "loyaltyPrincipalId", "customer-stats", "customerStatsPrincipalId");

  private ConsumerChecks() {}

  /** infra/modules/cosmos.bicep: the customers container and the consumers' data roles. */
  static List<String> customersContainer(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    if (!t.find("param", "customersContainerName")
        .flatMap(Declaration::value)
        .map(Bicep::text)
        .orElse("")
        .equals("'customers'")) {
      problems.add("cosmos.bicep has no parameter customersContainerName = 'customers'");
    }
    Obj container = BicepChecks.containerNamed(t, "customersContainerName", problems);
    if (container == null) {
      return problems;
    }
    BicepChecks.expect(
        t, container, "properties.resource.partitionKey.paths", "['/customerId']", problems);
    BicepChecks.expect(t, container, "properties.resource.partitionKey.kind", "'Hash'", problems);
    BicepChecks.expect(t, container, "properties.resource.partitionKey.version", "2", problems);
    // The worker refuses to start on a container with TTL off: markers carry their own ttl.
    BicepChecks.expect(t, container, "properties.resource.defaultTtl", "-1", problems);
    Set<String> principals = new LinkedHashSet<>();
    for (Declaration a :
        t.resourcesOfType("Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments")) {
      Obj body = t.body(a);
      if (Bicep.guidsIn(t, body.text("properties.roleDefinitionId").orElse(""))
          .contains(BicepChecks.COSMOS_DATA_CONTRIBUTOR)) {
        body.text("properties.principalId").ifPresent(principals::add);
      }
    }
    for (String principal : PRINCIPALS.values()) {
      if (!principals.contains(principal)) {
        problems.add("no Cosmos Data Contributor assignment for " + principal);
      }
    }
    return problems;
  }

  /**
   * infra/modules/servicebus.bicep: each consumer identity has Data Receiver on its own
   * subscription and no Service Bus role anywhere else; the scaler may read the topic's counts; the
   * subscription settings the outputs pass on are the ones the subscriptions use.
   */
  static List<String> receivers(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    BicepEval eval = new BicepEval(t, Map.of());
    Map<String, String> subscriptionSymbols = new java.util.HashMap<>();
    for (Declaration sub :
        t.resourcesOfType("Microsoft.ServiceBus/namespaces/topics/subscriptions")) {
      subscriptionSymbols.put(String.valueOf(eval.resource(sub.name()).get("name")), sub.name());
    }
    List<Obj> assignments =
        t.resourcesOfType("Microsoft.Authorization/roleAssignments").stream().map(t::body).toList();
    for (Map.Entry<String, String> role : PRINCIPALS.entrySet()) {
      String subscription = subscriptionSymbols.get(role.getKey());
      if (subscription == null) {
        problems.add("no subscription " + role.getKey());
        continue;
      }
      boolean receiver = false;
      for (Obj a : assignments) {
        if (!a.text("properties.principalId").orElse("").equals(role.getValue())) {
          continue;
        }
        String scope = a.text("scope").orElse("(none)");
        List<String> roles = Bicep.guidsIn(t, a.text("properties.roleDefinitionId").orElse(""));
        if (scope.equals(subscription)
            && roles.equals(List.of(BicepChecks.SERVICE_BUS_DATA_RECEIVER))) {
          receiver = true;
        } else {
          problems.add(
              role.getValue()
                  + " has role "
                  + roles
                  + " on "
                  + scope
                  + ", beyond its subscription");
        }
      }
      if (!receiver) {
        problems.add(
            role.getValue() + " has no Data Receiver scoped to the subscription " + subscription);
      }
    }
    String topic = t.resourcesOfType("Microsoft.ServiceBus/namespaces/topics").get(0).name();
    boolean scalerReads =
        assignments.stream()
            .filter(a -> a.text("properties.principalId").orElse("").equals("scalerPrincipalId"))
            .filter(
                a ->
                    a.text("scope").orElse("").equals(topic)
                        || subscriptionSymbols.values().contains(a.text("scope").orElse("")))
            .anyMatch(
                a ->
                    Bicep.guidsIn(t, a.text("properties.roleDefinitionId").orElse(""))
                        .contains(BicepChecks.SERVICE_BUS_DATA_OWNER));
    if (!scalerReads) {
      problems.add(
          "the scaler has no Data Owner on the topic or its subscriptions (KEDA needs Manage)");
    }
    for (boolean sessions : List.of(false, true)) {
      subscriptionSettings(t, subscriptionSymbols, sessions, problems);
    }
    return problems;
  }

  /**
   * With the module's {@code requiresSession} (main's {@code serviceBusSessions}) as given: the
   * outputs the consumer apps are told are the values the subscriptions use, and the subscriptions
   * require sessions exactly when the queue does.
   */
  private static void subscriptionSettings(
      Template t,
      Map<String, String> subscriptionSymbols,
      boolean sessions,
      List<String> problems) {
    BicepEval eval = new BicepEval(t, Map.of("requiresSession", sessions));
    String mode = sessions ? " (serviceBusSessions true)" : "";
    for (String[] pair :
        new String[][] {
          {"lockDuration", "subscriptionLockDuration"},
          {"maxDeliveryCount", "subscriptionMaxDeliveryCount"},
          {"defaultMessageTimeToLive", "subscriptionMessageTimeToLive"},
          {"requiresSession", "subscriptionRequiresSession"}
        }) {
      Object output =
          t.find("output", pair[1]).isPresent()
              ? eval.output(pair[1])
              : "(no output " + pair[1] + ")";
      for (Map.Entry<String, String> sub : subscriptionSymbols.entrySet()) {
        Object used =
            BicepEval.at(eval.resource(sub.getValue()), "properties." + pair[0]).orElse("(unset)");
        if (!used.equals(output)) {
          problems.add(
              "subscription "
                  + sub.getKey()
                  + " "
                  + pair[0]
                  + " is "
                  + used
                  + ", output "
                  + pair[1]
                  + " says "
                  + output
                  + mode);
        }
        if (pair[0].equals("requiresSession") && !used.equals(sessions)) {
          problems.add(
              "subscription "
                  + sub.getKey()
                  + " requiresSession is "
                  + used
                  + " when the queue's is "
                  + sessions
                  + ": the consumers' events would not be in their orders' sessions");
        }
      }
    }
  }

  /** infra/modules/consumer-app.bicep against its rules in infra/worker-env.json. */
  static List<String> consumerApp(String text, WorkerEnv env) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    Obj app = BicepChecks.single(t, "Microsoft.App/containerApps", problems);
    if (app == null) {
      return problems;
    }
    if (app.at("properties.configuration.ingress").isPresent()) {
      problems.add("a consumer must have no ingress");
    }
    if (!app.text("properties.configuration.registries")
        .orElse("")
        .contains("consumerIdentityId")) {
      problems.add("the registry is not pulled with the consumer's identity");
    }
    if (!(app.at("properties.template.containers").orElse(null) instanceof Arr list)
        || list.items().size() != 1
        || !(list.items().get(0) instanceof Obj container)) {
      problems.add("expected exactly one container");
      return problems;
    }
    if (container.at("command").isPresent() || container.at("args").isPresent()) {
      problems.add("a consumer runs the image's own `run` command; it overrides command or args");
    }
    Map<String, Obj> vars = BicepChecks.envVars(container, problems);
    checkEnv(vars.keySet(), env, problems);
    Map<String, String> wanted =
        Map.of(
            "WORKER_ROLE", "role",
            "SERVICEBUS_TOPIC_NAME", "topicName",
            "SERVICEBUS_SUBSCRIPTION_NAME", "subscriptionName",
            "SERVICEBUS_LOCK_DURATION", "subscriptionLockDuration",
            "SERVICEBUS_MAX_DELIVERY_COUNT", "string(subscriptionMaxDeliveryCount)",
            "SERVICEBUS_MESSAGE_TTL", "subscriptionMessageTimeToLive",
            "COSMOS_CONTAINER", "cosmosContainerName",
            "RELAY_ENABLED", "'false'",
            "AZURE_CLIENT_ID", "consumerIdentityClientId");
    wanted = new java.util.HashMap<>(wanted);
    wanted.put("SERVICEBUS_SESSIONS", "string(subscriptionRequiresSession)");
    wanted.put("WORKER_MAX_CONCURRENT_SESSIONS", "string(maxConcurrentSessions)");
    for (Map.Entry<String, String> e : wanted.entrySet()) {
      String value = value(vars, e.getKey());
      if (vars.containsKey(e.getKey()) && !value.equals(e.getValue())) {
        problems.add(e.getKey() + " is " + value + ", expected " + e.getValue());
      }
    }
    Integer healthPort =
        Optional.ofNullable(vars.get("HEALTH_PORT"))
            .flatMap(v -> v.at("value"))
            .map(v -> BicepChecks.intValue(t, v))
            .orElse(null);
    BicepChecks.probes(t, container, healthPort, problems);
    scaleRule(app, vars, problems);
    if (t.find("param", "subscriptionRequiresSession").flatMap(Declaration::value).isPresent()) {
      problems.add(
          "subscriptionRequiresSession has a default: the subscription's own value must be given");
    }
    for (boolean sessions : List.of(false, true)) {
      sessionMode(t, sessions, problems);
    }
    return problems;
  }

  /**
   * Evaluated with the subscription's {@code requiresSession}: the consumer runs with {@code
   * SERVICEBUS_SESSIONS} equal to it, and in session mode KEDA's target of active events per
   * replica is the sessions one replica holds ({@code WORKER_MAX_CONCURRENT_SESSIONS}), else {@code
   * messagesPerReplica}.
   */
  private static void sessionMode(Template t, boolean sessions, List<String> problems) {
    sessionMode(t, "subscriptionRequiresSession", sessions, problems);
  }

  /**
   * The same for any app whose entity's {@code requiresSession} is the parameter {@code
   * sessionParam} (the worker's {@code queueRequiresSession}).
   */
  @SuppressWarnings("unchecked")
  static void sessionMode(
      Template t, String sessionParam, boolean sessions, List<String> problems) {
    BicepEval eval = new BicepEval(t, Map.of(sessionParam, sessions));
    String app = t.resourcesOfType("Microsoft.App/containerApps").get(0).name();
    Map<String, Object> body = eval.resource(app);
    Map<String, Object> env = new java.util.HashMap<>();
    BicepEval.at(body, "properties.template.containers")
        .map(c -> ((List<Object>) c).get(0))
        .flatMap(c -> BicepEval.at(c, "env"))
        .ifPresent(
            list ->
                ((List<Object>) list)
                    .forEach(
                        v -> {
                          Map<String, Object> variable = (Map<String, Object>) v;
                          env.put(
                              String.valueOf(variable.get("name")),
                              variable.getOrDefault("value", ""));
                        }));
    String label = "with " + sessionParam + " " + sessions;
    if (!String.valueOf(sessions).equals(env.get("SERVICEBUS_SESSIONS"))) {
      problems.add(label + ", SERVICEBUS_SESSIONS is " + env.get("SERVICEBUS_SESSIONS"));
    }
    Object expected =
        sessions
            ? env.get("WORKER_MAX_CONCURRENT_SESSIONS")
            : eval.expression("string(messagesPerReplica)");
    Object messageCount =
        BicepEval.at(body, "properties.template.scale.rules")
            .map(r -> ((List<Object>) r).isEmpty() ? null : ((List<Object>) r).get(0))
            .flatMap(r -> BicepEval.at(r, "custom.metadata.messageCount"))
            .orElse("(unset)");
    if (!messageCount.equals(expected)) {
      problems.add(
          label
              + ", KEDA messageCount is "
              + messageCount
              + ", expected "
              + expected
              + (sessions
                  ? " (WORKER_MAX_CONCURRENT_SESSIONS: the orders one replica holds at once)"
                  : " (messagesPerReplica)"));
    }
  }

  /**
   * A consumer sets its own list: the required names, exactly one of each oneOf group, the
   * consumer's setByInfra, none of either neverSetByInfra list, nothing the worker does not read.
   */
  static void checkEnv(Set<String> set, WorkerEnv env, List<String> problems) {
    Set<String> needed = new LinkedHashSet<>(env.required());
    needed.addAll(env.consumerSetByInfra());
    for (String name : needed) {
      if (!set.contains(name)) {
        problems.add("consumer app does not set " + name);
      }
    }
    for (List<String> group : env.oneOf()) {
      long count = group.stream().filter(set::contains).count();
      if (count != 1) {
        problems.add("consumer app must set exactly one of " + group + ", sets " + count);
      }
    }
    Set<String> forbidden = new LinkedHashSet<>(env.neverSetByInfra());
    forbidden.addAll(env.consumerNeverSetByInfra());
    for (String name : forbidden) {
      if (set.contains(name)) {
        problems.add("consumer app sets " + name + ", which a consumer must not set");
      }
    }
    for (String name : set) {
      if (!env.all().contains(name)) {
        problems.add("consumer app sets " + name + ", which the worker does not read");
      }
    }
  }

  /** KEDA azure-servicebus on the app's own subscription, authenticated with the scaler. */
  private static void scaleRule(Obj app, Map<String, Obj> vars, List<String> problems) {
    Optional<Obj> rule =
        app.at("properties.template.scale.rules").stream()
            .filter(Arr.class::isInstance)
            .flatMap(a -> ((Arr) a).items().stream())
            .filter(Obj.class::isInstance)
            .map(Obj.class::cast)
            .filter(r -> r.text("custom.type").orElse("").equals("'azure-servicebus'"))
            .findFirst();
    if (rule.isEmpty()) {
      problems.add("no azure-servicebus scale rule");
      return;
    }
    Obj custom = (Obj) rule.get().at("custom").orElseThrow();
    if (custom.at("metadata.queueName").isPresent()) {
      problems.add("the consumer's KEDA rule counts a queue, not its subscription");
    }
    for (String[] pair :
        new String[][] {
          {"topicName", "SERVICEBUS_TOPIC_NAME"},
          {"subscriptionName", "SERVICEBUS_SUBSCRIPTION_NAME"}
        }) {
      String metadata = custom.text("metadata." + pair[0]).orElse("(unset)");
      if (!metadata.equals(value(vars, pair[1]))) {
        problems.add(
            "KEDA "
                + pair[0]
                + " "
                + metadata
                + " differs from "
                + pair[1]
                + " "
                + value(vars, pair[1]));
      }
    }
    if (custom.at("metadata.namespace").isEmpty() || custom.at("metadata.messageCount").isEmpty()) {
      problems.add("KEDA metadata lacks namespace or messageCount");
    }
    if (!custom.text("identity").orElse("").equals("scalerIdentityId")) {
      problems.add(
          "the scale rule authenticates with "
              + custom.text("identity").orElse("(nothing)")
              + ", not the scaler identity");
    }
  }

  /**
   * infra/main.bicep: one consumer-app module per role, each wired to its own subscription, its own
   * identity and the Service Bus module's subscription settings.
   */
  static List<String> main(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    Set<String> roles = new LinkedHashSet<>();
    Set<String> identities = new LinkedHashSet<>();
    for (Declaration m : t.all("module")) {
      if (!m.type().endsWith("consumer-app.bicep")) {
        continue;
      }
      Obj params = (Obj) t.body(m).at("params").orElse(new Obj(Map.of()));
      String role =
          params
              .at("role")
              .filter(Expr.class::isInstance)
              .flatMap(n -> ((Expr) n).string())
              .orElse("?");
      roles.add(role);
      String camel = camel(role);
      Map<String, String> wanted =
          Map.of(
              "subscriptionName", "serviceBus.outputs." + camel + "SubscriptionName",
              "topicName", "serviceBus.outputs.topicName",
              "subscriptionLockDuration", "serviceBus.outputs.subscriptionLockDuration",
              "subscriptionMaxDeliveryCount", "serviceBus.outputs.subscriptionMaxDeliveryCount",
              "subscriptionMessageTimeToLive", "serviceBus.outputs.subscriptionMessageTimeToLive",
              "subscriptionRequiresSession", "serviceBus.outputs.subscriptionRequiresSession",
              "cosmosContainerName", "cosmos.outputs.customersContainerName",
              "consumerIdentityId", "identity.outputs." + camel + "Id",
              "consumerIdentityClientId", "identity.outputs." + camel + "ClientId",
              "registryLoginServer", "registry.outputs.loginServer");
      for (Map.Entry<String, String> e : wanted.entrySet()) {
        String actual = params.text(e.getKey()).orElse("(unset)");
        if (!actual.equals(e.getValue())) {
          problems.add(
              m.name()
                  + " ("
                  + role
                  + ") passes "
                  + e.getKey()
                  + ": "
                  + actual
                  + ", expected "
                  + e.getValue());
        }
      }
      identities.add(params.text("consumerIdentityId").orElse(""));
    }
    if (!roles.equals(PRINCIPALS.keySet())) {
      problems.add("consumer apps deployed for " + roles + ", expected " + PRINCIPALS.keySet());
    }
    if (identities.size() != roles.size()) {
      problems.add("consumer apps share an identity: " + identities);
    }
    return problems;
  }

  private static String camel(String role) {
    String[] parts = role.split("-");
    StringBuilder out = new StringBuilder(parts[0]);
    for (int i = 1; i < parts.length; i++) {
      out.append(Character.toUpperCase(parts[i].charAt(0))).append(parts[i].substring(1));
    }
    return out.toString();
  }

  private static String value(Map<String, Obj> vars, String name) {
    return Optional.ofNullable(vars.get(name)).flatMap(v -> v.text("value")).orElse("(unset)");
  }
}
