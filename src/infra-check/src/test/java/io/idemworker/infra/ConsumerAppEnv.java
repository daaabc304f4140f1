package io.idemworker.infra;

import io.idemworker.infra.Bicep.Template;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The environment infra/modules/consumer-app.bicep gives one consumer, evaluated with the
 * subscription settings infra/modules/servicebus.bicep outputs by default, so a test of the
 * worker's configuration class (another package) can check the worker accepts it. Values only Azure
 * knows (endpoints, client ids, the telemetry connection string) get plausible stand-ins.
 */
public final class ConsumerAppEnv {
  private static final Pattern STRING_OF = Pattern.compile("string\\(\\s*(\\w+)\\s*\\)");

  private ConsumerAppEnv() {}

  /** The variables the app for {@code role} ({@code loyalty} or {@code customer-stats}) sets. */
  public static Map<String, String> of(String role) {
    return of(role, Repo.read("infra/modules/consumer-app.bicep"));
  }

  /** As {@link #of(String)}, for another text of consumer-app.bicep (a broken copy in a test). */
  public static Map<String, String> of(String role, String consumerApp) {
    return of(role, consumerApp, false);
  }

  /**
   * As {@link #of(String)}, with the Service Bus module's {@code requiresSession} (main's {@code
   * serviceBusSessions}) as given.
   */
  public static Map<String, String> of(String role, boolean sessions) {
    return of(role, Repo.read("infra/modules/consumer-app.bicep"), sessions);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, String> of(String role, String consumerApp, boolean sessions) {
    Template serviceBusTemplate = Bicep.parse(Repo.read("infra/modules/servicebus.bicep"));
    BicepEval serviceBus = new BicepEval(serviceBusTemplate, Map.of("requiresSession", sessions));
    // The output is topic.name, a resource property: the name the topic resource is given.
    Object topicName =
        serviceBus
            .resource(
                serviceBusTemplate
                    .resourcesOfType("Microsoft.ServiceBus/namespaces/topics")
                    .get(0)
                    .name())
            .get("name");
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("role", role);
    params.put("imageName", "crexample.azurecr.io/idemworker/worker:1");
    params.put("serviceBusFullyQualifiedNamespace", "sb-example.servicebus.windows.net");
    params.put("serviceBusNamespaceName", "sb-example");
    params.put("topicName", topicName);
    params.put("subscriptionName", role);
    params.put("subscriptionLockDuration", serviceBus.output("subscriptionLockDuration"));
    params.put("subscriptionMaxDeliveryCount", serviceBus.output("subscriptionMaxDeliveryCount"));
    params.put("subscriptionMessageTimeToLive", serviceBus.output("subscriptionMessageTimeToLive"));
    params.put("subscriptionRequiresSession", serviceBus.output("subscriptionRequiresSession"));
    params.put("cosmosEndpoint", "https://cosmos-example.documents.azure.com:443/");
    params.put("cosmosDatabaseName", "idemworker");
    params.put("cosmosContainerName", "customers");
    params.put("consumerIdentityClientId", "11111111-2222-3333-4444-555555555555");
    Template t = Bicep.parse(consumerApp);
    BicepEval eval = new BicepEval(t, params);
    String app = t.resourcesOfType("Microsoft.App/containerApps").get(0).name();
    List<Object> containers =
        (List<Object>)
            BicepEval.at(eval.resource(app), "properties.template.containers").orElseThrow();
    List<Object> env = (List<Object>) BicepEval.at(containers.get(0), "env").orElseThrow();
    Map<String, String> out = new LinkedHashMap<>();
    for (Object item : env) {
      Map<String, Object> variable = (Map<String, Object>) item;
      String name = String.valueOf(variable.get("name"));
      if (variable.containsKey("secretRef")) {
        out.put(name, "InstrumentationKey=00000000-0000-0000-0000-000000000000");
        continue;
      }
      out.put(name, value(t, params, variable.get("value")));
    }
    return out;
  }

  /** Evaluated values as text; {@code string(param)} (opaque to BicepEval) of a known value. */
  private static String value(Template t, Map<String, Object> params, Object value) {
    if (value instanceof BicepEval.Opaque opaque) {
      Matcher m = STRING_OF.matcher(opaque.text());
      if (m.matches()) {
        Object inner = params.get(m.group(1));
        if (inner == null) {
          inner =
              t.find("param", m.group(1))
                  .flatMap(Bicep.Declaration::value)
                  .map(Bicep::text)
                  .orElseThrow(() -> new IllegalStateException("unknown " + opaque.text()));
        }
        return String.valueOf(inner).replaceAll("^'(.*)'$", "$1");
      }
      throw new IllegalStateException("cannot evaluate " + opaque.text());
    }
    return String.valueOf(value);
  }
}
