package io.idemworker.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README stays a front page: a word budget rather than a line count (lines can grow wide and
 * stay few), a line width for prose and code, and a wider one for table rows, which Markdown cannot
 * wrap; its Java is the compiled code of {@code io.idemworker.app.ReadmeSamples}. The two longest
 * reference pages keep their length cap.
 */
class ReadmeShapeTest {
  static final int WORD_BUDGET = 2_000;
  static final int LINE_WIDTH = 120;
  static final int TABLE_ROW_WIDTH = 250;
  private static final Path SAMPLES =
      Path.of("src/worker/src/test/java/io/idemworker/app/ReadmeSamples.java");
  private static final Pattern REGION =
      Pattern.compile("// BEGIN: ([\\w-]+)\\n(.*?)\\n[ \\t]*// END: \\1", Pattern.DOTALL);

  private final String readme = Markdown.read(Path.of("README.md"));

  @Test
  void readme_staysWithinItsWordBudget() {
    assertThat(Markdown.words(readme)).isLessThanOrEqualTo(WORD_BUDGET);
  }

  @Test
  void readmeLines_stayWithinTheWidth() {
    List<String> wide = new ArrayList<>();
    List<String> lines = readme.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      int width = line.strip().startsWith("|") ? TABLE_ROW_WIDTH : LINE_WIDTH;
      if (line.codePointCount(0, line.length()) > width) {
        wide.add((i + 1) + ": " + line);
      }
    }

    assertThat(wide).isEmpty();
  }

  @Test
  void readmeJava_isTheCompiledSamplesRegions() {
    List<String> regions = new ArrayList<>();
    Matcher region = REGION.matcher(Markdown.read(SAMPLES));
    while (region.find()) {
      regions.add(region.group(2).stripIndent() + "\n");
    }

    assertThat(regions).hasSize(2);
    assertThat(Markdown.codeBlocks(readme, "java")).containsExactlyElementsOf(regions);
  }

  @Test
  void theLongestReferencePages_stayShort() {
    for (String page : List.of("docs/benchmarks.md", "docs/chaos.md")) {
      assertThat(Markdown.read(Path.of(page)).lines().count()).as(page).isLessThanOrEqualTo(250);
    }
  }

  @Test
  void wordsAndCodeBlocks_areCountedAndFoundAsDocumented() {
    assertThat(Markdown.words("a `b` | c → 1,450 · d\n| x |")).isEqualTo(6);
    assertThat(Markdown.codeBlocks("t\n```java\nint a;\n```\n```bash\nls\n```\n", "java"))
        .containsExactly("int a;\n");
  }
}
