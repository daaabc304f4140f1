package io.idemworker.infra;

import static io.idemworker.infra.Mutations.removeLines;
import static io.idemworker.infra.Mutations.replaceAfter;
import static io.idemworker.infra.Mutations.replaceOnce;
import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.infra.Bicep.Declaration;
import io.idemworker.infra.Bicep.Template;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Least privilege for the identities the apps run with: the KEDA scaler's identity (Service Bus
 * Data Owner) reaches no app's code, and each app identity's Cosmos DB data role covers only the
 * container its apps use. The real templates pass; a broken copy of each is reported. (Whoever runs
 * azd gets data-plane rights only as a person: {@code AzdWorkflowTest}.)
 */
class LeastPrivilegeTemplatesTest {
  private static final String WORKER = Repo.read("infra/modules/worker-app.bicep");
  private static final String CONSUMER = Repo.read("infra/modules/consumer-app.bicep");
  private static final String COSMOS = Repo.read("infra/modules/cosmos.bicep");

  /**
   * An app module that attaches the scaler's identity ({@code scalerIdentityId}) for its KEDA rule
   * must give it {@code identitySettings} lifecycle {@code None} (Microsoft.App 2025-01-01): the
   * platform may use it, the container cannot get a token for it. Every other identity stays
   * available to the code.
   */
  static List<String> scalerKeptFromTheCode(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    String symbol = t.resourcesOfType("Microsoft.App/containerApps").get(0).name();
    Map<String, Object> app =
        new BicepEval(
                t, Map.of("subscriptionRequiresSession", false, "queueRequiresSession", false))
            .resource(symbol);
    Object attached = BicepEval.at(app, "identity.userAssignedIdentities").orElse(Map.of());
    if (!(attached instanceof Map<?, ?> ids) || !ids.containsKey("${scalerIdentityId}")) {
      problems.add("the scaler's identity is not attached (the KEDA rule needs it)");
      return problems;
    }
    List<?> settings =
        (List<?>) BicepEval.at(app, "properties.configuration.identitySettings").orElse(List.of());
    boolean none =
        settings.stream()
            .anyMatch(
                s ->
                    s instanceof Map<?, ?> m
                        && new BicepEval.Opaque("scalerIdentityId").equals(m.get("identity"))
                        && "None".equals(m.get("lifecycle")));
    if (!none) {
      problems.add(
          "the scaler's identity (Service Bus Data Owner) is available to the app's code:"
              + " identitySettings lifecycle 'None' missing");
    }
    for (Object s : settings) {
      if (s instanceof Map<?, ?> m
          && !new BicepEval.Opaque("scalerIdentityId").equals(m.get("identity"))
          && "None".equals(m.get("lifecycle"))) {
        problems.add("identity " + m.get("identity") + " is kept from the code it authenticates");
      }
    }
    return problems;
  }

  /**
   * cosmos.bicep: the worker's identity (the worker's and the relay's apps) holds its data role on
   * the orders container only, each consumer's on the customers container only.
   */
  static List<String> cosmosRolesPerContainer(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    Map<String, String> wanted =
        Map.of(
            "workerPrincipalId", "containerName",
            "loyaltyPrincipalId", "customersContainerName",
            "customerStatsPrincipalId", "customersContainerName");
    for (Map.Entry<String, String> e : wanted.entrySet()) {
      List<Declaration> mine =
          t.resourcesOfType("Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments").stream()
              .filter(a -> t.body(a).text("properties.principalId").orElse("").equals(e.getKey()))
              .toList();
      if (mine.isEmpty()) {
        problems.add("no Cosmos DB data role for " + e.getKey());
      }
      for (Declaration a : mine) {
        String scope = t.resolvedText(t.body(a).at("properties.scope").orElseThrow());
        if (!scope.endsWith("/colls/${" + e.getValue() + "}'")) {
          problems.add(
              e.getKey()
                  + "'s Cosmos DB role is scoped to "
                  + scope
                  + ", not the container named by "
                  + e.getValue());
        }
      }
    }
    return problems;
  }

  @Test
  void realTemplates_keepEachIdentityToWhatItsAppsNeed() {
    assertThat(scalerKeptFromTheCode(WORKER)).isEmpty();
    assertThat(scalerKeptFromTheCode(CONSUMER)).isEmpty();
    assertThat(cosmosRolesPerContainer(COSMOS)).isEmpty();
  }

  @Test
  void theScalersIdentityAvailableToTheCode_asBeforeTheFix_isReported() {
    for (String app : List.of(WORKER, CONSUMER)) {
      String broken = removeLines(app, "      identitySettings: [", 6);

      assertThat(scalerKeptFromTheCode(broken))
          .anyMatch(p -> p.contains("available to the app's code"));
    }
  }

  @Test
  void theAppsOwnIdentityKeptFromItsCode_isReported() {
    String broken =
        replaceOnce(
            WORKER,
            "{\n          identity: scalerIdentityId\n          lifecycle",
            "{\n          identity: workerIdentityId\n          lifecycle");

    assertThat(scalerKeptFromTheCode(broken))
        .anyMatch(p -> p.contains("available to the app's code"))
        .anyMatch(p -> p.contains("is kept from the code it authenticates"));
  }

  @Test
  void cosmosRolesOnTheWholeAccount_asBeforeTheFix_areReported() {
    String broken =
        replaceOnce(COSMOS, "    scope: ordersScope\n", "    scope: account.id\n")
            .replace("    scope: customersScope\n", "    scope: account.id\n");

    assertThat(cosmosRolesPerContainer(broken))
        .anyMatch(p -> p.startsWith("workerPrincipalId's Cosmos DB role is scoped to account.id"))
        .anyMatch(p -> p.startsWith("loyaltyPrincipalId's Cosmos DB role is scoped to account.id"))
        .anyMatch(
            p -> p.startsWith("customerStatsPrincipalId's Cosmos DB role is scoped to account.id"));
  }

  @Test
  void aConsumerGivenTheOrdersContainer_isReported() {
    String broken =
        replaceAfter(
            COSMOS,
            "resource loyaltyDataAccess",
            "    scope: customersScope\n",
            "    scope: ordersScope\n");

    assertThat(cosmosRolesPerContainer(broken))
        .containsExactly(
            "loyaltyPrincipalId's Cosmos DB role is scoped to"
                + " '${account.id}/dbs/${databaseName}/colls/${containerName}', not the container"
                + " named by customersContainerName");
  }
}
