package io.idemworker.infra;

import io.idemworker.infra.Bicep.Arr;
import io.idemworker.infra.Bicep.Declaration;
import io.idemworker.infra.Bicep.Node;
import io.idemworker.infra.Bicep.Obj;
import io.idemworker.infra.Bicep.Template;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the payment provider's templates must say: the double as an internal-only Container App, its
 * API key stored once in a Key Vault with RBAC, and both apps reading it as a Key Vault reference
 * through their own identity. Functions from template text to a list of problems, like {@link
 * BicepChecks}.
 */
final class PaymentsChecks {
  static final String KEY_VAULT_SECRETS_USER = "4633458b-17de-408a-b874-0445c86b69e6";

  private PaymentsChecks() {}

  /**
   * infra/modules/keyvault.bicep: RBAC authorization; three secrets, each written from a secure
   * parameter only when the vault is seeded ({@code if (seedSecrets)}) and referenced as {@code
   * existing} for its role assignments, which wait for the write; Key Vault Secrets User scoped to
   * one secret: the worker and the double on the API key, the double alone on the webhook secret
   * (the api app gets its roles in api-app.bicep), neither on the api key.
   */
  static List<String> keyVault(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    Obj vault = BicepChecks.single(t, "Microsoft.KeyVault/vaults", problems);
    List<Declaration> secrets = t.resourcesOfType("Microsoft.KeyVault/vaults/secrets");
    List<Declaration> writes =
        secrets.stream().filter(d -> t.body(d).at("properties.value").isPresent()).toList();
    List<Declaration> references =
        secrets.stream().filter(d -> t.body(d).at("properties.value").isEmpty()).toList();
    if (vault == null || writes.size() != 3 || references.size() != 3) {
      problems.add(
          "expected one vault with three secrets written once and three references to them, found "
              + writes.size()
              + " written and "
              + references.size()
              + " referenced");
      return problems;
    }
    BicepChecks.expect(t, vault, "properties.enableRbacAuthorization", "true", problems);
    if (vault.at("properties.accessPolicies").isPresent()) {
      problems.add("the vault has access policies; access is by RBAC only");
    }
    for (Declaration write : writes) {
      String value = t.body(write).text("properties.value").orElse("");
      if (!isSecureParam(text, value)) {
        problems.add("the secret's value is not a @secure() parameter: " + value);
      }
      if (!write.condition().equals(Optional.of("seedSecrets"))) {
        problems.add(
            "secret "
                + write.name()
                + " is written on every provision (if "
                + write.condition().orElse("none")
                + "), not only when the vault is seeded");
      }
    }
    for (Declaration reference : references) {
      String name = t.body(reference).text("name").orElse("");
      Optional<Declaration> write =
          writes.stream().filter(w -> t.body(w).text("name").orElse("").equals(name)).findFirst();
      if (write.isEmpty()) {
        problems.add("the secret " + reference.name() + " is never written");
        continue;
      }
      secretReadable(t, reference, write.get(), name, problems);
    }
    return problems;
  }

  private static void secretReadable(
      Template t, Declaration secret, Declaration write, String name, List<String> problems) {
    for (String principal : List.of("workerPrincipalId", "paymentsPrincipalId")) {
      Optional<Obj> assignment =
          t.resourcesOfType("Microsoft.Authorization/roleAssignments").stream()
              .map(t::body)
              .filter(b -> b.text("properties.principalId").orElse("").equals(principal))
              .filter(b -> b.text("scope").orElse("").equals(secret.name()))
              .filter(
                  b ->
                      Bicep.guidsIn(t, b.text("properties.roleDefinitionId").orElse(""))
                          .contains(KEY_VAULT_SECRETS_USER))
              .findFirst();
      boolean expected =
          name.equals("paymentsApiKeySecretName")
              || (name.equals("paymentsWebhookSecretName")
                  && principal.equals("paymentsPrincipalId"));
      if (expected && assignment.isEmpty()) {
        problems.add(
            principal
                + " has no Key Vault Secrets User role scoped to the secret "
                + secret.name());
      } else if (!expected && assignment.isPresent()) {
        problems.add(
            principal
                + " may read the secret "
                + secret.name()
                + "; only the apps that send or check it need it");
      }
      if (assignment.isPresent()
          && !assignment.get().text("dependsOn").orElse("").contains(write.name())) {
        problems.add(
            principal + "'s role on " + secret.name() + " does not wait for " + write.name());
      }
    }
  }

  /**
   * infra/modules/payments-app.bicep: internal ingress to the port the double listens on (on every
   * interface), one replica (its keys and ledger are in memory), no scale rule, and the API key as
   * a Key Vault reference read with the app's identity.
   */
  static List<String> paymentsApp(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    Obj app = BicepChecks.single(t, "Microsoft.App/containerApps", problems);
    if (app == null) {
      return problems;
    }
    BicepChecks.expect(t, app, "properties.configuration.ingress.external", "false", problems);
    if (app.at("properties.template.scale.rules").isPresent()) {
      problems.add("the payments double has a scale rule; it serves HTTP at one replica");
    }
    BicepChecks.expect(t, app, "properties.template.scale.minReplicas", "1", problems);
    BicepChecks.expect(t, app, "properties.template.scale.maxReplicas", "1", problems);
    String identity = app.text("identity.userAssignedIdentities").orElse("");
    Map<String, Obj> secrets = secrets(t, app, problems);
    Obj container = onlyContainer(app, problems);
    if (container == null) {
      return problems;
    }
    Map<String, Obj> env = BicepChecks.envVars(t, container, problems);
    secretReference(env, secrets, "PAYMENTS_API_KEY", identity, problems);
    secretReference(env, secrets, "PAYMENTS_WEBHOOK_SECRET", identity, problems);
    java.util.Set<String> allowed =
        java.util.Set.of("PAYMENTS_API_KEY", "PAYMENTS_WEBHOOK_SECRET", "PAYMENTS_WEBHOOK_URL");
    if (env.keySet().stream().anyMatch(n -> !allowed.contains(n))) {
      problems.add(
          "the double is given more than its key, webhook secret and URL: " + env.keySet());
    }
    // After a deploy: the double's command on every interface, on the port the ingress targets.
    BicepEval eval =
        new BicepEval(t, Map.of("imageName", DeploymentChecks.PUSHED_IMAGE, "port", 8082L));
    String symbol = t.resourcesOfType("Microsoft.App/containerApps").get(0).name();
    Object targetPort =
        BicepEval.at(eval.resource(symbol), "properties.configuration.ingress.targetPort")
            .orElse("(none)");
    Object args =
        BicepEval.at(eval.resource(symbol), "properties.template.containers")
            .map(c -> ((List<?>) c).get(0))
            .flatMap(c -> BicepEval.at(c, "args"))
            .orElse(List.of());
    List<String> words = ((List<?>) args).stream().map(PaymentsChecks::word).toList();
    for (List<String> pair :
        List.of(
            List.of("emulators", "--only"),
            List.of("--only", "payments"),
            List.of("--payments-bind", "0.0.0.0"),
            List.of("--payments-port", "8082"))) {
      int at = words.indexOf(pair.get(0));
      if (at < 0 || at + 1 >= words.size() || !words.get(at + 1).equals(pair.get(1))) {
        problems.add("the double's args lack " + pair + ": " + words);
      }
    }
    if (BicepEval.at(eval.resource(symbol), "properties.template.containers")
        .map(c -> ((List<?>) c).get(0))
        .flatMap(c -> BicepEval.at(c, "command"))
        .isPresent()) {
      problems.add("the double overrides the image's ENTRYPOINT (and its JVM options)");
    }
    if (!Long.valueOf(8082).equals(targetPort)) {
      problems.add("ingress targetPort is " + targetPort + ", not the port the double listens on");
    }
    Object url = eval.output("baseUrl");
    if (!String.valueOf(url)
        .matches(
            "Opaque\\[text='https://\\$\\{\\w+\\.properties\\.configuration\\.ingress\\.fqdn\\}'\\]")) {
      problems.add("output baseUrl is not https:// and the ingress FQDN: " + url);
    }
    return problems;
  }

  /**
   * infra/modules/worker-app.bicep: PAYMENTS_API_KEY is a Key Vault reference read with the worker
   * identity, PAYMENTS_BASE_URL a parameter, and no webhook secret (the worker has no HTTP intake).
   */
  static List<String> workerPayments(String text) {
    Template t = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    Obj app = BicepChecks.single(t, "Microsoft.App/containerApps", problems);
    Obj container = app == null ? null : onlyContainer(app, problems);
    if (container == null) {
      return problems;
    }
    Map<String, Obj> env = BicepChecks.envVars(t, container, problems);
    Map<String, Obj> secrets = secrets(t, app, problems);
    secretReference(env, secrets, "PAYMENTS_API_KEY", "workerIdentityId", problems);
    if (env.containsKey("PAYMENTS_WEBHOOK_SECRET")
        || secrets.containsKey("payments-webhook-secret")) {
      problems.add(
          "the worker is given the webhook secret; POST /webhooks/payments is the api app's");
    }
    String url =
        Optional.ofNullable(env.get("PAYMENTS_BASE_URL")).flatMap(v -> v.text("value")).orElse("");
    if (t.find("param", url).isEmpty()) {
      problems.add("PAYMENTS_BASE_URL is not a parameter: " + url);
    }
    return problems;
  }

  /**
   * infra/main.bicep: without a real provider's URL the double is deployed and the worker gets its
   * internal URL; both apps read the key from the vault module's output (so they wait for the
   * secret and its role assignments); the key is a secure parameter passed nowhere else.
   */
  static List<String> main(String text) {
    Template main = Bicep.parse(text);
    List<String> problems = new ArrayList<>();
    String double_ = moduleSymbol(main, "payments-app.bicep");
    String vault = moduleSymbol(main, "keyvault.bicep");
    String worker = moduleSymbol(main, "worker-app.bicep");
    if (double_ == null || vault == null || worker == null) {
      problems.add("main.bicep lacks the payments, keyvault or worker module");
      return problems;
    }
    Obj workerParams = params(main, worker);
    String url = workerParams.text("paymentsBaseUrl").orElse("");
    if (!url.contains(double_ + ".outputs.baseUrl")) {
      problems.add("the worker's paymentsBaseUrl is not the double's output: " + url);
    }
    for (String module : List.of(double_, worker)) {
      String uri = params(main, module).text("keyVaultUri").orElse("");
      if (!uri.equals(vault + ".outputs.vaultUri")) {
        problems.add(module + " does not take keyVaultUri from the vault module: " + uri);
      }
    }
    Obj vaultParams = params(main, vault);
    for (List<String> pair :
        List.of(
            List.of("generatedPaymentsApiKey", "paymentsApiKey"),
            List.of("generatedPaymentsWebhookSecret", "paymentsWebhookSecret"),
            List.of("generatedApiKey", "apiKey"))) {
      String secret = pair.get(0);
      if (!isSecureParam(text, secret)) {
        problems.add(secret + " is not a @secure() parameter");
      }
      long uses = text.lines().filter(l -> l.matches(".*\\b" + secret + "\\b.*")).count() - 1;
      if (uses != 1 || !vaultParams.text(pair.get(1)).orElse("").contains(secret)) {
        problems.add(secret + " must reach the vault module and nothing else (" + uses + " uses)");
      }
    }
    if (!vaultParams.text("seedSecrets").orElse("").equals("seedSecrets")) {
      problems.add("the vault module is not told when to seed the secrets");
    }
    return problems;
  }

  /** infra/modules/registry.bicep: the double's identity may pull the image it shares. */
  static List<String> registry(String text) {
    Template t = Bicep.parse(text);
    boolean pulls =
        t.resourcesOfType("Microsoft.Authorization/roleAssignments").stream()
            .map(t::body)
            .filter(
                b -> b.text("properties.principalId").orElse("").equals("paymentsPullPrincipalId"))
            .anyMatch(
                b ->
                    Bicep.guidsIn(t, b.text("properties.roleDefinitionId").orElse(""))
                        .contains(BicepChecks.ACR_PULL));
    return pulls ? List.of() : List.of("paymentsPullPrincipalId has no AcrPull role");
  }

  /**
   * {@code name} is set from a Container Apps secret that references Key Vault with {@code
   * identity}.
   */
  private static void secretReference(
      Map<String, Obj> env,
      Map<String, Obj> secrets,
      String name,
      String identity,
      List<String> problems) {
    Obj var = env.get(name);
    if (var == null) {
      problems.add("the app does not set " + name);
      return;
    }
    if (var.at("value").isPresent() || var.at("secretRef").isEmpty()) {
      problems.add(name + " is not a secretRef");
      return;
    }
    String ref = var.text("secretRef").orElse("").replaceAll("^'(.*)'$", "$1");
    Obj secret = secrets.get(ref);
    if (secret == null) {
      problems.add(name + " refers to an undeclared secret " + ref);
      return;
    }
    if (secret.at("value").isPresent()) {
      problems.add("secret " + ref + " holds a value instead of a Key Vault reference");
    }
    if (!secret.text("keyVaultUrl").orElse("").contains("secrets/")) {
      problems.add("secret " + ref + " has no keyVaultUrl to a vault secret");
    }
    String used = secret.text("identity").orElse("(none)");
    if (!identity.contains(used)) {
      problems.add("secret " + ref + " is read with " + used + ", not the app's identity");
    }
  }

  /** Whether the parameter's decorators (the lines above it starting with @) include secure(). */
  static boolean isSecureParam(String text, String name) {
    List<String> lines = Bicep.stripComments(text).lines().map(String::strip).toList();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).matches("param\\s+" + java.util.regex.Pattern.quote(name) + "\\b.*")) {
        for (int j = i - 1; j >= 0 && lines.get(j).startsWith("@"); j--) {
          if (lines.get(j).equals("@secure()")) {
            return true;
          }
        }
        return false;
      }
    }
    return false;
  }

  private static Map<String, Obj> secrets(Template t, Obj app, List<String> problems) {
    Map<String, Obj> out = new java.util.LinkedHashMap<>();
    for (Node item :
        BicepChecks.arrayItems(t, app.at("properties.configuration.secrets").orElse(null))) {
      if (item instanceof Obj secret) {
        out.put(secret.text("name").orElse("?").replaceAll("^'(.*)'$", "$1"), secret);
      } else {
        problems.add("secret entry is not an object literal: " + Bicep.text(item));
      }
    }
    return out;
  }

  private static Obj onlyContainer(Obj app, List<String> problems) {
    if (app.at("properties.template.containers").orElse(null) instanceof Arr list
        && list.items().size() == 1
        && list.items().get(0) instanceof Obj container) {
      return container;
    }
    problems.add("expected exactly one container");
    return null;
  }

  private static String word(Object arg) {
    return arg instanceof BicepEval.Opaque o ? o.text() : String.valueOf(arg);
  }

  private static Obj params(Template main, String module) {
    return (Obj)
        main.body(main.find("module", module).orElseThrow()).at("params").orElse(new Obj(Map.of()));
  }

  private static String moduleSymbol(Template main, String file) {
    return main.all("module").stream()
        .filter(m -> m.type().endsWith(file))
        .map(Declaration::name)
        .findFirst()
        .orElse(null);
  }
}
