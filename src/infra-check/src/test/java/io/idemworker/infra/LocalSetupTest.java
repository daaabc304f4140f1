package io.idemworker.infra;

import static io.idemworker.infra.Mutations.replaceOnce;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LocalSetupTest {
  private static final WorkerEnv ENV = WorkerEnv.load(Repo.ROOT);
  private static final String CONFIG = Repo.read("local/servicebus/Config.json");
  private static final String COMPOSE = Repo.read("local/docker-compose.yml");
  private static final String WORKER_ENV = Repo.read("local/worker.env");
  private static final String DEPLOY_MD = Repo.read("docs/deploy.md");

  @Test
  void realLocalFiles_passEveryCheck() {
    assertThat(LocalChecks.serviceBusEmulatorConfig(CONFIG)).isEmpty();
    assertThat(LocalChecks.compose(COMPOSE)).isEmpty();
    assertThat(LocalChecks.workerEnv(WORKER_ENV, ENV)).isEmpty();
    assertThat(LocalChecks.devcontainer(Repo.read(".devcontainer/devcontainer.json"))).isEmpty();
    assertThat(LocalChecks.azureYaml(Repo.read("azure.yaml"))).isEmpty();
    assertThat(LocalChecks.dockerfile(Repo.read("Dockerfile"))).isEmpty();
    assertThat(LocalChecks.classDataArchive(Repo.read("Dockerfile"))).isEmpty();
    assertThat(LocalChecks.dockerContext(Repo.read("Dockerfile"), Repo.read(".dockerignore")))
        .isEmpty();
  }

  @Test
  void buildStage_copiesThePomOfEveryModuleTheReactorLists() {
    // Maven reads every module the root pom lists before it builds any: a module added to the
    // reactor but not copied into the build stage fails the image build.
    String dockerfile = Repo.read("Dockerfile");
    java.util.regex.Matcher module =
        java.util.regex.Pattern.compile("<module>([^<]+)</module>").matcher(Repo.read("pom.xml"));
    java.util.List<String> missing = new java.util.ArrayList<>();
    int modules = 0;
    while (module.find()) {
      modules++;
      String dir = module.group(1);
      if (!dockerfile.contains("COPY " + dir + "/pom.xml " + dir + "/\n")) {
        missing.add(dir);
      }
    }

    assertThat(modules).isGreaterThan(10);
    assertThat(missing).as("modules whose pom the Dockerfile does not copy").isEmpty();
  }

  @Test
  void dockerignoreLeavingOutAFileTheDockerfileCopies_isReported() {
    // The shape before the fix: the example's pom was added to the reactor and to the build
    // stage's COPY lines, but .dockerignore still left examples/ out of the context.
    String ignore = Repo.read(".dockerignore");
    String withoutExample = replaceOnce(ignore, "!examples/order-service/pom.xml\n", "");
    String sourcesOut = ignore + "src\n";

    assertThat(LocalChecks.dockerContext(Repo.read("Dockerfile"), withoutExample))
        .contains(
            ".dockerignore leaves out examples/order-service/pom.xml, which the Dockerfile copies");
    assertThat(LocalChecks.dockerContext(Repo.read("Dockerfile"), sourcesOut))
        .anyMatch(p -> p.contains("leaves out src"));
  }

  @Test
  void workerImageWithoutItsClassDataArchive_isReported() {
    String dockerfile = Repo.read("Dockerfile");
    String notMapped =
        replaceOnce(dockerfile, "\"-XX:SharedArchiveFile=/app/idemworker.jsa\", ", "");
    String notCopied =
        replaceOnce(
            dockerfile,
            "COPY --from=class-data --chown=root:root /app/idemworker.jsa /app/idemworker.jsa\n",
            "");

    String signedLibs =
        replaceOnce(
            dockerfile,
            "COPY --from=class-data --chown=root:root /app/lib/ /app/lib/\n",
            "COPY --from=build --chown=root:root /src/src/worker/target/lib/ /app/lib/\n");

    assertThat(LocalChecks.classDataArchive(signedLibs))
        .containsExactly(
            "the worker's image copies lib/ from the build, not the unsigned lib/ the class-data"
                + " archive was made for");
    assertThat(LocalChecks.classDataArchive(notMapped))
        .containsExactly("the worker's ENTRYPOINT does not map the class-data archive");
    assertThat(LocalChecks.classDataArchive(notCopied))
        .containsExactly("the worker's image does not copy the class-data archive");
  }

  @Test
  void emulatorLimitsExceeded_areReported() {
    String broken =
        replaceOnce(
            replaceOnce(
                replaceOnce(CONFIG, "\"MaxDeliveryCount\": 10", "\"MaxDeliveryCount\": 11"),
                "\"LockDuration\": \"PT1M\"",
                "\"LockDuration\": \"PT6M\""),
            "\"DefaultMessageTimeToLive\": \"PT1H\"",
            "\"DefaultMessageTimeToLive\": \"P14D\"");

    assertThat(LocalChecks.serviceBusEmulatorConfig(broken))
        .anyMatch(p -> p.contains("MaxDeliveryCount"))
        .anyMatch(p -> p.contains("LockDuration"))
        .anyMatch(p -> p.contains("DefaultMessageTimeToLive"));
  }

  @Test
  void subscriptionLockBelowTheEmulatorsMinuteMinimum_isReported() {
    String broken =
        CONFIG.replaceFirst("\"LockDuration\": \"PT2M\"", "\"LockDuration\": \"PT30S\"");

    assertThat(broken).isNotEqualTo(CONFIG);
    assertThat(LocalChecks.serviceBusEmulatorConfig(broken))
        .anyMatch(p -> p.contains("order-events/loyalty.LockDuration"));
  }

  @Test
  void duplicateWindowBelowEmulatorMinimum_isReported() {
    String broken =
        replaceOnce(
            CONFIG,
            "\"DuplicateDetectionHistoryTimeWindow\": \"PT5M\"",
            "\"DuplicateDetectionHistoryTimeWindow\": \"PT1S\"");

    assertThat(LocalChecks.serviceBusEmulatorConfig(broken))
        .anyMatch(p -> p.contains("DuplicateDetectionHistoryTimeWindow"));
  }

  @Test
  void commentsOrWrongNamespaceOrMissingTopics_areReported() {
    String commented = CONFIG.replaceFirst("\\{", "{ // local settings");
    String renamed = replaceOnce(CONFIG, "\"sbemulatorns\"", "\"idemworker\"");
    String noTopics = replaceOnce(CONFIG, "\"Topics\": [", "\"TopicList\": [");
    String noLogging = replaceOnce(CONFIG, "\"Type\": \"File\"", "\"Kind\": \"File\"");

    assertThat(LocalChecks.serviceBusEmulatorConfig(commented))
        .singleElement()
        .asString()
        .contains("not strict JSON");
    assertThat(LocalChecks.serviceBusEmulatorConfig(renamed))
        .anyMatch(p -> p.contains("sbemulatorns"));
    assertThat(LocalChecks.serviceBusEmulatorConfig(noTopics)).anyMatch(p -> p.contains("Topics"));
    assertThat(LocalChecks.serviceBusEmulatorConfig(noLogging))
        .anyMatch(p -> p.contains("Logging.Type"));
  }

  @Test
  void invalidYaml_orCosmosOverHttp_areReported() {
    String invalid = COMPOSE.replace("services:", "services: [");
    String http = replaceOnce(COMPOSE, "PROTOCOL: https", "PROTOCOL: http");

    assertThat(LocalChecks.compose(invalid)).singleElement().asString().contains("not valid YAML");
    assertThat(LocalChecks.compose(http)).anyMatch(p -> p.contains("PROTOCOL=https"));
  }

  @Test
  void cosmosEmulatorOnThePreviewTag_isReported() {
    String preview =
        replaceOnce(
            COMPOSE, "azure-cosmos-emulator:vnext-latest", "azure-cosmos-emulator:vnext-preview");

    assertThat(LocalChecks.compose(preview))
        .contains("the Cosmos emulator image is not the documented tag vnext-latest");
  }

  @Test
  void dockerfileCallingTheCacheMountALayer_isReported() {
    String dockerfile = Repo.read("Dockerfile");
    String before =
        dockerfile.replaceFirst(
            "(?s)# Download dependencies before copying the sources.*?\n(RUN --mount)",
            "# Resolve dependencies in their own layer so source edits do not re-download them.\n$1");

    assertThat(before).isNotEqualTo(dockerfile);
    assertThat(LocalChecks.dockerfile(before))
        .anyMatch(p -> p.contains("a cache mount is in no layer"));
  }

  @Test
  void workerEnvWithoutCosmosEndpoint_orEmulatorProperties_isReported() {
    String noEndpoint = replaceOnce(WORKER_ENV, "COSMOS_ENDPOINT=", "#COSMOS_ENDPOINT=");
    String noProperties = replaceOnce(WORKER_ENV, " -DCOSMOS.DISABLE_IMDS_ACCESS=true", "");

    assertThat(LocalChecks.workerEnv(noEndpoint, ENV))
        .contains("worker.env does not set COSMOS_ENDPOINT");
    assertThat(LocalChecks.workerEnv(noProperties, ENV))
        .contains("JAVA_TOOL_OPTIONS lacks -DCOSMOS.DISABLE_IMDS_ACCESS=true");
  }

  @Test
  void workerEnvThatDoesNotCreateTheContainer_isReported() {
    String broken =
        replaceOnce(WORKER_ENV, "COSMOS_CREATE_CONTAINER=true", "COSMOS_CREATE_CONTAINER=false");

    assertThat(LocalChecks.workerEnv(broken, ENV))
        .anyMatch(p -> p.contains("COSMOS_CREATE_CONTAINER must be true"));
  }

  @Test
  void devcontainerWithTrailingComma_orWithoutAzd_isReported() {
    String json = Repo.read(".devcontainer/devcontainer.json");
    String trailing = json.replaceFirst("\"version\": \"17\",", "\"version\": \"17\",,");
    String noAzd = replaceOnce(json, "azure-dev/azd:latest", "azure-dev/azd-gone:latest");

    assertThat(LocalChecks.devcontainer(trailing))
        .singleElement()
        .asString()
        .contains("not valid JSON");
    assertThat(LocalChecks.devcontainer(noAzd)).anyMatch(p -> p.contains("/azd"));
  }

  @Test
  void dockerfileRunningAsRoot_orWithoutRunCommand_isReported() {
    String dockerfile = Repo.read("Dockerfile");
    int workerUser = dockerfile.lastIndexOf("USER 10001:10001");
    String root =
        dockerfile.substring(0, workerUser)
            + "USER root"
            + dockerfile.substring(workerUser + "USER 10001:10001".length());
    String noRun = replaceOnce(dockerfile, "CMD [\"run\"]", "");
    // The shape before the fix: the command inside ENTRYPOINT, so an app's `command` override that
    // runs `api` had to restate the JVM options, and dropped -XX:+UseParallelGC on the way.
    String commandInEntrypoint =
        replaceOnce(
            dockerfile,
            "\"-jar\", \"/app/idemworker.jar\"]\nCMD [\"run\"]",
            "\"-jar\", \"/app/idemworker.jar\", \"run\"]");

    assertThat(LocalChecks.dockerfile(root)).contains("the image runs as root");
    assertThat(LocalChecks.dockerfile(noRun)).anyMatch(p -> p.contains("CMD [\"run\"]"));
    assertThat(LocalChecks.dockerfile(commandInEntrypoint))
        .anyMatch(p -> p.contains("with a command in it"));
  }

  @Test
  void composeThatAcceptsTheLicencesByDefault_isReported() {
    String acceptsForTheUser =
        COMPOSE.replace(
            "${ACCEPT_EULA:?set ACCEPT_EULA=Y to accept the licences of the Service Bus emulator"
                + " and SQL Server}",
            "${ACCEPT_EULA:-Y}");

    assertThat(LocalChecks.compose(acceptsForTheUser))
        .anyMatch(p -> p.contains("idemworker-servicebus's ACCEPT_EULA"))
        .anyMatch(p -> p.contains("idemworker-sqlserver's ACCEPT_EULA"));
  }

  @Test
  void azureYamlWithOtherHost_isReported() {
    String broken =
        Repo.read("azure.yaml")
            .replaceFirst("(?s)(worker:.*?)host: containerapp", "$1host: appservice");

    assertThat(LocalChecks.azureYaml(broken)).contains("services.worker.host must be containerapp");
  }

  @Test
  void theConsumerRecipe_givesEachConsumerItsSubscriptionsSettings() {
    assertThat(LocalChecks.consumerRecipe(WORKER_ENV, CONFIG)).isEmpty();
  }

  /** The recipe before the fix: the queue's settings inherited, the queue name left set. */
  @Test
  void aRecipeThatInheritsTheQueuesSettings_asBeforeTheFix_isReported() {
    String broken =
        WORKER_ENV.replaceAll(
            "env -u SERVICEBUS_QUEUE_NAME (WORKER_ROLE=\\S+ SERVICEBUS_TOPIC_NAME=\\S+"
                + " SERVICEBUS_SUBSCRIPTION_NAME=\\S+).*",
            "$1");

    assertThat(LocalChecks.consumerRecipe(broken, CONFIG))
        .contains(
            "loyalty: the recipe leaves SERVICEBUS_QUEUE_NAME set",
            "loyalty: SERVICEBUS_LOCK_DURATION is PT1M, the subscription's is PT2M",
            "loyalty: SERVICEBUS_MAX_DELIVERY_COUNT is 10, the subscription's is 5",
            "customer-stats: SERVICEBUS_MESSAGE_TTL is PT1H, the subscription's is PT30M");
  }

  @Test
  void deployMdAndWorkerEnv_runTheSameJar() {
    Map<String, String> jars =
        Map.of(
            "src/worker", "src/worker/target/idemworker-worker.jar",
            "src/proof", "src/proof/target/idemworker.jar");

    assertThat(LocalChecks.laptopJar(DEPLOY_MD, WORKER_ENV, jars)).isEmpty();
    assertThat(
            LocalChecks.laptopJar(
                DEPLOY_MD.replace(
                    "java -jar src/worker/target/idemworker-worker.jar run",
                    "java -jar src/proof/target/idemworker.jar run"),
                WORKER_ENV,
                jars))
        .singleElement()
        .asString()
        .startsWith("deploy.md's laptop section runs [src/proof/target/idemworker.jar]");
    for (Map.Entry<String, String> jar : jars.entrySet()) {
      String pom = Repo.read(jar.getKey() + "/pom.xml");
      assertThat(jar.getValue())
          .endsWith("/" + pom.replaceAll("(?s).*<finalName>([^<]+)</finalName>.*", "$1") + ".jar");
    }
  }

  @Test
  void azureYamlsVersionComment_namesEverythingThatNeedsIt() {
    String yaml = Repo.read("azure.yaml");
    String main = Repo.read("infra/main.bicep");
    String parameters = Repo.read("infra/main.parameters.json");

    assertThat(LocalChecks.azdVersionComment(yaml, main, parameters)).isEmpty();
    assertThat(
            LocalChecks.azdVersionComment(
                yaml.replace("API_ENTRA_ALLOWED_APPLICATIONS", "the entra applications"),
                main,
                parameters))
        .containsExactly(
            "azure.yaml's version comment does not name API_ENTRA_ALLOWED_APPLICATIONS,"
                + " substituted into the array parameter apiEntraAllowedApplications");
  }

  @Test
  void workerEnvList_isConsistent() {
    assertThat(ENV.required()).contains("COSMOS_ENDPOINT");
    assertThat(ENV.oneOf())
        .containsExactly(
            java.util.List.of(
                "SERVICEBUS_FULLY_QUALIFIED_NAMESPACE", "SERVICEBUS_CONNECTION_STRING"));
    assertThat(ENV.all()).containsAll(ENV.setByInfra()).containsAll(ENV.neverSetByInfra());
    assertThat(ENV.setByInfra()).doesNotContainAnyElementsOf(ENV.neverSetByInfra());
    assertThat(ENV.all()).containsAll(ENV.readByLibraries());
  }
}
