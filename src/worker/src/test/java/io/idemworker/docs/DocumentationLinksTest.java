package io.idemworker.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every relative link in the README and under docs/ leads to a file, and to a heading if named. */
class DocumentationLinksTest {

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
  void brokenLinksAndAnchors_areFound() {
    Path readme = Path.of("README.md");

    assertThat(problem(readme, "docs/no-such-page.md")).isPresent();
    assertThat(problem(readme, "#no-such-heading")).isPresent();
    assertThat(problem(readme, "#the-two-commands")).isEmpty();
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
