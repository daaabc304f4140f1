package io.idemworker.emulator.junit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The kit's page (src/emulators/README.md) is held to the code: its Java blocks are regions of
 * compiled test sources that run (imports included), and every row of its fidelity matrix names, in
 * this kit's column, test classes (or a tagged benchmark) of this module that exist and hold tests,
 * so the page cannot claim what no test proves. Each source the Microsoft columns cite is defined
 * on the page.
 */
class KitPageTest {
  // Surefire runs with the repository root as its working directory (the parent pom says so).
  private static final Path PAGE = Path.of("src/emulators/README.md");
  private static final Path TESTS = Path.of("src/emulators/src/test/java");

  private static final Pattern REGION =
      Pattern.compile(
          "^[ \\t]*// BEGIN: (kit-page-[a-z-]+)\\n(.*?)\\n[ \\t]*// END: \\1$",
          Pattern.MULTILINE | Pattern.DOTALL);
  private static final Pattern JAVA_BLOCK =
      Pattern.compile("^```java\\n(.*?)^```$", Pattern.MULTILINE | Pattern.DOTALL);
  private static final Pattern TEST_CLASS =
      Pattern.compile("`([A-Z][A-Za-z0-9]*(?:Test|Benchmark))`");
  private static final Pattern SOURCE_USE = Pattern.compile("\\[(s\\d+)\\](?![(:\\[])");
  private static final Pattern SOURCE_DEFINITION =
      Pattern.compile("^\\[(s\\d+)\\]: (https://\\S+)", Pattern.MULTILINE);

  private static final String PAGE_TEXT = read(PAGE);

  @Test
  void javaBlocks_areTheRegionsOfCompiledTestSources() {
    Map<String, String> regions = regions();
    List<String> blocks = new ArrayList<>();
    Matcher block = JAVA_BLOCK.matcher(PAGE_TEXT);
    while (block.find()) {
      blocks.add(block.group(1));
    }

    assertThat(regions).containsKeys("kit-page-use", "kit-page-admin-client");
    assertThat(blocks).containsExactlyInAnyOrderElementsOf(regions.values());
    assertThat(regions.get("kit-page-use"))
        .startsWith("import ")
        .contains("import io.idemworker.emulator.junit.AzureEmulators;")
        .contains("@AzureEmulators(");
  }

  @Test
  void attributeTable_namesEveryAttributeOfTheAnnotation() {
    String table =
        PAGE_TEXT.substring(
            PAGE_TEXT.indexOf("| `@AzureEmulators` attribute | default | meaning |"));
    table = table.substring(0, table.indexOf("\n\n"));
    List<String> missing = new ArrayList<>();
    for (Method attribute : AzureEmulators.class.getDeclaredMethods()) {
      if (!table.contains("`" + attribute.getName() + "`")) {
        missing.add(attribute.getName());
      }
    }

    assertThat(missing).isEmpty();
  }

  @Test
  void fidelityMatrix_everyRowNamesTestClassesThatExistAndHoldTests() {
    List<List<String>> rows = matrixRows();
    Set<String> named = new LinkedHashSet<>();
    List<String> problems = new ArrayList<>();
    for (List<String> row : rows) {
      Matcher test = TEST_CLASS.matcher(row.get(1));
      boolean any = false;
      while (test.find()) {
        any = true;
        named.add(test.group(1));
        String problem = problemWith(test.group(1));
        if (problem != null) {
          problems.add(row.get(0) + ": " + problem);
        }
      }
      if (!any) {
        problems.add(row.get(0) + ": names no test class in this kit's column");
      }
      if (row.stream().skip(2).anyMatch(String::isBlank)) {
        problems.add(row.get(0) + ": a column is empty");
      }
    }

    assertThat(problems).isEmpty();
    assertThat(rows).hasSizeGreaterThanOrEqualTo(20);
    assertThat(named).contains("KitAdminApiTest", "KitSharedAccessKeyTest");
  }

  @Test
  void fidelityMatrix_hasTheKitAndMicrosoftsThreeEmulatorsAsColumns() {
    String fidelity = fidelitySection();

    assertThat(fidelity)
        .contains("| feature | this kit (its tests) | Microsoft's Service Bus emulator |")
        .contains(
            "| feature | this kit (its tests) | Microsoft's Cosmos DB vNext emulator (Linux,"
                + " gateway only) | Microsoft's classic Cosmos DB emulator |");
  }

  @Test
  void everySourceTheMatrixCites_isDefinedOnThePage() {
    Set<String> defined = new LinkedHashSet<>();
    Matcher definition = SOURCE_DEFINITION.matcher(PAGE_TEXT);
    while (definition.find()) {
      defined.add(definition.group(1));
    }
    Set<String> used = new LinkedHashSet<>();
    for (List<String> row : matrixRows()) {
      Matcher use = SOURCE_USE.matcher(String.join("|", row));
      while (use.find()) {
        used.add(use.group(1));
      }
    }

    assertThat(used).isNotEmpty();
    assertThat(defined).containsAll(used);
  }

  @Test
  void theChecks_findWhatTheyLookFor() {
    assertThat(problemWith("KitPageTest")).isNull();
    assertThat(problemWith("NoSuchKitTest")).contains("no such test class");
    assertThat(problemWith("OnlyUnderTestKit")).contains("no such test class");
  }

  /** Why a name cited by the matrix proves nothing; null when it is a class holding tests. */
  private static String problemWith(String simpleName) {
    Optional<Path> file = find(simpleName);
    if (file.isEmpty() || !TEST_CLASS.matcher("`" + simpleName + "`").matches()) {
      return "no such test class " + simpleName + " under " + TESTS;
    }
    String relative = TESTS.relativize(file.get()).toString();
    String className =
        relative.substring(0, relative.length() - ".java".length()).replace('/', '.');
    try {
      Class<?> type = Class.forName(className, false, KitPageTest.class.getClassLoader());
      return countTests(type) > 0 ? null : className + " holds no test";
    } catch (ClassNotFoundException e) {
      return className + " is not compiled";
    }
  }

  private static int countTests(Class<?> type) {
    int count = 0;
    for (Method method : type.getDeclaredMethods()) {
      for (Annotation annotation : method.getAnnotations()) {
        String name = annotation.annotationType().getName();
        // @Test, @ParameterizedTest, @RepeatedTest, @TestFactory, @TestTemplate
        if (name.startsWith("org.junit.jupiter")
            && (name.endsWith("Test")
                || name.endsWith("TestFactory")
                || name.endsWith("Template"))) {
          count++;
        }
      }
    }
    for (Class<?> nested : type.getDeclaredClasses()) {
      count += countTests(nested);
    }
    return count;
  }

  private static Optional<Path> find(String simpleName) {
    try (Stream<Path> files = Files.walk(TESTS)) {
      return files.filter(f -> f.getFileName().toString().equals(simpleName + ".java")).findFirst();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The data rows of the tables under "## Fidelity", cells trimmed. */
  private static List<List<String>> matrixRows() {
    List<List<String>> rows = new ArrayList<>();
    boolean inMatrix = false;
    for (String line : fidelitySection().split("\n")) {
      if (line.startsWith("| feature | this kit")) {
        inMatrix = true;
        continue;
      }
      if (!line.startsWith("|")) {
        inMatrix = false;
        continue;
      }
      if (inMatrix && !line.startsWith("|---")) {
        List<String> cells = new ArrayList<>();
        for (String cell : line.substring(1, line.length() - 1).split("\\|", -1)) {
          cells.add(cell.trim());
        }
        rows.add(cells);
      }
    }
    return rows;
  }

  private static String fidelitySection() {
    int start = PAGE_TEXT.indexOf("\n## Fidelity");
    assertThat(start).as("the page's '## Fidelity' section").isNotNegative();
    int end = PAGE_TEXT.indexOf("\n## ", start + 1);
    return PAGE_TEXT.substring(start, end < 0 ? PAGE_TEXT.length() : end);
  }

  /** The kit-page regions of every test source, in file order then position, text unindented. */
  private static Map<String, String> regions() {
    Map<String, String> regions = new LinkedHashMap<>();
    try (Stream<Path> files = Files.walk(TESTS)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
        Matcher region = REGION.matcher(read(file));
        while (region.find()) {
          regions.put(region.group(1), region.group(2).stripIndent() + "\n");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return regions;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
