package io.idemworker.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.w3c.dom.Element;

/**
 * What a user's build makes of the published artifacts. The reactor's published modules are
 * installed, by a Maven build of their own, into a private local repository under this module's
 * target/ (never ~/.m2); then projects a user would write are resolved against it by Maven, as
 * their builds would resolve them:
 *
 * <ul>
 *   <li>{@code examples/order-service} as it is, with the kit declared first, and without the kit:
 *       the main (compile and runtime) class path must not change;
 *   <li>one project per library module that imports only {@code idemworker-bom}: its runtime class
 *       path must be the one the module was built with, and hold no logging backend.
 * </ul>
 *
 * <p>Third-party artifacts come from the user's local repository, read as a remote one (and from
 * Maven Central for anything it lacks). Minutes, not seconds: {@code mvn -B -ntp -Pconsumer-build
 * -pl src/release-check -am verify}.
 */
@Tag("consumer-build")
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class ConsumerClassPathTest {
  private static final Path TARGET = Reactor.ROOT.resolve("src/release-check/target");
  private static final Path REPO = TARGET.resolve("consumer-repo");
  private static final Path SETTINGS = TARGET.resolve("consumer-settings.xml");
  private static final Path CONSUMERS = TARGET.resolve("consumers");
  private static final String LIST = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:list";
  private static final String LIST_FILE = "target/runtime-dependencies.txt";
  private static final String VERSION = Reactor.BOM.version();

  /** slf4j providers and bindings, and the backends behind them: the application's choice. */
  private static final Set<String> LOGGING_BACKENDS =
      Set.of(
          "ch.qos.logback:logback-classic",
          "org.slf4j:slf4j-simple",
          "org.slf4j:slf4j-nop",
          "org.slf4j:slf4j-jdk14",
          "org.slf4j:slf4j-log4j12",
          "org.slf4j:slf4j-reload4j",
          "org.apache.logging.log4j:log4j-slf4j-impl",
          "org.apache.logging.log4j:log4j-slf4j2-impl",
          "org.apache.logging.log4j:log4j-core",
          "org.eclipse.jetty:jetty-slf4j-impl",
          "org.tinylog:slf4j-tinylog");

  private static final Pattern KIT_DEPENDENCY =
      Pattern.compile(
          "\\s*<dependency>(?:(?!</dependency>).)*?<artifactId>idemworker-emulators</artifactId>"
              + ".*?</dependency>",
          Pattern.DOTALL);

  @BeforeAll
  @Timeout(value = 20, unit = TimeUnit.MINUTES)
  static void installTheReactor_thenResolveUsersProjects() throws Exception {
    Files.createDirectories(TARGET);
    writeSettings();
    deleteTree(REPO.resolve("io/idemworker")); // nothing of ours from an earlier run
    List<String> libraries =
        Reactor.publishedJars().stream()
            .map(m -> Reactor.ROOT.relativize(m.file.getParent()).toString())
            .toList();

    // The published modules (their parents come with -am), as `mvn install` publishes them: the
    // kit's flattened POM, every jar. Compiled only where the sources are newer than the classes;
    // Javadoc and sources jars are left out (they do not change a class path). Each module's own
    // runtime class path is listed too: what it was built with.
    maven(
        Reactor.ROOT,
        "install",
        "-f",
        Reactor.ROOT.resolve("pom.xml").toString(),
        "-pl",
        String.join(",", libraries),
        "-am",
        "-DskipTests",
        "-Dmaven.javadoc.skip=true",
        "-Dmaven.source.skip=true",
        "-Dspotless.check.skip=true",
        "-Dmaven.compiler.useIncrementalCompilation=false",
        "install",
        LIST,
        "-DincludeScope=runtime",
        "-DoutputScope=true",
        "-Dsort=true",
        "-DoutputFile=" + LIST_FILE);

    deleteTree(CONSUMERS);
    String example = Files.readString(Reactor.ROOT.resolve("examples/order-service/pom.xml"));
    Matcher kit = KIT_DEPENDENCY.matcher(example);
    assertThat(kit.find()).as("the example's dependency on the kit").isTrue();
    String withoutKit = example.substring(0, kit.start()) + example.substring(kit.end());
    int dependencies =
        withoutKit.indexOf("<dependencies>", withoutKit.indexOf("</dependencyManagement>"));
    int first = dependencies + "<dependencies>".length();
    String kitFirst = withoutKit.substring(0, first) + kit.group() + withoutKit.substring(first);

    List<String> modules = new ArrayList<>();
    modules.add(consumer("order-service-with-kit", rename(example, "order-service-with-kit")));
    modules.add(consumer("order-service-kit-first", rename(kitFirst, "order-service-kit-first")));
    modules.add(
        consumer("order-service-without-kit", rename(withoutKit, "order-service-without-kit")));
    for (Pom library : bomManaged()) {
      modules.add(consumer("bom-only-" + library.artifactId(), bomOnly(library.artifactId())));
    }
    Files.writeString(
        CONSUMERS.resolve("pom.xml"),
        """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>com.example.consumers</groupId>
          <artifactId>consumers</artifactId>
          <version>1</version>
          <packaging>pom</packaging>
          <modules>
        %s  </modules>
        </project>
        """
            .formatted(
                modules.stream()
                    .map(m -> "    <module>" + m + "</module>\n")
                    .collect(Collectors.joining())));

    maven(
        CONSUMERS,
        "list",
        LIST,
        "-DincludeScope=runtime",
        "-DoutputScope=true",
        "-Dsort=true",
        "-DoutputFile=" + LIST_FILE);
  }

  @Test
  void exampleProject_mainClassPath_isTheSameWithAndWithoutTheKit() throws IOException {
    List<String> without = mainClassPath("order-service-without-kit");

    assertThat(mainClassPath("order-service-with-kit")).isEqualTo(without);
    assertThat(mainClassPath("order-service-kit-first")).isEqualTo(without);
    assertThat(without)
        .as("the example's main class path is the Azure SDK's, Jackson included")
        .anyMatch(d -> d.startsWith("com.azure:azure-cosmos:jar:"))
        .anyMatch(d -> d.startsWith("com.fasterxml.jackson.core:jackson-databind:jar:"));
  }

  @Test
  void kitPom_standsAlone_withTheLicence_andOnlyProtocolLibrariesAtRunTime() {
    Pom kit = Pom.read(installed("idemworker-emulators", "pom"));

    assertThat(kit.all("parent")).isEmpty();
    assertThat(kit.all("dependencyManagement")).isEmpty();
    assertThat(kit.text("licenses", "license", "name")).isEqualTo("Apache-2.0");
    assertThat(kit.text("url")).isNotEmpty();
    assertThat(kit.text("scm", "url")).isNotEmpty();
    assertThat(kit.text("developers", "developer", "name")).isNotEmpty();
    Set<String> runtime = new TreeSet<>();
    for (Element d : kit.all("dependencies", "dependency")) {
      assertThat(Pom.text(d, "version")).doesNotContain("${").isNotEmpty();
      String scope = Pom.text(d, "scope");
      if (scope.isEmpty() || scope.equals("compile") || scope.equals("runtime")) {
        runtime.add(Pom.text(d, "groupId") + ":" + Pom.text(d, "artifactId"));
      }
    }
    assertThat(runtime)
        .containsExactly("org.apache.qpid:proton-j", "org.bouncycastle:bcpkix-jdk18on");
  }

  @Test
  void libraryModules_bringNoLoggingBackend() throws IOException {
    for (Pom library : bomManaged()) {
      List<String> runtime = mainClassPath("bom-only-" + library.artifactId());

      assertThat(runtime).as(library.artifactId()).isNotEmpty();
      assertThat(runtime)
          .as(library.artifactId() + " at run time")
          .noneMatch(d -> LOGGING_BACKENDS.contains(groupAndArtifact(d)));
    }
  }

  @Test
  void bomAlone_givesTheVersionsEachModuleWasBuiltWith() throws IOException {
    for (Pom library : bomManaged()) {
      if (library.artifactId().equals("idemworker-emulators")) {
        continue; // a test dependency: its main class path is the example's above
      }
      List<String> asBuilt = withoutOurs(readList(library.file.getParent().resolve(LIST_FILE)));
      List<String> asUsed = withoutOurs(mainClassPath("bom-only-" + library.artifactId()));

      assertThat(asUsed).as(library.artifactId()).isEqualTo(asBuilt);
    }
  }

  @Test
  void publishedJars_holdNoMain_andCarryTheLicence() throws IOException {
    for (Pom library : Reactor.publishedJars()) {
      try (JarFile jar = new JarFile(installed(library.artifactId(), "jar").toFile())) {
        assertThat(jar.getEntry("META-INF/LICENSE")).as(library.artifactId()).isNotNull();
        assertThat(jar.getEntry("META-INF/NOTICE")).as(library.artifactId()).isNotNull();
        if (jar.getManifest() != null) {
          assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
              .as(library.artifactId())
              .isNull();
        }
        List<String> mains = new ArrayList<>();
        for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
          JarEntry entry = e.nextElement();
          if (entry.getName().endsWith(".class")) {
            try (InputStream in = jar.getInputStream(entry)) {
              if (ClassFiles.declaresMain(in.readAllBytes())) {
                mains.add(entry.getName());
              }
            }
          }
        }
        assertThat(mains).as(library.artifactId() + " classes with a main").isEmpty();
      }
    }
  }

  // --- the builds

  private static void writeSettings() throws IOException {
    // The user's local repository, read as a remote one; Central stays behind it for anything
    // missing. Snapshots never come from it: ours are the ones just installed.
    String userRepository = Path.of(System.getProperty("user.repository")).toUri().toString();
    String repository =
        """
              <id>user-repository</id>
              <url>%s</url>
              <releases><enabled>true</enabled></releases>
              <snapshots><enabled>false</enabled></snapshots>
        """
            .formatted(userRepository);
    Files.writeString(
        SETTINGS,
        """
        <settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">
          <profiles>
            <profile>
              <id>user-repository</id>
              <repositories>
                <repository>
        %s        </repository>
              </repositories>
              <pluginRepositories>
                <pluginRepository>
        %s        </pluginRepository>
              </pluginRepositories>
            </profile>
          </profiles>
          <activeProfiles>
            <activeProfile>user-repository</activeProfile>
          </activeProfiles>
        </settings>
        """
            .formatted(repository, repository));
  }

  private static void maven(Path directory, String logName, String... arguments)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("maven.home"), "bin", "mvn").toString());
    command.addAll(List.of("-B", "-ntp", "-s", SETTINGS.toString(), "-Dmaven.repo.local=" + REPO));
    command.addAll(List.of(arguments));
    Path log = TARGET.resolve("consumer-" + logName + ".log");
    Process process =
        new ProcessBuilder(command)
            .directory(directory.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      if (!process.waitFor(15, TimeUnit.MINUTES)) {
        fail("%s took longer than 15 minutes; its log: %s", command, log);
      }
    } finally {
      if (process.isAlive()) { // timed out, or this test was interrupted: end the build we started
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
      }
    }
    if (process.exitValue() != 0) {
      List<String> lines = Files.readAllLines(log);
      fail(
          "%s failed (exit %d); the end of %s:%n%s",
          command,
          process.exitValue(),
          log,
          String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size())));
    }
  }

  private static String consumer(String name, String pom) throws IOException {
    Path dir = Files.createDirectories(CONSUMERS.resolve(name));
    Files.writeString(dir.resolve("pom.xml"), pom);
    return name;
  }

  private static String rename(String pom, String artifactId) {
    return pom.replaceFirst(
        "<artifactId>order-service</artifactId>", "<artifactId>" + artifactId + "</artifactId>");
  }

  private static String bomOnly(String artifactId) {
    return """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>com.example.consumers</groupId>
          <artifactId>bom-only-%1$s</artifactId>
          <version>1</version>
          <dependencyManagement>
            <dependencies>
              <dependency>
                <groupId>io.idemworker</groupId>
                <artifactId>idemworker-bom</artifactId>
                <version>%2$s</version>
                <type>pom</type>
                <scope>import</scope>
              </dependency>
            </dependencies>
          </dependencyManagement>
          <dependencies>
            <dependency>
              <groupId>io.idemworker</groupId>
              <artifactId>%1$s</artifactId>
            </dependency>
          </dependencies>
        </project>
        """
        .formatted(artifactId, VERSION);
  }

  // --- reading what the builds wrote

  /**
   * The compile and runtime dependencies Maven resolved:
   * groupId:artifactId:type[:classifier]:version:scope.
   */
  private static List<String> mainClassPath(String consumer) throws IOException {
    return readList(CONSUMERS.resolve(consumer).resolve(LIST_FILE));
  }

  private static List<String> readList(Path file) throws IOException {
    assertThat(file).as("written by dependency:list").exists();
    List<String> dependencies = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String entry = line.strip();
      int module = entry.indexOf(" -- ");
      if (module >= 0) {
        entry = entry.substring(0, module).strip();
      }
      if (entry.endsWith(":compile") || entry.endsWith(":runtime")) {
        dependencies.add(entry);
      }
    }
    dependencies.sort(Comparator.naturalOrder());
    return dependencies;
  }

  private static List<String> withoutOurs(List<String> dependencies) {
    return dependencies.stream().filter(d -> !d.startsWith("io.idemworker:")).toList();
  }

  private static String groupAndArtifact(String dependency) {
    String[] parts = dependency.split(":");
    return parts[0] + ":" + parts[1];
  }

  private static Path installed(String artifactId, String extension) {
    return REPO.resolve("io/idemworker")
        .resolve(artifactId)
        .resolve(VERSION)
        .resolve(artifactId + "-" + VERSION + "." + extension);
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /**
   * The published modules, every one managed by the BOM. The Spring Boot starter's included: the
   * BOM pins no Spring version, but the starter's POM names the Spring Boot modules it was built
   * with (and they the Spring Framework they were built on), so importing the BOM alone gives the
   * starter's own class path too (docs/spring-boot.md).
   */
  private static List<Pom> bomManaged() {
    return Reactor.publishedJars();
  }
}
