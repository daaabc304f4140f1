package io.idemworker.infra;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Checks of the local-run files, the dev container and the azd files, as functions from file text
 * to a list of problems (empty when all is well).
 */
final class LocalChecks {
  private static final ObjectMapper STRICT_JSON =
      new ObjectMapper()
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
  private static final YAMLMapper YAML = new YAMLMapper();

  static final String COSMOS_EMULATOR_TAG = "vnext-latest";

  /** A comment claiming that a cache-mount step keeps dependencies in an image layer. */
  private static final Pattern LAYER_CLAIM =
      Pattern.compile("(?i).*\\b(own|dependency|dependencies|separate) layers?\\b.*");

  private LocalChecks() {}

  /**
   * local/servicebus/Config.json against the official Service Bus emulator's documented rules:
   * strict JSON, exactly one namespace named sbemulatorns, Topics present, Logging.Type set, and
   * queue properties within the emulator's limits.
   */
  static List<String> serviceBusEmulatorConfig(String json) {
    List<String> problems = new ArrayList<>();
    JsonNode root;
    try {
      root = STRICT_JSON.readTree(json);
    } catch (JsonProcessingException e) {
      problems.add("Config.json is not strict JSON: " + e.getOriginalMessage());
      return problems;
    }
    JsonNode user = root.path("UserConfig");
    JsonNode namespaces = user.path("Namespaces");
    if (!namespaces.isArray() || namespaces.size() != 1) {
      problems.add("UserConfig.Namespaces must hold exactly one namespace");
      return problems;
    }
    JsonNode ns = namespaces.get(0);
    if (!"sbemulatorns".equals(ns.path("Name").asText())) {
      problems.add("the namespace must be named sbemulatorns, not " + ns.path("Name"));
    }
    if (!ns.path("Topics").isArray()) {
      problems.add("Namespaces[0].Topics is required (may be empty)");
    }
    if (!user.path("Logging").path("Type").isTextual()) {
      problems.add("UserConfig.Logging.Type is required");
    }
    JsonNode queues = ns.path("Queues");
    if (!queues.isArray() || queues.isEmpty()) {
      problems.add("no queues");
      return problems;
    }
    for (JsonNode queue : queues) {
      String name = queue.path("Name").asText("?");
      JsonNode p = queue.path("Properties");
      intRange(problems, name, p, "MaxDeliveryCount", 1, 10);
      durationRange(problems, name, p, "LockDuration", "PT5S", "PT5M");
      durationRange(problems, name, p, "DuplicateDetectionHistoryTimeWindow", "PT5S", "PT5M");
      durationRange(problems, name, p, "DefaultMessageTimeToLive", "PT5M", "PT1H");
    }
    // The official emulator's schema gives topics and subscriptions their own ranges; a
    // subscription's lock may not be shorter than a minute, unlike a queue's.
    for (JsonNode topic : ns.path("Topics")) {
      String name = topic.path("Name").asText("?");
      JsonNode p = topic.path("Properties");
      durationRange(problems, name, p, "DuplicateDetectionHistoryTimeWindow", "PT5S", "PT5M");
      durationRange(problems, name, p, "DefaultMessageTimeToLive", "PT5M", "PT1H");
      for (JsonNode sub : topic.path("Subscriptions")) {
        String subName = name + "/" + sub.path("Name").asText("?");
        JsonNode sp = sub.path("Properties");
        intRange(problems, subName, sp, "MaxDeliveryCount", 1, 10);
        durationRange(problems, subName, sp, "LockDuration", "PT1M", "PT5M");
        durationRange(problems, subName, sp, "DefaultMessageTimeToLive", "PT5M", "PT1H");
      }
    }
    return problems;
  }

  /** The names of the queues in Config.json that require duplicate detection. */
  static List<String> deduplicatingQueues(String json) throws IOException {
    List<String> names = new ArrayList<>();
    for (JsonNode q : STRICT_JSON.readTree(json).path("UserConfig").at("/Namespaces/0/Queues")) {
      if (q.at("/Properties/RequiresDuplicateDetection").asBoolean(false)) {
        names.add(q.path("Name").asText());
      }
    }
    return names;
  }

  /** local/docker-compose.yml: valid YAML with both emulators wired as the worker expects. */
  static List<String> compose(String yaml) {
    List<String> problems = new ArrayList<>();
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JsonProcessingException e) {
      problems.add("docker-compose.yml is not valid YAML: " + e.getOriginalMessage());
      return problems;
    }
    JsonNode services = root.path("services");
    JsonNode sb = null;
    JsonNode cosmos = null;
    JsonNode sql = null;
    for (JsonNode service : services) {
      String image = service.path("image").asText("");
      if (image.startsWith("mcr.microsoft.com/azure-messaging/servicebus-emulator")) {
        sb = service;
      } else if (image.startsWith("mcr.microsoft.com/cosmosdb/linux/azure-cosmos-emulator")) {
        cosmos = service;
      } else if (image.startsWith("mcr.microsoft.com/mssql/server")
          || image.startsWith("mcr.microsoft.com/azure-sql-edge")) {
        sql = service;
      }
    }
    if (sb == null || cosmos == null || sql == null) {
      problems.add(
          "compose needs the Service Bus emulator, its SQL Server and the Cosmos emulator");
      return problems;
    }
    if (!sb.path("volumes").toString().contains(":/ServiceBus_Emulator/ConfigFiles/Config.json")) {
      problems.add("the Service Bus emulator does not mount Config.json");
    }
    if (!sb.path("volumes").toString().contains("./servicebus/Config.json")) {
      problems.add("the Service Bus emulator does not use local/servicebus/Config.json");
    }
    if (!sb.path("environment").has("SQL_SERVER")
        || !sb.path("environment").has("MSSQL_SA_PASSWORD")
        || !sb.path("environment").has("ACCEPT_EULA")) {
      problems.add("the Service Bus emulator needs SQL_SERVER, MSSQL_SA_PASSWORD and ACCEPT_EULA");
    }
    for (JsonNode service : List.of(sb, sql)) {
      String eula = service.path("environment").path("ACCEPT_EULA").asText("");
      if (!eula.startsWith("${ACCEPT_EULA:?")) {
        problems.add(
            service.path("container_name").asText("a service")
                + "'s ACCEPT_EULA is "
                + eula
                + ": it must come from the user (${ACCEPT_EULA:?…}), never a default that accepts"
                + " a licence on their behalf");
      }
    }
    if (!sb.path("ports").toString().contains("5672:5672")) {
      problems.add("the Service Bus emulator does not publish AMQP port 5672");
    }
    if (!"https".equalsIgnoreCase(cosmos.path("environment").path("PROTOCOL").asText())) {
      problems.add("the Cosmos emulator must run with PROTOCOL=https for Java clients");
    }
    // The tag Microsoft's emulator page documents now; vnext-preview was the preview-era tag.
    if (!cosmos.path("image").asText().endsWith(":" + COSMOS_EMULATOR_TAG)) {
      problems.add("the Cosmos emulator image is not the documented tag " + COSMOS_EMULATOR_TAG);
    }
    if (!cosmos.path("ports").toString().contains("8081:8081")) {
      problems.add("the Cosmos emulator does not publish port 8081");
    }
    return problems;
  }

  /** Parses a KEY=VALUE env file (comments, blank lines, optional double quotes). */
  static Map<String, String> envFile(String text) {
    Map<String, String> vars = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("#")) {
        continue;
      }
      int eq = trimmed.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("not KEY=VALUE: " + trimmed);
      }
      String value = trimmed.substring(eq + 1);
      if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
        value = value.substring(1, value.length() - 1);
      }
      vars.put(trimmed.substring(0, eq), value);
    }
    return vars;
  }

  /**
   * local/worker.env's recipe for the topic's consumers (the commented {@code WORKER_ROLE=…}
   * lines): applied over the file, each gives a consumer no queue, the customers container, no
   * relay, and its subscription's own lock duration, max delivery count and effective time-to-live
   * (the smaller of the subscription's and the topic's) as local/servicebus/Config.json sets them.
   */
  static List<String> consumerRecipe(String workerEnv, String configJson) {
    List<String> problems = new ArrayList<>();
    JsonNode namespace;
    try {
      namespace =
          new ObjectMapper().readTree(configJson).path("UserConfig").path("Namespaces").path(0);
    } catch (IOException e) {
      problems.add("Config.json is not JSON: " + e.getMessage());
      return problems;
    }
    List<String> recipes =
        workerEnv
            .lines()
            .filter(l -> l.matches("#\\s+.*\\bWORKER_ROLE=(?!orders\\b).*"))
            .map(l -> l.replaceFirst("^#\\s+", ""))
            .toList();
    if (recipes.isEmpty()) {
      problems.add("worker.env has no recipe for the topic's consumers");
    }
    for (String recipe : recipes) {
      Map<String, String> vars = new LinkedHashMap<>(envFile(workerEnv));
      List<String> words = List.of(recipe.split("\\s+"));
      for (int i = 0; i < words.size(); i++) {
        String word = words.get(i);
        if (word.equals("-u") && i + 1 < words.size()) {
          vars.remove(words.get(++i));
        } else if (word.matches("[A-Z_]+=.*")) {
          vars.put(word.substring(0, word.indexOf('=')), word.substring(word.indexOf('=') + 1));
        }
      }
      String role = vars.get("WORKER_ROLE");
      if (vars.containsKey("SERVICEBUS_QUEUE_NAME")) {
        problems.add(role + ": the recipe leaves SERVICEBUS_QUEUE_NAME set");
      }
      if (!"customers".equals(vars.get("COSMOS_CONTAINER"))) {
        problems.add(role + ": COSMOS_CONTAINER is " + vars.get("COSMOS_CONTAINER"));
      }
      if (!"false".equals(vars.get("RELAY_ENABLED"))) {
        problems.add(
            role
                + ": the consumer would run the relay (RELAY_ENABLED "
                + vars.get("RELAY_ENABLED")
                + ")");
      }
      JsonNode topic = null;
      for (JsonNode t : namespace.path("Topics")) {
        if (t.path("Name").asText().equals(vars.get("SERVICEBUS_TOPIC_NAME"))) {
          topic = t;
        }
      }
      JsonNode subscription = null;
      for (JsonNode sub : topic == null ? List.<JsonNode>of() : topic.path("Subscriptions")) {
        if (sub.path("Name").asText().equals(vars.get("SERVICEBUS_SUBSCRIPTION_NAME"))) {
          subscription = sub;
        }
      }
      if (subscription == null) {
        problems.add(
            role
                + ": no subscription "
                + vars.get("SERVICEBUS_SUBSCRIPTION_NAME")
                + " on topic "
                + vars.get("SERVICEBUS_TOPIC_NAME")
                + " in Config.json");
        continue;
      }
      JsonNode props = subscription.path("Properties");
      Duration ttl = Duration.parse(props.path("DefaultMessageTimeToLive").asText());
      Duration topicTtl =
          Duration.parse(
              topic.path("Properties").path("DefaultMessageTimeToLive").asText(ttl.toString()));
      Map<String, String> wanted =
          Map.of(
              "SERVICEBUS_LOCK_DURATION",
                  Duration.parse(props.path("LockDuration").asText()).toString(),
              "SERVICEBUS_MAX_DELIVERY_COUNT", props.path("MaxDeliveryCount").asText(),
              "SERVICEBUS_MESSAGE_TTL", (ttl.compareTo(topicTtl) <= 0 ? ttl : topicTtl).toString());
      for (Map.Entry<String, String> e : wanted.entrySet()) {
        String given = vars.get(e.getKey());
        String normalized = given;
        try {
          normalized = e.getKey().endsWith("COUNT") ? given : Duration.parse(given).toString();
        } catch (RuntimeException notADuration) {
          // Reported below as it is.
        }
        if (!e.getValue().equals(normalized)) {
          problems.add(
              role
                  + ": "
                  + e.getKey()
                  + " is "
                  + given
                  + ", the subscription's is "
                  + e.getValue());
        }
      }
    }
    return problems;
  }

  /**
   * docs/deploy.md's laptop section and local/worker.env run the worker with the same jar, one a
   * module builds.
   */
  static List<String> laptopJar(String deployMd, String workerEnv, Map<String, String> moduleJars) {
    List<String> problems = new ArrayList<>();
    int start = deployMd.indexOf("## On a laptop");
    int end = start < 0 ? -1 : deployMd.indexOf("\n## ", start + 1);
    String laptop = start < 0 ? "" : deployMd.substring(start, end < 0 ? deployMd.length() : end);
    java.util.Set<String> docs = jars(laptop);
    java.util.Set<String> env = jars(workerEnv);
    if (docs.isEmpty() || !docs.equals(env)) {
      problems.add("deploy.md's laptop section runs " + docs + ", local/worker.env " + env);
    }
    for (String jar : docs) {
      if (!moduleJars.containsValue(jar)) {
        problems.add(jar + " is no module's jar " + moduleJars.values());
      }
    }
    return problems;
  }

  private static java.util.Set<String> jars(String text) {
    java.util.Set<String> out = new java.util.TreeSet<>();
    var m = Pattern.compile("java -jar (\\S+\\.jar) run\\b").matcher(text);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /**
   * azure.yaml's comment on its minimum azd version names what needs it: the {@code condition} of a
   * service, and each variable main.parameters.json substitutes into an array parameter (1.23.4 is
   * the first release that does either).
   */
  static List<String> azdVersionComment(String azureYaml, String mainBicep, String parametersJson) {
    List<String> problems = new ArrayList<>();
    int at = azureYaml.indexOf("requiredVersions:");
    StringBuilder comment = new StringBuilder();
    List<String> before = azureYaml.substring(0, Math.max(at, 0)).lines().toList();
    for (int i = before.size() - 1; i >= 0 && before.get(i).startsWith("#"); i--) {
      comment.insert(0, before.get(i) + "\n");
    }
    if (azureYaml.contains("condition:") && !comment.toString().contains("condition")) {
      problems.add("azure.yaml's version comment does not name the service condition");
    }
    Bicep.Template main = Bicep.parse(mainBicep);
    try {
      JsonNode params = new ObjectMapper().readTree(parametersJson).path("parameters");
      for (Bicep.Declaration param : main.all("param")) {
        String value = params.path(param.name()).path("value").asText("");
        var variable = Pattern.compile("\\$\\{([A-Z_]+)").matcher(value);
        if (param.type().startsWith("array")
            && variable.find()
            && !comment.toString().contains(variable.group(1))) {
          problems.add(
              "azure.yaml's version comment does not name "
                  + variable.group(1)
                  + ", substituted into the array parameter "
                  + param.name());
        }
      }
    } catch (IOException e) {
      problems.add("main.parameters.json is not JSON: " + e.getMessage());
    }
    return problems;
  }

  /** local/worker.env: everything the worker requires to run against the emulators. */
  static List<String> workerEnv(String text, WorkerEnv env) {
    List<String> problems = new ArrayList<>();
    Map<String, String> vars = envFile(text);
    for (String name : env.required()) {
      if (vars.getOrDefault(name, "").isBlank()) {
        problems.add("worker.env does not set " + name);
      }
    }
    for (List<String> group : env.oneOf()) {
      if (group.stream().filter(vars::containsKey).count() != 1) {
        problems.add("worker.env must set exactly one of " + group);
      }
    }
    for (String name : vars.keySet()) {
      if (!env.all().contains(name) && !name.equals("JAVA_TOOL_OPTIONS")) {
        problems.add("worker.env sets " + name + ", which the worker does not read");
      }
    }
    String javaOptions = vars.getOrDefault("JAVA_TOOL_OPTIONS", "");
    for (String property :
        List.of(
            "-DCOSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true",
            "-DCOSMOS.DISABLE_IMDS_ACCESS=true")) {
      if (!javaOptions.contains(property)) {
        problems.add("JAVA_TOOL_OPTIONS lacks " + property);
      }
    }
    if (!vars.getOrDefault("SERVICEBUS_CONNECTION_STRING", "")
        .contains("UseDevelopmentEmulator=true")) {
      problems.add("SERVICEBUS_CONNECTION_STRING is not an emulator connection string");
    }
    if (!vars.getOrDefault("COSMOS_CREATE_CONTAINER", "false").equals("true")) {
      problems.add(
          "COSMOS_CREATE_CONTAINER must be true: the emulator starts without the container");
    }
    if (vars.getOrDefault("COSMOS_CONNECTION_MODE", "gateway").equals("direct")) {
      problems.add("the Cosmos vNext emulator supports gateway mode only");
    }
    if (!vars.getOrDefault("COSMOS_ENDPOINT", "").startsWith("https://")) {
      problems.add("COSMOS_ENDPOINT must use https (the emulator runs with PROTOCOL=https)");
    }
    return problems;
  }

  /** .devcontainer/devcontainer.json: valid JSON with JDK 17, Maven, Azure CLI, azd and Docker. */
  static List<String> devcontainer(String json) {
    List<String> problems = new ArrayList<>();
    JsonNode root;
    try {
      root = STRICT_JSON.readTree(json);
    } catch (JsonProcessingException e) {
      problems.add("devcontainer.json is not valid JSON: " + e.getOriginalMessage());
      return problems;
    }
    JsonNode features = root.path("features");
    JsonNode java = feature(features, "/features/java");
    if (java == null
        || !java.path("version").asText().equals("17")
        || !java.path("installMaven").asText().equals("true")) {
      problems.add("dev container needs the java feature with version 17 and installMaven");
    }
    for (String id : List.of("/features/azure-cli", "/azd", "/features/docker-in-docker")) {
      if (feature(features, id) == null) {
        problems.add("dev container lacks the feature " + id);
      }
    }
    return problems;
  }

  private static JsonNode feature(JsonNode features, String idPart) {
    for (Map.Entry<String, JsonNode> e : features.properties()) {
      if (e.getKey().contains(idPart + ":")) {
        return e.getValue();
      }
    }
    return null;
  }

  /**
   * azure.yaml: the containerapp service worker built from the Dockerfile, the payment double from
   * its payments-double target, Bicep infra.
   */
  static List<String> azureYaml(String yaml) {
    List<String> problems = new ArrayList<>();
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JsonProcessingException e) {
      problems.add("azure.yaml is not valid YAML: " + e.getOriginalMessage());
      return problems;
    }
    JsonNode worker = root.path("services").path("worker");
    if (!worker.path("host").asText().equals("containerapp")) {
      problems.add("services.worker.host must be containerapp");
    }
    if (!worker.path("language").asText().equals("java")) {
      problems.add("services.worker.language must be java");
    }
    if (worker.path("docker").path("path").asText().isEmpty()) {
      problems.add("services.worker.docker.path is not set");
    }
    JsonNode payments = root.path("services").path("payments");
    if (!payments.path("docker").path("target").asText().equals("payments-double")) {
      problems.add("services.payments.docker.target must be payments-double");
    }
    if (!root.path("infra").path("path").asText("infra").equals("infra")) {
      problems.add("infra.path must be infra");
    }
    return problems;
  }

  /** infra/main.parameters.json against the parameters main.bicep declares. */
  static List<String> parameters(String json, Bicep.Template main) {
    List<String> problems = new ArrayList<>();
    JsonNode params;
    try {
      params = STRICT_JSON.readTree(json).path("parameters");
    } catch (JsonProcessingException e) {
      problems.add("main.parameters.json is not valid JSON: " + e.getOriginalMessage());
      return problems;
    }
    // principalType follows the login azd uses (User, or ServicePrincipal in CI): sent as User for
    // a service principal, ARM rejects the user role assignments (UnmatchedPrincipalType).
    Map<String, String> azd =
        Map.of(
            "environmentName", "${AZURE_ENV_NAME}",
            "location", "${AZURE_LOCATION}",
            "principalId", "${AZURE_PRINCIPAL_ID}",
            "principalType", "${AZURE_PRINCIPAL_TYPE=User}");
    azd.forEach(
        (name, value) -> {
          if (!params.path(name).path("value").asText().equals(value)) {
            problems.add("parameter " + name + " must be " + value);
          }
        });
    for (Map.Entry<String, JsonNode> e : params.properties()) {
      if (main.find("param", e.getKey()).isEmpty()) {
        problems.add("main.bicep declares no parameter " + e.getKey());
      }
    }
    for (Bicep.Declaration p : main.all("param")) {
      if (p.value().isEmpty() && !params.has(p.name())) {
        problems.add("required parameter " + p.name() + " is missing from main.parameters.json");
      }
    }
    return problems;
  }

  /** Dockerfile: multi-stage Maven/JDK 17 build, JRE 17 runtime, non-root, container memory. */
  static List<String> dockerfile(String text) {
    List<String> problems = new ArrayList<>();
    List<String> froms =
        text.lines().map(String::strip).filter(l -> l.startsWith("FROM ")).toList();
    if (froms.size() < 2) {
      problems.add("the Dockerfile is not multi-stage");
    } else {
      if (!froms.get(0).contains("maven") || !froms.get(0).contains("17")) {
        problems.add("the build stage is not Maven on JDK 17: " + froms.get(0));
      }
      String last = froms.get(froms.size() - 1);
      if (!last.contains("17") || !last.contains("jre")) {
        problems.add("the runtime stage is not a JRE 17: " + last);
      }
    }
    if (!text.contains("mvn -B -DskipTests -pl src/worker,src/proof -am package")) {
      problems.add(
          "the build stage does not run mvn -B -DskipTests -pl src/worker,src/proof -am package"
              + " (the two modules the images hold, not the example)");
    }
    List<String> users =
        text.lines().map(String::strip).filter(l -> l.startsWith("USER ")).toList();
    if (users.isEmpty() || users.get(users.size() - 1).matches("USER\\s+(root|0)(:.*)?")) {
      problems.add("the image runs as root");
    }
    List<String> lines = text.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).contains("--mount=type=cache")) {
        continue;
      }
      for (int j = i - 1; j >= 0 && lines.get(j).strip().startsWith("#"); j--) {
        if (LAYER_CLAIM.matcher(lines.get(j)).matches()) {
          problems.add(
              "a comment says the cache-mount step keeps a layer, but a cache mount is in no layer: "
                  + lines.get(j).strip());
        }
      }
    }
    if (!text.contains("-XX:MaxRAMPercentage=")) {
      problems.add("the JVM is not sized from the container's memory (MaxRAMPercentage)");
    }
    String worker = lastStage(text);
    String classData = stage(text, "class-data");
    // The worker's jar and lib/ come from the worker module, through the class-data stage.
    if (!classData.contains("src/worker/target/idemworker-worker.jar")
        || !classData.contains("src/worker/target/lib/")
        || !worker.contains("COPY --from=class-data --chown=root:root /app/idemworker.jar")
        || !worker.contains("COPY --from=class-data --chown=root:root /app/lib/ /app/lib/")) {
      problems.add(
          "the worker's image (the last stage) does not copy the worker module's jar and lib/"
              + " (through the class-data stage)");
    }
    if (worker.contains("src/proof/") || worker.contains("src/emulators/")) {
      problems.add("the worker's image (the last stage) copies proof or emulator files");
    }
    if (!text.contains(" AS payments-double")) {
      problems.add("no payments-double stage for azure.yaml's payments service");
    }
    if (!text.matches(
        "(?s).*ENTRYPOINT \\[\"java\",[^\n]*\"-jar\", \"/app/idemworker.jar\"]\\s*CMD \\[\"run\"]\\s*")) {
      problems.add(
          "the worker's stage must end with ENTRYPOINT [\"java\", …, \"-jar\","
              + " \"/app/idemworker.jar\"] and CMD [\"run\"]");
    }
    // A Container App's `command` replaces ENTRYPOINT and `args` replaces CMD: with the JVM options
    // in
    // ENTRYPOINT and the command in CMD, an app that runs another command keeps the options.
    for (String line : text.split("\n")) {
      if (line.startsWith("ENTRYPOINT")
          && (!line.contains("-XX:MaxRAMPercentage")
              || !line.endsWith("\"/app/idemworker.jar\"]"))) {
        problems.add("an ENTRYPOINT without the JVM options or with a command in it: " + line);
      }
    }
    return problems;
  }

  /**
   * The class-data archive: made in its own stage, copied into the worker's image and named by the
   * worker's ENTRYPOINT, which must then start the very jar the archive was made for.
   */
  static List<String> classDataArchive(String dockerfile) {
    List<String> problems = new ArrayList<>();
    String worker = lastStage(dockerfile);
    if (!dockerfile.contains(" AS class-data")
        || !dockerfile.contains("--write-archive /app/idemworker.jsa")) {
      problems.add("no class-data stage writing /app/idemworker.jsa (bench cold --write-archive)");
    }
    if (!worker.contains("COPY --from=class-data --chown=root:root /app/idemworker.jsa")) {
      problems.add("the worker's image does not copy the class-data archive");
    }
    // The archive step unsigns the jars it trains on; the archive fits those jars only.
    if (worker.contains("src/worker/target/lib/")) {
      problems.add(
          "the worker's image copies lib/ from the build, not the unsigned lib/ the class-data"
              + " archive was made for");
    }
    if (!worker.contains(
        "\"-XX:SharedArchiveFile=/app/idemworker.jsa\", \"-jar\", \"/app/idemworker.jar\"]")) {
      problems.add("the worker's ENTRYPOINT does not map the class-data archive");
    }
    return problems;
  }

  /**
   * Every file the Dockerfile copies from the build context must survive {@code .dockerignore}, or
   * the build stops at that COPY. The model: {@code *} excludes everything, {@code !path} brings a
   * path (and what is under it) back, a later plain pattern excludes again.
   */
  static List<String> dockerContext(String dockerfile, String dockerignore) {
    List<String> rules =
        dockerignore
            .lines()
            .map(String::strip)
            .filter(l -> !l.isEmpty() && !l.startsWith("#"))
            .toList();
    List<String> problems = new ArrayList<>();
    for (String line : dockerfile.lines().map(String::strip).toList()) {
      if (!line.startsWith("COPY ") || line.contains("--from=")) {
        continue;
      }
      String[] parts = line.split("\\s+");
      for (int i = 1; i < parts.length - 1; i++) {
        String source = parts[i].replaceAll("^\\./", "").replaceAll("/$", "");
        if (!source.startsWith("--") && !survives(source, rules)) {
          problems.add(".dockerignore leaves out " + source + ", which the Dockerfile copies");
        }
      }
    }
    return problems;
  }

  private static boolean survives(String path, List<String> rules) {
    boolean kept = true;
    for (String rule : rules) {
      boolean include = rule.startsWith("!");
      String pattern = (include ? rule.substring(1) : rule).replaceAll("/$", "");
      String regex = pattern.replace(".", "\\.").replace("*", "[^/]*");
      boolean matches = path.matches(regex) || path.matches(regex + "/.*");
      boolean parentIncluded = include && path.startsWith(pattern + "/");
      if (matches || parentIncluded) {
        kept = include;
      }
    }
    return kept;
  }

  /** One stage of a Dockerfile, from its FROM line to the next; empty when there is none. */
  private static String stage(String dockerfile, String name) {
    int from = dockerfile.indexOf(" AS " + name + "\n");
    if (from < 0) {
      return "";
    }
    int next = dockerfile.indexOf("\nFROM ", from);
    return next < 0 ? dockerfile.substring(from) : dockerfile.substring(from, next);
  }

  private static String lastStage(String dockerfile) {
    int last = dockerfile.lastIndexOf("\nFROM ");
    return last < 0 ? dockerfile : dockerfile.substring(last);
  }

  private static void intRange(
      List<String> problems, String queue, JsonNode props, String field, int min, int max) {
    JsonNode value = props.path(field);
    if (!value.isInt() || value.asInt() < min || value.asInt() > max) {
      problems.add(
          queue + "." + field + " is " + value + ", the emulator allows " + min + "–" + max);
    }
  }

  private static void durationRange(
      List<String> problems, String queue, JsonNode props, String field, String min, String max) {
    String text = props.path(field).asText("");
    try {
      Duration d = Duration.parse(text);
      if (d.compareTo(Duration.parse(min)) < 0 || d.compareTo(Duration.parse(max)) > 0) {
        problems.add(
            queue + "." + field + " is " + text + ", the emulator allows " + min + "–" + max);
      }
    } catch (DateTimeParseException e) {
      problems.add(queue + "." + field + " is not an ISO-8601 duration: '" + text + "'");
    }
  }
}
