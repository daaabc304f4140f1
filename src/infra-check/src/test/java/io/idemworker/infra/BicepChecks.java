package io.idemworker.infra;

import io.idemworker.infra.Bicep.Arr;
import io.idemworker.infra.Bicep.Declaration;
import io.idemworker.infra.Bicep.Expr;
import io.idemworker.infra.Bicep.Node;
import io.idemworker.infra.Bicep.Obj;
import io.idemworker.infra.Bicep.Template;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What the templates must say, as functions from template text to a list of problems (empty when
 * all is well), so tests can run them on the real files and on deliberately broken copies.
 */
final class BicepChecks {
  static final String SERVICE_BUS_DATA_RECEIVER = "4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0";
  static final String SERVICE_BUS_DATA_SENDER = "69a216fc-b8fb-44d8-bc22-1f3c2cd27a39";
  static final String SERVICE_BUS_DATA_OWNER = "090c5cfd-751d-490a-894a-3ce6f1109419";
  static final String ACR_PULL = "7f951dda-4ed3-4680-a7ca-43fe172d538d";
  static final String MONITORING_METRICS_PUBLISHER = "3913510d-42f4-4e42-8a64-420c390055eb";
  static final String COSMOS_DATA_CONTRIBUTOR = "00000000-0000-0000-0000-000000000002";

  private static final Pattern SECRET_NAME =
      Pattern.compile("(?i).*(key|secret|password|connection_?string|token|sas).*");
  // The vault's name (azd's AZURE_KEY_VAULT_NAME) or address is where secrets are, not a secret.
  private static final Pattern VAULT_NAME =
      Pattern.compile("(?i)(AZURE_)?KEY_?VAULT_?(NAME|ENDPOINT|URI)|vault(Name|Uri)");
  private static final Pattern SECRET_VALUE =
      Pattern.compile(
          "(?i).*(list[A-Za-z]*\\(|connectionstring|instrumentationkey|primarykey|secondarykey"
              + "|masterkey|sharedkey|password).*");

  private BicepChecks() {}

  /** infra/modules/servicebus.bicep */
  static List<String> serviceBus(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    Obj ns = single(t, "Microsoft.ServiceBus/namespaces", problems);
    Obj queue = single(t, "Microsoft.ServiceBus/namespaces/queues", problems);
    if (ns == null || queue == null) {
      return problems;
    }
    expectOneOf(t, ns, "sku.name", Set.of("Standard", "Premium"), problems);
    // The namespace's properties are a union (premiumMessagingPartitions on Premium only): read
    // them evaluated, on both tiers.
    String nsSymbol = t.resourcesOfType("Microsoft.ServiceBus/namespaces").get(0).name();
    for (String sku : List.of("Standard", "Premium")) {
      Map<String, Object> evaluated = new BicepEval(t, Map.of("sku", sku)).resource(nsSymbol);
      if (!Boolean.TRUE.equals(BicepEval.at(evaluated, "properties.disableLocalAuth").orElse(null))
          && !problems.contains("properties.disableLocalAuth is not set")) {
        problems.add("properties.disableLocalAuth is not set");
      }
      if (!"1.2".equals(BicepEval.at(evaluated, "properties.minimumTlsVersion").orElse(null))
          && !problems.contains("properties.minimumTlsVersion is not set")) {
        problems.add("properties.minimumTlsVersion is not set");
      }
    }
    expect(t, queue, "properties.requiresDuplicateDetection", "true", problems);
    expect(t, queue, "properties.deadLetteringOnMessageExpiration", "true", problems);
    duration(t, queue, "properties.duplicateDetectionHistoryTimeWindow", "PT20S", "P7D", problems);
    duration(t, queue, "properties.lockDuration", "PT5S", "PT5M", problems);
    duration(t, queue, "properties.defaultMessageTimeToLive", "PT5M", "P10675199D", problems);
    integer(t, queue, "properties.maxDeliveryCount", 1, 2000, problems);
    Set<String> roles = assignedRoles(t, "Microsoft.Authorization/roleAssignments");
    for (String role :
        List.of(SERVICE_BUS_DATA_RECEIVER, SERVICE_BUS_DATA_SENDER, SERVICE_BUS_DATA_OWNER)) {
      if (!roles.contains(role)) {
        problems.add("no role assignment for Service Bus role " + role);
      }
    }
    return problems;
  }

  /** infra/modules/cosmos.bicep */
  static List<String> cosmos(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    Obj account = single(t, "Microsoft.DocumentDB/databaseAccounts", problems);
    Obj container = containerNamed(t, "containerName", problems);
    if (account == null || container == null) {
      return problems;
    }
    expect(t, account, "kind", "'GlobalDocumentDB'", problems);
    expect(t, account, "properties.disableLocalAuth", "true", problems);
    expect(t, account, "properties.disableKeyBasedMetadataWriteAccess", "true", problems);
    String capabilities = account.text("properties.capabilities").orElse("");
    if (!capabilities.contains("'EnableServerless'")) {
      problems.add("Cosmos account has no EnableServerless capability: " + capabilities);
    }
    if (!t.find("param", "capacityMode")
        .flatMap(Declaration::value)
        .map(Bicep::text)
        .orElse("")
        .equals("'serverless'")) {
      problems.add("Cosmos account is not serverless by default");
    }
    expect(t, container, "properties.resource.partitionKey.paths", "['/orderId']", problems);
    expect(t, container, "properties.resource.partitionKey.kind", "'Hash'", problems);
    expect(t, container, "properties.resource.partitionKey.version", "2", problems);
    expect(t, container, "properties.resource.defaultTtl", "-1", problems);
    indexing(t, problems);
    List<Declaration> assignments =
        t.resourcesOfType("Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments");
    Set<String> principals = new LinkedHashSet<>();
    for (Declaration a : assignments) {
      Obj body = t.body(a);
      String roleDefinition = body.text("properties.roleDefinitionId").orElse("");
      if (!Bicep.guidsIn(t, roleDefinition).contains(COSMOS_DATA_CONTRIBUTOR)) {
        problems.add(a.name() + " does not grant the Cosmos Built-in Data Contributor");
      }
      if (!Bicep.expand(t, roleDefinition, 5).contains("/sqlRoleDefinitions/")) {
        problems.add(a.name() + " role is not a Cosmos SQL role definition");
      }
      body.text("properties.principalId").ifPresent(principals::add);
    }
    for (String principal : List.of("workerPrincipalId", "userPrincipalId")) {
      if (!principals.contains(principal)) {
        problems.add("no Cosmos data role assignment for " + principal);
      }
    }
    return problems;
  }

  /** infra/modules/registry.bicep */
  static List<String> registry(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    Obj registry = single(t, "Microsoft.ContainerRegistry/registries", problems);
    if (registry != null) {
      expect(t, registry, "properties.adminUserEnabled", "false", problems);
    }
    if (!assignedRoles(t, "Microsoft.Authorization/roleAssignments").contains(ACR_PULL)) {
      problems.add("no AcrPull role assignment");
    }
    return problems;
  }

  /** infra/modules/worker-app.bicep against the list of variables the worker reads. */
  static List<String> workerApp(String text, WorkerEnv env) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    Obj app = single(t, "Microsoft.App/containerApps", problems);
    if (app == null) {
      return problems;
    }
    String tags = app.text("tags").orElse("");
    if (!tags.matches(".*'azd-service-name'\\s*:\\s*'worker'.*")) {
      problems.add("container app is not tagged azd-service-name: worker (" + tags + ")");
    }
    expect(t, app, "identity.type", "'UserAssigned'", problems);
    if (app.at("properties.configuration.ingress").isPresent()) {
      problems.add("the worker must have no ingress");
    }
    if (!app.text("properties.configuration.registries").orElse("").contains("identity")) {
      problems.add("the registry is not pulled with a managed identity");
    }
    Optional<Node> containers = app.at("properties.template.containers");
    if (!(containers.orElse(null) instanceof Arr list)
        || list.items().size() != 1
        || !(list.items().get(0) instanceof Obj container)) {
      problems.add("expected exactly one container");
      return problems;
    }
    Map<String, Obj> vars = envVars(t, container, problems);
    checkEnv(vars.keySet(), env, problems);
    Obj insights = vars.get("APPLICATIONINSIGHTS_CONNECTION_STRING");
    if (insights != null && insights.at("secretRef").isEmpty()) {
      problems.add("APPLICATIONINSIGHTS_CONNECTION_STRING must come from a secret (secretRef)");
    }
    Integer healthPort = null;
    Obj healthVar = vars.get("HEALTH_PORT");
    if (healthVar != null) {
      healthPort = intValue(t, healthVar.at("value").orElse(new Expr("?")));
    }
    probes(t, container, healthPort, problems);
    scaleRule(t, app, vars, problems);
    for (boolean sessions : List.of(false, true)) {
      ConsumerChecks.sessionMode(t, "queueRequiresSession", sessions, problems);
    }
    for (String bound : List.of("minReplicas", "maxReplicas")) {
      String value = app.text("properties.template.scale." + bound).orElse("");
      if (t.find("param", value).isEmpty()) {
        problems.add("scale." + bound + " is not a parameter: " + value);
      }
    }
    return problems;
  }

  /** Outputs of any template: no secrets by name or by value. */
  static List<String> outputs(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    for (Declaration output : t.all("output")) {
      String value = output.value().map(Bicep::text).orElse("");
      if (SECRET_NAME.matcher(output.name()).matches()
          && !VAULT_NAME.matcher(output.name()).matches()) {
        problems.add("output " + output.name() + " is named like a secret");
      }
      if (SECRET_VALUE.matcher(value).matches()) {
        problems.add("output " + output.name() + " looks like a secret: " + value);
      }
      if (output.type().contains("@secure") || output.type().startsWith("secure")) {
        problems.add("output " + output.name() + " is a secure value");
      }
    }
    return problems;
  }

  /** infra/main.bicep */
  static List<String> main(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    if (!t.find("targetScope", "targetScope")
        .map(d -> d.value().map(Bicep::text).orElse(""))
        .orElse("")
        .equals("'subscription'")) {
      problems.add("main.bicep must target the subscription");
    }
    if (t.resourcesOfType("Microsoft.Resources/resourceGroups").isEmpty()) {
      problems.add("main.bicep creates no resource group");
    }
    for (String name :
        List.of(
            "AZURE_LOCATION",
            "AZURE_TENANT_ID",
            "AZURE_RESOURCE_GROUP",
            "AZURE_CONTAINER_REGISTRY_ENDPOINT",
            "AZURE_CONTAINER_REGISTRY_NAME",
            "AZURE_CONTAINER_APPS_ENVIRONMENT_NAME",
            "SERVICEBUS_FULLY_QUALIFIED_NAMESPACE",
            "COSMOS_ENDPOINT")) {
      if (t.find("output", name).isEmpty()) {
        problems.add("main.bicep has no output " + name);
      }
    }
    if (!text.contains("'azd-env-name': environmentName")) {
      problems.add("resources are not tagged azd-env-name");
    }
    Optional<Declaration> worker =
        t.all("module").stream().filter(m -> m.type().endsWith("worker-app.bicep")).findFirst();
    if (worker.isEmpty()) {
      problems.add("main.bicep does not deploy modules/worker-app.bicep");
    } else {
      // The app must wait for its identity and the AcrPull assignment (in the registry module).
      String params = t.body(worker.get()).text("params").orElse("");
      for (String dependency : List.of("identity.outputs.", "registry.outputs.")) {
        if (!params.contains(dependency)) {
          problems.add("the worker app does not depend on " + dependency);
        }
      }
    }
    return problems;
  }

  /** Names of the environment variables set on one container, with their definitions. */
  static Map<String, Obj> envVars(Obj container, List<String> problems) {
    return envVars(null, container, problems);
  }

  /**
   * Names of the environment variables one container may be given, with their definitions: its
   * {@code env} array, or, when {@code env} is an expression over variables ({@code usePlaceholder
   * ? containerEnv : concat(containerEnv, keyVaultEnv)}), every array variable it names, each once.
   */
  static Map<String, Obj> envVars(Template t, Obj container, List<String> problems) {
    Map<String, Obj> vars = new java.util.LinkedHashMap<>();
    List<Node> items = arrayItems(t, container.at("env").orElse(null));
    if (items.isEmpty()) {
      problems.add("the container sets no environment variables");
      return vars;
    }
    for (Node item : items) {
      if (item instanceof Obj var && var.at("name").orElse(null) instanceof Expr name) {
        String key = name.string().orElse(name.text());
        if (vars.put(key, var) != null) {
          problems.add("environment variable set twice: " + key);
        }
      } else {
        problems.add("environment entry without a literal name: " + Bicep.text(item));
      }
    }
    return vars;
  }

  /**
   * The items of an array property: the array itself, or, for an expression over array variables
   * ({@code usePlaceholder ? base : concat(base, more)}), the items of every such variable it
   * names, each variable once.
   */
  static List<Node> arrayItems(Template t, Node declared) {
    List<Node> items = new ArrayList<>();
    if (declared instanceof Arr arr) {
      items.addAll(arr.items());
    } else if (declared instanceof Expr e && t != null) {
      java.util.regex.Matcher names = Pattern.compile("[A-Za-z_]\\w*").matcher(e.text());
      Set<String> seen = new LinkedHashSet<>();
      while (names.find()) {
        if (seen.add(names.group()) && t.resolve(new Expr(names.group())) instanceof Arr arr) {
          items.addAll(arr.items());
        }
      }
    }
    return items;
  }

  static void checkEnv(Set<String> set, WorkerEnv env, List<String> problems) {
    Set<String> needed = new LinkedHashSet<>(env.required());
    needed.addAll(env.setByInfra());
    for (String name : needed) {
      if (!set.contains(name)) {
        problems.add("container app does not set " + name);
      }
    }
    for (List<String> group : env.oneOf()) {
      long count = group.stream().filter(set::contains).count();
      if (count != 1) {
        problems.add("container app must set exactly one of " + group + ", sets " + count);
      }
    }
    for (String name : env.neverSetByInfra()) {
      if (set.contains(name)) {
        problems.add("container app sets " + name + ", which only emulator runs may use");
      }
    }
    for (String name : set) {
      if (!env.all().contains(name)) {
        problems.add("container app sets " + name + ", which the worker does not read");
      }
    }
  }

  static void probes(Template t, Obj container, Integer healthPort, List<String> problems) {
    Node declared = container.at("probes").orElse(new Arr(List.of()));
    // `probes: usePlaceholder ? [] : probes` — the worker's probes are the non-empty branch.
    if (declared instanceof Expr e && e.text().matches(".*\\?\\s*\\[\\]\\s*:\\s*\\w+")) {
      declared = t.resolve(new Expr(e.text().replaceAll(".*:\\s*", "")));
    }
    if (!(declared instanceof Arr probes)) {
      problems.add("cannot read the container's probes: " + Bicep.text(declared));
      return;
    }
    Map<String, String> wanted =
        Map.of(
            "'Liveness'", "'/health/live'",
            "'Readiness'", "'/health/ready'",
            "'Startup'", "'/health/live'");
    Set<String> seen = new LinkedHashSet<>();
    for (Node item : probes.items()) {
      if (!(item instanceof Obj probe)) {
        problems.add("probe is not an object literal: " + Bicep.text(item));
        continue;
      }
      String type = probe.text("type").orElse("?");
      seen.add(type);
      String path = probe.text("httpGet.path").orElse("?");
      if (wanted.containsKey(type) && !wanted.get(type).equals(path)) {
        problems.add(type + " probe path is " + path + ", expected " + wanted.get(type));
      }
      Integer port = probe.at("httpGet.port").map(p -> intValue(t, p)).orElse(null);
      if (port == null || !port.equals(healthPort)) {
        problems.add(type + " probe port " + port + " is not HEALTH_PORT " + healthPort);
      }
    }
    for (String type : wanted.keySet()) {
      if (!seen.contains(type)) {
        problems.add("no " + type + " probe");
      }
    }
  }

  private static void scaleRule(Template t, Obj app, Map<String, Obj> vars, List<String> problems) {
    if (!(app.at("properties.template.scale.rules").orElse(null) instanceof Arr rules)) {
      problems.add("no scale rules");
      return;
    }
    Optional<Obj> rule =
        rules.items().stream()
            .filter(Obj.class::isInstance)
            .map(Obj.class::cast)
            .filter(r -> r.text("custom.type").orElse("").equals("'azure-servicebus'"))
            .findFirst();
    if (rule.isEmpty()) {
      problems.add("no azure-servicebus scale rule");
      return;
    }
    Obj custom = (Obj) rule.get().at("custom").orElseThrow();
    for (String key : List.of("queueName", "namespace", "messageCount")) {
      if (custom.at("metadata." + key).isEmpty()) {
        problems.add("KEDA metadata has no " + key);
      }
    }
    String queue = custom.text("metadata.queueName").orElse("");
    String envQueue =
        Optional.ofNullable(vars.get("SERVICEBUS_QUEUE_NAME"))
            .flatMap(v -> v.text("value"))
            .orElse("");
    if (!queue.isEmpty() && !queue.equals(envQueue)) {
      problems.add("KEDA queueName " + queue + " differs from SERVICEBUS_QUEUE_NAME " + envQueue);
    }
    String namespace = custom.text("metadata.namespace").orElse("");
    String fqdn =
        Optional.ofNullable(vars.get("SERVICEBUS_FULLY_QUALIFIED_NAMESPACE"))
            .flatMap(v -> v.text("value"))
            .orElse("");
    if (!namespace.isEmpty() && (namespace.equals(fqdn) || namespace.contains("."))) {
      problems.add("KEDA namespace must be the namespace name, not the host: " + namespace);
    }
    if (custom.at("identity").isEmpty()) {
      problems.add("the scale rule does not authenticate with a managed identity");
    }
    if (custom.at("auth").isPresent()) {
      problems.add("the scale rule uses secret-based auth");
    }
  }

  static Obj single(Template t, String type, List<String> problems) {
    List<Declaration> found =
        t.resourcesOfType(type).stream()
            .filter(d -> d.value().orElse(null) instanceof Obj o && o.at("properties").isPresent())
            .toList();
    if (found.size() != 1) {
      problems.add("expected one " + type + ", found " + found.size());
      return null;
    }
    return t.body(found.get(0));
  }

  /**
   * Both containers index what the worker's containers index ({@link
   * io.idemworker.cosmos.CosmosContainers#INDEXED_PATHS}), everything else excluded.
   */
  static void indexing(Template t, List<String> problems) {
    List<String> expected = new ArrayList<>(io.idemworker.cosmos.CosmosContainers.INDEXED_PATHS);
    expected.add("/*");
    for (String name : List.of("containerName", "customersContainerName")) {
      Obj container = containerNamed(t, name, problems);
      if (container == null) {
        continue;
      }
      String policy =
          Bicep.expand(t, container.text("properties.resource.indexingPolicy").orElse(""), 5);
      List<String> paths = new ArrayList<>();
      java.util.regex.Matcher path =
          java.util.regex.Pattern.compile("path: '([^']*)'").matcher(policy);
      while (path.find()) {
        paths.add(path.group(1));
      }
      int excluded = policy.indexOf("excludedPaths");
      if (!paths.equals(expected) || excluded < 0 || policy.indexOf("'/*'") < excluded) {
        problems.add(
            name
                + " should index "
                + io.idemworker.cosmos.CosmosContainers.INDEXED_PATHS
                + " and exclude /*, has "
                + policy);
      }
    }
  }

  /**
   * The Cosmos container whose name is the parameter {@code nameParam} (cosmos.bicep holds the
   * orders container and the consumers' customers container).
   */
  static Obj containerNamed(Template t, String nameParam, List<String> problems) {
    List<Declaration> found =
        t.resourcesOfType("Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers").stream()
            .filter(d -> t.body(d).text("name").orElse("").equals(nameParam))
            .toList();
    if (found.size() != 1) {
      problems.add("expected one Cosmos container named " + nameParam + ", found " + found.size());
      return null;
    }
    return t.body(found.get(0));
  }

  static Set<String> assignedRoles(Template t, String type) {
    Set<String> roles = new LinkedHashSet<>();
    for (Declaration d : t.resourcesOfType(type)) {
      t.body(d)
          .text("properties.roleDefinitionId")
          .ifPresent(text -> roles.addAll(Bicep.guidsIn(t, text)));
    }
    return roles;
  }

  /**
   * The role definition GUIDs the template's role assignments give {@code principal} (the
   * principalId expression as written) at {@code scope} (the scope's resource symbol).
   */
  static List<String> rolesOf(Template t, String principal, String scope) {
    return t.resourcesOfType("Microsoft.Authorization/roleAssignments").stream()
        .map(t::body)
        .filter(b -> b.text("properties.principalId").orElse("").equals(principal))
        .filter(b -> b.text("scope").orElse("").equals(scope))
        .flatMap(b -> Bicep.guidsIn(t, b.text("properties.roleDefinitionId").orElse("")).stream())
        .toList();
  }

  static void expect(Template t, Obj obj, String path, String expected, List<String> problems) {
    expectOneOf(t, obj, path, Set.of(expected), problems);
  }

  private static void expectOneOf(
      Template t, Obj obj, String path, Set<String> expected, List<String> problems) {
    Optional<Node> node = obj.at(path);
    if (node.isEmpty()) {
      problems.add(path + " is not set");
      return;
    }
    String actual = t.resolvedText(node.get());
    String unquoted = actual.replaceAll("^'(.*)'$", "$1");
    if (!expected.contains(actual) && !expected.contains(unquoted)) {
      problems.add(path + " is " + actual + ", expected " + expected);
    }
  }

  static void duration(
      Template t, Obj obj, String path, String min, String max, List<String> problems) {
    Optional<String> value =
        obj.at(path)
            .map(t::resolve)
            .flatMap(n -> n instanceof Expr e ? e.string() : Optional.empty());
    if (value.isEmpty()) {
      problems.add(path + " is not a literal ISO-8601 duration");
      return;
    }
    try {
      Duration d = Duration.parse(value.get());
      if (d.compareTo(Duration.parse(min)) < 0 || d.compareTo(Duration.parse(max)) > 0) {
        problems.add(path + " " + value.get() + " is outside " + min + ".." + max);
      }
    } catch (RuntimeException e) {
      problems.add(path + " " + value.get() + " is not an ISO-8601 duration");
    }
  }

  static void integer(Template t, Obj obj, String path, int min, int max, List<String> problems) {
    Integer value = obj.at(path).map(n -> intValue(t, n)).orElse(null);
    if (value == null || value < min || value > max) {
      problems.add(path + " is " + value + ", expected " + min + ".." + max);
    }
  }

  /** An int literal, {@code string(x)} of one, or a parameter or variable holding one. */
  static Integer intValue(Template t, Node node) {
    Node current = node;
    if (current instanceof Expr e && e.text().matches("string\\(\\s*\\w+\\s*\\)")) {
      current = new Expr(e.text().replaceAll("string\\(\\s*(\\w+)\\s*\\)", "$1"));
    }
    String text = t.resolvedText(current).replaceAll("^'(\\d+)'$", "$1");
    try {
      return Integer.valueOf(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
