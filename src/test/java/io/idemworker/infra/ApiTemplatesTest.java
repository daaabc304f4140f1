package io.idemworker.infra;

import static io.idemworker.infra.Mutations.replaceOnce;
import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.infra.Bicep.Arr;
import io.idemworker.infra.Bicep.Declaration;
import io.idemworker.infra.Bicep.Node;
import io.idemworker.infra.Bicep.Obj;
import io.idemworker.infra.Bicep.Template;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The HTTP order intake's Container App (infra/modules/api-app.bicep) and its wiring in main.bicep:
 * the real templates pass, and each check notices a broken copy.
 */
class ApiTemplatesTest {
  private static final String API = Repo.read("infra/modules/api-app.bicep");
  private static final String MAIN = Repo.read("infra/main.bicep");
  private static final String DATA_CONTRIBUTOR = "00000000-0000-0000-0000-000000000002";
  private static final String ACR_PULL = "7f951dda-4ed3-4680-a7ca-43fe172d538d";

  /**
   * api-app.bicep: external ingress to the api's port, the {@code api} command, its own identity
   * alone (AcrPull, Cosmos data on the orders container, the key's secret), the key as a Key Vault
   * reference, Entra ID authentication that refuses the unauthenticated, and no Service Bus.
   */
  static List<String> apiApp(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    Obj app = BicepChecks.single(t, "Microsoft.App/containerApps", problems);
    if (app == null) {
      return problems;
    }
    BicepChecks.expect(t, app, "properties.configuration.ingress.external", "true", problems);
    BicepChecks.expect(t, app, "properties.configuration.ingress.allowInsecure", "false", problems);
    String identities = app.text("identity.userAssignedIdentities").orElse("");
    if (!identities.replaceAll("[\\s;]", "").equals("{'${identity.id}':{}}")) {
      problems.add("the app runs with identities other than its own: " + identities);
    }
    BicepEval eval =
        new BicepEval(t, Map.of("imageName", DeploymentChecks.PUSHED_IMAGE, "port", 8080L));
    String symbol = t.resourcesOfType("Microsoft.App/containerApps").get(0).name();
    Map<String, Object> evaluated = eval.resource(symbol);
    Object targetPort =
        BicepEval.at(evaluated, "properties.configuration.ingress.targetPort").orElse("(none)");
    if (!Long.valueOf(8080).equals(targetPort)) {
      problems.add("ingress targetPort is " + targetPort + ", not the api's port");
    }
    Object command =
        BicepEval.at(evaluated, "properties.template.containers")
            .map(c -> ((List<?>) c).get(0))
            .flatMap(c -> BicepEval.at(c, "command"))
            .orElse(List.of());
    List<?> words = (List<?>) command;
    if (words.isEmpty() || !"api".equals(String.valueOf(words.get(words.size() - 1)))) {
      problems.add("the container's command does not end in api: " + words);
    }
    Map<String, Obj> env = new LinkedHashMap<>();
    for (String var : List.of("baseEnv", "keyEnv")) {
      Optional<Node> value = t.find("var", var).flatMap(Declaration::value);
      if (value.isEmpty() || !(value.get() instanceof Arr arr)) {
        problems.add("var " + var + " is not an array of variables");
        continue;
      }
      for (Node item : arr.items()) {
        Obj variable = (Obj) item;
        env.put(variable.text("name").orElse("").replace("'", ""), variable);
      }
    }
    if (env.keySet().stream().anyMatch(n -> n.startsWith("SERVICEBUS_"))) {
      problems.add("the api is given Service Bus settings: " + env.keySet());
    }
    for (String name : List.of("COSMOS_ENDPOINT", "API_AUTH", "API_PORT", "AZURE_CLIENT_ID")) {
      if (!env.containsKey(name)) {
        problems.add(name + " is not set");
      }
    }
    Optional<String> key =
        Optional.ofNullable(env.get("API_KEY")).flatMap(v -> v.text("secretRef"));
    if (key.isEmpty() || !key.get().equals("'api-key'")) {
      problems.add("API_KEY is not the api-key secret: " + key);
    }
    String secrets =
        app.text("properties.configuration.secrets").orElse("")
            + t.find("var", "keySecrets").flatMap(Declaration::value).map(Bicep::text).orElse("");
    if (!secrets.contains("keyVaultUrl: '${keyVaultUri}secrets/${apiKeySecretName}'")
        || !secrets.contains("identity: identity.id")
        || secrets.contains("value:")) {
      problems.add("the api-key secret is not a Key Vault reference read with the app's identity");
    }
    Obj cosmosAccess =
        BicepChecks.single(t, "Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments", problems);
    if (cosmosAccess != null) {
      if (!cosmosAccess.text("properties.roleDefinitionId").orElse("").contains(DATA_CONTRIBUTOR)) {
        problems.add("the api's Cosmos DB role is not Built-in Data Contributor");
      }
      if (!cosmosAccess.text("properties.scope").orElse("").contains("/colls/")) {
        problems.add("the api's Cosmos DB role is not scoped to the orders container");
      }
    }
    if (!BicepChecks.assignedRoles(t, "Microsoft.Authorization/roleAssignments")
        .contains(ACR_PULL)) {
      problems.add("the api's identity has no AcrPull");
    }
    Optional<Declaration> auth =
        t.resourcesOfType("Microsoft.App/containerApps/authConfigs").stream().findFirst();
    if (auth.isEmpty()) {
      problems.add("no authConfigs for API_AUTH entra");
    } else {
      Obj body = t.body(auth.get());
      if (!body.text("properties.globalValidation.unauthenticatedClientAction")
          .orElse("")
          .equals("'Return401'")) {
        problems.add("entra authentication lets unauthenticated requests through");
      }
      if (!body.text("properties.identityProviders.azureActiveDirectory.enabled")
          .orElse("")
          .equals("true")) {
        problems.add("entra authentication has no Entra ID provider");
      }
    }
    if (!text.contains("dependsOn: [\n    acrPull\n    cosmosDataAccess")) {
      problems.add("the app does not wait for its identity's AcrPull and Cosmos DB roles");
    }
    return problems;
  }

  /** main.bicep: the api module, with the vault, registry and Cosmos DB from their modules. */
  static List<String> main(String text) {
    Template main = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    Optional<Declaration> module =
        main.all("module").stream().filter(d -> d.type().contains("api-app.bicep")).findFirst();
    if (module.isEmpty()) {
      problems.add("main.bicep lacks the api module");
      return problems;
    }
    Obj params = (Obj) main.body(module.get()).at("params").orElseThrow();
    Map<String, String> expected =
        Map.of(
            "keyVaultUri", "keyVault.outputs.vaultUri",
            "keyVaultName", "keyVault.outputs.name",
            "registryLoginServer", "registry.outputs.loginServer",
            "cosmosContainerName", "cosmos.outputs.containerName",
            "apiKey", "apiKey",
            "authMode", "apiAuthMode");
    expected.forEach(
        (name, value) -> {
          String got = params.text(name).orElse("(missing)");
          if (!got.equals(value)) {
            problems.add("the api module's " + name + " is " + got + ", not " + value);
          }
        });
    if (!text.contains("@secure()\n@description('apikey only: the API key clients")) {
      problems.add("apiKey is not a @secure() parameter");
    }
    return problems;
  }

  @Test
  void realTemplates_passEveryApiCheck() {
    assertThat(apiApp(API)).isEmpty();
    assertThat(main(MAIN)).isEmpty();
  }

  @Test
  void internalIngress_orAnotherPort_isReported() {
    String internal = replaceOnce(API, "external: true", "external: false");
    String offPort = replaceOnce(API, "targetPort: usePlaceholder ? 80 : port", "targetPort: 9090");

    assertThat(apiApp(internal)).anyMatch(p -> p.contains("ingress.external"));
    assertThat(apiApp(offPort)).anyMatch(p -> p.contains("targetPort is 9090"));
  }

  @Test
  void theWorkersCommand_isReported() {
    String broken =
        replaceOnce(API, "  '/app/idemworker.jar'\n  'api'", "  '/app/idemworker.jar'\n  'run'");

    assertThat(apiApp(broken)).anyMatch(p -> p.contains("does not end in api"));
  }

  @Test
  void theKeyAsAPlainValue_orAnotherContainerScope_isReported() {
    String plain =
        replaceOnce(
            API,
            "keyVaultUrl: '${keyVaultUri}secrets/${apiKeySecretName}'",
            "value: 'in-the-template'");
    String accountWide =
        replaceOnce(
            API,
            "scope: '${cosmosAccount.id}/dbs/${cosmosDatabaseName}/colls/${cosmosContainerName}'",
            "scope: cosmosAccount.id");

    assertThat(apiApp(plain)).anyMatch(p -> p.contains("not a Key Vault reference"));
    assertThat(apiApp(accountWide)).anyMatch(p -> p.contains("not scoped to the orders container"));
  }

  @Test
  void entraThatLetsAnonymousThrough_isReported() {
    String broken =
        replaceOnce(
            API,
            "unauthenticatedClientAction: 'Return401'",
            "unauthenticatedClientAction: 'AllowAnonymous'");

    assertThat(apiApp(broken)).anyMatch(p -> p.contains("lets unauthenticated requests through"));
  }

  @Test
  void serviceBusSettings_areReported() {
    String broken =
        replaceOnce(
            API,
            "  {\n    name: 'COSMOS_ENDPOINT'",
            "  {\n    name: 'SERVICEBUS_QUEUE_NAME'\n    value: 'orders'\n  }\n  {\n    name: 'COSMOS_ENDPOINT'");

    assertThat(apiApp(broken)).anyMatch(p -> p.contains("Service Bus settings"));
  }

  @Test
  void mainWithoutTheVaultsOutput_isReported() {
    String broken =
        replaceOnce(
            MAIN,
            "keyVaultUri: keyVault.outputs.vaultUri\n    authMode",
            "keyVaultUri: 'https://x.vault.azure.net/'\n    authMode");

    assertThat(main(broken)).anyMatch(p -> p.contains("keyVaultUri"));
  }
}
