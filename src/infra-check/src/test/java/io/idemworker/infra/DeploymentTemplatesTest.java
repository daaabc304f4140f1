package io.idemworker.infra;

import static io.idemworker.infra.Mutations.removeLines;
import static io.idemworker.infra.Mutations.replaceAfter;
import static io.idemworker.infra.Mutations.replaceOnce;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The templates off azd's happy path (re-runs, service-principal logins, Azure's locks, API
 * versions) and under the high-volume choices. Nothing here deploys: each check reads or evaluates
 * the templates, and each is shown to notice the defect it guards against on a broken copy.
 */
class DeploymentTemplatesTest {
  private static final WorkerEnv ENV = WorkerEnv.load(Repo.ROOT);
  private static final String MAIN = Repo.read("infra/main.bicep");
  private static final String PARAMETERS = Repo.read("infra/main.parameters.json");
  private static final String WORKER = Repo.read("infra/modules/worker-app.bicep");
  private static final String ENVIRONMENT = Repo.read("infra/modules/containerapps-env.bicep");
  private static final String COSMOS = Repo.read("infra/modules/cosmos.bicep");
  private static final String SERVICE_BUS = Repo.read("infra/modules/servicebus.bicep");

  @Test
  void realTemplates_passEveryDeploymentCheck() {
    // Soft: on a regression every failing check is listed, not just the first.
    SoftAssertions.assertSoftly(
        softly -> {
          softly.assertThat(DeploymentChecks.placeholderImage(WORKER)).isEmpty();
          softly.assertThat(DeploymentChecks.environmentReference(WORKER)).isEmpty();
          softly.assertThat(DeploymentChecks.environmentLogs(ENVIRONMENT)).isEmpty();
          softly.assertThat(DeploymentChecks.cosmosRoleAssignmentOrder(COSMOS)).isEmpty();
          softly.assertThat(DeploymentChecks.cosmosCapacityModes(COSMOS)).isEmpty();
          softly.assertThat(DeploymentChecks.serviceBusTiers(SERVICE_BUS)).isEmpty();
          softly.assertThat(DeploymentChecks.queueSettings(MAIN, SERVICE_BUS, WORKER)).isEmpty();
          softly.assertThat(DeploymentChecks.capacityParameters(MAIN)).isEmpty();
        });
  }

  // Defect 1: azd passes every saved output back, so the first provision's output decides the next.

  @Test
  void placeholderPassedBack_getsNoProbes_andIsNotEchoed() {
    Bicep.Template t = Bicep.parse(WORKER);
    String placeholder =
        (String)
            ((Map<?, ?>)
                    ((List<?>)
                            BicepEval.at(
                                    new BicepEval(
                                            t,
                                            Map.of("imageName", "", "queueRequiresSession", false))
                                        .resource("app"),
                                    "properties.template.containers")
                                .orElseThrow())
                        .get(0))
                .get("image");

    BicepEval rerun =
        new BicepEval(t, Map.of("imageName", placeholder, "queueRequiresSession", false));

    assertThat(placeholder).isEqualTo("mcr.microsoft.com/k8se/quickstart:latest");
    assertThat(rerun.output("imageName")).isEqualTo("");
    assertThat(
            new BicepEval(t, Map.of("imageName", "", "queueRequiresSession", false))
                .output("imageName"))
        .isEqualTo("");
    assertThat(
            new BicepEval(
                    t,
                    Map.of(
                        "imageName", DeploymentChecks.PUSHED_IMAGE, "queueRequiresSession", false))
                .output("imageName"))
        .isEqualTo(DeploymentChecks.PUSHED_IMAGE);
  }

  @Test
  void placeholderCountedAsAnImage_isReported() {
    // The template as it was: only an empty name meant "no image yet".
    String broken =
        replaceOnce(
            WORKER,
            "var usePlaceholder = empty(imageName) || imageName == placeholderImage",
            "var usePlaceholder = empty(imageName)");

    assertThat(DeploymentChecks.placeholderImage(broken))
        .anyMatch(p -> p.contains("gets health probes with the placeholder passed back"));
  }

  @Test
  void placeholderEchoedAsTheImage_isReported() {
    String broken =
        replaceOnce(
            WORKER,
            "output imageName string = usePlaceholder ? '' : imageName",
            "output imageName string = image");

    assertThat(DeploymentChecks.placeholderImage(broken))
        .anyMatch(p -> p.contains("output imageName echoes the placeholder before any image"));
  }

  @Test
  void pushedImageWithoutProbes_isReported() {
    String broken = replaceOnce(WORKER, "probes: usePlaceholder ? [] : probes", "probes: []");

    assertThat(DeploymentChecks.placeholderImage(broken))
        .anyMatch(p -> p.contains("does not get the three probes"));
  }

  // Defect 2: a service-principal login must not send its role assignments as User.

  @Test
  void principalTypeNotTakenFromAzd_isReported() {
    Bicep.Template main = Bicep.parse(MAIN);
    String unmapped = removeLines(PARAMETERS, "\"principalType\"", 3);
    String constant = PARAMETERS.replace("${AZURE_PRINCIPAL_TYPE=User}", "User");

    assertThat(LocalChecks.parameters(unmapped, main))
        .contains("parameter principalType must be ${AZURE_PRINCIPAL_TYPE=User}");
    assertThat(LocalChecks.parameters(constant, main))
        .contains("parameter principalType must be ${AZURE_PRINCIPAL_TYPE=User}");
  }

  @Test
  void userRolesWithAFixedPrincipalType_areReported() {
    String broken =
        replaceAfter(
            MAIN,
            "module serviceBus ",
            "userPrincipalType: principalType",
            "userPrincipalType: 'User'");

    assertThat(DeploymentChecks.capacityParameters(broken))
        .anyMatch(p -> p.contains("do not use principalType"));
  }

  // Defect 3: Cosmos DB takes an exclusive lock per SQL role assignment.

  @Test
  void cosmosRoleAssignmentsInParallel_areReported() {
    String broken = removeLines(COSMOS, "    workerDataAccess", 1);
    broken = replaceOnce(broken, "  dependsOn: [\n  ]\n", "");

    assertThat(DeploymentChecks.cosmosRoleAssignmentOrder(broken))
        .contains(
            "workerDataAccess and loyaltyDataAccess may run at the same time (Cosmos DB answers 412)");
  }

  @Test
  void cosmosRoleAssignmentBesideTheContainerCreation_isReported() {
    String broken = replaceOnce(COSMOS, "  dependsOn: [\n    container\n  ]\n", "");
    // (the customers container's: it and the orders container would be created at once)

    assertThat(DeploymentChecks.cosmosRoleAssignmentOrder(broken))
        .anyMatch(p -> p.contains("and container may run at the same time"));
  }

  @Test
  void thirdAssignmentWithoutOrder_isReported() {
    String third =
        COSMOS
            + """

            resource readerDataAccess 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = {
              parent: account
              name: guid(dataContributorDefinitionId, 'reader', account.id)
              properties: {
                roleDefinitionId: dataContributorDefinitionId
                principalId: workerPrincipalId
                scope: account.id
              }
            }
            """;

    assertThat(DeploymentChecks.cosmosRoleAssignmentOrder(third))
        .anyMatch(p -> p.contains("readerDataAccess"));
  }

  // Defect 4: managedEnvironmentId is deprecated in Microsoft.App 2025-01-01.

  @Test
  void deprecatedManagedEnvironmentId_isReported() {
    String broken =
        replaceOnce(
            WORKER,
            "environmentId: containerAppsEnvironmentId",
            "managedEnvironmentId: containerAppsEnvironmentId");

    assertThat(DeploymentChecks.environmentReference(broken))
        .contains("properties.managedEnvironmentId is deprecated; use properties.environmentId")
        .contains("the app does not set properties.environmentId");
  }

  // Defect 5: the workspace key (listKeys is not declared for OperationalInsights 2025-07-01).

  @Test
  void logsThroughTheWorkspaceKey_areReported() {
    String broken =
        replaceOnce(
            ENVIRONMENT,
            "      destination: 'azure-monitor'\n",
            "      destination: 'log-analytics'\n"
                + "      logAnalyticsConfiguration: {\n"
                + "        customerId: logAnalytics.properties.customerId\n"
                + "        sharedKey: logAnalytics.listKeys().primarySharedKey\n"
                + "      }\n");

    assertThat(DeploymentChecks.environmentLogs(broken))
        .contains("calls listKeys(): keys are not needed")
        .contains("appLogsConfiguration.destination is 'log-analytics', not 'azure-monitor'")
        .contains("the environment still carries a logAnalyticsConfiguration (a shared key)");
  }

  @Test
  void environmentWithoutDiagnosticSetting_isReported() {
    String broken = removeLines(ENVIRONMENT, "resource logs 'Microsoft.Insights", 13);

    assertThat(DeploymentChecks.environmentLogs(broken))
        .contains("no diagnostic setting sends the environment's logs to a workspace");
  }

  static List<Path> bicepFiles() throws IOException {
    return BicepTemplatesTest.bicepFiles().toList();
  }

  @ParameterizedTest
  @MethodSource("bicepFiles")
  void noTemplate_readsAKey(Path file) throws IOException {
    assertThat(DeploymentChecks.listCalls(Files.readString(file))).isEmpty();
  }

  // Capacity: Cosmos DB serverless (default) or autoscale.

  @Test
  void autoscaleWithoutTheMaxThroughput_isReported() {
    String broken =
        replaceAfter(
            COSMOS,
            "resource container ",
            "maxThroughput: autoscaleMaxThroughput",
            "maxThroughput: 4000");

    assertThat(DeploymentChecks.cosmosCapacityModes(broken))
        .anyMatch(
            p -> p.startsWith("autoscale: expected no EnableServerless and maxThroughput 7000"));
  }

  @Test
  void autoscaleKeepingTheServerlessCapability_isReported() {
    String broken = replaceOnce(COSMOS, "capabilities: serverless ? [", "capabilities: true ? [");

    assertThat(DeploymentChecks.cosmosCapacityModes(broken))
        .anyMatch(p -> p.startsWith("autoscale: expected no EnableServerless"));
  }

  @Test
  void throughputOnAServerlessAccount_isReported() {
    String broken =
        replaceAfter(
            COSMOS,
            "resource container ",
            "options: serverless ? {} : {",
            "options: false ? {} : {");

    assertThat(DeploymentChecks.cosmosCapacityModes(broken))
        .anyMatch(p -> p.startsWith("serverless: expected EnableServerless and no throughput"));
  }

  @Test
  void manualThroughputInsteadOfAutoscale_isReported() {
    String broken =
        replaceAfter(
            COSMOS,
            "resource customersContainer ",
            "      autoscaleSettings: {\n        maxThroughput: autoscaleMaxThroughput\n      }",
            "      throughput: 400");

    assertThat(DeploymentChecks.cosmosCapacityModes(broken))
        .anyMatch(p -> p.contains("has manual throughput"));
  }

  // Capacity: Service Bus Standard (default) or Premium.

  /** premiumMessagingPartitions is a Premium setting: a Standard namespace must not be sent 0. */
  @Test
  void premiumPartitionsSentToStandard_asBeforeTheFix_isReported() {
    String broken =
        replaceOnce(SERVICE_BUS, "  } : {})", "  } : {\n    premiumMessagingPartitions: 0\n  })");

    assertThat(DeploymentChecks.serviceBusTiers(broken))
        .anyMatch(p -> p.startsWith("Tier[sku=Standard") && p.endsWith("partitions 0"));
  }

  @Test
  void premiumWithoutItsMessagingUnits_isReported() {
    String broken =
        replaceOnce(
            SERVICE_BUS,
            "capacity: isPremium ? (capacityFitsPartitions ? messagingUnits : fail(",
            "capacity: 1 == 1 ? 1 : isPremium ? (capacityFitsPartitions ? messagingUnits : fail(");

    assertThat(DeploymentChecks.serviceBusTiers(broken))
        .anyMatch(p -> p.startsWith("Tier[sku=Standard") && p.contains("namespace sku"))
        .anyMatch(p -> p.startsWith("Tier[sku=Premium, units=4") && p.contains("namespace sku"));
  }

  @Test
  void queueThatDiffersOnPremium_isReported() {
    String broken =
        replaceAfter(
            SERVICE_BUS,
            "resource queue ",
            "maxSizeInMegabytes: 1024",
            "maxSizeInMegabytes: isPremium ? 81920 : 1024");

    assertThat(DeploymentChecks.serviceBusTiers(broken))
        .anyMatch(p -> p.contains("queue differs from Standard"));
  }

  @Test
  void unpartitionedQueueInAPartitionedNamespace_isReported() {
    String broken =
        replaceAfter(
            SERVICE_BUS,
            "resource queue ",
            "enablePartitioning: partitioned",
            "enablePartitioning: false");

    assertThat(DeploymentChecks.serviceBusTiers(broken))
        .contains("Tier[sku=Premium, units=4, partitions=2]: queue enablePartitioning is false");
  }

  @Test
  void capacityDefaultsChanged_orNotPassedOn_areReported() {
    String premiumDefault =
        replaceOnce(
            MAIN,
            "param serviceBusSku string = 'Standard'",
            "param serviceBusSku string = 'Premium'");
    String notPassed = replaceOnce(MAIN, "    capacityMode: cosmosCapacityMode\n", "");

    assertThat(DeploymentChecks.capacityParameters(premiumDefault))
        .contains("main.bicep parameter serviceBusSku defaults to 'Premium', expected 'Standard'");
    assertThat(DeploymentChecks.capacityParameters(notPassed))
        .contains("cosmos.bicep capacityMode gets (nothing), not cosmosCapacityMode");
  }

  // Queue settings the worker is told: one source each, shared with the queue.

  @Test
  void queueSettings_reachTheAppFromTheQueuesOwnSymbols() {
    Bicep.Template sb = Bicep.parse(SERVICE_BUS);
    Bicep.Obj queue = sb.body(sb.find("resource", "queue").orElseThrow());

    assertThat(queue.text("properties.lockDuration")).contains("lockDuration");
    assertThat(sb.resolvedText(new Bicep.Expr("lockDuration"))).isEqualTo("'PT1M'");
    assertThat(sb.resolvedText(new Bicep.Expr("maxDeliveryCount"))).isEqualTo("10");
    assertThat(sb.resolvedText(new Bicep.Expr("defaultMessageTimeToLive"))).isEqualTo("'P6D'");
    assertThat(DeploymentChecks.queueSettings(MAIN, SERVICE_BUS, WORKER)).isEmpty();
  }

  @Test
  void queueDefaults_keepTheRedeliveryHorizonInsideTheWorkersDefaultMarkerTtl() {
    Bicep.Template sb = Bicep.parse(SERVICE_BUS);
    java.util.function.Function<String, String> unquoted =
        name -> sb.resolvedText(new Bicep.Expr(name)).replace("'", "");
    io.idemworker.core.MarkerRetention deployed =
        new io.idemworker.core.MarkerRetention(
            java.time.Duration.parse(unquoted.apply("lockDuration")),
            Integer.parseInt(unquoted.apply("maxDeliveryCount")),
            java.time.Duration.parse(unquoted.apply("defaultMessageTimeToLive")),
            java.time.Duration.parse(ENV.defaults().get("WORKER_RESUBMIT_WINDOW")));

    assertThat(
            deployed.problemWith(
                java.util.Optional.of(
                    java.time.Duration.parse(ENV.defaults().get("WORKER_INBOX_TTL")))))
        .as("a deployment with every default must pass the worker's start-up check")
        .isEmpty();
  }

  @Test
  void queueSettingDefinedTwice_isReported() {
    String broken =
        replaceOnce(
            WORKER,
            "param queueMessageTimeToLive string",
            "param queueMessageTimeToLive string = 'P14D'");

    assertThat(DeploymentChecks.queueSettings(MAIN, SERVICE_BUS, broken))
        .contains(
            "SERVICEBUS_MESSAGE_TTL is not a worker-app parameter without a default: queueMessageTimeToLive");
  }

  @Test
  void queueSettingFromAnotherSymbol_isReported() {
    String queueElsewhere =
        replaceOnce(SERVICE_BUS, "    lockDuration: lockDuration", "    lockDuration: 'PT2M'");
    String envElsewhere =
        replaceOnce(
            MAIN,
            "queueMaxDeliveryCount: serviceBus.outputs.maxDeliveryCount",
            "queueMaxDeliveryCount: 10");
    String overridden =
        replaceOnce(
            MAIN, "    sku: serviceBusSku\n", "    sku: serviceBusSku\n    lockDuration: 'PT2M'\n");

    assertThat(DeploymentChecks.queueSettings(MAIN, queueElsewhere, WORKER))
        .contains(
            "SERVICEBUS_LOCK_DURATION comes from lockDuration, the queue's lockDuration from 'PT2M'");
    assertThat(DeploymentChecks.queueSettings(envElsewhere, SERVICE_BUS, WORKER))
        .contains(
            "SERVICEBUS_MAX_DELIVERY_COUNT: main.bicep passes 10, not a Service Bus module output");
    assertThat(DeploymentChecks.queueSettings(overridden, SERVICE_BUS, WORKER))
        .contains("lockDuration is defined again in main.bicep");
  }

  @Test
  void queueSettingMissingFromTheApp_isReported() {
    String broken = removeLines(WORKER, "name: 'SERVICEBUS_LOCK_DURATION'", 2);

    assertThat(DeploymentChecks.queueSettings(MAIN, SERVICE_BUS, broken))
        .anyMatch(p -> p.startsWith("SERVICEBUS_LOCK_DURATION: the app does not set it"));
  }
}
