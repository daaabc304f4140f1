package io.idemworker.infra;

import io.idemworker.infra.Bicep.Arr;
import io.idemworker.infra.Bicep.Declaration;
import io.idemworker.infra.Bicep.Node;
import io.idemworker.infra.Bicep.Obj;
import io.idemworker.infra.Bicep.Template;
import io.idemworker.infra.BicepEval.Null;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the templates must do across deployments rather than in one resource: behave on azd's
 * re-runs (the placeholder image), under each capacity choice (Cosmos DB serverless or autoscale,
 * Service Bus Standard or Premium), in the order Azure needs (Cosmos DB role assignments), and with
 * one source for the queue settings the worker is told. Functions from template text to a list of
 * problems, like {@link BicepChecks}.
 */
final class DeploymentChecks {
  /** An image azd could have pushed, for evaluating the template after a deploy. */
  static final String PUSHED_IMAGE = "crexample.azurecr.io/idemworker/worker-dev:azd-deploy-1";

  /** Queue settings the app passes to the worker: env name to the queue property it must equal. */
  static final Map<String, String> QUEUE_SETTINGS =
      Map.of(
          "SERVICEBUS_LOCK_DURATION", "lockDuration",
          "SERVICEBUS_MAX_DELIVERY_COUNT", "maxDeliveryCount",
          "SERVICEBUS_MESSAGE_TTL", "defaultMessageTimeToLive",
          "SERVICEBUS_SESSIONS", "requiresSession");

  private static final Pattern LIST_CALL = Pattern.compile("\\blist[A-Za-z]*\\s*\\(");

  private DeploymentChecks() {}

  /**
   * infra/modules/worker-app.bicep across azd's provisions: before any image (empty), on a re-run
   * that passes back whatever the first provision output (which must not be the placeholder, and if
   * it is, must count as no image), and after a deploy.
   */
  static List<String> placeholderImage(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    String app = symbolOf(t, "Microsoft.App/containerApps");
    Object placeholder =
        container(new BicepEval(t, Map.of("imageName", "", "queueRequiresSession", false)), app)
            .get("image");
    if (!(placeholder instanceof String image) || image.isEmpty()) {
      problems.add("no placeholder image when imageName is empty: " + placeholder);
      return problems;
    }
    for (String given : List.of("", image)) {
      BicepEval eval = new BicepEval(t, Map.of("imageName", given, "queueRequiresSession", false));
      String label = given.isEmpty() ? "before any image" : "with the placeholder passed back";
      Object probes = container(eval, app).get("probes");
      if (!(probes instanceof List<?> list) || !list.isEmpty()) {
        problems.add("the placeholder gets health probes " + label + ": " + probes);
      }
      Object output = eval.output("imageName");
      if (image.equals(output)) {
        problems.add(
            "output imageName echoes the placeholder "
                + label
                + ", so azd passes it back as the worker's image");
      }
    }
    BicepEval deployed =
        new BicepEval(t, Map.of("imageName", PUSHED_IMAGE, "queueRequiresSession", false));
    Map<String, Object> container = container(deployed, app);
    if (!PUSHED_IMAGE.equals(container.get("image"))) {
      problems.add("a pushed image is not run: " + container.get("image"));
    }
    if (!(container.get("probes") instanceof List<?> probes) || probes.size() != 3) {
      problems.add("a pushed image does not get the three probes: " + container.get("probes"));
    }
    if (!PUSHED_IMAGE.equals(deployed.output("imageName"))) {
      problems.add("output imageName is not the pushed image: " + deployed.output("imageName"));
    }
    return problems;
  }

  /** infra/modules/worker-app.bicep: the app names its environment the current way. */
  static List<String> environmentReference(String text) {
    Template t = Bicep.parse(text);
    Obj app = t.body(t.resourcesOfType("Microsoft.App/containerApps").get(0));
    List<String> problems = new ArrayList<>();
    if (app.at("properties.managedEnvironmentId").isPresent()) {
      problems.add("properties.managedEnvironmentId is deprecated; use properties.environmentId");
    }
    if (app.at("properties.environmentId").isEmpty()) {
      problems.add("the app does not set properties.environmentId");
    }
    return problems;
  }

  /**
   * infra/modules/containerapps-env.bicep: logs reach Log Analytics through Azure Monitor, without
   * reading the workspace's shared key (whose list function the pinned API version does not
   * declare).
   */
  static List<String> environmentLogs(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>(listCalls(text));
    String env = symbolOf(t, "Microsoft.App/managedEnvironments");
    Obj body = t.body(t.find("resource", env).orElseThrow());
    String destination = body.text("properties.appLogsConfiguration.destination").orElse("none");
    if (!destination.equals("'azure-monitor'")) {
      problems.add("appLogsConfiguration.destination is " + destination + ", not 'azure-monitor'");
    }
    if (body.at("properties.appLogsConfiguration.logAnalyticsConfiguration").isPresent()) {
      problems.add("the environment still carries a logAnalyticsConfiguration (a shared key)");
    }
    boolean routed =
        t.resourcesOfType("Microsoft.Insights/diagnosticSettings").stream()
            .map(t::body)
            .anyMatch(
                d ->
                    d.text("scope").orElse("").equals(env)
                        && d.text("properties.workspaceId").orElse("").endsWith(".id")
                        && d.text("properties.logs").orElse("").contains("enabled: true"));
    if (!routed) {
      problems.add("no diagnostic setting sends the environment's logs to a workspace");
    }
    return problems;
  }

  /** Any template: no list*() calls (keys are never needed: every client uses Entra ID). */
  static List<String> listCalls(String text) {
    List<String> problems = new ArrayList<>();
    Matcher m = LIST_CALL.matcher(Bicep.stripComments(text));
    while (m.find()) {
      problems.add("calls " + m.group().replaceAll("\\s*\\($", "()") + ": keys are not needed");
    }
    return problems;
  }

  /**
   * infra/modules/cosmos.bicep: the SQL role assignments (and the container before them) run one
   * after the other, because each takes an exclusive lock on the account.
   */
  static List<String> cosmosRoleAssignmentOrder(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    List<String> assignments =
        t.resourcesOfType("Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments").stream()
            .map(Declaration::name)
            .toList();
    List<String> serial = new ArrayList<>(assignments);
    serial.addAll(containers(t));
    Map<String, Set<String>> after = new HashMap<>();
    for (String name : serial) {
      after.put(name, dependencies(t, name, serial));
    }
    for (int i = 0; i < serial.size(); i++) {
      for (int j = i + 1; j < serial.size(); j++) {
        String a = serial.get(i);
        String b = serial.get(j);
        if (!reaches(after, a, b) && !reaches(after, b, a)) {
          problems.add(a + " and " + b + " may run at the same time (Cosmos DB answers 412)");
        }
      }
    }
    return problems;
  }

  /**
   * infra/modules/cosmos.bicep in both capacity modes: serverless sends no throughput; autoscale
   * sends the max RU/s parameter as autoscale settings on the database or the container, and drops
   * the serverless capability.
   */
  static List<String> cosmosCapacityModes(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    if (t.find("param", "capacityMode").isEmpty()
        || t.find("param", "autoscaleMaxThroughput").isEmpty()) {
      problems.add("cosmos.bicep needs the parameters capacityMode and autoscaleMaxThroughput");
      return problems;
    }
    String account = symbolOf(t, "Microsoft.DocumentDB/databaseAccounts");
    String database = symbolOf(t, "Microsoft.DocumentDB/databaseAccounts/sqlDatabases");
    List<String> containers = containers(t);
    long max = 7000;
    for (String mode : List.of("serverless", "autoscale")) {
      BicepEval eval =
          new BicepEval(t, Map.of("capacityMode", mode, "autoscaleMaxThroughput", max));
      Object capabilities =
          BicepEval.at(eval.resource(account), "properties.capabilities").orElse(List.of());
      boolean serverless = String.valueOf(capabilities).contains("name=EnableServerless");
      List<Object> settings = new ArrayList<>();
      List<String> symbols = new ArrayList<>(containers);
      symbols.add(0, database);
      for (String symbol : symbols) {
        Object options = BicepEval.at(eval.resource(symbol), "properties.options").orElse(Map.of());
        if (BicepEval.at(options, "throughput").isPresent()) {
          problems.add(mode + ": " + symbol + " has manual throughput " + options);
        }
        BicepEval.at(options, "autoscaleSettings.maxThroughput").ifPresent(settings::add);
      }
      if (mode.equals("serverless") && (!serverless || !settings.isEmpty())) {
        problems.add(
            "serverless: expected EnableServerless and no throughput, got "
                + capabilities
                + " and "
                + settings);
      }
      // Each container its own autoscale throughput (none on the database's shared pool).
      if (mode.equals("autoscale")
          && (serverless
              || !settings.equals(java.util.Collections.nCopies(containers.size(), max)))) {
        problems.add(
            "autoscale: expected no EnableServerless and maxThroughput "
                + max
                + " on each of "
                + containers
                + ", got "
                + capabilities
                + " and "
                + settings);
      }
    }
    return problems;
  }

  /**
   * infra/modules/servicebus.bicep on Standard and Premium: Premium gets its messaging units and
   * partitions, and the queue is the same in every case except the partitioning a partitioned
   * namespace imposes.
   */
  static List<String> serviceBusTiers(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    for (String p : List.of("sku", "messagingUnits", "premiumPartitions")) {
      if (t.find("param", p).isEmpty()) {
        problems.add("servicebus.bicep needs the parameter " + p);
      }
    }
    if (!problems.isEmpty()) {
      return problems;
    }
    String ns = symbolOf(t, "Microsoft.ServiceBus/namespaces");
    String queue = symbolOf(t, "Microsoft.ServiceBus/namespaces/queues");
    record Tier(String sku, long units, long partitions) {
      Map<String, Object> params() {
        return Map.of("sku", sku, "messagingUnits", units, "premiumPartitions", partitions);
      }
    }
    Map<String, Object> reference = null;
    for (Tier tier :
        List.of(new Tier("Standard", 1, 1), new Tier("Premium", 4, 2), new Tier("Premium", 2, 1))) {
      BicepEval eval = new BicepEval(t, tier.params());
      Map<String, Object> namespace = eval.resource(ns);
      boolean premium = tier.sku().equals("Premium");
      Object name = BicepEval.at(namespace, "sku.name").orElse("(none)");
      Object capacity = BicepEval.at(namespace, "sku.capacity").orElse(Null.NULL);
      Object partitions =
          BicepEval.at(namespace, "properties.premiumMessagingPartitions").orElse(Null.NULL);
      if (!tier.sku().equals(name)
          || !(premium ? (Object) tier.units() : Null.NULL).equals(capacity)
          || !(premium ? (Object) tier.partitions() : Null.NULL).equals(partitions)) {
        problems.add(
            tier + ": namespace sku " + namespace.get("sku") + ", partitions " + partitions);
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> properties =
          new LinkedHashMap<>(
              (Map<String, Object>)
                  BicepEval.at(eval.resource(queue), "properties").orElse(Map.of()));
      Object partitioned = properties.remove("enablePartitioning");
      if (!Boolean.valueOf(premium && tier.partitions() > 1).equals(partitioned)) {
        problems.add(tier + ": queue enablePartitioning is " + partitioned);
      }
      if (reference == null) {
        reference = properties;
      } else if (!reference.equals(properties)) {
        problems.add(tier + ": queue differs from Standard: " + properties + " vs " + reference);
      }
    }
    return problems;
  }

  /**
   * main.bicep with servicebus.bicep and worker-app.bicep: each queue setting the worker is told
   * comes from the same Service Bus symbol the queue uses, which is defined once (a parameter or
   * variable with a default).
   */
  static List<String> queueSettings(String mainText, String serviceBusText, String workerText) {
    Template main = Bicep.parse(mainText);
    Template sb = Bicep.parse(serviceBusText);
    Template worker = Bicep.parse(workerText);
    List<String> problems = new ArrayList<>();
    Obj queue =
        sb.body(
            sb.find("resource", symbolOf(sb, "Microsoft.ServiceBus/namespaces/queues"))
                .orElseThrow());
    Obj container =
        (Obj)
            ((Arr)
                    worker
                        .body(
                            worker
                                .find("resource", symbolOf(worker, "Microsoft.App/containerApps"))
                                .orElseThrow())
                        .at("properties.template.containers")
                        .orElseThrow())
                .items()
                .get(0);
    Map<String, Obj> env = BicepChecks.envVars(worker, container, problems);
    Obj sbArgs = moduleParams(main, "servicebus.bicep");
    Obj workerArgs = moduleParams(main, "worker-app.bicep");
    String sbModule = moduleSymbol(main, "servicebus.bicep");
    for (Map.Entry<String, String> setting : QUEUE_SETTINGS.entrySet()) {
      String name = setting.getKey();
      String property = setting.getValue();
      Optional<String> queueSymbol = queue.text("properties." + property);
      Obj var = env.get(name);
      if (var == null || queueSymbol.isEmpty()) {
        problems.add(name + ": the app does not set it or the queue has no " + property);
        continue;
      }
      String workerParam = var.text("value").orElse("").replaceAll("^string\\((\\w+)\\)$", "$1");
      if (worker.find("param", workerParam).map(p -> p.value().isPresent()).orElse(true)) {
        problems.add(name + " is not a worker-app parameter without a default: " + workerParam);
        continue;
      }
      String passed = workerArgs.text(workerParam).orElse("");
      String prefix = sbModule + ".outputs.";
      if (!passed.startsWith(prefix)) {
        problems.add(name + ": main.bicep passes " + passed + ", not a Service Bus module output");
        continue;
      }
      String outputSymbol =
          sb.find("output", passed.substring(prefix.length()))
              .flatMap(Declaration::value)
              .map(Bicep::text)
              .orElse("?");
      if (!outputSymbol.equals(queueSymbol.get())) {
        problems.add(
            name
                + " comes from "
                + outputSymbol
                + ", the queue's "
                + property
                + " from "
                + queueSymbol.get());
        continue;
      }
      Optional<Declaration> definition =
          sb.find("param", outputSymbol).or(() -> sb.find("var", outputSymbol));
      if (definition.isEmpty() || definition.get().value().isEmpty()) {
        problems.add(outputSymbol + " has no default in servicebus.bicep");
      }
      // Session mode is a deployment choice (main's serviceBusSessions), like the capacity knobs:
      // main passes it to the module, and the worker still learns it from the module's output.
      if (sbArgs.at(outputSymbol).isPresent() && !name.equals("SERVICEBUS_SESSIONS")) {
        problems.add(outputSymbol + " is defined again in main.bicep");
      }
    }
    return problems;
  }

  /**
   * main.bicep: the capacity knobs are parameters with today's defaults, passed to the module that
   * uses them (main parameter, its default, module file, module parameter).
   */
  static List<String> capacityParameters(String mainText) {
    Template main = Bicep.parse(mainText);
    List<String> problems = new ArrayList<>();
    List<List<String>> knobs =
        List.of(
            List.of("cosmosCapacityMode", "'serverless'", "cosmos.bicep", "capacityMode"),
            List.of(
                "cosmosAutoscaleMaxThroughput", "4000", "cosmos.bicep", "autoscaleMaxThroughput"),
            List.of("serviceBusSku", "'Standard'", "servicebus.bicep", "sku"),
            List.of("serviceBusMessagingUnits", "1", "servicebus.bicep", "messagingUnits"),
            List.of("serviceBusPremiumPartitions", "1", "servicebus.bicep", "premiumPartitions"),
            List.of("workerMaxReplicas", "10", "worker-app.bicep", "maxReplicas"),
            List.of("workerMessagesPerReplica", "20", "worker-app.bicep", "messagesPerReplica"));
    for (List<String> knob : knobs) {
      String param = knob.get(0);
      String value =
          main.find("param", param).flatMap(Declaration::value).map(Bicep::text).orElse("(none)");
      if (!value.equals(knob.get(1))) {
        problems.add(
            "main.bicep parameter "
                + param
                + " defaults to "
                + value
                + ", expected "
                + knob.get(1));
      }
      String passed = moduleParams(main, knob.get(2)).text(knob.get(3)).orElse("(nothing)");
      if (!passed.equals(param)) {
        problems.add(knob.get(2) + " " + knob.get(3) + " gets " + passed + ", not " + param);
      }
    }
    String userType = moduleParams(main, "servicebus.bicep").text("userPrincipalType").orElse("");
    if (!userType.equals("principalType")) {
      problems.add("the user's Service Bus roles do not use principalType: " + userType);
    }
    return problems;
  }

  private static Map<String, Object> container(BicepEval eval, String app) {
    Object containers =
        BicepEval.at(eval.resource(app), "properties.template.containers").orElse(List.of());
    @SuppressWarnings("unchecked")
    Map<String, Object> first = (Map<String, Object>) ((List<?>) containers).get(0);
    return first;
  }

  /** Every Cosmos container cosmos.bicep creates (orders, customers). */
  private static List<String> containers(Template t) {
    return t
        .resourcesOfType("Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers")
        .stream()
        .map(Declaration::name)
        .toList();
  }

  private static String symbolOf(Template t, String type) {
    List<Declaration> found =
        t.resourcesOfType(type).stream()
            .filter(d -> d.value().orElse(null) instanceof Obj o && o.at("properties").isPresent())
            .toList();
    if (found.size() != 1) {
      throw new IllegalArgumentException("expected one " + type + ", found " + found.size());
    }
    return found.get(0).name();
  }

  private static Obj moduleParams(Template main, String file) {
    return (Obj)
        main.body(main.find("module", moduleSymbol(main, file)).orElseThrow())
            .at("params")
            .orElse(new Obj(Map.of()));
  }

  private static String moduleSymbol(Template main, String file) {
    return main.all("module").stream()
        .filter(m -> m.type().endsWith(file))
        .map(Declaration::name)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("main.bicep has no module " + file));
  }

  /** Resources among {@code candidates} that {@code name} names in dependsOn or in its body. */
  private static Set<String> dependencies(Template t, String name, List<String> candidates) {
    Set<String> deps = new LinkedHashSet<>();
    Obj body = t.body(t.find("resource", name).orElseThrow());
    for (Map.Entry<String, Node> e : body.properties().entrySet()) {
      String text = Bicep.text(e.getValue());
      for (String other : candidates) {
        if (!other.equals(name) && text.matches("(?s).*\\b" + Pattern.quote(other) + "\\b.*")) {
          deps.add(other);
        }
      }
    }
    return deps;
  }

  private static boolean reaches(Map<String, Set<String>> after, String from, String to) {
    Set<String> seen = new LinkedHashSet<>();
    List<String> todo = new ArrayList<>(List.of(from));
    while (!todo.isEmpty()) {
      String next = todo.remove(todo.size() - 1);
      if (next.equals(to)) {
        return true;
      }
      if (seen.add(next)) {
        todo.addAll(after.getOrDefault(next, Set.of()));
      }
    }
    return false;
  }
}
