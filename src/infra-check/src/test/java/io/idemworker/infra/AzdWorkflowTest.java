package io.idemworker.infra;

import static io.idemworker.infra.Mutations.replaceOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idemworker.app.StartupRules;
import io.idemworker.infra.AzdModel.AzdFailure;
import io.idemworker.infra.AzdModel.Principal;
import io.idemworker.infra.AzdModel.PrincipalType;
import io.idemworker.webhooks.WebhookSecret;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * azd's own workflows ({@link AzdModel}) around the real templates, as a person and as a CI service
 * principal: {@code azd up} as azure.yaml's {@code workflows.up} says, a second {@code azd up},
 * {@code azd down} with and without {@code --purge} then {@code azd up}, the resource group deleted
 * by hand then {@code azd up}, {@code azd deploy} after all that; the live apps after each step;
 * and the shapes that broke them before, rebuilt as broken copies.
 */
class AzdWorkflowTest {
  private static final List<String> SECRETS =
      List.of("payments-api-key", "payments-webhook-secret", "api-key");

  private static Principal principal(PrincipalType type) {
    return new Principal("11111111-2222-3333-4444-" + type.ordinal() + "00000000000", type);
  }

  @ParameterizedTest
  @EnumSource(PrincipalType.class)
  void firstUp_seedsEverySecretOnce_withValuesTheAppsAccept(PrincipalType type) {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());

    azd.up(principal(type));

    Map<String, String> secrets = azd.vaults.secrets.get(azd.vaultName());
    assertThat(secrets).containsOnlyKeys(SECRETS);
    assertThat(StartupRules.apiKeyProblem(secrets.get("api-key"))).isEmpty();
    assertThat(WebhookSecret.isValid(secrets.get("payments-webhook-secret"))).isTrue();
    // The payment double and the worker take 1-255 visible ASCII characters; the api's rule is
    // the stricter one (16-255) and holds for all three.
    assertThat(secrets.values())
        .allSatisfy(v -> assertThat(v).matches("[\\x21-\\x7E]{16,255}"))
        .doesNotHaveDuplicates();
    assertThat(azd.dotenv)
        .containsKey("AZURE_KEY_VAULT_NAME")
        .containsKey("SERVICE_WORKER_IMAGE_NAME")
        .containsKey("SERVICE_PAYMENTS_IMAGE_NAME");
    assertThat(azd.lastParameters.get("workerImageName"))
        .isEqualTo(azd.dotenv.get("SERVICE_WORKER_IMAGE_NAME"));
  }

  /**
   * After every step of {@code azd up} each live app runs with the settings of the image it runs:
   * the placeholder's (port 80, no args, no probes, no Key Vault reference) or its own. azd's
   * deploy changes only the image of the live app (container_app.go l.332-356), so a middle step
   * {@code deploy} left the double's new image behind the placeholder's port 80 without its args.
   */
  @ParameterizedTest
  @EnumSource(PrincipalType.class)
  void eachStepOfUp_leavesEveryAppWithTheSettingsOfTheImageItRuns(PrincipalType type) {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    List<String> steps = new ArrayList<>();

    azd.up(
        principal(type),
        step -> {
          steps.add(step);
          assertEveryAppRunsTheSettingsOfItsImage(azd, step);
        });

    assertThat(steps).isEqualTo(azd.upSteps());
    assertThat(azd.apps.values())
        .extracting(app -> app.name().substring(3, app.name().lastIndexOf('-')))
        .containsExactlyInAnyOrder(
            "worker", "payments", "relay", "loyalty", "customer-stats", "api");
    assertThat(azd.apps.values()).noneMatch(AzdModel.LiveApp::placeholder);
  }

  /**
   * Each way docs/deploy.md gives to ship a code change, run after an {@code azd up}, leaves every
   * app on the image just published: the api, relay and consumer apps are not azd services, so an
   * {@code azd deploy} alone would leave them on the old one.
   */
  @Test
  void eachWayDeployMdGivesToShipACodeChange_putsTheNewImageInEveryApp() {
    List<List<String>> ways = shipCommands(Repo.read("docs/deploy.md"));
    assertThat(ways).isNotEmpty();

    for (List<String> way : ways) {
      AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
      Principal me = principal(PrincipalType.User);
      azd.up(me);
      String before = azd.dotenv.get("SERVICE_WORKER_IMAGE_NAME");

      way.forEach(command -> azd.run(command, me));

      assertThat(azd.dotenv.get("SERVICE_WORKER_IMAGE_NAME")).as("%s", way).isNotEqualTo(before);
      assertThat(azd.apps.values())
          .as("%s", way)
          .allSatisfy(
              app ->
                  assertThat(app.image())
                      .as(app.name())
                      .isEqualTo(
                          azd.dotenv.get(
                              app.name().startsWith("ca-payments-")
                                  ? "SERVICE_PAYMENTS_IMAGE_NAME"
                                  : "SERVICE_WORKER_IMAGE_NAME")));
    }
  }

  /** The sentence "To ship a code change…": its alternatives (", or "), each its azd commands. */
  static List<List<String>> shipCommands(String deployMd) {
    int start = deployMd.indexOf("To ship a code change");
    assertThat(start).as("deploy.md says how to ship a code change").isNotNegative();
    String sentence = deployMd.substring(start).split("\\.(\\s|$)", 2)[0].replace('\n', ' ');
    List<List<String>> ways = new ArrayList<>();
    for (String alternative : sentence.split(",\\s+or\\s+")) {
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("`(azd [^`]+)`").matcher(alternative);
      List<String> commands = new ArrayList<>();
      while (m.find()) {
        commands.add(m.group(1));
      }
      if (!commands.isEmpty()) {
        ways.add(commands);
      }
    }
    return ways;
  }

  @Test
  void shipCommands_readTheAlternativesAndTheirOrder() {
    assertThat(
            shipCommands(
                "To ship a code change only: `azd deploy --all`. To change infrastructure only:"))
        .containsExactly(List.of("azd deploy --all"));
    assertThat(
            shipCommands(
                "To ship a code change: `azd up`, or `azd publish --all` then\n`azd provision`. Next."))
        .containsExactly(List.of("azd up"), List.of("azd publish --all", "azd provision"));
  }

  /** azd publish pushes and saves the image names; no app changes until the next provision. */
  @Test
  void publish_savesEachEnabledServicesImage_andChangesNoApp() {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    Principal me = principal(PrincipalType.User);
    azd.up(me);
    Map<String, AzdModel.LiveApp> before = Map.copyOf(azd.apps);
    String worker = azd.dotenv.get("SERVICE_WORKER_IMAGE_NAME");

    azd.run("azd publish --all", me);

    assertThat(azd.apps).isEqualTo(before);
    assertThat(azd.dotenv.get("SERVICE_WORKER_IMAGE_NAME")).isNotEqualTo(worker);
    assertThat(azd.registryImages)
        .contains(
            azd.dotenv.get("SERVICE_WORKER_IMAGE_NAME"),
            azd.dotenv.get("SERVICE_PAYMENTS_IMAGE_NAME"));
  }

  /**
   * azd deploy after an {@code up}: each service's tagged app gets the new image and nothing else;
   * the apps that run the worker's image without being azd services keep the old one until the next
   * provision (docs/deploy.md).
   */
  @Test
  void deploy_changesOnlyTheImage_ofTheAppTaggedWithEachService() {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    Principal me = principal(PrincipalType.User);
    azd.up(me);
    AzdModel.LiveApp api = azd.app("ca-api-").orElseThrow();
    AzdModel.LiveApp worker = azd.app("ca-worker-").orElseThrow();

    azd.run("azd deploy --all", me);

    AzdModel.LiveApp deployed = azd.app("ca-worker-").orElseThrow();
    assertThat(deployed.image()).isEqualTo(azd.dotenv.get("SERVICE_WORKER_IMAGE_NAME"));
    assertThat(deployed.withImage(worker.image())).isEqualTo(worker);
    assertThat(azd.app("ca-api-")).contains(api);
  }

  /** With the double off, no app carries the tag azd deploy looks for: it stops, as azd does. */
  @Test
  void deployOfAServiceWithNoTaggedApp_failsAsAzdDoes() {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    Principal me = principal(PrincipalType.User);
    azd.dotenv.put("PAYMENTS_DOUBLE", "false");
    azd.dotenv.put("PAYMENTS_PROVIDER_BASE_URL", "https://api.provider.example");
    azd.up(me);
    azd.dotenv.remove("PAYMENTS_DOUBLE");

    assertThatThrownBy(() -> azd.run("azd deploy payments", me))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("unable to find a resource tagged with 'azd-service-name: payments'");
  }

  /**
   * PAYMENTS_PROVIDER_BASE_URL set while PAYMENTS_DOUBLE is left on: azd would build the double
   * and, in a deploy, find no app tagged for it (resource_manager.go l.189-197). The provision
   * stops first, naming both variables.
   */
  @Test
  void aProviderUrlWithTheDoubleLeftOn_stopsTheProvision_namingBoth() {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    azd.dotenv.put("PAYMENTS_PROVIDER_BASE_URL", "https://api.provider.example");

    assertThatThrownBy(() -> azd.up(principal(PrincipalType.User)))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("PAYMENTS_PROVIDER_BASE_URL")
        .hasMessageContaining("PAYMENTS_DOUBLE");
    assertThat(azd.apps).isEmpty();
  }

  /** The reverse: the double off and no provider would leave the worker calling nobody. */
  @Test
  void theDoubleOffWithoutAProviderUrl_stopsTheProvision_namingBoth() {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    azd.dotenv.put("PAYMENTS_DOUBLE", "false");

    assertThatThrownBy(() -> azd.up(principal(PrincipalType.User)))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("PAYMENTS_PROVIDER_BASE_URL")
        .hasMessageContaining("PAYMENTS_DOUBLE");
  }

  @ParameterizedTest
  @EnumSource(PrincipalType.class)
  void aRealProvider_withTheDoubleOff_isWhatTheWorkerCalls_andNoDoubleIsBuiltOrDeployed(
      PrincipalType type) {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    azd.dotenv.put("PAYMENTS_DOUBLE", "false");
    azd.dotenv.put("PAYMENTS_PROVIDER_BASE_URL", "https://api.provider.example");

    azd.up(principal(type), step -> assertEveryAppRunsTheSettingsOfItsImage(azd, step));

    assertThat(azd.app("ca-payments-")).isEmpty();
    assertThat(azd.registryImages).noneMatch(image -> image.contains("/payments-"));
    assertThat(azd.lastParameters.get("paymentsBaseUrl")).isEqualTo("https://api.provider.example");
  }

  /**
   * Container Apps reads Key Vault references and pulls images with the app's identities when it
   * creates or updates an app, and a role assignment may take minutes to apply: no step may need a
   * role made by the same azd command, in any workflow (the model refuses such a step).
   */
  @ParameterizedTest
  @EnumSource(PrincipalType.class)
  void noWorkflowNeedsARoleMadeInTheSameCommand(PrincipalType type) {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    Principal as = principal(type);

    azd.up(as);
    azd.up(as);
    azd.run("azd down", as);
    azd.up(as);
    azd.deleteResourceGroupByHand();
    azd.up(as);
    azd.run("azd deploy --all", as);
    azd.run("azd provision", as);

    assertThat(azd.roles.values())
        .filteredOn(role -> role.principal().equals("worker"))
        .allSatisfy(role -> assertThat(role.madeBy()).isLessThan(azd.commands));
  }

  /** Switching the api from entra to apikey reads the api key with a role made long before. */
  @Test
  void switchingTheApiToApikeyLater_needsNoRoleMadeByThatProvision() {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    Principal me = principal(PrincipalType.User);
    azd.dotenv.put("API_AUTH_MODE", "entra");
    azd.dotenv.put("API_ENTRA_CLIENT_ID", "00000000-0000-0000-0000-00000000c11e");
    azd.dotenv.put("API_ENTRA_ALLOWED_APPLICATIONS", "[\"00000000-0000-0000-0000-0000000ca11e\"]");
    azd.up(me);

    azd.dotenv.put("API_AUTH_MODE", "apikey");
    azd.provision(me);

    assertThat(azd.app("ca-api-").orElseThrow().vaultSecrets()).contains("api-key");
  }

  @ParameterizedTest
  @EnumSource(PrincipalType.class)
  void secondUp_keepsTheSecrets_andReadsNoneOfThem(PrincipalType type) {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    azd.up(principal(type));
    Map<String, String> first = Map.copyOf(azd.vaults.secrets.get(azd.vaultName()));
    // Nobody may read anything: a provision that needed to read a secret would stop with 403.
    azd.vaults.readers.clear();

    azd.up(principal(type));

    assertThat(azd.vaults.secrets.get(azd.vaultName())).isEqualTo(first);
  }

  /**
   * azd down without {@code --purge} answers its purge prompt with the default, no
   * (bicep_provider.go l.1714-1744), so the vault stays soft-deleted under its name for 7 days; the
   * next {@code azd up} must not need that name.
   */
  @ParameterizedTest
  @CsvSource({"User, true", "User, false", "ServicePrincipal, true", "ServicePrincipal, false"})
  void downThenUp_withOrWithoutPurge_provisionsAndSeedsANewVault(
      PrincipalType type, boolean purge) {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    azd.up(principal(type));
    String oldVault = azd.vaultName();
    Map<String, String> before = Map.copyOf(azd.vaults.secrets.get(oldVault));

    azd.run(purge ? "azd down --purge" : "azd down", principal(type));
    assertThat(azd.dotenv).doesNotContainKeys("AZURE_KEY_VAULT_NAME", "SERVICE_WORKER_IMAGE_NAME");
    assertThat(azd.vaults.softDeleted.contains(oldVault)).isEqualTo(!purge);
    azd.up(principal(type), step -> assertEveryAppRunsTheSettingsOfItsImage(azd, step));

    Map<String, String> after = azd.vaults.secrets.get(azd.vaultName());
    assertThat(after).containsOnlyKeys(SECRETS);
    assertThat(after.get("api-key")).isNotEqualTo(before.get("api-key"));
  }

  /**
   * A resource group deleted outside azd: azd deploys again (bicep_provider.go l.856-911) with the
   * old {@code .env}, whose outputs name the old vault and images the new registry does not hold.
   */
  @ParameterizedTest
  @EnumSource(PrincipalType.class)
  void resourceGroupDeletedByHand_thenUp_seedsANewVault_andRunsOnlyImagesTheRegistryHolds(
      PrincipalType type) {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    azd.up(principal(type));
    String oldImage = azd.dotenv.get("SERVICE_WORKER_IMAGE_NAME");

    azd.deleteResourceGroupByHand();
    azd.up(principal(type), step -> assertEveryAppRunsTheSettingsOfItsImage(azd, step));

    assertThat(azd.vaults.secrets.get(azd.vaultName())).containsOnlyKeys(SECRETS);
    assertThat(azd.apps.values())
        .extracting(AzdModel.LiveApp::image)
        .doesNotContain(oldImage)
        .allSatisfy(image -> assertThat(azd.registryImages).contains(image));
  }

  /**
   * The same, with the old vault purged by hand as well: its name is free again, and only what
   * exists now may decide that the new vault needs its secrets.
   */
  @Test
  void resourceGroupDeletedAndVaultPurgedByHand_thenUp_seedsTheVaultOfTheSameName() {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    Principal me = principal(PrincipalType.User);
    azd.up(me);

    azd.deleteResourceGroupByHand();
    azd.vaults.softDeleted.clear();
    azd.up(me);

    assertThat(azd.vaults.secrets.get(azd.vaultName())).containsOnlyKeys(SECRETS);
  }

  /**
   * A fresh {@code .env} for a deployment that exists (another machine) knows no vault: the
   * provision stops and says what to run, instead of seeding over the secrets set by hand.
   */
  @Test
  void aFreshEnvironmentFileForAnExistingDeployment_stopsAndAsksForAzdEnvRefresh() {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    Principal me = principal(PrincipalType.User);
    azd.up(me);
    azd.dotenv
        .keySet()
        .removeIf(key -> !key.startsWith("AZURE_") || key.equals("AZURE_KEY_VAULT_NAME"));
    azd.dotenv.putAll(Map.of("AZURE_ENV_NAME", "test", "AZURE_LOCATION", "westeurope"));

    assertThatThrownBy(() -> azd.provision(me))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("azd env refresh");
  }

  @ParameterizedTest
  @EnumSource(PrincipalType.class)
  void everyAppThatReadsASecret_holdsItsRole_grantedBeforeTheAppIsDeployed(PrincipalType type) {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());

    azd.up(principal(type));

    assertThat(azd.secretReads)
        .extracting(AzdModel.SecretRead::secret)
        .contains("payments-api-key", "payments-webhook-secret", "api-key");
    assertThat(azd.secretReads)
        .allSatisfy(
            read -> {
              assertThat(azd.vaults.readers.get(azd.vaultName() + "/" + read.secret()))
                  .as(read.app() + " reading " + read.secret())
                  .contains(read.principal());
              assertThat(read.grantedBefore()).as(read.app() + " waits for its role").isTrue();
            });
  }

  @Test
  void anAppReadingASecretWithoutItsRole_isCaught() {
    Map<String, String> files = AzdModel.repositoryFiles();
    files.put(
        "infra/modules/keyvault.bicep",
        Mutations.removeLines(
            files.get("infra/modules/keyvault.bicep"), "resource workerSecretsUser", 12));
    AzdModel azd = new AzdModel(files);

    assertThatThrownBy(() -> azd.up(principal(PrincipalType.User)))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("modules/worker-app.bicep")
        .hasMessageContaining("payments-api-key")
        .hasMessageContaining("403");
  }

  @Test
  void aRealProvidersKeySetByHand_survivesLaterProvisions() {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    Principal me = principal(PrincipalType.User);
    azd.up(me);
    azd.vaults.secrets.get(azd.vaultName()).put("payments-api-key", "sk_live_provider_key_0001");

    azd.provision(me);

    assertThat(azd.vaults.secrets.get(azd.vaultName()))
        .containsEntry("payments-api-key", "sk_live_provider_key_0001");
  }

  /**
   * Whoever runs azd gets data-plane rights (send and receive, Cosmos DB data, the api key) only as
   * a person: azd passes AZURE_PRINCIPAL_TYPE ServicePrincipal for a client-id login
   * (current_principal_id_provider.go l.61-76), and a CI identity deploys, nothing more.
   */
  @Test
  void aServicePrincipalRunningAzd_getsNoDataRole_aPersonGetsTheirs() {
    AzdModel ci = new AzdModel(AzdModel.repositoryFiles());
    AzdModel person = new AzdModel(AzdModel.repositoryFiles());
    Principal pipeline = principal(PrincipalType.ServicePrincipal);
    Principal me = principal(PrincipalType.User);

    ci.up(pipeline);
    person.up(me);

    assertThat(ci.roles.values()).noneMatch(r -> r.principal().equals(pipeline.objectId()));
    assertThat(person.roles.values())
        .filteredOn(r -> r.principal().equals(me.objectId()))
        .extracting(r -> r.resource().substring(r.resource().lastIndexOf('/') + 1))
        .containsExactlyInAnyOrder(
            "userReceiver",
            "userSender",
            "userTopicReceiver",
            "userTopicSender",
            "userDataAccess",
            "userApiKeyUser");
  }

  @Test
  void theDeployingUser_mayReadTheApiKey_toCallTheApi() {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    Principal me = principal(PrincipalType.User);

    azd.up(me);

    assertThat(azd.vaults.readers.get(azd.vaultName() + "/api-key")).contains(me.objectId());
    assertThat(azd.vaults.read(azd.vaultName(), "api-key", me)).isPresent();
  }

  @Test
  void entraWithoutAClientId_stopsBeforeDeploying() {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    azd.dotenv.put("API_AUTH_MODE", "entra");

    assertThatThrownBy(() -> azd.provision(principal(PrincipalType.User)))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("apiEntraClientId is empty");
  }

  @Test
  void entraWithoutAnAllowedApplication_stopsBeforeDeploying_andWithOneProvisions() {
    AzdModel refused = new AzdModel(AzdModel.repositoryFiles());
    refused.dotenv.put("API_AUTH_MODE", "entra");
    refused.dotenv.put("API_ENTRA_CLIENT_ID", "00000000-0000-0000-0000-00000000c11e");
    AzdModel admitted = new AzdModel(AzdModel.repositoryFiles());
    admitted.dotenv.put("API_AUTH_MODE", "entra");
    admitted.dotenv.put("API_ENTRA_CLIENT_ID", "00000000-0000-0000-0000-00000000c11e");
    admitted.dotenv.put(
        "API_ENTRA_ALLOWED_APPLICATIONS", "[\"00000000-0000-0000-0000-0000000ca11e\"]");

    assertThatThrownBy(() -> refused.provision(principal(PrincipalType.User)))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("apiEntraAllowedApplications is empty");
    admitted.up(principal(PrincipalType.User));
    assertThat(admitted.lastParameters.get("apiEntraAllowedApplications"))
        .isEqualTo(List.of("00000000-0000-0000-0000-0000000ca11e"));
  }

  @Test
  void premiumUnitsThatAreNoMultipleOfThePartitions_stopBeforeDeploying() {
    Map<String, String> files = AzdModel.repositoryFiles();
    files.put(
        "infra/main.parameters.json",
        files
            .get("infra/main.parameters.json")
            .replace("\"value\": \"Standard\"", "\"value\": \"Premium\"")
            .replace(
                "\"serviceBusPremiumPartitions\": {\n      \"value\": 1",
                "\"serviceBusPremiumPartitions\": {\n      \"value\": 2"));
    AzdModel azd = new AzdModel(files);

    assertThatThrownBy(() -> azd.provision(principal(PrincipalType.User)))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("must be a multiple of serviceBusPremiumPartitions (2)");
  }

  /**
   * The design before the fix, rebuilt: azd's {@code $(secretOrRandomPassword …)} for a secret with
   * {@code @minLength(16)}. The first provision fails: azd makes 15 characters.
   */
  @Test
  void secretOrRandomPassword_intoAMinLengthOf16_failsTheFirstProvision() {
    Map<String, String> files = withAzdGeneratedSecret(AzdModel.repositoryFiles(), "16");
    AzdModel azd = new AzdModel(files);

    assertThatThrownBy(() -> azd.provision(principal(PrincipalType.User)))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("parameter legacyKey is 15 characters, below @minLength(16)");
  }

  /**
   * The same design with the length fixed still breaks the second provision of {@code azd up}: once
   * the vault exists azd reads the secret as the deploying principal, and a 403 is fatal (only a
   * 404 falls back to a new password).
   */
  @Test
  void secretOrRandomPassword_readBackWithoutARole_failsTheSecondProvision() {
    Map<String, String> files = withAzdGeneratedSecret(AzdModel.repositoryFiles(), "15");
    AzdModel azd = new AzdModel(files);

    assertThatThrownBy(() -> azd.up(principal(PrincipalType.ServicePrincipal)))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("legacy-key")
        .hasMessageContaining("403");
  }

  @Test
  void eachSecretsLengthRule_isTheSameInBicepAndInTheStartupChecksThatReadIt() {
    Bicep.Template vault = Repo.bicep("infra/modules/keyvault.bicep");

    for (String param : List.of("paymentsApiKey", "paymentsWebhookSecret", "apiKey")) {
      Map<String, String> rules = vault.find("param", param).orElseThrow().decorators();
      assertThat(rules)
          .as(param)
          .containsEntry("minLength", "16")
          .containsEntry("maxLength", "255");
    }
    for (int length : List.of(15, 16, 255, 256)) {
      String value = "k".repeat(length);
      boolean bicepTakesIt = length >= 16 && length <= 255;
      assertThat(StartupRules.apiKeyProblem(value).isEmpty())
          .as("API_KEY of %d", length)
          .isEqualTo(bicepTakesIt);
      assertThat(WebhookSecret.isValid(value))
          .as("webhook secret of %d", length)
          .isEqualTo(bicepTakesIt);
    }
  }

  @Test
  void theModelsPassword_isAzdsShape() {
    String password = new AzdModel(new HashMap<>()).fifteenCharacterPassword();

    assertThat(password).hasSize(15);
    assertThat(password.chars().filter(Character::isLowerCase).count()).isEqualTo(5);
    assertThat(password.chars().filter(Character::isUpperCase).count()).isEqualTo(5);
    assertThat(password.chars().filter(Character::isDigit).count()).isEqualTo(5);
  }

  /**
   * Each live app runs with the settings its image needs: the placeholder's (it listens on port 80,
   * knows none of our commands and serves no health endpoint; it needs no key) or its own.
   */
  static void assertEveryAppRunsTheSettingsOfItsImage(AzdModel azd, String step) {
    for (AzdModel.LiveApp app : azd.apps.values()) {
      String what = "after " + step + ": " + app.name() + " running " + app.image();
      if (app.placeholder()) {
        assertThat(app.args()).as(what).isEmpty();
        assertThat(app.probes()).as(what).isEmpty();
        assertThat(app.targetPort()).as(what).isIn(null, 80L);
        assertThat(app.vaultSecrets()).as(what).isEmpty();
        continue;
      }
      String role = app.name().substring(3, app.name().lastIndexOf('-'));
      switch (role) {
        case "payments" -> {
          assertThat(app.targetPort()).as(what).isEqualTo(8082L);
          assertThat(app.args())
              .as(what)
              .containsExactly(
                  "emulators",
                  "--only",
                  "payments",
                  "--payments-port",
                  "8082",
                  "--payments-bind",
                  "0.0.0.0");
          assertThat(app.vaultSecrets())
              .as(what)
              .containsExactlyInAnyOrder("payments-api-key", "payments-webhook-secret");
        }
        case "api" -> {
          assertThat(app.targetPort()).as(what).isEqualTo(8080L);
          assertThat(app.args()).as(what).containsExactly("api");
          assertThat(app.probes()).as(what).hasSize(3);
        }
        case "relay" -> {
          assertThat(app.targetPort()).as(what).isNull();
          assertThat(app.args()).as(what).containsExactly("relay");
          assertThat(app.probes()).as(what).hasSize(3);
        }
        case "worker", "loyalty", "customer-stats" -> {
          assertThat(app.targetPort()).as(what).isNull();
          assertThat(app.args()).as(what).isEmpty();
          assertThat(app.probes()).as(what).hasSize(3);
          if (role.equals("worker")) {
            assertThat(app.vaultSecrets()).as(what).containsExactly("payments-api-key");
          }
        }
        default -> throw new AssertionError("an app the test does not know: " + what);
      }
    }
  }

  // The shapes before the fixes, rebuilt as broken copies: the model must catch each.

  @Test
  void deployAsTheMiddleStepOfUp_asBeforeTheFix_leavesTheDoublesImageBehindPort80() {
    Map<String, String> files = AzdModel.repositoryFiles();
    files.put(
        "azure.yaml",
        replaceOnce(files.get("azure.yaml"), "azd: publish --all", "azd: deploy --all"));
    AzdModel azd = new AzdModel(files);

    assertThatThrownBy(
            () ->
                azd.up(
                    principal(PrincipalType.User),
                    step -> assertEveryAppRunsTheSettingsOfItsImage(azd, step)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("after deploy --all: ca-payments-")
        .hasMessageContaining("80");
  }

  @Test
  void theDoubleDecidedByTheUrlAlone_asBeforeTheFix_failsTheNextDeploy() {
    Map<String, String> files = AzdModel.repositoryFiles();
    String main =
        replaceOnce(
            files.get("infra/main.bicep"),
            "var deployPaymentsDouble = contains([",
            "var deployPaymentsDouble = empty(paymentsBaseUrl)\nvar doubleSwitch = contains([");
    String workerUrl =
        main.lines()
            .filter(l -> l.startsWith("    paymentsBaseUrl: deployPaymentsDouble ?"))
            .findFirst()
            .orElseThrow();
    files.put(
        "infra/main.bicep",
        replaceOnce(
            main,
            workerUrl,
            "    paymentsBaseUrl: deployPaymentsDouble ? payments.outputs.baseUrl : paymentsBaseUrl"));
    AzdModel azd = new AzdModel(files);
    Principal me = principal(PrincipalType.User);
    azd.dotenv.put("PAYMENTS_PROVIDER_BASE_URL", "https://api.provider.example");
    azd.up(me);

    assertThatThrownBy(() -> azd.run("azd deploy --all", me))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("unable to find a resource tagged with 'azd-service-name: payments'");
  }

  @Test
  void aVaultNameThatOutlivesTheDeployment_asBeforeTheFix_isRefusedAfterDownWithoutPurge() {
    AzdModel azd = new AzdModel(withTheVaultNamedByTheTokenAlone(AzdModel.repositoryFiles()));
    Principal me = principal(PrincipalType.User);
    azd.up(me);
    azd.run("azd down", me);

    assertThatThrownBy(() -> azd.up(me))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("deleted but recoverable state");
  }

  @Test
  void seedingAndImagesDecidedByOutputsEchoedBack_asBeforeTheFix_failAfterTheGroupIsDeleted() {
    Map<String, String> files = withTheVaultNamedByTheTokenAlone(AzdModel.repositoryFiles());
    files.put(
        "infra/main.bicep",
        replaceOnce(
            files.get("infra/main.bicep"),
            "var seedSecrets = !workerExists",
            "var seedSecrets = existingKeyVaultName != keyVaultName"));
    AzdModel seeding = new AzdModel(files);
    Principal me = principal(PrincipalType.User);
    seeding.up(me);
    seeding.deleteResourceGroupByHand();
    seeding.vaults.softDeleted.clear();
    Map<String, String> staleImages = AzdModel.repositoryFiles();
    staleImages.put(
        "infra/main.bicep",
        replaceOnce(
            staleImages.get("infra/main.bicep"),
            "var workerImage = workerExists ? workerImageName : ''",
            "var workerImage = workerImageName"));
    AzdModel images = new AzdModel(staleImages);
    images.up(me);
    images.deleteResourceGroupByHand();

    assertThatThrownBy(() -> seeding.up(me))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("SecretNotFound");
    assertThatThrownBy(() -> images.up(me))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("is not in this deployment's registry");
  }

  @Test
  void keyVaultReferencesOnThePlaceholder_asBeforeTheFix_needARoleMadeInTheSameProvision() {
    Map<String, String> files = AzdModel.repositoryFiles();
    files.put(
        "infra/modules/worker-app.bicep",
        replaceOnce(
            files.get("infra/modules/worker-app.bicep"),
            "secrets: usePlaceholder ? insightsSecrets : concat(insightsSecrets, keyVaultSecrets)",
            "secrets: concat(insightsSecrets, keyVaultSecrets)"));
    AzdModel azd = new AzdModel(files);

    assertThatThrownBy(() -> azd.provision(principal(PrincipalType.ServicePrincipal)))
        .isInstanceOf(AzdFailure.class)
        .hasMessageContaining("ca-worker-")
        .hasMessageContaining("made by this same azd command");
  }

  private static Map<String, String> withTheVaultNamedByTheTokenAlone(Map<String, String> files) {
    files.put(
        "infra/main.bicep",
        replaceOnce(
            files.get("infra/main.bicep"),
            "'${abbrs.keyVaultVaults}${resourceToken}-${take(uniqueString(keyVaultSeed), 7)}'",
            "'${abbrs.keyVaultVaults}${resourceToken}'"));
    return files;
  }

  /** A secret written by the vault module from an azd-generated parameter, as before the fix. */
  private static Map<String, String> withAzdGeneratedSecret(
      Map<String, String> files, String minLength) {
    String main =
        replaceOnce(
            files.get("infra/main.bicep"),
            "param keyVaultSeed string = newGuid()\n",
            "param keyVaultSeed string = newGuid()\n\n@secure()\n@minLength("
                + minLength
                + ")\nparam legacyKey string\n");
    main =
        replaceOnce(
            main,
            "    apiKeySecretName: apiKeySecretName\n    workerPrincipalId",
            "    apiKeySecretName: apiKeySecretName\n    legacyKey: legacyKey\n    workerPrincipalId");
    String vault =
        replaceOnce(
            files.get("infra/modules/keyvault.bicep"),
            "param apiKeySecretName string\n",
            "param apiKeySecretName string\n\n@secure()\nparam legacyKey string\n\n"
                + "resource legacyKeyWrite 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {\n"
                + "  parent: vault\n  name: 'legacy-key'\n  properties: {\n"
                + "    value: legacyKey\n  }\n}\n");
    String parameters =
        replaceOnce(
            files.get("infra/main.parameters.json"),
            "\"parameters\": {\n",
            "\"parameters\": {\n    \"legacyKey\": {\n      \"value\":"
                + " \"$(secretOrRandomPassword ${AZURE_KEY_VAULT_NAME} legacy-key)\"\n    },\n");
    files.put("infra/main.bicep", main);
    files.put("infra/modules/keyvault.bicep", vault);
    files.put("infra/main.parameters.json", parameters);
    return files;
  }
}
