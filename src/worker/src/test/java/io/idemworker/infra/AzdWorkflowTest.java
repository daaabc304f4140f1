package io.idemworker.infra;

import static io.idemworker.infra.Mutations.replaceOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idemworker.app.StartupRules;
import io.idemworker.infra.AzdModel.AzdFailure;
import io.idemworker.infra.AzdModel.Principal;
import io.idemworker.infra.AzdModel.PrincipalType;
import io.idemworker.webhooks.WebhookSecret;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * azd's own workflows ({@link AzdModel}) around the real templates, as a person and as a CI service
 * principal: {@code azd up} (provision, deploy, provision), a second {@code azd up}, {@code azd
 * down} then {@code azd up}; and the shapes that broke them before, rebuilt as broken copies.
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
        .containsEntry("SEEDED_VAULT_NAME", azd.vaultName())
        .containsKey("SERVICE_WORKER_IMAGE_NAME")
        .containsKey("SERVICE_PAYMENTS_IMAGE_NAME");
    assertThat(azd.lastParameters.get("workerImageName"))
        .isEqualTo(azd.dotenv.get("SERVICE_WORKER_IMAGE_NAME"));
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

  @ParameterizedTest
  @EnumSource(PrincipalType.class)
  void downThenUp_seedsTheNewVault(PrincipalType type) {
    AzdModel azd = new AzdModel(AzdModel.repositoryFiles());
    azd.up(principal(type));
    Map<String, String> before = Map.copyOf(azd.vaults.secrets.get(azd.vaultName()));

    azd.down();
    assertThat(azd.dotenv).doesNotContainKey("SEEDED_VAULT_NAME");
    azd.up(principal(type));

    Map<String, String> after = azd.vaults.secrets.get(azd.vaultName());
    assertThat(after).containsOnlyKeys(SECRETS);
    assertThat(after.get("api-key")).isNotEqualTo(before.get("api-key"));
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

    azd.up(principal(PrincipalType.User));

    assertThat(azd.secretReads)
        .filteredOn(r -> r.app().startsWith("modules/worker-app.bicep"))
        .singleElement()
        .satisfies(
            read ->
                assertThat(azd.vaults.readers.get(azd.vaultName() + "/payments-api-key"))
                    .doesNotContain(read.principal()));
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

  /** A secret written by the vault module from an azd-generated parameter, as before the fix. */
  private static Map<String, String> withAzdGeneratedSecret(
      Map<String, String> files, String minLength) {
    String main =
        replaceOnce(
            files.get("infra/main.bicep"),
            "param secretsSeededVault string = ''\n",
            "param secretsSeededVault string = ''\n\n@secure()\n@minLength("
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
