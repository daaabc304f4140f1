package io.idemworker.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The worker's environment variables as listed in {@code infra/worker-env.json}, the one place that
 * names them. Infra tests check the Container App and {@code local/worker.env} against it; a test
 * of the app's configuration class can check the same file.
 *
 * @param defaults the worker's default for each optional name that has one
 * @param required names that must always be set
 * @param oneOf groups of which exactly one name must be set (the first is the Azure choice)
 * @param optional names the worker reads with a default or as an opt-in
 * @param setByInfra names the Container App must set
 * @param neverSetByInfra names the Container App must not set (keys, connection strings, switches
 *     meant for emulators only)
 * @param readByLibraries names read by the Azure SDK or telemetry libraries, not by the worker's
 *     own configuration class
 * @param consumerSetByInfra names a consumer Container App (consumer-app.bicep) must set
 * @param consumerNeverSetByInfra names a consumer Container App must not set, besides {@code
 *     neverSetByInfra} (the order queue, payments, the relay's topic)
 * @param relaySetByInfra names the relay's Container App (relay-app.bicep) must set
 * @param relayNeverSetByInfra names the relay's Container App must not set, besides {@code
 *     neverSetByInfra}
 */
record WorkerEnv(
    Map<String, String> defaults,
    Set<String> required,
    List<List<String>> oneOf,
    Set<String> optional,
    Set<String> setByInfra,
    Set<String> neverSetByInfra,
    Set<String> readByLibraries,
    Set<String> consumerSetByInfra,
    Set<String> consumerNeverSetByInfra,
    Set<String> relaySetByInfra,
    Set<String> relayNeverSetByInfra) {

  static final Path FILE = Path.of("infra", "worker-env.json");

  static WorkerEnv load(Path root) {
    try {
      return parse(Files.readString(root.resolve(FILE)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static WorkerEnv parse(String json) {
    try {
      JsonNode node = new ObjectMapper().readTree(json);
      List<List<String>> groups = new ArrayList<>();
      node.path("oneOf").forEach(group -> groups.add(List.copyOf(strings(group))));
      Set<String> optional = new LinkedHashSet<>();
      Map<String, String> defaults = new LinkedHashMap<>();
      node.path("optional")
          .properties()
          .forEach(
              e -> {
                optional.add(e.getKey());
                if (e.getValue().isTextual()) {
                  defaults.put(e.getKey(), e.getValue().asText());
                }
              });
      return new WorkerEnv(
          Map.copyOf(defaults),
          strings(node.path("required")),
          List.copyOf(groups),
          Set.copyOf(optional),
          strings(node.path("setByInfra")),
          strings(node.path("neverSetByInfra")),
          strings(node.path("readByLibraries")),
          strings(node.path("consumerApp").path("setByInfra")),
          strings(node.path("consumerApp").path("neverSetByInfra")),
          strings(node.path("relayApp").path("setByInfra")),
          strings(node.path("relayApp").path("neverSetByInfra")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every name the worker reads. */
  Set<String> all() {
    Set<String> all = new LinkedHashSet<>(required);
    oneOf.forEach(all::addAll);
    all.addAll(optional);
    return all;
  }

  private static Set<String> strings(JsonNode array) {
    Set<String> out = new LinkedHashSet<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
