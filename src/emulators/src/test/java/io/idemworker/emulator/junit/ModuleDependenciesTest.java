package io.idemworker.emulator.junit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A team adds the emulators with one test dependency, so what the module brings at run time is part
 * of its contract: the protocol libraries, Jackson and slf4j-api, nothing else; JUnit only as
 * {@code provided} (every user's tests already have it).
 */
class ModuleDependenciesTest {
  private static final List<String> RUNTIME_ALLOWED =
      List.of(
          "org.apache.qpid:proton-j",
          "org.bouncycastle:bcpkix-jdk18on",
          "com.fasterxml.jackson.core:jackson-databind",
          "org.slf4j:slf4j-api");
  private static final Pattern DEPENDENCY =
      Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);

  // Surefire runs with the repository root as its working directory (the parent pom says so).
  @Test
  void runtimeDependencies_areTheProtocolLibrariesJacksonAndSlf4jOnly() throws Exception {
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
    assertThat(provided).containsExactly("org.junit.jupiter:junit-jupiter-api");
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
