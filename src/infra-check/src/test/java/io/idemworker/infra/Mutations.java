package io.idemworker.infra;

import static org.assertj.core.api.Assertions.assertThat;

/** Broken copies of real files, for proving that a check notices a change. */
final class Mutations {
  private Mutations() {}

  /** Replaces the single occurrence of {@code from}; fails if it is absent or ambiguous. */
  static String replaceOnce(String text, String from, String to) {
    int first = text.indexOf(from);
    assertThat(first).as("'%s' occurs in the file", from).isNotNegative();
    assertThat(text.indexOf(from, first + 1)).as("'%s' occurs once", from).isNegative();
    return text.substring(0, first) + to + text.substring(first + from.length());
  }

  /**
   * Replaces the first {@code from} after the single occurrence of {@code anchor} (say, a
   * resource's declaration), for text that appears in several resources.
   */
  static String replaceAfter(String text, String anchor, String from, String to) {
    int start = text.indexOf(anchor);
    assertThat(start).as("'%s' occurs in the file", anchor).isNotNegative();
    assertThat(text.indexOf(anchor, start + 1)).as("'%s' occurs once", anchor).isNegative();
    int at = text.indexOf(from, start);
    assertThat(at).as("'%s' occurs after '%s'", from, anchor).isNotNegative();
    return text.substring(0, at) + to + text.substring(at + from.length());
  }

  /** Removes the lines from the one containing {@code start} through {@code count} lines. */
  static String removeLines(String text, String start, int count) {
    String[] lines = text.split("\n", -1);
    StringBuilder out = new StringBuilder();
    int removed = 0;
    boolean found = false;
    for (String line : lines) {
      if (!found && line.contains(start)) {
        found = true;
      }
      if (found && removed < count) {
        removed++;
        continue;
      }
      out.append(line).append('\n');
    }
    assertThat(found).as("a line contains '%s'", start).isTrue();
    return out.toString();
  }
}
