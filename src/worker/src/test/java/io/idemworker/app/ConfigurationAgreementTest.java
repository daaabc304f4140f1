package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The worker, the infrastructure and the local setup agree on the environment variables. */
class ConfigurationAgreementTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode workerEnv() throws IOException {
    return JSON.readTree(Files.readString(Path.of("infra", "worker-env.json")));
  }

  @Test
  void everyVariableTheWorkerReadsIsListedForTheInfrastructureAndNoOther() throws IOException {
    JsonNode env = workerEnv();
    Set<String> listed = new HashSet<>();
    env.path("required").forEach(n -> listed.add(n.asText()));
    env.path("oneOf").forEach(group -> group.forEach(n -> listed.add(n.asText())));
    env.path("optional").fieldNames().forEachRemaining(listed::add);
    env.path("readByLibraries").forEach(n -> listed.remove(n.asText()));

    Set<String> read =
        WorkerConfig.VARIABLES.stream()
            .map(WorkerConfig.Variable::name)
            .collect(Collectors.toSet());

    assertThat(read).isEqualTo(listed);
  }

  @Test
  void defaultsAgreeWithTheInfrastructureList() throws IOException {
    JsonNode optional = workerEnv().path("optional");
    Map<String, String> listedDefaults = new HashMap<>();
    optional
        .fields()
        .forEachRemaining(
            f ->
                listedDefaults.put(
                    f.getKey(), f.getValue().isNull() ? null : f.getValue().asText()));

    for (WorkerConfig.Variable variable : WorkerConfig.VARIABLES) {
      if (listedDefaults.containsKey(variable.name())) {
        assertThat(variable.defaultValue())
            .as(variable.name())
            .isEqualTo(listedDefaults.get(variable.name()));
      }
    }
  }

  @Test
  void localWorkerEnvIsAValidConfiguration() throws IOException {
    Map<String, String> env = new HashMap<>();
    for (String line : Files.readAllLines(Path.of("local", "worker.env"))) {
      String trimmed = line.trim();
      if (trimmed.isEmpty() || trimmed.startsWith("#") || !trimmed.contains("=")) {
        continue;
      }
      String name = trimmed.substring(0, trimmed.indexOf('='));
      String value = trimmed.substring(trimmed.indexOf('=') + 1).replaceAll("^\"|\"$", "");
      env.put(name, value);
    }

    WorkerConfig config = WorkerConfig.fromEnvironment(env);

    assertThat(config.createContainer()).isTrue();
    assertThat(config.cosmosGatewayMode()).isTrue();
  }
}
