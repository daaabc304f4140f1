package io.idemworker.emulator.junit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A team adds the emulators with one test dependency, so what the module brings at run time is part
 * of its contract: the protocol libraries, nothing else. JUnit's API, Jackson and slf4j-api are
 * {@code provided}: every user's tests already have JUnit, and the Azure SDK under test brings
 * Jackson and slf4j-api (azure-core), whose versions the kit must never choose for them.
 */
class ModuleDependenciesTest {
  private static final List<String> RUNTIME_ALLOWED =
      List.of("org.apache.qpid:proton-j", "org.bouncycastle:bcpkix-jdk18on");
  private static final List<String> PROVIDED =
      List.of(
          "org.junit.jupiter:junit-jupiter-api",
          "com.fasterxml.jackson.core:jackson-databind",
          "org.slf4j:slf4j-api");

  /**
   * What only slf4j 2 has: the fluent API (its builder type is in every call's descriptor), the
   * level check by {@code Level} and MDC's stacks. A class naming none of them links against 1.7.
   */
  private static final List<String> SLF4J_2_ONLY =
      List.of("org/slf4j/spi/LoggingEventBuilder", "isEnabledForLevel", "pushByKey", "popByKey");

  private static final Pattern DEPENDENCY =
      Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);

  // Surefire runs with the repository root as its working directory (the parent pom says so).
  @Test
  void runtimeDependencies_areTheProtocolLibrariesOnly() throws Exception {
    String pom = Files.readString(Path.of("src/emulators/pom.xml"));
    String dependencies =
        pom.substring(pom.indexOf("<dependencies>"), pom.indexOf("</dependencies>"));
    List<String> runtime = new ArrayList<>();
    List<String> provided = new ArrayList<>();
    Matcher m = DEPENDENCY.matcher(dependencies);
    while (m.find()) {
      String d = m.group(1);
      String coordinates = tag(d, "groupId") + ":" + tag(d, "artifactId");
      String scope = tag(d, "scope");
      if (scope.isEmpty() || scope.equals("compile") || scope.equals("runtime")) {
        runtime.add(coordinates);
      } else if (scope.equals("provided")) {
        provided.add(coordinates);
      }
    }

    assertThat(runtime).containsExactlyInAnyOrderElementsOf(RUNTIME_ALLOWED);
    assertThat(provided).containsExactlyInAnyOrderElementsOf(PROVIDED);
  }

  // The kit runs on the slf4j-api the user's Azure SDK brings: 1.7.36 with azure-core 1.58 (the
  // example project runs every test of its own so), 2.x where the user manages it up.
  @Test
  void classes_callSlf4jOneApiOnly() throws Exception {
    Path classes =
        Path.of(System.getProperty("project.build.directory", "src/emulators/target"), "classes");
    List<String> offending = new ArrayList<>();
    try (Stream<Path> files = Files.walk(classes)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
        String constants = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
        for (String name : SLF4J_2_ONLY) {
          if (constants.contains(name)) {
            offending.add(classes.relativize(file) + " uses " + name);
          }
        }
      }
    }

    assertThat(offending).isEmpty();
  }

  @Test
  void theParentAddsTestDependenciesOnly() throws Exception {
    String parent = Files.readString(Path.of("pom.xml"));
    String outsideManagement =
        parent.substring(parent.indexOf("</dependencyManagement>"), parent.indexOf("<build>"));
    Matcher m = DEPENDENCY.matcher(outsideManagement);
    List<String> scopes = new ArrayList<>();
    while (m.find()) {
      scopes.add(tag(m.group(1), "artifactId") + ":" + tag(m.group(1), "scope"));
    }

    assertThat(scopes).isNotEmpty().allMatch(s -> s.endsWith(":test"));
  }

  private static String tag(String xml, String name) {
    Matcher m = Pattern.compile("<" + name + ">\\s*([^<]+?)\\s*</" + name + ">").matcher(xml);
    return m.find() ? m.group(1) : "";
  }
}
