package io.idemworker.infra;

import static io.idemworker.infra.Mutations.removeLines;
import static io.idemworker.infra.Mutations.replaceAfter;
import static io.idemworker.infra.Mutations.replaceOnce;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class BicepTemplatesTest {
  private static final WorkerEnv ENV = WorkerEnv.load(Repo.ROOT);
  private static final String SERVICE_BUS = Repo.read("infra/modules/servicebus.bicep");
  private static final String COSMOS = Repo.read("infra/modules/cosmos.bicep");
  private static final String REGISTRY = Repo.read("infra/modules/registry.bicep");
  private static final String WORKER = Repo.read("infra/modules/worker-app.bicep");
  private static final String MAIN = Repo.read("infra/main.bicep");

  static Stream<Path> bicepFiles() throws IOException {
    try (Stream<Path> files = Files.walk(Repo.ROOT.resolve("infra"))) {
      return files
          .filter(p -> p.toString().endsWith(".bicep"))
          .filter(p -> !p.toString().contains("node_modules"))
          .sorted()
          .toList()
          .stream();
    }
  }

  @ParameterizedTest
  @MethodSource("bicepFiles")
  void everyTemplate_isReadable_andHasNoSecretOutputs(Path file) throws IOException {
    String text = Files.readString(file);

    assertThat(Bicep.parse(text).declarations()).isNotEmpty();
    assertThat(BicepChecks.outputs(text)).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("bicepFiles")
  void everyModuleReference_pointsAtAFile(Path file) throws IOException {
    Bicep.Template template = Bicep.parse(Files.readString(file));

    for (Bicep.Declaration module : template.all("module")) {
      assertThat(file.resolveSibling(module.type())).as(module.name()).isRegularFile();
    }
  }

  @Test
  void mainPassesEveryRequiredModuleParameter() {
    Bicep.Template main = Bicep.parse(MAIN);

    for (Bicep.Declaration module : main.all("module")) {
      Bicep.Template target = Repo.bicep("infra/" + module.type());
      Bicep.Obj params =
          (Bicep.Obj) main.body(module).at("params").orElse(new Bicep.Obj(java.util.Map.of()));
      for (Bicep.Declaration param : target.all("param")) {
        if (param.value().isEmpty()) {
          assertThat(params.properties()).as(module.type()).containsKey(param.name());
        }
      }
      assertThat(params.properties().keySet())
          .as("parameters %s declares", module.type())
          .allMatch(name -> target.find("param", name).isPresent());
    }
  }

  @Test
  void realTemplates_passEveryCheck() {
    assertThat(BicepChecks.serviceBus(SERVICE_BUS)).isEmpty();
    assertThat(BicepChecks.cosmos(COSMOS)).isEmpty();
    assertThat(BicepChecks.registry(REGISTRY)).isEmpty();
    assertThat(BicepChecks.workerApp(WORKER, ENV)).isEmpty();
    assertThat(BicepChecks.main(MAIN)).isEmpty();
  }

  @Test
  void appSettings_matchTheWorkersDocumentedDefaults() {
    // Infra may deviate from a default only on purpose; today it sets every tuning knob to the
    // worker's own default, so a drift on either side shows up here.
    Bicep.Template app = Bicep.parse(WORKER);
    Bicep.Obj container =
        (Bicep.Obj)
            ((Bicep.Arr)
                    app.body(app.resourcesOfType("Microsoft.App/containerApps").get(0))
                        .at("properties.template.containers")
                        .orElseThrow())
                .items()
                .get(0);
    java.util.Map<String, Bicep.Obj> vars =
        BicepChecks.envVars(app, container, new java.util.ArrayList<>());

    for (String name :
        List.of(
            "WORKER_MAX_CONCURRENT_CALLS",
            "WORKER_PREFETCH_COUNT",
            "WORKER_MAX_LOCK_RENEWAL",
            "WORKER_KEY_STRATEGY",
            "WORKER_MAX_BODY_BYTES",
            "WORKER_SHUTDOWN_TIMEOUT",
            "HEALTH_PORT",
            "COSMOS_CONNECTION_MODE")) {
      Bicep.Node value = vars.get(name).at("value").orElseThrow();
      String text = ((Bicep.Expr) value).text().replaceAll("^string\\((\\w+)\\)$", "$1");
      String resolved = app.resolvedText(new Bicep.Expr(text)).replaceAll("^'(.*)'$", "$1");

      assertThat(resolved).as(name).isEqualTo(ENV.defaults().get(name));
    }
  }

  @Test
  void duplicateDetectionSwitchedOff_isReported() {
    String broken =
        replaceAfter(
            SERVICE_BUS,
            "resource queue ",
            "requiresDuplicateDetection: true",
            "requiresDuplicateDetection: false");

    assertThat(BicepChecks.serviceBus(broken))
        .anyMatch(p -> p.contains("requiresDuplicateDetection"));
  }

  @Test
  void serviceBusLocalAuthOn_isReported() {
    String broken = replaceOnce(SERVICE_BUS, "disableLocalAuth: true", "disableLocalAuth: false");

    assertThat(BicepChecks.serviceBus(broken)).anyMatch(p -> p.contains("disableLocalAuth"));
  }

  @Test
  void basicServiceBusTier_isReported() {
    String broken =
        replaceOnce(SERVICE_BUS, "param sku string = 'Standard'", "param sku string = 'Basic'");

    assertThat(BicepChecks.serviceBus(broken)).anyMatch(p -> p.contains("sku.name"));
  }

  @Test
  void duplicateWindowBeyondSevenDays_isReported() {
    String broken =
        replaceOnce(
            SERVICE_BUS,
            "param duplicateDetectionHistoryTimeWindow string = 'PT10M'",
            "param duplicateDetectionHistoryTimeWindow string = 'P8D'");

    assertThat(BicepChecks.serviceBus(broken))
        .anyMatch(p -> p.contains("duplicateDetectionHistoryTimeWindow"));
  }

  @Test
  void wrongServiceBusRoleId_isReported() {
    String broken =
        replaceOnce(
            SERVICE_BUS,
            BicepChecks.SERVICE_BUS_DATA_RECEIVER,
            "00000000-1111-2222-3333-444444444444");

    assertThat(BicepChecks.serviceBus(broken))
        .anyMatch(p -> p.contains(BicepChecks.SERVICE_BUS_DATA_RECEIVER));
  }

  @Test
  void otherPartitionKey_isReported() {
    String broken = replaceOnce(COSMOS, "'/orderId'", "'/id'");

    assertThat(BicepChecks.cosmos(broken)).anyMatch(p -> p.contains("partitionKey.paths"));
  }

  @Test
  void cosmosLocalAuthOn_orKeyMetadataWrites_areReported() {
    String broken =
        replaceOnce(
            replaceOnce(COSMOS, "disableLocalAuth: true", "disableLocalAuth: false"),
            "disableKeyBasedMetadataWriteAccess: true",
            "disableKeyBasedMetadataWriteAccess: false");

    assertThat(BicepChecks.cosmos(broken))
        .anyMatch(p -> p.contains("properties.disableLocalAuth"))
        .anyMatch(p -> p.contains("disableKeyBasedMetadataWriteAccess"));
  }

  @Test
  void missingDefaultTtl_orPartitionKeyVersion1_areReported() {
    String broken =
        replaceAfter(
            replaceAfter(COSMOS, "resource container ", "defaultTtl: -1", "defaultTtl: 3600"),
            "resource container ",
            "version: 2",
            "version: 1");

    assertThat(BicepChecks.cosmos(broken))
        .anyMatch(p -> p.contains("defaultTtl"))
        .anyMatch(p -> p.contains("partitionKey.version"));
  }

  @Test
  void cosmosDataRoleForTheUserRemoved_isReported() {
    String broken = removeLines(COSMOS, "resource userDataAccess", 12);

    assertThat(BicepChecks.cosmos(broken)).anyMatch(p -> p.contains("userPrincipalId"));
  }

  @Test
  void cosmosRoleOtherThanDataContributor_isReported() {
    String broken =
        replaceOnce(
            COSMOS,
            "'00000000-0000-0000-0000-000000000002'",
            "'00000000-0000-0000-0000-000000000001'");

    assertThat(BicepChecks.cosmos(broken)).anyMatch(p -> p.contains("Data Contributor"));
  }

  @Test
  void missingAcrPull_isReported() {
    String broken =
        replaceOnce(REGISTRY, BicepChecks.ACR_PULL, "acdd72a7-3385-48ef-bd42-f606fba81ae7");

    assertThat(BicepChecks.registry(broken)).contains("no AcrPull role assignment");
  }

  @Test
  void requiredVariableMissingFromTheApp_isReported() {
    String broken = removeLines(WORKER, "name: 'COSMOS_ENDPOINT'", 2);

    assertThat(BicepChecks.workerApp(broken, ENV))
        .contains("container app does not set COSMOS_ENDPOINT");
  }

  @Test
  void everyVariableInTheList_isRequiredOfTheApp() {
    for (String name : ENV.setByInfra()) {
      String broken = replaceOnce(WORKER, "name: '" + name + "'", "name: 'X_" + name + "'");

      assertThat(BicepChecks.workerApp(broken, ENV))
          .as(name)
          .contains("container app does not set " + name);
    }
  }

  @Test
  void connectionStringInsteadOfIdentity_isReported() {
    String broken =
        replaceOnce(
            WORKER,
            "name: 'SERVICEBUS_FULLY_QUALIFIED_NAMESPACE'",
            "name: 'SERVICEBUS_CONNECTION_STRING'");

    assertThat(BicepChecks.workerApp(broken, ENV))
        .anyMatch(p -> p.contains("SERVICEBUS_CONNECTION_STRING"));
  }

  @Test
  void emulatorOnlySwitchOnTheApp_isReported() {
    String broken =
        replaceOnce(WORKER, "name: 'COSMOS_CONNECTION_MODE'", "name: 'COSMOS_CREATE_CONTAINER'");

    assertThat(BicepChecks.workerApp(broken, ENV))
        .anyMatch(p -> p.contains("sets COSMOS_CREATE_CONTAINER"));
  }

  @Test
  void probeOffTheHealthPort_isReported() {
    String broken =
        replaceOnce(WORKER, "param healthPort int = 8080", "param healthPort int = 8081");
    broken = replaceOnce(broken, "value: string(healthPort)", "value: '8080'");

    assertThat(BicepChecks.workerApp(broken, ENV))
        .anyMatch(p -> p.contains("probe port 8081 is not HEALTH_PORT 8080"));
  }

  @Test
  void missingReadinessProbe_isReported() {
    String broken = replaceOnce(WORKER, "type: 'Readiness'", "type: 'Liveness2'");

    assertThat(BicepChecks.workerApp(broken, ENV)).contains("no 'Readiness' probe");
  }

  /**
   * Session mode: a worker replica holds WORKER_MAX_CONCURRENT_SESSIONS orders at once, so that is
   * KEDA's target, as for the consumers; 20 messages a replica left messages queued behind 8
   * sessions while KEDA added no replica.
   */
  @Test
  void workerKedaTargetIgnoringSessions_asBeforeTheFix_isReported() {
    String broken =
        replaceOnce(
            WORKER,
            "messageCount: string(activeMessagesPerReplica)",
            "messageCount: string(messagesPerReplica)");

    assertThat(BicepChecks.workerApp(broken, ENV))
        .anyMatch(
            p ->
                p.startsWith(
                    "with queueRequiresSession true, KEDA messageCount is 20, expected 8"));
  }

  @Test
  void kedaRuleWithoutNamespace_orWithSecretAuth_isReported() {
    String broken = removeLines(WORKER, "namespace: serviceBusNamespaceName", 1);
    broken = replaceAfter(broken, "custom: {", "identity: scalerIdentityId", "auth: []");

    assertThat(BicepChecks.workerApp(broken, ENV))
        .contains("KEDA metadata has no namespace")
        .contains("the scale rule does not authenticate with a managed identity")
        .contains("the scale rule uses secret-based auth");
  }

  @Test
  void kedaNamespaceGivenAsHost_isReported() {
    String broken =
        replaceOnce(
            WORKER,
            "namespace: serviceBusNamespaceName",
            "namespace: serviceBusFullyQualifiedNamespace");

    assertThat(BicepChecks.workerApp(broken, ENV)).anyMatch(p -> p.contains("namespace name"));
  }

  @Test
  void ingressOnTheWorker_isReported() {
    String broken =
        replaceOnce(
            WORKER,
            "      activeRevisionsMode: 'Single'",
            "      activeRevisionsMode: 'Single'\n      ingress: {\n        external: true\n      }");

    assertThat(BicepChecks.workerApp(broken, ENV)).contains("the worker must have no ingress");
  }

  @Test
  void secretInAnOutput_isReported() {
    String broken = MAIN + "\noutput COSMOS_KEY string = cosmos.outputs.endpoint\n";
    String leaky =
        Repo.read("infra/modules/cosmos.bicep")
            + "\noutput primary string = account.listKeys().primaryMasterKey\n";

    assertThat(BicepChecks.outputs(broken)).anyMatch(p -> p.contains("COSMOS_KEY"));
    assertThat(BicepChecks.outputs(leaky)).anyMatch(p -> p.contains("looks like a secret"));
  }

  @Test
  void appNotWaitingForTheRegistryModule_isReported() {
    String broken =
        replaceAfter(
            MAIN,
            "module worker ",
            "registryLoginServer: registry.outputs.loginServer",
            "registryLoginServer: 'cr.example'");

    assertThat(BicepChecks.main(broken)).anyMatch(p -> p.contains("registry.outputs."));
  }

  @Test
  void namesAgreeAcrossTemplatesAndLocalFiles() throws IOException {
    Bicep.Template main = Bicep.parse(MAIN);
    List<String> localQueues =
        LocalChecks.deduplicatingQueues(Repo.read("local/servicebus/Config.json"));

    assertThat(main.resolvedText(new Bicep.Expr("queueName"))).isEqualTo("'orders'");
    assertThat(main.resolvedText(new Bicep.Expr("databaseName"))).isEqualTo("'idemworker'");
    assertThat(main.resolvedText(new Bicep.Expr("containerName"))).isEqualTo("'orders'");
    assertThat(localQueues).containsExactly("orders");
  }

  @Test
  void parametersFile_matchesMainBicep() {
    String json = Repo.read("infra/main.parameters.json");
    Bicep.Template main = Bicep.parse(MAIN);

    assertThat(LocalChecks.parameters(json, main)).isEmpty();
    assertThat(LocalChecks.parameters(json.replace("${AZURE_PRINCIPAL_ID}", ""), main))
        .contains("parameter principalId must be ${AZURE_PRINCIPAL_ID}");
    assertThat(
            LocalChecks.parameters(json.replace("\"workerMinReplicas\"", "\"minReplica\""), main))
        .contains("main.bicep declares no parameter minReplica");
  }
}
