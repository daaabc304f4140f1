package io.idemworker.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The parts of the repository's Markdown the documentation tests read: prose lines outside code
 * blocks, relative links, heading anchors (GitHub's slugs) and the rows of a table. Tests run from
 * the repository root, so paths are relative to it.
 */
final class Markdown {
  private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
  private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");

  private Markdown() {}

  /** README.md, the emulators' README and every page under docs/. */
  static List<Path> pages() {
    List<Path> pages = new ArrayList<>();
    pages.add(Path.of("README.md"));
    pages.add(Path.of("src/emulators/README.md"));
    try (Stream<Path> docs = Files.walk(Path.of("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pages;
  }

  static String read(Path page) {
    try {
      return Files.readString(page);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The lines outside fenced code blocks. */
  static List<String> prose(String text) {
    List<String> lines = new ArrayList<>();
    boolean fenced = false;
    for (String line : text.lines().toList()) {
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
        continue;
      }
      if (!fenced) {
        lines.add(line);
      }
    }
    return lines;
  }

  /** The contents of the fenced code blocks opened with {@code ```language}, in order. */
  static List<String> codeBlocks(String text, String language) {
    List<String> blocks = new ArrayList<>();
    StringBuilder block = null;
    boolean fenced = false;
    for (String line : text.lines().toList()) {
      if (line.strip().startsWith("```")) {
        if (!fenced && line.strip().equals("```" + language)) {
          block = new StringBuilder();
        } else if (fenced && block != null) {
          blocks.add(block.toString());
          block = null;
        }
        fenced = !fenced;
        continue;
      }
      if (block != null) {
        block.append(line).append('\n');
      }
    }
    return blocks;
  }

  /** The words of a text: its runs of non-blanks holding a letter or a digit (not "|" or "→"). */
  static int words(String text) {
    int words = 0;
    for (String token : text.split("\\s+")) {
      if (token.codePoints().anyMatch(Character::isLetterOrDigit)) {
        words++;
      }
    }
    return words;
  }

  /** The targets of the links in a page's prose, inline code left out. */
  static List<String> linkTargets(String text) {
    List<String> targets = new ArrayList<>();
    for (String line : prose(text)) {
      Matcher link = LINK.matcher(INLINE_CODE.matcher(line).replaceAll(""));
      while (link.find()) {
        targets.add(link.group(1));
      }
    }
    return targets;
  }

  /** The anchors GitHub gives a page's headings, with -1, -2 … for repeated ones. */
  static Set<String> anchors(String text) {
    Set<String> anchors = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (String line : prose(text)) {
      Matcher heading = HEADING.matcher(line);
      if (!heading.matches()) {
        continue;
      }
      String slug = slug(heading.group(2));
      int count = seen.merge(slug, 1, Integer::sum);
      anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
    }
    return anchors;
  }

  /** GitHub's heading slug: lower case, punctuation dropped, spaces to hyphens. */
  static String slug(String heading) {
    String plain = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
    return plain.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
  }

  /**
   * The rows of the first table whose header row starts with {@code firstHeader}: each row's cells,
   * stripped, backticks removed.
   */
  static List<List<String>> table(String text, String firstHeader) {
    List<List<String>> rows = new ArrayList<>();
    boolean inTable = false;
    for (String line : prose(text)) {
      String stripped = line.strip();
      if (!inTable) {
        if (stripped.startsWith("|") && cells(stripped).get(0).equals(firstHeader)) {
          inTable = true;
        }
        continue;
      }
      if (!stripped.startsWith("|")) {
        break;
      }
      if (stripped.matches("\\|[\\s:|-]+")) {
        continue;
      }
      rows.add(cells(stripped));
    }
    return rows;
  }

  private static List<String> cells(String row) {
    String inner = row.substring(1, row.endsWith("|") ? row.length() - 1 : row.length());
    List<String> cells = new ArrayList<>();
    for (String cell : inner.split("\\|", -1)) {
      cells.add(cell.strip().replace("`", ""));
    }
    return cells;
  }
}
