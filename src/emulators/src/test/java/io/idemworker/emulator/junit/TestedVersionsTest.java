package io.idemworker.emulator.junit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The kit's page says which SDK versions it is tested with: the ones on this module's test class
 * path, which every test here runs against. The page's table is held to them.
 */
class TestedVersionsTest {
  // Surefire runs with the repository root as its working directory (the parent pom says so).
  private static final Path README = Path.of("src/emulators/README.md");

  @Test
  void readmeTable_namesTheVersionsTheTestsRunWith() throws IOException {
    String readme = Files.readString(README);

    assertThat(readme)
        .contains(row("Azure SDK BOM", bomProperty("azure-sdk-bom.version")))
        .contains(
            row("azure-messaging-servicebus", version("com.azure", "azure-messaging-servicebus")))
        .contains(row("azure-core-amqp", version("com.azure", "azure-core-amqp")))
        .contains(row("azure-cosmos", version("com.azure", "azure-cosmos")))
        .contains(row("azure-core", version("com.azure", "azure-core")))
        .contains(
            row(
                "Jackson (jackson-databind)",
                version("com.fasterxml.jackson.core", "jackson-databind")))
        .contains(row("JUnit Jupiter", Test.class.getPackage().getImplementationVersion()))
        .contains("| slf4j-api | " + version("org.slf4j", "slf4j-api") + " (the kit's own tests")
        .contains(" and " + azureCoresSlf4j() + " (`examples/order-service`: azure-core's)");
  }

  private static String row(String name, String version) {
    return "| " + name + " | " + version + " |";
  }

  private static String version(String groupId, String artifactId) throws IOException {
    String resource = "META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
    try (InputStream in = TestedVersionsTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    }
  }

  /** The slf4j-api azure-core declares, which a project that manages none of its own gets. */
  private static String azureCoresSlf4j() throws IOException {
    String resource = "META-INF/maven/com.azure/azure-core/pom.xml";
    try (InputStream in = TestedVersionsTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      String pom = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      Matcher m =
          Pattern.compile("<artifactId>slf4j-api</artifactId>\\s*<version>([^<]+)</version>")
              .matcher(pom);
      assertThat(m.find()).as("azure-core's slf4j-api").isTrue();
      return m.group(1).strip();
    }
  }

  private static String bomProperty(String name) throws IOException {
    Matcher m =
        Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</")
            .matcher(Files.readString(Path.of("src/bom/pom.xml")));
    assertThat(m.find()).as(name).isTrue();
    return m.group(1).strip();
  }
}
