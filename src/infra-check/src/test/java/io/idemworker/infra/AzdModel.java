package io.idemworker.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.infra.Bicep.Declaration;
import io.idemworker.infra.Bicep.Template;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A model of what the Azure Developer CLI does around {@code infra/}, written from azd's source
 * (Azure/azure-dev at commit ae35809f496491989273d0edefdeb70f245f399b, release 1.31.2), so the
 * templates can be tested against azd's behaviour on a machine that cannot run azd or reach Azure:
 *
 * <ul>
 *   <li>{@code main.parameters.json}: only each parameter's value is substituted ({@code
 *       pkg/infra/provisioning/bicep/bicep_provider.go} {@code loadParameters}, l.2199–2382). {@code
 *       ${VAR}} and {@code ${VAR=default}} follow drone/envsubst 1.0.3: the default applies when the
 *       value is empty, unset or set-empty alike; the {@code .env} is read before the process
 *       environment ({@code pkg/environment/environment.go} l.201–212); {@code AZURE_PRINCIPAL_ID} and
 *       {@code AZURE_PRINCIPAL_TYPE} always come from the signed-in principal (bicep_provider.go
 *       l.2155–2160; {@code current_principal_id_provider.go} l.61–76: {@code ServicePrincipal} for a
 *       client-id login). A string that ends empty because a variable was unset is dropped, so the
 *       template's default applies (l.2363–2369); strings for {@code int} parameters are parsed
 *       base 10, for {@code bool} ones as Go's {@code strconv.ParseBool} (l.3719–3758).
 *   <li>{@code $(secretOrRandomPassword VAULT SECRET)} ({@code pkg/cmdsubst/secretOrRandomPassword.go}
 *       l.44–81): with other than two arguments (an empty vault name vanishes) or a blank secret, a
 *       password of 15 characters, 5 each of {@code a-z}, {@code A-Z} and {@code 0-9} ({@code
 *       pkg/password/generator.go} l.88–92: no length given means the sum of the minimums); a 404
 *       also generates one; any other Key Vault answer, 403 included, fails the provision ({@code
 *       pkg/keyvault/keyvault.go} l.165–168).
 *   <li>A parameter with no value and no default is prompted for (l.3578–3633); CI runs with
 *       {@code --no-prompt}, so here it fails the provision.
 *   <li>Before each provision, a {@code preprovision} handler sets {@code
 *       SERVICE_<NAME>_RESOURCE_EXISTS} for every Container App service, enabled or not, from a search
 *       of the resource group for the app tagged {@code azd-service-name: <name>} ({@code
 *       pkg/project/service_target_containerapp.go} l.499–519, registered for every service by
 *       {@code project_manager.go} l.115–135).
 *   <li>After a deployment every non-secure output is saved to the {@code .env} under its declared
 *       name ({@code pkg/infra/provisioning/manager.go} l.333–359; {@code deployment.go} l.63–106)
 *       and read back by the next provision. A resource group deleted outside azd is noticed and
 *       deployed again (bicep_provider.go l.856–911), with the {@code .env} as it was.
 *   <li>{@code azd publish} (1.20.0 and later; {@code internal/cmd/publish.go} l.245–359) builds and
 *       pushes the image of each service whose {@code condition} is one of {@code 1, true, TRUE,
 *       True, yes, YES, Yes} ({@code pkg/project/importer.go} l.138–150, {@code service_config.go}
 *       l.123–144) and saves {@code SERVICE_<NAME>_IMAGE_NAME} ({@code
 *       service_target_containerapp.go} l.154–164); it needs no app, only the resource group (l.463–497),
 *       and touches none.
 *   <li>{@code azd deploy} publishes, then, without an {@code infra/<service>.bicep} revision module
 *       (l.194–226), finds the one host tagged {@code azd-service-name: <name>} ({@code
 *       pkg/project/resource_manager.go} l.163–222; none fails the deploy, l.189–197), GETs the live
 *       app and changes only {@code template.revisionSuffix} and {@code containers[0].image} ({@code
 *       pkg/containerapps/container_app.go} {@code AddRevision}, l.332–356): ingress, args, probes
 *       and secrets stay as the last provision left them.
 *   <li>{@code azd down} deletes the resource group and the template's output keys from the {@code
 *       .env}, nothing else ({@code manager.go} l.313–323; bicep_provider.go l.1437–1441). Without
 *       {@code --purge} its purge prompt defaults to no (bicep_provider.go {@code purgeItems},
 *       l.1714–1744; {@code --no-prompt} takes the default), so a Key Vault stays soft-deleted under
 *       its name, which Key Vault then refuses to a new vault until it is purged or expires.
 *   <li>{@code azd up} with {@code workflows.up} runs its steps in order ({@code cmd/up.go}
 *       l.182–196; {@code pkg/workflow/runner.go} l.36–59).
 * </ul>
 *
 * <p>Azure's side is modelled only as far as these templates touch what azd reads or what the apps
 * need when a step creates or changes them: ARM checks each parameter's {@code @minLength}, {@code
 * @maxLength}, {@code @allowed}, {@code @minValue} and {@code @maxValue} (the modules' too), stops
 * at a {@code fail(…)} on the branch taken, writes Key Vault secrets and records who holds a role on
 * each; the subscription holds the resource group, its vaults (and soft-deleted ones), the registry's
 * images, every role assignment with the azd command that made it, and each Container App as it runs
 * ({@link LiveApp}). A role assignment is taken as unusable during the command that made it (Azure
 * RBAC may take minutes to apply one) and usable in any later command; Container Apps needs the roles
 * of an app's identities when it creates or updates an app that references Key Vault or runs our
 * image (microsoft/azure-container-apps#722), and the image must be in the registry. Not modelled:
 * azd's skip of an unchanged deployment (bicep_provider.go l.849–911), time itself. Not thread-safe;
 * one model per test.
 */
final class AzdModel {
  /** How azd is signed in. */
  enum PrincipalType {
    User,
    ServicePrincipal
  }

  /** The signed-in principal: its object id and type. */
  record Principal(String objectId, PrincipalType type) {}

  /** What stopped azd, with the message it would print. */
  static final class AzdFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AzdFailure(String message) {
      super(message);
    }
  }

  /**
   * The subscription's Key Vaults: secret values, who may read each secret, and the names of vaults
   * deleted but not purged (soft-deleted, 7 days here), which no new vault may take.
   */
  static final class Vaults {
    final Map<String, Map<String, String>> secrets = new HashMap<>();
    final Map<String, Set<String>> readers = new HashMap<>();
    final Set<String> softDeleted = new HashSet<>();

    Optional<String> read(String vault, String secret, Principal as) {
      if (!secrets.containsKey(vault)) {
        throw new AzdFailure(
            "reading secret '" + secret + "' from vault '" + vault + "': no such host");
      }
      if (!readers.getOrDefault(vault + "/" + secret, Set.of()).contains(as.objectId())) {
        throw new AzdFailure(
            "reading secret '" + secret + "' from vault '" + vault + "': 403 Forbidden");
      }
      return Optional.ofNullable(secrets.get(vault).get(secret));
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern SUBST =
      Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(=([^}]*))?}");
  private static final Pattern COMMAND = Pattern.compile("\\$\\(\\s*(\\w+)([\\w\\s-]*)\\)");
  private static final String REGISTRY_IMAGE = "crtest.azurecr.io/idemworker/";

  /** The image the templates run before azd has published one. */
  static final String PLACEHOLDER_IMAGE = "mcr.microsoft.com/k8se/quickstart:latest";

  private static final List<String> TRUTHY =
      List.of("1", "true", "TRUE", "True", "yes", "YES", "Yes");
  private static final Pattern SECRET_URL =
      Pattern.compile("'\\$\\{[A-Za-z0-9_.]+}secrets/\\$\\{([A-Za-z0-9_]+)}'");

  private final Map<String, String> files;
  private final SecureRandom random = new SecureRandom();
  final Map<String, String> dotenv = new LinkedHashMap<>();

  /** The process environment azd runs in (a CI job sets the location and name there). */
  final Map<String, String> processEnv = new LinkedHashMap<>();

  final Vaults vaults = new Vaults();
  private final List<String> lastOutputs = new ArrayList<>();

  /**
   * A Container App that reads a Key Vault secret at run time (a {@code keyVaultUrl} secret with an
   * identity), found in the last provision.
   *
   * @param app the app's resource, as {@code module/symbol}
   * @param secret the secret's name
   * @param principal the identity as {@link #principalKey} tells them apart
   * @param grantedBefore whether a role on that secret for that identity was recorded before the
   *     app's module deployed (in a module it waits for, or in its own)
   */
  record SecretRead(String app, String secret, String principal, boolean grantedBefore) {}

  /** The run-time secret reads of the apps in the last provision. */
  final List<SecretRead> secretReads = new ArrayList<>();

  private final Map<String, Set<String>> grantedIn = new HashMap<>();
  private int deploys;

  /** The parameter values of the last provision, after azd and the template's defaults. */
  Map<String, Object> lastParameters = Map.of();

  /**
   * A Container App as it runs in the subscription: what the last provision set, with the image the
   * last {@code azd deploy} put in its place.
   *
   * @param resource the app's resource in the templates, as {@code main/<module>/…/<symbol>}
   * @param name the app's name
   * @param service its {@code azd-service-name} tag, empty without one
   * @param image the image it runs
   * @param targetPort the ingress's target port, {@code null} without ingress
   * @param args the container's args
   * @param probes the container's probes
   * @param vaultSecrets the Key Vault secrets it references
   * @param identities its user-assigned identities, as {@link #principalKey} tells them apart
   */
  record LiveApp(
      String resource,
      String name,
      String service,
      String image,
      Object targetPort,
      List<Object> args,
      List<Object> probes,
      List<String> vaultSecrets,
      Set<String> identities) {
    boolean placeholder() {
      return image.equals(PLACEHOLDER_IMAGE);
    }

    LiveApp withImage(String newImage) {
      return new LiveApp(
          resource, name, service, newImage, targetPort, args, probes, vaultSecrets, identities);
    }
  }

  /**
   * A role assignment in the subscription (Azure RBAC or Cosmos DB data plane).
   *
   * @param resource its resource in the templates, as {@code main/<module>/<symbol>}
   * @param principal whom it is for, as {@link #principalKey} tells them apart
   * @param madeBy the azd command that created it (see {@link #commands})
   */
  record RoleAssignment(String resource, String principal, int madeBy) {}

  /** Whether the resource group exists (the deployment creates it; down and a hand delete it). */
  boolean resourceGroupExists;

  /** The Container Apps running, by resource. */
  final Map<String, LiveApp> apps = new LinkedHashMap<>();

  /** The role assignments, by resource and principal. */
  final Map<String, RoleAssignment> roles = new LinkedHashMap<>();

  /** The images in the deployment's registry. */
  final Set<String> registryImages = new HashSet<>();

  /** The azd commands run so far; each provision, publish, deploy and down is one. */
  int commands;

  private final List<LiveApp> deployedNow = new ArrayList<>();
  private final Map<String, Template> parsed = new HashMap<>();
  private String vaultOfThisProvision;

  /**
   * @param files the repository's files by path ({@code infra/main.bicep}, {@code
   *     infra/main.parameters.json}, the modules, {@code azure.yaml}), so tests can hand it broken
   *     copies
   */
  AzdModel(Map<String, String> files) {
    this.files = files;
    dotenv.put("AZURE_ENV_NAME", "test");
    dotenv.put("AZURE_LOCATION", "westeurope");
    dotenv.put("AZURE_SUBSCRIPTION_ID", "00000000-0000-0000-0000-0000000000aa");
    processEnv.put("AZURE_LOCATION", "westeurope");
  }

  /** The repository's own files. */
  static Map<String, String> repositoryFiles() {
    Map<String, String> files = new HashMap<>();
    for (String path :
        List.of(
            "azure.yaml",
            "infra/main.bicep",
            "infra/main.parameters.json",
            "infra/abbreviations.json")) {
      files.put(path, Repo.read(path));
    }
    try (var modules = java.nio.file.Files.list(Repo.ROOT.resolve("infra/modules"))) {
      modules
          .filter(p -> p.toString().endsWith(".bicep") || p.toString().endsWith(".json"))
          .forEach(
              p ->
                  files.put(
                      "infra/modules/" + p.getFileName(),
                      Repo.read("infra/modules/" + p.getFileName())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** {@code azd up}: the steps of azure.yaml's {@code workflows.up}. */
  void up(Principal as) {
    up(as, step -> {});
  }

  /** {@code azd up}, calling {@code afterEachStep} with each step once it has run. */
  void up(Principal as, Consumer<String> afterEachStep) {
    for (String step : upSteps()) {
      run(step, as);
      afterEachStep.accept(step);
    }
  }

  /**
   * One azd command as typed ({@code azd provision}, {@code publish --all}, {@code deploy worker},
   * {@code down --purge}, {@code up}); the leading {@code azd} is optional.
   */
  void run(String command, Principal as) {
    List<String> words = List.of(command.trim().replaceFirst("^azd\\s+", "").split("\\s+"));
    Optional<String> service = words.stream().skip(1).filter(w -> !w.startsWith("-")).findFirst();
    switch (words.get(0)) {
      case "provision" -> provision(as);
      case "publish" -> publish(service);
      case "deploy" -> deploy(service);
      case "down" -> down(words.contains("--purge"));
      case "up" -> up(as);
      case "package" -> {
        // Builds images locally; nothing azd saves.
      }
      default -> throw new IllegalArgumentException("a command the model lacks: " + command);
    }
  }

  /** The {@code azd:} steps of {@code workflows.up}, or azd's default order without one. */
  List<String> upSteps() {
    JsonNode up = yaml().path("workflows").path("up");
    JsonNode steps = up.has("steps") ? up.path("steps") : up;
    if (steps.isMissingNode() || steps.isEmpty()) {
      return List.of("package", "provision", "deploy --all");
    }
    List<String> out = new ArrayList<>();
    steps.forEach(s -> out.add(s.path("azd").asText()));
    return out;
  }

  /**
   * {@code azd provision}: what exists now, parameters, ARM's checks, the deployment, outputs
   * saved.
   */
  void provision(Principal as) {
    commands++;
    preprovision();
    Template main = Bicep.parse(files.get("infra/main.bicep"));
    Map<String, Object> parameters = parameters(main, as);
    lastParameters = parameters;
    checkDecorators(main, parameters, "main.bicep");
    BicepEval eval = new BicepEval(main, parameters, functions(), this::module);
    secretReads.clear();
    grantedIn.clear();
    deployedNow.clear();
    vaultOfThisProvision = null;
    deploy(eval, "main.bicep", "main", Set.of());
    resourceGroupExists = true;
    checkWhatTheAppsNeedNow();
    deployedNow.forEach(app -> apps.put(app.resource(), app));
    lastOutputs.clear();
    for (Declaration output : main.all("output")) {
      if (output.decorators().containsKey("secure")) {
        continue;
      }
      Object value = eval.output(output.name());
      dotenv.put(
          output.name(),
          value instanceof BicepEval.Opaque o
              ? "(azure: " + o.text() + ")"
              : String.valueOf(value));
      lastOutputs.add(output.name());
    }
  }

  /** The preprovision handler of each Container App service, enabled or not. */
  private void preprovision() {
    for (String service : services().keySet()) {
      boolean exists =
          resourceGroupExists && apps.values().stream().anyMatch(a -> a.service().equals(service));
      dotenv.put(serviceKey(service, "RESOURCE_EXISTS"), String.valueOf(exists));
    }
  }

  /** {@code azd publish [service | --all]}: pushes each enabled service's image, saves its name. */
  void publish(Optional<String> only) {
    commands++;
    for (String service : enabledServices(only)) {
      publishImage(service);
    }
  }

  /**
   * {@code azd deploy [service | --all]}: publishes each enabled service's image, then changes only
   * the image of the one live app tagged with the service's name.
   */
  void deploy(Optional<String> only) {
    commands++;
    for (String service : enabledServices(only)) {
      String image = publishImage(service);
      List<LiveApp> tagged =
          apps.values().stream().filter(a -> a.service().equals(service)).toList();
      if (tagged.isEmpty()) {
        throw new AzdFailure(
            "fetching target resource: unable to find a resource tagged with 'azd-service-name: "
                + service
                + "'. Ensure the service resource is correctly tagged in your infrastructure"
                + " configuration, and rerun provision");
      }
      if (tagged.size() > 1) {
        throw new AzdFailure(
            "expecting only '1' resource tagged with 'azd-service-name: " + service + "'");
      }
      LiveApp app = tagged.get(0);
      apps.put(app.resource(), app.withImage(image));
    }
  }

  /** {@code azd deploy --all}. */
  void deploy() {
    deploy(Optional.empty());
  }

  private String publishImage(String service) {
    if (!resourceGroupExists || !dotenv.containsKey("AZURE_CONTAINER_REGISTRY_ENDPOINT")) {
      throw new AzdFailure(
          "publishing service '" + service + "': the registry does not exist; run azd provision");
    }
    String image =
        REGISTRY_IMAGE + service + "-" + dotenv.get("AZURE_ENV_NAME") + ":azd-deploy-" + commands;
    registryImages.add(image);
    dotenv.put(serviceKey(service, "IMAGE_NAME"), image);
    return image;
  }

  /**
   * {@code azd down} with or without {@code --purge}: the resource group and all it holds are
   * deleted; its vaults are purged with {@code --purge} and otherwise stay soft-deleted under their
   * names; the template's output keys leave the {@code .env}, everything else stays.
   */
  void down(boolean purge) {
    commands++;
    deleteResourceGroup(purge);
    for (Declaration output : Bicep.parse(files.get("infra/main.bicep")).all("output")) {
      dotenv.remove(output.name());
    }
  }

  /**
   * The resource group deleted outside azd ({@code az group delete}): its vaults soft-deleted, the
   * {@code .env} as it was.
   */
  void deleteResourceGroupByHand() {
    deleteResourceGroup(false);
  }

  private void deleteResourceGroup(boolean purge) {
    if (!purge) {
      vaults.softDeleted.addAll(vaults.secrets.keySet());
    }
    vaults.secrets.clear();
    vaults.readers.clear();
    apps.clear();
    roles.clear();
    registryImages.clear();
    resourceGroupExists = false;
  }

  /** The live app whose name starts with {@code prefix} ({@code ca-payments-}). */
  Optional<LiveApp> app(String prefix) {
    return apps.values().stream().filter(a -> a.name().startsWith(prefix)).findFirst();
  }

  private JsonNode yaml() {
    try {
      return new com.fasterxml.jackson.dataformat.yaml.YAMLMapper()
          .readTree(files.get("azure.yaml"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** azure.yaml's services and their conditions (empty without one). */
  private Map<String, String> services() {
    Map<String, String> out = new LinkedHashMap<>();
    yaml()
        .path("services")
        .properties()
        .forEach(e -> out.put(e.getKey(), e.getValue().path("condition").asText("")));
    return out;
  }

  private List<String> enabledServices(Optional<String> only) {
    List<String> out = new ArrayList<>();
    services()
        .forEach(
            (service, condition) -> {
              boolean enabled =
                  condition.isEmpty() || TRUTHY.contains(substitute(condition, null).value());
              if (only.isPresent() && only.get().equals(service) && !enabled) {
                throw new AzdFailure(
                    "service '" + service + "' has a deployment condition that evaluated to false");
              }
              if (enabled && only.map(service::equals).orElse(true)) {
                out.add(service);
              }
            });
    return out;
  }

  private static String serviceKey(String service, String property) {
    return "SERVICE_" + service.toUpperCase(Locale.ROOT).replace('-', '_') + "_" + property;
  }

  /** The vault the last provision's {@code AZURE_KEY_VAULT_NAME} output names. */
  String vaultName() {
    return Optional.ofNullable(dotenv.get("AZURE_KEY_VAULT_NAME"))
        .orElseThrow(() -> new IllegalStateException("no AZURE_KEY_VAULT_NAME output"));
  }

  private record Substituted(String value, boolean hadUnset) {}

  private Substituted substitute(String text, Principal as) {
    Matcher m = SUBST.matcher(text);
    StringBuilder out = new StringBuilder();
    boolean unset = false;
    while (m.find()) {
      String name = m.group(1);
      String value;
      if (as != null && name.equals("AZURE_PRINCIPAL_ID")) {
        value = as.objectId();
      } else if (as != null && name.equals("AZURE_PRINCIPAL_TYPE")) {
        value = as.type().name();
      } else if (dotenv.containsKey(name)) {
        value = dotenv.get(name);
      } else if (processEnv.containsKey(name)) {
        value = processEnv.get(name);
      } else {
        value = "";
        unset = true;
      }
      if (value.isEmpty() && m.group(2) != null) {
        value = m.group(3);
      }
      m.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    m.appendTail(out);
    return new Substituted(out.toString(), unset);
  }

  private Map<String, Object> parameters(Template main, Principal as) {
    JsonNode file;
    try {
      file = JSON.readTree(files.get("infra/main.parameters.json")).path("parameters");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, Object> values = new LinkedHashMap<>();
    for (Declaration param : main.all("param")) {
      JsonNode given = file.path(param.name()).path("value");
      if (!given.isMissingNode()) {
        if (given.isTextual()) {
          Substituted s = substitute(given.asText(), as);
          String value = commands(s.value(), as);
          if (!(value.isEmpty() && s.hadUnset())) {
            values.put(param.name(), typed(param, value));
            continue;
          }
        } else {
          values.put(
              param.name(),
              given.isNumber()
                  ? (Object) given.asLong()
                  : given.isBoolean() ? given.asBoolean() : given.toString());
          continue;
        }
      }
      if (param.value().isPresent()) {
        values.put(param.name(), defaultValue(main, param, values));
        continue;
      }
      throw new AzdFailure(
          "parameter " + param.name() + " has no value: azd would prompt (fails with --no-prompt)");
    }
    return values;
  }

  private Object defaultValue(Template main, Declaration param, Map<String, Object> known) {
    return new BicepEval(main, known, functions()).node(param.value().get());
  }

  private static Object typed(Declaration param, String value) {
    if (param.type().startsWith("int")) {
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new AzdFailure("parameter " + param.name() + ": '" + value + "' is not an integer");
      }
    }
    if (param.type().startsWith("bool")) {
      // Go's strconv.ParseBool (bicep_provider.go l.3727-3731).
      if (List.of("1", "t", "T", "TRUE", "true", "True").contains(value)) {
        return true;
      }
      if (List.of("0", "f", "F", "FALSE", "false", "False").contains(value)) {
        return false;
      }
      throw new AzdFailure("parameter " + param.name() + ": '" + value + "' is not a bool");
    }
    if (param.type().startsWith("array") || param.type().startsWith("object")) {
      // bicep_provider.go l.2248-2308: the substituted string must parse as JSON.
      try {
        return JSON.readValue(value, Object.class);
      } catch (IOException e) {
        throw new AzdFailure("parameter " + param.name() + ": '" + value + "' is not valid JSON");
      }
    }
    return value;
  }

  private String commands(String value, Principal as) {
    Matcher m = COMMAND.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      if (!m.group(1).equals("secretOrRandomPassword")) {
        m.appendReplacement(out, Matcher.quoteReplacement(m.group()));
        continue;
      }
      String[] args = m.group(2).trim().isEmpty() ? new String[0] : m.group(2).trim().split("\\s+");
      String result;
      if (args.length != 2) {
        result = fifteenCharacterPassword();
      } else {
        result =
            vaults
                .read(args[0], args[1], as)
                .filter(v -> !v.isBlank())
                .orElseGet(this::fifteenCharacterPassword);
      }
      m.appendReplacement(out, Matcher.quoteReplacement(result));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** azd's generator with MinLower, MinUpper and MinNumeric 5 and no length. */
  String fifteenCharacterPassword() {
    List<Character> chars = new ArrayList<>();
    for (String alphabet :
        List.of("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789")) {
      for (int i = 0; i < 5; i++) {
        chars.add(alphabet.charAt(random.nextInt(alphabet.length())));
      }
    }
    java.util.Collections.shuffle(chars, random);
    StringBuilder sb = new StringBuilder();
    chars.forEach(sb::append);
    return sb.toString();
  }

  private Map<String, Function<List<Object>, Object>> functions() {
    Map<String, Function<List<Object>, Object>> f = new HashMap<>();
    f.put("newGuid", args -> UUID.randomUUID().toString());
    f.put(
        "uniqueString",
        args -> {
          String h =
              Integer.toHexString(
                  String.join("|", args.stream().map(String::valueOf).toList()).hashCode());
          return ("u" + h + "0000000000000").substring(0, 13);
        });
    f.put(
        "subscription",
        args ->
            Map.of(
                "id",
                "/subscriptions/" + dotenv.get("AZURE_SUBSCRIPTION_ID"),
                "subscriptionId",
                dotenv.get("AZURE_SUBSCRIPTION_ID")));
    f.put("loadJsonContent", args -> json("infra/" + args.get(0)));
    return f;
  }

  private Object json(String path) {
    try {
      return JSON.readValue(files.get(path), Map.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Template module(String path) {
    String key = "infra/" + path;
    if (!files.containsKey(key)) {
      throw new IllegalArgumentException("no module file " + key);
    }
    return parsed.computeIfAbsent(key, k -> Bicep.parse(files.get(k)));
  }

  /**
   * One template's deployment: every deployed module's parameters against its decorators, {@code
   * fail(…)} on the branch taken, Key Vault writes and secret role assignments.
   */
  private void deploy(BicepEval eval, String where, String path, Set<String> waitsFor) {
    Template t = eval.template();
    for (Declaration module : modulesInDependencyOrder(t)) {
      if (!eval.deployed(module.name())) {
        continue;
      }
      Map<String, Object> given = eval.moduleParams(module.name());
      failures(given, where + " → module " + module.name());
      BicepEval child = eval.module(module.name());
      checkDecorators(child.template(), given, module.type());
      deploy(child, module.type(), path + "/" + module.name(), upstream(t, module));
    }
    for (Declaration resource : t.all("resource")) {
      try {
        if (eval.deployed(resource.name())) {
          failures(eval.resource(resource.name()), where + " → " + resource.name());
        }
      } catch (IllegalStateException undecidable) {
        // A choice on a value only Azure knows: nothing this model can say about it.
      }
    }
    for (Declaration created : t.resourcesOfType("Microsoft.KeyVault/vaults")) {
      if (!t.isExisting(created) && eval.deployed(created.name())) {
        String name = String.valueOf(eval.resource(created.name()).get("name"));
        if (vaults.softDeleted.contains(name)) {
          throw new AzdFailure(
              where
                  + " → "
                  + created.name()
                  + ": ConflictError: a vault named '"
                  + name
                  + "' is in a deleted but recoverable state; purge it or choose another name");
        }
        vaultOfThisProvision = name;
      }
    }
    Optional<String> vault =
        t.resourcesOfType("Microsoft.KeyVault/vaults").stream()
            .findFirst()
            .map(d -> String.valueOf(eval.resource(d.name()).get("name")));
    if (vault.isEmpty()) {
      Optional<Declaration> existing =
          t.all("resource").stream()
              .filter(d -> d.type().startsWith("Microsoft.KeyVault/vaults@"))
              .findFirst();
      vault = existing.map(d -> String.valueOf(eval.resource(d.name()).get("name")));
    }
    Map<String, String> secretSymbols = new HashMap<>();
    for (Declaration secret : t.resourcesOfType("Microsoft.KeyVault/vaults/secrets")) {
      Map<String, Object> body = eval.resource(secret.name());
      String name = String.valueOf(body.get("name"));
      secretSymbols.put(secret.name(), name);
      Optional<Object> value = BicepEval.at(body, "properties.value");
      if (value.isPresent() && eval.deployed(secret.name())) {
        if (!(value.get() instanceof String s)) {
          throw new AzdFailure(where + ": secret " + name + " gets a value only Azure knows");
        }
        vaults.secrets.computeIfAbsent(vault.orElseThrow(), v -> new HashMap<>()).put(name, s);
      }
    }
    vault.ifPresent(v -> vaults.secrets.computeIfAbsent(v, x -> new HashMap<>()));
    for (Declaration assignment : t.resourcesOfType("Microsoft.Authorization/roleAssignments")) {
      if (!eval.deployed(assignment.name())) {
        continue;
      }
      String scope = t.body(assignment).text("scope").orElse("");
      if (secretSymbols.containsKey(scope) && vault.isPresent()) {
        Object principal =
            BicepEval.at(eval.resource(assignment.name()), "properties.principalId").orElse("");
        vaults
            .readers
            .computeIfAbsent(vault.get() + "/" + secretSymbols.get(scope), k -> new HashSet<>())
            .add(principalKey(principal));
        grantedIn
            .computeIfAbsent(
                secretSymbols.get(scope) + "|" + principalKey(principal), k -> new HashSet<>())
            .add(where);
      }
    }
    for (String type :
        List.of(
            "Microsoft.Authorization/roleAssignments",
            "Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments")) {
      for (Declaration assignment : t.resourcesOfType(type)) {
        if (!eval.deployed(assignment.name())) {
          continue;
        }
        String principal =
            principalKey(
                BicepEval.at(eval.resource(assignment.name()), "properties.principalId")
                    .orElse(""));
        String resource = path + "/" + assignment.name();
        roles.putIfAbsent(
            resource + "|" + principal, new RoleAssignment(resource, principal, commands));
      }
    }
    recordSecretReads(eval, where, waitsFor);
    recordApps(eval, path);
  }

  /** Each Container App this template deploys, as it will run once the deployment is done. */
  private void recordApps(BicepEval eval, String path) {
    Template t = eval.template();
    for (Declaration declaration : t.resourcesOfType("Microsoft.App/containerApps")) {
      if (t.isExisting(declaration) || !eval.deployed(declaration.name())) {
        continue;
      }
      Map<String, Object> body = eval.resource(declaration.name());
      Map<?, ?> container =
          BicepEval.at(body, "properties.template.containers")
              .filter(List.class::isInstance)
              .map(c -> (Map<?, ?>) ((List<?>) c).get(0))
              .orElseThrow(() -> new AzdFailure(declaration.name() + ": no container"));
      Object tags = body.get("tags");
      String service =
          tags instanceof Map<?, ?> m && m.get("azd-service-name") instanceof String s ? s : "";
      List<String> vaultSecrets = new ArrayList<>();
      for (Object item : list(BicepEval.at(body, "properties.configuration.secrets"), path)) {
        if (item instanceof Map<?, ?> m && m.get("keyVaultUrl") != null) {
          Object url = m.get("keyVaultUrl");
          Matcher matcher =
              SECRET_URL.matcher(url instanceof BicepEval.Opaque o ? o.text() : "'" + url + "'");
          if (matcher.matches()) {
            vaultSecrets.add(String.valueOf(eval.expression(matcher.group(1))));
          }
        }
      }
      Set<String> identities = new HashSet<>();
      BicepEval.at(body, "identity.userAssignedIdentities")
          .filter(Map.class::isInstance)
          .ifPresent(
              ids ->
                  ((Map<?, ?>) ids)
                      .keySet()
                      .forEach(
                          key ->
                              identities.add(
                                  principalKey(
                                      eval.expression(
                                          String.valueOf(key)
                                              .replaceAll("^\\$\\{(.*)}$", "$1"))))));
      deployedNow.add(
          new LiveApp(
              path + "/" + declaration.name(),
              String.valueOf(body.get("name")),
              service,
              String.valueOf(container.get("image")),
              BicepEval.at(body, "properties.configuration.ingress.targetPort").orElse(null),
              list(Optional.ofNullable(container.get("args")), path),
              list(Optional.ofNullable(container.get("probes")), path),
              List.copyOf(vaultSecrets),
              Set.copyOf(identities)));
    }
  }

  private static List<Object> list(Optional<Object> value, String where) {
    Object v = value.orElse(List.of());
    if (!(v instanceof List<?> l)) {
      throw new AzdFailure(where + ": a list the model cannot read: " + v);
    }
    return List.copyOf(l);
  }

  /**
   * What Container Apps needs when this provision creates or changes each app: our images in the
   * registry; each referenced Key Vault secret present and readable by the identity given for it;
   * and, for an app that references Key Vault or runs our image, every role of its identities made
   * by an earlier azd command, since a role assignment may take minutes to apply
   * (microsoft/azure-container-apps#722).
   */
  private void checkWhatTheAppsNeedNow() {
    for (SecretRead read : secretReads) {
      if (!vaults
          .readers
          .getOrDefault(vaultOfThisProvision + "/" + read.secret(), Set.of())
          .contains(read.principal())) {
        throw new AzdFailure(
            read.app()
                + ": reading secret '"
                + read.secret()
                + "' with identity '"
                + read.principal()
                + "': 403 Forbidden (no Key Vault Secrets User on it)");
      }
    }
    for (LiveApp app : deployedNow) {
      if (!app.placeholder() && !registryImages.contains(app.image())) {
        throw new AzdFailure(
            app.name()
                + ": image "
                + app.image()
                + " is not in this deployment's registry, so no revision can start");
      }
      for (String secret : app.vaultSecrets()) {
        Map<String, String> held =
            vaults.secrets.getOrDefault(String.valueOf(vaultOfThisProvision), Map.of());
        if (!held.containsKey(secret)) {
          throw new AzdFailure(
              app.name()
                  + ": Key Vault reference to secret '"
                  + secret
                  + "', which vault '"
                  + vaultOfThisProvision
                  + "' does not hold (SecretNotFound)");
        }
      }
      if (app.placeholder() && app.vaultSecrets().isEmpty()) {
        continue;
      }
      for (RoleAssignment role : roles.values()) {
        if (app.identities().contains(role.principal()) && role.madeBy() == commands) {
          throw new AzdFailure(
              app.name()
                  + " ("
                  + (app.placeholder() ? "Key Vault references" : "image " + app.image())
                  + ") needs "
                  + role.resource()
                  + " for identity '"
                  + role.principal()
                  + "', made by this same azd command: Container Apps reads Key Vault and pulls"
                  + " when it creates or updates the app, and a new role assignment may not apply"
                  + " yet (\"Unable to get value using Managed identity\","
                  + " microsoft/azure-container-apps#722)");
        }
      }
    }
  }

  private void recordSecretReads(BicepEval eval, String where, Set<String> waitsFor) {
    Template t = eval.template();
    for (Declaration app : t.resourcesOfType("Microsoft.App/containerApps")) {
      if (!eval.deployed(app.name())) {
        continue;
      }
      Object secrets =
          BicepEval.at(eval.resource(app.name()), "properties.configuration.secrets")
              .orElse(List.of());
      if (!(secrets instanceof List<?> list)) {
        throw new AzdFailure(where + " → " + app.name() + ": secrets the model cannot read");
      }
      for (Object item : list) {
        Object url = item instanceof Map<?, ?> m ? m.get("keyVaultUrl") : null;
        Object identity = item instanceof Map<?, ?> m ? m.get("identity") : null;
        if (url == null || identity == null) {
          continue;
        }
        String text = url instanceof BicepEval.Opaque o ? o.text() : "'" + url + "'";
        Matcher m = SECRET_URL.matcher(text);
        if (!m.matches()) {
          throw new AzdFailure(
              where + " → " + app.name() + ": a keyVaultUrl the model cannot read: " + text);
        }
        String name = String.valueOf(eval.expression(m.group(1)));
        String principal = principalKey(identity);
        Set<String> granted = grantedIn.getOrDefault(name + "|" + principal, Set.of());
        boolean before = granted.contains(where) || granted.stream().anyMatch(waitsFor::contains);
        secretReads.add(new SecretRead(where + "/" + app.name(), name, principal, before));
      }
    }
  }

  /**
   * An identity as the model tells them apart: the resource behind a {@code .id} or {@code
   * .properties.principalId} that only Azure knows ({@code worker} for {@code worker.id}), or a
   * principal id given as a value (the deploying user's). Resource symbols are unique enough across
   * these templates for that; a model of more templates would qualify them by module.
   */
  static String principalKey(Object value) {
    if (value instanceof BicepEval.Opaque o) {
      return o.text().replaceAll("\\.(id|properties\\.principalId)$", "");
    }
    return String.valueOf(value);
  }

  /**
   * The module files {@code module} waits for: those whose outputs its parameters use,
   * transitively.
   */
  private static Set<String> upstream(Template t, Declaration module) {
    Set<String> seen = new HashSet<>();
    List<Declaration> todo = new ArrayList<>(List.of(module));
    while (!todo.isEmpty()) {
      Declaration d = todo.remove(todo.size() - 1);
      for (Declaration other : t.all("module")) {
        if (usesOutputsOf(t, d, other) && seen.add(other.type())) {
          todo.add(other);
        }
      }
    }
    return seen;
  }

  /** The modules in an order ARM could deploy them: each after those whose outputs it uses. */
  private static List<Declaration> modulesInDependencyOrder(Template t) {
    List<Declaration> ordered = new ArrayList<>();
    List<Declaration> left = new ArrayList<>(t.all("module"));
    while (!left.isEmpty()) {
      List<Declaration> ready =
          left.stream()
              .filter(d -> left.stream().noneMatch(o -> o != d && usesOutputsOf(t, d, o)))
              .toList();
      if (ready.isEmpty()) {
        throw new AzdFailure("a dependency cycle among modules: " + left);
      }
      ordered.addAll(ready);
      left.removeAll(ready);
    }
    return ordered;
  }

  /** Whether module {@code d}'s parameters use module {@code other}'s outputs (ARM waits then). */
  private static boolean usesOutputsOf(Template t, Declaration d, Declaration other) {
    return t.body(d).at("params").map(Bicep::text).orElse("").contains(other.name() + ".outputs.");
  }

  private static void failures(Object value, String where) {
    if (value instanceof BicepEval.Failure f) {
      throw new AzdFailure(where + ": " + f.message());
    }
    if (value instanceof Map<?, ?> map) {
      map.forEach((k, v) -> failures(v, where + "." + k));
    } else if (value instanceof List<?> list) {
      list.forEach(v -> failures(v, where));
    }
  }

  /** ARM's checks of each given parameter against its declaration's decorators. */
  static void checkDecorators(Template t, Map<String, Object> given, String where) {
    for (Declaration param : t.all("param")) {
      Object value = given.get(param.name());
      if (value == null) {
        if (param.value().isEmpty()) {
          throw new AzdFailure(where + ": parameter " + param.name() + " has no value");
        }
        continue;
      }
      if (value instanceof BicepEval.Opaque) {
        continue;
      }
      Map<String, String> d = param.decorators();
      if (value instanceof String s) {
        if (d.containsKey("minLength") && s.length() < Long.parseLong(d.get("minLength"))) {
          throw new AzdFailure(
              where
                  + ": parameter "
                  + param.name()
                  + " is "
                  + s.length()
                  + " characters, below @minLength("
                  + d.get("minLength")
                  + ")");
        }
        if (d.containsKey("maxLength") && s.length() > Long.parseLong(d.get("maxLength"))) {
          throw new AzdFailure(
              where
                  + ": parameter "
                  + param.name()
                  + " is longer than @maxLength("
                  + d.get("maxLength")
                  + ")");
        }
      }
      if (value instanceof Long n) {
        if (d.containsKey("minValue") && n < Long.parseLong(d.get("minValue"))) {
          throw new AzdFailure(where + ": parameter " + param.name() + " is below @minValue");
        }
        if (d.containsKey("maxValue") && n > Long.parseLong(d.get("maxValue"))) {
          throw new AzdFailure(where + ": parameter " + param.name() + " is above @maxValue");
        }
      }
      if (d.containsKey("allowed")) {
        String allowed = d.get("allowed");
        String literal = value instanceof String s ? "'" + s + "'" : String.valueOf(value);
        if (!List.of(allowed.replaceAll("[\\[\\]]", " ").trim().split("\\s+")).contains(literal)) {
          throw new AzdFailure(
              where
                  + ": parameter "
                  + param.name()
                  + " = "
                  + literal
                  + " is not @allowed "
                  + allowed);
        }
      }
    }
  }
}
