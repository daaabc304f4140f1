package io.idemworker.infra;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code where} clauses of a Kusto query, applied to sample rows, so a test can ask "does this
 * alert see the row the platform writes?" without a Log Analytics workspace.
 *
 * <p>It knows the string operators our alert queries use, with Kusto's documented meaning: {@code
 * has} matches a whole <em>term</em> (a maximal run of letters and digits) case-insensitively, so
 * {@code has "fail"} does not match "failed"; {@code contains} matches any substring
 * case-insensitively; {@code ==} is case-sensitive equality; {@code and}, {@code or}, parentheses.
 * Clauses other than {@code where} are ignored (aggregation is checked separately). Anything else
 * in a predicate fails loudly with {@link IllegalArgumentException}.
 */
final class KqlFilter {
  private final List<String> predicates;

  private KqlFilter(List<String> predicates) {
    this.predicates = predicates;
  }

  /** The {@code where} clauses of {@code query}, split on the pipes between clauses. */
  static KqlFilter of(String query) {
    List<String> predicates = new ArrayList<>();
    for (String clause : splitOutsideQuotes(query)) {
      String trimmed = clause.trim();
      if (trimmed.startsWith("where ")) {
        predicates.add(trimmed.substring("where ".length()));
      }
    }
    return new KqlFilter(predicates);
  }

  /** Whether {@code row} (column name to value) passes every {@code where} clause. */
  boolean passes(Map<String, String> row) {
    for (String predicate : predicates) {
      Parser parser = new Parser(predicate, row);
      boolean value = parser.or();
      parser.skipSpaces();
      if (parser.pos != predicate.length()) {
        throw new IllegalArgumentException(
            "cannot read past offset " + parser.pos + ": " + predicate);
      }
      if (!value) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code term} is a whole term of {@code text}, as Kusto's {@code has} decides. */
  static boolean hasTerm(String text, String term) {
    String needle = term.toLowerCase(Locale.ROOT);
    for (String t : text.toLowerCase(Locale.ROOT).split("[^\\p{Alnum}]+")) {
      if (t.equals(needle)) {
        return true;
      }
    }
    return false;
  }

  private static List<String> splitOutsideQuotes(String query) {
    List<String> parts = new ArrayList<>();
    boolean quoted = false;
    int start = 0;
    for (int i = 0; i < query.length(); i++) {
      char c = query.charAt(i);
      if (c == '"') {
        quoted = !quoted;
      } else if (c == '|' && !quoted) {
        parts.add(query.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(query.substring(start));
    return parts;
  }

  private static final class Parser {
    private final String src;
    private final Map<String, String> row;
    private int pos;

    Parser(String src, Map<String, String> row) {
      this.src = src;
      this.row = row;
    }

    boolean or() {
      boolean left = and();
      while (keyword("or")) {
        boolean right = and();
        left = left || right;
      }
      return left;
    }

    private boolean and() {
      boolean left = atom();
      while (keyword("and")) {
        boolean right = atom();
        left = left && right;
      }
      return left;
    }

    private boolean atom() {
      skipSpaces();
      if (src.charAt(pos) == '(') {
        pos++;
        boolean inner = or();
        skipSpaces();
        expect(')');
        return inner;
      }
      String column = name();
      skipSpaces();
      String op;
      if (src.startsWith("==", pos)) {
        op = "==";
      } else if (keywordAhead("has")) {
        op = "has";
      } else if (keywordAhead("contains")) {
        op = "contains";
      } else {
        throw new IllegalArgumentException("unsupported operator at offset " + pos + ": " + src);
      }
      pos += op.length();
      String literal = string();
      String value = row.getOrDefault(column, "");
      return switch (op) {
        case "==" -> value.equals(literal);
        case "has" -> hasTerm(value, literal);
        default -> value.toLowerCase(Locale.ROOT).contains(literal.toLowerCase(Locale.ROOT));
      };
    }

    private String string() {
      skipSpaces();
      expect('"');
      int end = src.indexOf('"', pos);
      String literal = src.substring(pos, end);
      pos = end + 1;
      return literal;
    }

    private String name() {
      skipSpaces();
      int start = pos;
      while (pos < src.length()
          && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
        pos++;
      }
      if (start == pos) {
        throw new IllegalArgumentException("expected a column at offset " + pos + ": " + src);
      }
      return src.substring(start, pos);
    }

    private boolean keyword(String word) {
      skipSpaces();
      if (keywordAhead(word)) {
        pos += word.length();
        return true;
      }
      return false;
    }

    private boolean keywordAhead(String word) {
      int end = pos + word.length();
      return src.startsWith(word, pos)
          && (end == src.length() || !Character.isLetterOrDigit(src.charAt(end)));
    }

    private void expect(char c) {
      if (pos >= src.length() || src.charAt(pos) != c) {
        throw new IllegalArgumentException("expected '" + c + "' at offset " + pos + ": " + src);
      }
      pos++;
    }

    void skipSpaces() {
      while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) {
        pos++;
      }
    }
  }
}
