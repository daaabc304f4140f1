package io.idemworker.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/spring-boot.md's properties table says what the generated configuration metadata says: the
 * same properties, defaults and descriptions (the rows of its Properties section).
 */
class SpringBootPageTest {
  private static final Pattern ROW =
      Pattern.compile("^\\| `(idemworker\\.[a-z.-]+)` \\| (?:`([^`]*)`)? *\\| (.*) \\|$");

  @Test
  void thePropertiesTable_isTheMetadata() throws IOException {
    Path metadata =
        Path.of(
            System.getProperty("project.build.directory", "src/spring-boot-starter/target"),
            "classes/META-INF/spring-configuration-metadata.json");
    Map<String, String> expected = new TreeMap<>();
    for (JsonNode property : new ObjectMapper().readTree(metadata.toFile()).path("properties")) {
      JsonNode value = property.path("defaultValue");
      String defaultValue = value.isMissingNode() || value.isNull() ? "" : value.asText();
      expected.put(
          property.path("name").asText(),
          defaultValue + " | " + property.path("description").asText());
    }
    Map<String, String> documented = new TreeMap<>();
    boolean inProperties = false;
    for (String line : Files.readAllLines(Path.of("docs/spring-boot.md"))) {
      if (line.startsWith("## ")) {
        inProperties = line.equals("## Properties");
      }
      Matcher row = ROW.matcher(line);
      if (!inProperties) {
        continue;
      }
      if (row.matches()) {
        String defaultValue = row.group(2) == null ? "" : row.group(2);
        documented.put(row.group(1), defaultValue + " | " + row.group(3).replace("\\|", "|"));
      }
    }

    assertThat(expected).isNotEmpty();
    assertThat(documented).isEqualTo(expected);
  }
}
