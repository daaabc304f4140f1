package io.idemworker.infra;

import static io.idemworker.infra.Mutations.removeLines;
import static io.idemworker.infra.Mutations.replaceOnce;
import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.infra.Bicep.Declaration;
import io.idemworker.infra.Bicep.Obj;
import io.idemworker.infra.Bicep.Template;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The outbox relay runs whenever an event can be written: its own Container App, one replica
 * always, the {@code relay} command, the topic's name from the Service Bus module; the worker,
 * which scales to zero, does not relay.
 */
class RelayTemplatesTest {
  private static final String RELAY = Repo.read("infra/modules/relay-app.bicep");
  private static final String MAIN = Repo.read("infra/main.bicep");
  private static final String WORKER = Repo.read("infra/modules/worker-app.bicep");
  private static final WorkerEnv ENV = WorkerEnv.load(Repo.ROOT);

  /** relay-app.bicep, and its wiring in main.bicep and the worker app. */
  static List<String> relay(String relayText, String mainText, String workerText) {
    List<String> problems = new ArrayList<>();
    Template main = Bicep.parse(mainText);
    Optional<Declaration> module =
        main.all("module").stream().filter(d -> d.type().endsWith("relay-app.bicep")).findFirst();
    if (module.isEmpty()) {
      problems.add(
          "no relay app: with the worker scaled to zero, orders taken over HTTP never reach the"
              + " topic");
    } else {
      if (module.get().condition().isPresent()) {
        problems.add("the relay app is deployed only if " + module.get().condition().get());
      }
      Obj params = (Obj) main.body(module.get()).at("params").orElseThrow();
      if (!params.text("topicName").orElse("").equals("serviceBus.outputs.topicName")) {
        problems.add("RELAY_TOPIC_NAME does not come from the Service Bus module's output");
      }
      if (!params.text("imageName").orElse("").equals("workerImage")) {
        problems.add("the relay does not run the worker's image");
      }
    }
    Template t = Bicep.parse(relayText);
    Obj app = BicepChecks.single(t, "Microsoft.App/containerApps", problems);
    if (app != null) {
      BicepChecks.expect(t, app, "properties.template.scale.minReplicas", "1", problems);
      BicepChecks.expect(t, app, "properties.template.scale.maxReplicas", "1", problems);
      if (app.at("properties.template.scale.rules").isPresent()) {
        problems.add("the relay has a scale rule; it runs one replica always");
      }
      if (app.text("tags").orElse("").contains("azd-service-name")) {
        problems.add("the relay carries an azd-service-name tag; azd would deploy to it");
      }
      BicepEval eval =
          new BicepEval(t, Map.of("imageName", DeploymentChecks.PUSHED_IMAGE, "healthPort", 8080L));
      String symbol = t.resourcesOfType("Microsoft.App/containerApps").get(0).name();
      Object container =
          BicepEval.at(eval.resource(symbol), "properties.template.containers")
              .<Object>map(c -> ((List<?>) c).get(0))
              .orElse(Map.of());
      if (!List.of("relay").equals(BicepEval.at(container, "args").orElse(List.of()))) {
        problems.add("the relay's args are not [relay]");
      }
      if (BicepEval.at(container, "command").isPresent()) {
        problems.add("the relay overrides the image's ENTRYPOINT (and its JVM options)");
      }
      if (BicepEval.at(container, "probes").map(p -> ((List<?>) p).size()).orElse(0) != 3) {
        problems.add("the relay has no startup, liveness and readiness probes");
      }
      Obj body = t.body(t.resourcesOfType("Microsoft.App/containerApps").get(0));
      Obj only =
          (Obj)
              ((Bicep.Arr) body.at("properties.template.containers").orElseThrow()).items().get(0);
      Map<String, Obj> vars = BicepChecks.envVars(only, problems);
      for (String name : ENV.relaySetByInfra()) {
        if (!vars.containsKey(name)) {
          problems.add("the relay app does not set " + name);
        }
      }
      for (String name : vars.keySet()) {
        if (ENV.neverSetByInfra().contains(name) || ENV.relayNeverSetByInfra().contains(name)) {
          problems.add("the relay app sets " + name);
        }
      }
      if (!Optional.ofNullable(vars.get("OTEL_SERVICE_NAME"))
          .flatMap(v -> v.text("value"))
          .orElse("")
          .equals("'idemworker-relay'")) {
        problems.add("the relay's telemetry is not its own role (OTEL_SERVICE_NAME)");
      }
    }
    if (!workerText.matches("(?s).*name: 'RELAY_ENABLED'\\s+value: 'false'.*")) {
      problems.add("the worker app still runs the relay (RELAY_ENABLED is not false)");
    }
    return problems;
  }

  @Test
  void realTemplates_runTheRelayAlwaysAndAlone() {
    assertThat(relay(RELAY, MAIN, WORKER)).isEmpty();
  }

  @Test
  void theRelayInsideTheWorkerOnly_asBeforeTheFix_isReported() {
    String noModule = removeLines(MAIN, "module relayApp ", 20);
    String workerRelays =
        replaceOnce(
            WORKER,
            "name: 'RELAY_ENABLED'\n    value: 'false'",
            "name: 'RELAY_ENABLED'\n    value: 'true'");

    assertThat(relay(RELAY, noModule, workerRelays))
        .anyMatch(p -> p.startsWith("no relay app"))
        .anyMatch(p -> p.startsWith("the worker app still runs the relay"));
  }

  @Test
  void aRelayThatScalesToZero_orATopicNameNotFromTheModule_isReported() {
    String toZero = replaceOnce(RELAY, "minReplicas: 1", "minReplicas: 0");
    String literal =
        replaceOnce(
            MAIN,
            "    topicName: serviceBus.outputs.topicName\n    cosmosEndpoint: cosmos.outputs.endpoint\n    cosmosDatabaseName: cosmos.outputs.databaseName\n    cosmosContainerName: cosmos.outputs.containerName\n    applicationInsightsName: monitoring.outputs.applicationInsightsName\n  }\n}\n\n// The topic's",
            "    topicName: 'order-events'\n    cosmosEndpoint: cosmos.outputs.endpoint\n    cosmosDatabaseName: cosmos.outputs.databaseName\n    cosmosContainerName: cosmos.outputs.containerName\n    applicationInsightsName: monitoring.outputs.applicationInsightsName\n  }\n}\n\n// The topic's");

    assertThat(relay(toZero, MAIN, WORKER)).anyMatch(p -> p.contains("minReplicas is 0"));
    assertThat(relay(RELAY, literal, WORKER))
        .contains("RELAY_TOPIC_NAME does not come from the Service Bus module's output");
  }

  @Test
  void theUsersOperatorCommandsOnSubscriptions_haveReceiverAndSenderOnTheTopic() {
    String sb = Repo.read("infra/modules/servicebus.bicep");
    String queueOnly =
        removeLines(
            removeLines(sb, "resource userTopicReceiver", 10), "resource userTopicSender", 10);

    assertThat(userTopicRoles(sb)).isEmpty();
    assertThat(userTopicRoles(queueOnly))
        .contains(
            "you have no " + DATA_RECEIVER + " on the topic (dlq/explain --subscription)",
            "you have no " + DATA_SENDER + " on the topic (resubmit --subscription)");
  }

  private static final String DATA_RECEIVER = BicepChecks.SERVICE_BUS_DATA_RECEIVER;
  private static final String DATA_SENDER = BicepChecks.SERVICE_BUS_DATA_SENDER;

  private static List<String> userTopicRoles(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    List<String> roles = BicepChecks.rolesOf(t, "userPrincipalId", "topic");
    if (!roles.contains(DATA_RECEIVER)) {
      problems.add("you have no " + DATA_RECEIVER + " on the topic (dlq/explain --subscription)");
    }
    if (!roles.contains(DATA_SENDER)) {
      problems.add("you have no " + DATA_SENDER + " on the topic (resubmit --subscription)");
    }
    return problems;
  }
}
