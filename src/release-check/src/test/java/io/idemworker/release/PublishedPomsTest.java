package io.idemworker.release;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * What a legal review and Maven Central look for before a team may take the artifacts: the licence,
 * the metadata Central requires on every published POM, a BOM that pins every published module at
 * the one version, and a release profile that is never on by default. Reads the POMs as written;
 * {@link ConsumerClassPathTest} checks what a user's build makes of them.
 */
class PublishedPomsTest {
  /** SHA-256 of the Apache License, Version 2.0, as the Apache Software Foundation publishes it. */
  private static final String APACHE_2_SHA256 =
      "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30";

  @Test
  void licenceFile_isTheApacheLicenseTwoVerbatim() throws Exception {
    byte[] licence = Files.readAllBytes(Reactor.ROOT.resolve("LICENSE"));

    String sha256 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(licence));

    assertThat(sha256).isEqualTo(APACHE_2_SHA256);
    assertThat(Reactor.ROOT.resolve("NOTICE")).content().contains("Apache License, Version 2.0");
  }

  // The BOM is the root of the build's inheritance: every published POM gets these from it.
  @Test
  void bom_carriesWhatCentralRequires_andHasNoParent() {
    Pom bom = Reactor.BOM;

    assertThat(bom.all("parent")).as("a BOM with a parent would pass its management on").isEmpty();
    assertThat(bom.text("name")).isNotEmpty();
    assertThat(bom.text("description")).isNotEmpty();
    assertThat(bom.text("url")).isNotEmpty();
    assertThat(bom.text("licenses", "license", "name")).isEqualTo("Apache-2.0");
    assertThat(bom.text("licenses", "license", "url"))
        .isEqualTo("https://www.apache.org/licenses/LICENSE-2.0.txt");
    assertThat(bom.text("developers", "developer", "name")).isNotEmpty();
    assertThat(bom.text("scm", "url")).isNotEmpty();
    assertThat(bom.text("scm", "connection")).startsWith("scm:git:");
    assertThat(bom.text("scm", "developerConnection")).startsWith("scm:git:");
  }

  @Test
  void everyPublishedModule_inheritsFromTheParent_atTheOneVersion_withNameAndDescription() {
    List<Pom> published = Reactor.modules().stream().filter(Reactor::published).toList();

    assertThat(published).extracting(Pom::artifactId).contains("idemworker-bom");
    assertThat(Reactor.PARENT.text("parent", "artifactId")).isEqualTo("idemworker-bom");
    assertThat(Reactor.PARENT.version()).isEqualTo(Reactor.BOM.version());
    for (Pom module : published) {
      assertThat(module.version()).as(module + " version").isEqualTo(Reactor.BOM.version());
      assertThat(module.text("name")).as(module + " name").isNotEmpty();
      assertThat(module.text("description")).as(module + " description").isNotEmpty();
      if (!module.artifactId().equals("idemworker-bom")) {
        assertThat(module.all("licenses")).as(module + ": the licence is inherited").isEmpty();
      }
    }
  }

  @Test
  void bom_managesEveryPublishedJar_atTheProjectVersion_andNothingElseOfOurs() {
    Set<String> expected = new TreeSet<>();
    for (Pom module : Reactor.publishedJars()) {
      expected.add(module.artifactId() + ":jar");
      if (Reactor.makesTestJar(module)) {
        expected.add(module.artifactId() + ":test-jar");
      }
    }

    Set<String> managed = new TreeSet<>();
    for (Element d : Reactor.BOM.all("dependencyManagement", "dependencies", "dependency")) {
      if (Pom.text(d, "groupId").equals("io.idemworker")) {
        String type = Pom.text(d, "type");
        managed.add(Pom.text(d, "artifactId") + ":" + (type.isEmpty() ? "jar" : type));
        assertThat(Pom.text(d, "version")).isEqualTo("${project.version}");
      }
    }

    assertThat(managed).isEqualTo(expected);
    assertThat(expected).contains("idemworker-core:jar", "idemworker-emulators:jar");
  }

  // The BOM's versions are the build's: no other POM may define them again and drift.
  @Test
  void versionsTheBomPins_areDefinedInTheBomOnly() {
    Pattern variable = Pattern.compile("\\$\\{([^}]+)}");
    Set<String> used = new TreeSet<>();
    for (Element d : Reactor.BOM.all("dependencyManagement", "dependencies", "dependency")) {
      Matcher m = variable.matcher(Pom.text(d, "version"));
      while (m.find()) {
        used.add(m.group(1));
      }
    }
    used.remove("project.version");

    assertThat(used)
        .contains("azure-sdk-bom.version", "jackson.version", "opentelemetry.version")
        .allSatisfy(p -> assertThat(Reactor.BOM.property(p)).as(p).isNotEmpty());
    List<Pom> others = new ArrayList<>();
    others.add(Reactor.PARENT);
    Reactor.modules().stream()
        .filter(m -> !m.artifactId().equals("idemworker-bom"))
        .forEach(others::add);
    for (Pom other : others) {
      for (String p : used) {
        assertThat(other.property(p)).as(other + " redefines " + p).isEmpty();
      }
    }
  }

  // The example stands alone (it is what a team copies), so it names the version itself.
  @Test
  void exampleProject_usesTheOneVersion() {
    Pom example = Pom.read(Reactor.ROOT.resolve("examples/order-service/pom.xml"));

    assertThat(example.property("idemworker.version")).isEqualTo(Reactor.BOM.version());
  }

  @Test
  void releaseProfile_isNeverActiveByDefault_andPublishesExactlyThePublishedModules() {
    Element release = Reactor.BOM.profile("release");

    assertThat(release).as("the release profile in src/bom/pom.xml").isNotNull();
    assertThat(Pom.all(release, "activation")).isEmpty();
    List<String> plugins =
        Pom.all(release, "build", "plugins", "plugin").stream()
            .map(p -> Pom.text(p, "artifactId"))
            .toList();
    assertThat(plugins).contains("maven-gpg-plugin", "central-publishing-maven-plugin");

    Element central =
        Pom.all(release, "build", "plugins", "plugin").stream()
            .filter(p -> Pom.text(p, "artifactId").equals("central-publishing-maven-plugin"))
            .findFirst()
            .orElseThrow();
    Set<String> excluded =
        Pom.all(central, "configuration", "excludeArtifacts", "artifact").stream()
            .map(a -> a.getTextContent().strip())
            .collect(Collectors.toCollection(TreeSet::new));
    Set<String> unpublished =
        Reactor.modules().stream()
            .filter(m -> !Reactor.published(m))
            .map(Pom::artifactId)
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(excluded).isEqualTo(unpublished);
    assertThat(unpublished).contains("idemworker-worker", "idemworker-proof", "order-service");
    for (Pom pom : List.of(Reactor.PARENT, Reactor.BOM)) {
      assertThat(pom.all("profiles", "profile", "activation", "activeByDefault"))
          .as(pom + ": a profile on by default")
          .isEmpty();
    }
  }
}
