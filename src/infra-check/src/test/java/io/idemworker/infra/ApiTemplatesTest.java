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
    Object container =
        BicepEval.at(evaluated, "properties.template.containers")
            .<Object>map(c -> ((List<?>) c).get(0))
            .orElse(Map.of());
    Object args = BicepEval.at(container, "args").orElse(List.of());
    if (!List.of("api").equals(args)) {
      problems.add("the container's args are not [api]: " + args);
    }
    if (BicepEval.at(container, "command").isPresent()) {
      problems.add("the container overrides the image's ENTRYPOINT (and its JVM options)");
    }
    Map<String, Obj> env = new LinkedHashMap<>();
    for (String var : List.of("baseEnv", "keyEnv", "webhookEnv")) {
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
    webhookReceiver(t, text, env, problems);
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
      // azd deploys incrementally: a config declared only for entra would stay enabled after a
      // switch back to apikey and refuse every caller with a key.
      if (auth.get().condition().isPresent()
          || !body.text("properties.platform.enabled").orElse("").equals("!useApiKey")) {
        problems.add(
            "the auth config is not declared in both modes with platform.enabled = !useApiKey");
      }
      if (!body.text("properties.globalValidation.unauthenticatedClientAction")
          .orElse("")
          .equals("'Return401'")) {
        problems.add("entra authentication lets unauthenticated requests through");
      }
      for (String mode : List.of("entra", "apikey")) {
        Object enabled =
            BicepEval.at(
                    new BicepEval(t, Map.of("authMode", mode)).resource(auth.get().name()),
                    "properties.identityProviders.azureActiveDirectory.enabled")
                .orElse("(unset)");
        if (!Boolean.valueOf(mode.equals("entra")).equals(enabled)) {
          problems.add(
              "in "
                  + mode
                  + " mode the Entra ID provider is "
                  + (Boolean.TRUE.equals(enabled) ? "enabled" : "not enabled: " + enabled));
        }
      }
      if (!body.text(
              "properties.identityProviders.azureActiveDirectory.validation"
                  + ".defaultAuthorizationPolicy.allowedApplications")
          .orElse("")
          .equals("entraAllowedApplications")) {
        problems.add("entra authentication admits every application of the tenant");
      }
    }
    if (!text.contains("dependsOn: [\n    acrPull\n    cosmosDataAccess")) {
      problems.add("the app does not wait for its identity's AcrPull and Cosmos DB roles");
    }
    return problems;
  }

  /**
   * The webhook receiver (POST /webhooks/payments): PAYMENTS_WEBHOOK_SECRET a Key Vault reference
   * read with the app's identity, that identity Key Vault Secrets User on that secret, a marker
   * TTL, the app waiting for the role, and the path outside Entra ID authentication (the provider
   * signs, it sends no token).
   */
  private static void webhookReceiver(
      Template t, String text, Map<String, Obj> env, List<String> problems) {
    Optional<String> ref =
        Optional.ofNullable(env.get("PAYMENTS_WEBHOOK_SECRET")).flatMap(v -> v.text("secretRef"));
    if (ref.isEmpty() || !ref.get().equals("'payments-webhook-secret'")) {
      problems.add("PAYMENTS_WEBHOOK_SECRET is not the payments-webhook-secret secret: " + ref);
    }
    if (!env.containsKey("PAYMENTS_WEBHOOK_MARKER_TTL")) {
      problems.add("PAYMENTS_WEBHOOK_MARKER_TTL is not set");
    }
    String secrets =
        t.find("var", "webhookSecrets").flatMap(Declaration::value).map(Bicep::text).orElse("");
    if (!secrets.contains("keyVaultUrl: '${keyVaultUri}secrets/${paymentsWebhookSecretName}'")
        || !secrets.contains("identity: identity.id")
        || secrets.contains("value:")) {
      problems.add(
          "the payments-webhook-secret secret is not a Key Vault reference read with the app's"
              + " identity");
    }
    String appSecrets =
        t.body(t.resourcesOfType("Microsoft.App/containerApps").get(0))
            .text("properties.configuration.secrets")
            .orElse("");
    if (!appSecrets.contains("webhookSecrets")) {
      problems.add("the app's secrets leave out webhookSecrets: " + appSecrets);
    }
    Optional<String> secretSymbol =
        t.resourcesOfType("Microsoft.KeyVault/vaults/secrets").stream()
            .filter(d -> t.body(d).text("name").orElse("").equals("paymentsWebhookSecretName"))
            .map(Declaration::name)
            .findFirst();
    boolean readable =
        secretSymbol.isPresent()
            && t.resourcesOfType("Microsoft.Authorization/roleAssignments").stream()
                .map(t::body)
                .filter(b -> b.text("scope").orElse("").equals(secretSymbol.get()))
                .filter(
                    b ->
                        b.text("properties.principalId")
                            .orElse("")
                            .equals("identity.properties.principalId"))
                .anyMatch(
                    b ->
                        Bicep.guidsIn(t, b.text("properties.roleDefinitionId").orElse(""))
                            .contains(PaymentsChecks.KEY_VAULT_SECRETS_USER));
    if (!readable) {
      problems.add("the api's identity has no Key Vault Secrets User role on the webhook secret");
    }
    if (!text.matches("(?s).*dependsOn: \\[[^\\]]*webhookSecretUser[^\\]]*\\].*")) {
      problems.add("the app does not wait for its identity's role on the webhook secret");
    }
    String excluded =
        t.resourcesOfType("Microsoft.App/containerApps/authConfigs").stream()
            .findFirst()
            .flatMap(d -> t.body(d).text("properties.globalValidation.excludedPaths"))
            .orElse("");
    if (!excluded.contains("'/webhooks/payments'")) {
      problems.add("entra authentication refuses the provider's webhooks: " + excluded);
    }
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
            "apiKeySecretName", "apiKeySecretName",
            "authMode", "apiAuthMode",
            "paymentsWebhookSecretName", "paymentsWebhookSecretName");
    expected.forEach(
        (name, value) -> {
          String got = params.text(name).orElse("(missing)");
          if (!got.equals(value)) {
            problems.add("the api module's " + name + " is " + got + ", not " + value);
          }
        });
    Optional<Declaration> double_ =
        main.all("module").stream()
            .filter(d -> d.type().contains("payments-app.bicep"))
            .findFirst();
    String webhookUrl =
        double_.flatMap(d -> main.body(d).text("params.webhookUrl")).orElse("(missing)");
    if (!webhookUrl.contains(module.get().name() + ".outputs.webhookUrl")) {
      problems.add("the double's webhookUrl does not default to the api app's: " + webhookUrl);
    }
    if (!PaymentsChecks.isSecureParam(text, "generatedApiKey")) {
      problems.add("generatedApiKey is not a @secure() parameter");
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
  void theWorkersCommand_orACommandThatDropsTheJvmOptions_isReported() {
    String broken = replaceOnce(API, "var args = [\n  'api'\n]", "var args = [\n  'run'\n]");
    // The shape before the fix: a command that restated the JVM options and lost some of them.
    String dropsOptions =
        replaceOnce(
            API,
            "          args: usePlaceholder ? [] : args\n",
            "          command: usePlaceholder ? [] : ['java', '-jar', '/app/idemworker.jar', 'api']\n");

    assertThat(apiApp(broken)).anyMatch(p -> p.contains("args are not [api]"));
    assertThat(apiApp(dropsOptions)).anyMatch(p -> p.contains("overrides the image's ENTRYPOINT"));
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
  void authConfigDeclaredForEntraOnly_asBeforeTheFix_isReported() {
    String entraOnly =
        replaceOnce(
            replaceOnce(
                API,
                "resource authConfig 'Microsoft.App/containerApps/authConfigs@2025-01-01' = {",
                "resource authConfig 'Microsoft.App/containerApps/authConfigs@2025-01-01' = if"
                    + " (!useApiKey) {"),
            "platform: {\n      enabled: !useApiKey\n",
            "platform: {\n      enabled: true\n");

    assertThat(apiApp(entraOnly))
        .contains(
            "the auth config is not declared in both modes with platform.enabled = !useApiKey");
  }

  @Test
  void entraProviderEnabledInApikeyMode_asBeforeTheFix_isReported() {
    String broken =
        replaceOnce(
            API,
            "azureActiveDirectory: {\n        enabled: !useApiKey\n",
            "azureActiveDirectory: {\n        enabled: true\n");

    assertThat(apiApp(broken)).contains("in apikey mode the Entra ID provider is enabled");
  }

  @Test
  void entraThatAdmitsEveryApplication_isReported() {
    String broken =
        replaceOnce(
            API,
            "          defaultAuthorizationPolicy: {\n            allowedApplications: entraAllowedApplications\n          }\n",
            "");

    assertThat(apiApp(API)).noneMatch(p -> p.contains("admits every application"));
    assertThat(apiApp(broken)).anyMatch(p -> p.contains("admits every application"));
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
  void webhookSecretAsAPlainValue_orNotReadableByTheApi_isReported() {
    String plain =
        replaceOnce(
            API,
            "keyVaultUrl: '${keyVaultUri}secrets/${paymentsWebhookSecretName}'",
            "value: 'whsec_in_the_template'");
    String unreadable = replaceOnce(API, "  scope: paymentsWebhookSecret\n", "  scope: vault\n");
    String notWaiting =
        replaceOnce(API, "    apiSecretsUser\n    webhookSecretUser\n", "    apiSecretsUser\n");
    String unset =
        replaceOnce(
            API,
            "    name: 'PAYMENTS_WEBHOOK_SECRET'\n    secretRef: 'payments-webhook-secret'",
            "    name: 'PAYMENTS_WEBHOOK_SECRETS'\n    secretRef: 'payments-webhook-secret'");

    assertThat(apiApp(plain))
        .anyMatch(p -> p.contains("payments-webhook-secret secret is not a Key Vault reference"));
    assertThat(apiApp(unreadable))
        .contains("the api's identity has no Key Vault Secrets User role on the webhook secret");
    assertThat(apiApp(notWaiting)).anyMatch(p -> p.contains("role on the webhook secret"));
    assertThat(apiApp(unset)).anyMatch(p -> p.startsWith("PAYMENTS_WEBHOOK_SECRET is not"));
  }

  @Test
  void entraThatRefusesTheWebhookPath_isReported() {
    String broken = replaceOnce(API, "        '/webhooks/payments'\n", "");

    assertThat(apiApp(broken)).anyMatch(p -> p.contains("refuses the provider's webhooks"));
  }

  @Test
  void theDoublesWebhookUrlNotDefaultingToTheApi_isReported() {
    String broken =
        replaceOnce(
            MAIN,
            "webhookUrl: empty(paymentsWebhookUrl) ? apiApp.outputs.webhookUrl : paymentsWebhookUrl",
            "webhookUrl: paymentsWebhookUrl");
    String secretName =
        replaceOnce(
            MAIN,
            "    paymentsWebhookSecretName: paymentsWebhookSecretName\n  }\n}\n\nmodule alerts",
            "    paymentsWebhookSecretName: 'other'\n  }\n}\n\nmodule alerts");

    assertThat(main(broken)).anyMatch(p -> p.contains("does not default to the api app's"));
    assertThat(main(secretName)).anyMatch(p -> p.contains("paymentsWebhookSecretName is 'other'"));
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
