package io.idemworker.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the README, the emulators' README and under docs/ leads to a file, and to
 * a heading if named; every module source path they quote exists.
 */
class DocumentationLinksTest {
  /** A path under a module's sources written in code, e.g. `src/core/src/main/java/.../X.java`. */
  private static final java.util.regex.Pattern REPOSITORY_PATH =
      java.util.regex.Pattern.compile("`(src/[a-z-]+/src/(?:main|test)/[A-Za-z0-9_./*-]+)`");

  /** Whether a path exists; a {@code *} in its last part matches any file name there. */
  private static boolean existsMatching(String path) {
    Path file = Path.of(path);
    if (!path.contains("*")) {
      return Files.exists(file);
    }
    java.nio.file.PathMatcher glob =
        file.getFileSystem().getPathMatcher("glob:" + file.getFileName());
    try (java.util.stream.Stream<Path> siblings = Files.list(file.getParent())) {
      return siblings.anyMatch(sibling -> glob.matches(sibling.getFileName()));
    } catch (java.io.IOException e) {
      return false;
    }
  }

  @Test
  void everyRelativeLink_resolvesToAFileAndHeading() {
    List<String> broken = new ArrayList<>();
    for (Path page : Markdown.pages()) {
      for (String target : Markdown.linkTargets(Markdown.read(page))) {
        if (target.matches("[a-z][a-z0-9+.-]*:.*")) {
          continue;
        }
        problem(page, target).ifPresent(broken::add);
      }
    }

    assertThat(broken).isEmpty();
  }

  @Test
  void everyRepositoryPathInCode_exists() {
    List<String> missing = new ArrayList<>();
    for (Path page : Markdown.pages()) {
      java.util.regex.Matcher path = REPOSITORY_PATH.matcher(Markdown.read(page));
      while (path.find()) {
        if (!existsMatching(path.group(1))) {
          missing.add(page + ": " + path.group(1));
        }
      }
    }

    assertThat(missing).isEmpty();
  }

  @Test
  void brokenLinksAnchorsAndPaths_areFound() {
    Path readme = Path.of("README.md");

    assertThat(problem(readme, "docs/no-such-page.md")).isPresent();
    assertThat(problem(readme, "#no-such-heading")).isPresent();
    assertThat(problem(readme, "#the-two-commands")).isEmpty();
    assertThat(existsMatching("src/core/src/main/java/io/idemworker/core/Outcome.java")).isTrue();
    assertThat(existsMatching("src/core/src/main/java/io/idemworker/core/Out*.java")).isTrue();
    assertThat(existsMatching("src/core/src/main/java/io/idemworker/core/NoSuch*.java")).isFalse();
    assertThat(Markdown.slug("The HTTP order intake (`api`)"))
        .isEqualTo("the-http-order-intake-api");
  }

  private static java.util.Optional<String> problem(Path page, String target) {
    int hash = target.indexOf('#');
    String file = hash < 0 ? target : target.substring(0, hash);
    Path resolved =
        file.isEmpty() ? page : page.toAbsolutePath().getParent().resolve(file).normalize();
    if (!Files.exists(resolved)) {
      return java.util.Optional.of(page + ": " + target + " (no such file)");
    }
    if (hash < 0) {
      return java.util.Optional.empty();
    }
    String anchor = target.substring(hash + 1);
    if (!resolved.toString().endsWith(".md")
        || !Markdown.anchors(Markdown.read(resolved)).contains(anchor)) {
      return java.util.Optional.of(page + ": " + target + " (no such heading)");
    }
    return java.util.Optional.empty();
  }
}
