package io.idemworker.infra;

import static io.idemworker.infra.Mutations.removeLines;
import static io.idemworker.infra.Mutations.replaceAfter;
import static io.idemworker.infra.Mutations.replaceOnce;
import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The payment provider double's Container App with its Key Vault key (issue 10) and the outbox
 * relay's topic (issue 11): the real templates pass, and each check notices a broken copy.
 */
class PaymentsAndTopicTemplatesTest {
  private static final String MAIN = Repo.read("infra/main.bicep");
  private static final String PAYMENTS = Repo.read("infra/modules/payments-app.bicep");
  private static final String VAULT = Repo.read("infra/modules/keyvault.bicep");
  private static final String WORKER = Repo.read("infra/modules/worker-app.bicep");
  private static final String SERVICE_BUS = Repo.read("infra/modules/servicebus.bicep");
  private static final String REGISTRY = Repo.read("infra/modules/registry.bicep");

  @Test
  void realTemplates_passEveryPaymentsAndTopicCheck() {
    SoftAssertions.assertSoftly(
        soft -> {
          soft.assertThat(PaymentsChecks.paymentsApp(PAYMENTS)).as("payments app").isEmpty();
          soft.assertThat(PaymentsChecks.keyVault(VAULT)).as("key vault").isEmpty();
          soft.assertThat(PaymentsChecks.workerPayments(WORKER)).as("worker").isEmpty();
          soft.assertThat(PaymentsChecks.main(MAIN)).as("main").isEmpty();
          soft.assertThat(PaymentsChecks.registry(REGISTRY)).as("registry").isEmpty();
          soft.assertThat(TopicChecks.topic(SERVICE_BUS)).as("topic").isEmpty();
        });
  }

  // The payments double.

  @Test
  void doubleReachableFromTheInternet_isReported() {
    String broken = replaceOnce(PAYMENTS, "external: false", "external: true");

    assertThat(PaymentsChecks.paymentsApp(broken))
        .anyMatch(p -> p.contains("ingress.external is true"));
  }

  @Test
  void doubleScaledOutOrByKeda_isReported() {
    String broken = replaceOnce(PAYMENTS, "maxReplicas: 1", "maxReplicas: 3\n        rules: []");

    assertThat(PaymentsChecks.paymentsApp(broken))
        .anyMatch(p -> p.contains("scale.maxReplicas is 3"))
        .anyMatch(p -> p.contains("has a scale rule"));
  }

  @Test
  void doubleOnLoopbackOrOffTheIngressPort_isReported() {
    String loopback = replaceOnce(PAYMENTS, "'0.0.0.0'", "'127.0.0.1'");
    String offPort =
        replaceOnce(PAYMENTS, "targetPort: usePlaceholder ? 80 : port", "targetPort: 8080");

    assertThat(PaymentsChecks.paymentsApp(loopback))
        .anyMatch(p -> p.contains("[--payments-bind, 0.0.0.0]"));
    assertThat(PaymentsChecks.paymentsApp(offPort)).anyMatch(p -> p.contains("targetPort is 8080"));
  }

  @Test
  void doubleKeyAsAPlainValue_orReadWithAnotherIdentity_isReported() {
    String plain =
        replaceOnce(
            PAYMENTS,
            "keyVaultUrl: '${keyVaultUri}secrets/${apiKeySecretName}'",
            "value: 'sk_live_in_the_template'");
    String wrongIdentity =
        replaceAfter(
            PAYMENTS,
            "keyVaultUrl: '${keyVaultUri}secrets/${apiKeySecretName}'",
            "identity: paymentsIdentityId",
            "identity: 'system'");

    assertThat(PaymentsChecks.paymentsApp(plain))
        .anyMatch(p -> p.contains("holds a value instead of a Key Vault reference"));
    assertThat(PaymentsChecks.paymentsApp(wrongIdentity))
        .anyMatch(p -> p.contains("is read with 'system'"));
  }

  @Test
  void doubleUrlNotTheIngressFqdn_isReported() {
    String broken =
        replaceOnce(
            PAYMENTS,
            "'https://${app.properties.configuration.ingress.fqdn}'",
            "'http://${app.name}:8082'");

    assertThat(PaymentsChecks.paymentsApp(broken)).anyMatch(p -> p.contains("output baseUrl"));
  }

  // The worker's side.

  @Test
  void workerKeyAsAPlainEnvValue_isReported() {
    String broken =
        replaceOnce(WORKER, "secretRef: 'payments-api-key'", "value: 'sk_live_in_the_template'");

    assertThat(PaymentsChecks.workerPayments(broken))
        .contains("PAYMENTS_API_KEY is not a secretRef");
  }

  @Test
  void workerSecretHoldingTheValue_orReadWithTheScaler_isReported() {
    String value =
        replaceOnce(
            WORKER,
            "keyVaultUrl: '${keyVaultUri}secrets/${paymentsApiKeySecretName}'",
            "value: 'sk_live_in_the_template'");
    String scaler =
        replaceAfter(
            WORKER,
            "keyVaultUrl: '${keyVaultUri}secrets/${paymentsApiKeySecretName}'",
            "identity: workerIdentityId",
            "identity: scalerIdentityId");

    assertThat(PaymentsChecks.workerPayments(value))
        .anyMatch(p -> p.contains("holds a value instead of a Key Vault reference"));
    assertThat(PaymentsChecks.workerPayments(scaler))
        .anyMatch(p -> p.contains("is read with scalerIdentityId"));
  }

  @Test
  void workerNotPointedAtTheDouble_isReported() {
    String broken =
        replaceOnce(
            MAIN,
            "empty(paymentsBaseUrl) ? payments.outputs.baseUrl :",
            "empty(paymentsBaseUrl) ? 'http://localhost:8082' :");

    assertThat(PaymentsChecks.main(broken)).anyMatch(p -> p.contains("not the double's output"));
  }

  @Test
  void apiKeyNotSecure_orPassedBeyondTheVault_isReported() {
    String notSecure = removeLines(MAIN, "@secure()", 1);
    String leaked =
        replaceAfter(
            MAIN,
            "module worker ",
            "    keyVaultUri: keyVault.outputs.vaultUri\n",
            "    keyVaultUri: keyVault.outputs.vaultUri\n    paymentsApiKey: generatedPaymentsApiKey\n");
    String output = MAIN + "\noutput PAYMENTS_API_KEY string = generatedPaymentsApiKey\n";

    assertThat(PaymentsChecks.main(notSecure))
        .contains("generatedPaymentsApiKey is not a @secure() parameter");
    assertThat(PaymentsChecks.main(leaked)).anyMatch(p -> p.contains("(2 uses)"));
    assertThat(BicepChecks.outputs(output)).anyMatch(p -> p.contains("PAYMENTS_API_KEY"));
  }

  @Test
  void vaultNameOutput_isNotASecret_butAKeyOutputStillIs() {
    assertThat(BicepChecks.outputs("output AZURE_KEY_VAULT_NAME string = keyVault.outputs.name\n"))
        .isEmpty();
    assertThat(BicepChecks.outputs("output AZURE_KEY_VAULT_KEY string = keyVault.outputs.name\n"))
        .isNotEmpty();
  }

  @Test
  void doubleWithoutAcrPull_isReported() {
    String broken = removeLines(REGISTRY, "resource paymentsAcrPull", 9);

    assertThat(PaymentsChecks.registry(broken))
        .contains("paymentsPullPrincipalId has no AcrPull role");
  }

  // Key Vault.

  @Test
  void vaultWithAccessPolicies_insteadOfRbac_isReported() {
    String broken =
        replaceOnce(
            VAULT,
            "enableRbacAuthorization: true",
            "enableRbacAuthorization: false\n    accessPolicies: []");

    assertThat(PaymentsChecks.keyVault(broken))
        .anyMatch(p -> p.contains("enableRbacAuthorization is false"))
        .anyMatch(p -> p.contains("access policies"));
  }

  @Test
  void secretsUserOnTheWholeVault_orMissingForTheDouble_isReported() {
    String vaultWide =
        replaceAfter(
            VAULT, "resource workerSecretsUser", "scope: paymentsApiKeySecret", "scope: vault");
    String missing = removeLines(VAULT, "resource paymentsSecretsUser", 12);

    assertThat(PaymentsChecks.keyVault(vaultWide))
        .contains(
            "workerPrincipalId has no Key Vault Secrets User role scoped to the secret"
                + " paymentsApiKeySecret");
    assertThat(PaymentsChecks.keyVault(missing))
        .contains(
            "paymentsPrincipalId has no Key Vault Secrets User role scoped to the secret"
                + " paymentsApiKeySecret");
  }

  // The webhook signing secret.

  @Test
  void webhookSecretNotReadableByTheDouble_orMissingFromTheVault_isReported() {
    String unreadable = removeLines(VAULT, "resource paymentsWebhookSecretUser", 12);
    String missing = removeLines(VAULT, "resource paymentsWebhookSecretWrite", 9);

    assertThat(PaymentsChecks.keyVault(unreadable))
        .contains(
            "paymentsPrincipalId has no Key Vault Secrets User role scoped to the secret"
                + " paymentsWebhookSecretItem");
    assertThat(PaymentsChecks.keyVault(missing))
        .anyMatch(p -> p.contains("expected one vault with three secrets"));
  }

  @Test
  void webhookSecretAsAPlainValue_inTheDouble_isReported() {
    String double_ =
        replaceOnce(
            PAYMENTS,
            "keyVaultUrl: '${keyVaultUri}secrets/${webhookSecretName}'",
            "value: 'whsec_in_the_template'");

    assertThat(PaymentsChecks.paymentsApp(double_))
        .contains("secret payments-webhook-secret holds a value instead of a Key Vault reference");
  }

  @Test
  void webhookSecretGivenToTheWorker_orReadableByItsIdentity_isReported() {
    String worker =
        replaceOnce(
            WORKER,
            "    secretRef: 'payments-api-key'\n  }\n",
            "    secretRef: 'payments-api-key'\n  }\n  {\n"
                + "    name: 'PAYMENTS_WEBHOOK_SECRET'\n"
                + "    secretRef: 'payments-api-key'\n  }\n");
    String vault =
        replaceOnce(
            VAULT,
            "resource paymentsWebhookSecretUser",
            "resource workerWebhookSecretUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {\n"
                + "  name: guid(paymentsWebhookSecretItem.id, workerPrincipalId, secretsUserRoleId)\n"
                + "  scope: paymentsWebhookSecretItem\n"
                + "  properties: {\n"
                + "    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', secretsUserRoleId)\n"
                + "    principalId: workerPrincipalId\n"
                + "    principalType: 'ServicePrincipal'\n"
                + "  }\n"
                + "}\n\n"
                + "resource paymentsWebhookSecretUser");

    assertThat(PaymentsChecks.workerPayments(worker))
        .anyMatch(p -> p.contains("the worker is given the webhook secret"));
    assertThat(PaymentsChecks.keyVault(vault))
        .anyMatch(
            p -> p.startsWith("workerPrincipalId may read the secret paymentsWebhookSecretItem"));
  }

  @Test
  void webhookSecretPassedBeyondTheVault_isReported() {
    String broken =
        replaceOnce(
            MAIN,
            "    webhookUrl: empty(paymentsWebhookUrl)",
            "    leaked: generatedPaymentsWebhookSecret\n    webhookUrl: empty(paymentsWebhookUrl)");

    assertThat(PaymentsChecks.main(broken))
        .anyMatch(p -> p.contains("generatedPaymentsWebhookSecret must reach the vault module"));
  }

  @Test
  void secretWrittenOnEveryProvision_orRoleNotWaitingForTheWrite_isReported() {
    String everyTime =
        replaceOnce(
            VAULT,
            "resource apiKeyWrite 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (seedSecrets) {",
            "resource apiKeyWrite 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = {");
    String noWait =
        replaceAfter(
            VAULT,
            "resource workerSecretsUser",
            "  dependsOn: [\n    paymentsApiKeyWrite\n  ]\n",
            "");

    assertThat(PaymentsChecks.keyVault(everyTime))
        .anyMatch(p -> p.startsWith("secret apiKeyWrite is written on every provision"));
    assertThat(PaymentsChecks.keyVault(noWait))
        .contains(
            "workerPrincipalId's role on paymentsApiKeySecret does not wait for paymentsApiKeyWrite");
  }

  @Test
  void secretValueFromAPlainParameter_isReported() {
    String broken = removeLines(VAULT, "@secure()", 1);

    assertThat(PaymentsChecks.keyVault(broken))
        .anyMatch(p -> p.contains("not a @secure() parameter"));
  }

  // The outbox relay's topic.

  @Test
  void topicWithoutDuplicateDetection_orWithAnImplicitWindow_isReported() {
    String off =
        replaceAfter(
            SERVICE_BUS,
            "resource topic ",
            "requiresDuplicateDetection: true",
            "requiresDuplicateDetection: false");
    String implicit =
        replaceOnce(
            SERVICE_BUS,
            "duplicateDetectionHistoryTimeWindow: topicDuplicateDetectionHistoryTimeWindow\n",
            "");

    assertThat(TopicChecks.topic(off))
        .anyMatch(p -> p.contains("requiresDuplicateDetection is false"));
    assertThat(TopicChecks.topic(implicit))
        .anyMatch(p -> p.contains("duplicate window is not an explicit parameter"));
  }

  @Test
  void topicUnpartitionedInAPartitionedNamespace_isReported() {
    String broken =
        replaceAfter(
            SERVICE_BUS,
            "resource topic ",
            "enablePartitioning: partitioned",
            "enablePartitioning: false");

    assertThat(TopicChecks.topic(broken))
        .anyMatch(
            p -> p.contains("premiumPartitions=2") && p.contains("topic enablePartitioning false"));
  }

  @Test
  void subscriptionWithoutItsRule_orKeepingTheCatchAll_isReported() {
    String noRule = removeLines(SERVICE_BUS, "resource customerStatsOrderAccepted", 10);
    String catchAll =
        replaceAfter(
            SERVICE_BUS,
            "resource loyaltyOrderAccepted",
            "name: '$Default'",
            "name: 'order-accepted'");
    String otherSubject =
        replaceOnce(
            SERVICE_BUS,
            "param orderAcceptedSubject string = 'OrderAccepted'",
            "param orderAcceptedSubject string = 'OrderPlaced'");

    assertThat(TopicChecks.topic(noRule))
        .contains("subscription customer-stats has 0 rules, expected one");
    assertThat(TopicChecks.topic(catchAll))
        .anyMatch(p -> p.contains("loyalty's rule is order-accepted"));
    assertThat(TopicChecks.topic(otherSubject))
        .anyMatch(p -> p.contains("on label OrderPlaced, not OrderAccepted"));
  }

  @Test
  void subscriptionWithoutExplicitSettings_isReported() {
    String broken = removeLines(SERVICE_BUS, "  maxDeliveryCount: subscriptionMaxDeliveryCount", 1);
    broken =
        replaceOnce(
            broken,
            "  deadLetteringOnMessageExpiration: true\n  deadLetteringOnFilter",
            "  deadLetteringOnMessageExpiration: false\n  deadLetteringOnFilter");

    assertThat(TopicChecks.topic(broken))
        .contains("subscription loyalty has no explicit maxDeliveryCount")
        .contains("subscription customer-stats does not dead-letter expired events");
  }

  @Test
  void senderOnTheNamespace_insteadOfTheTopic_isReported() {
    String broken =
        replaceAfter(
            SERVICE_BUS, "resource workerTopicSender", "scope: topic", "scope: sbNamespace");

    assertThat(TopicChecks.topic(broken))
        .contains("the worker has no Data Sender role scoped to the topic topic")
        .anyMatch(p -> p.contains("on the whole namespace"));
  }
}
