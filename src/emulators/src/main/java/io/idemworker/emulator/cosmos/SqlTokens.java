package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Splits a Cosmos DB SQL text into tokens for {@link SqlParser}: names, keywords (any case),
 * numbers, strings in single or double quotes with JSON escapes, {@code @parameters} and symbols;
 * {@code --} comments are skipped. A character outside the dialect is a 400 naming it. Stateless.
 */
final class SqlTokens {
  private static final Set<String> KEYWORDS =
      Set.of(
          "SELECT",
          "TOP",
          "VALUE",
          "FROM",
          "WHERE",
          "AND",
          "OR",
          "NOT",
          "ORDER",
          "BY",
          "ASC",
          "DESC",
          "OFFSET",
          "LIMIT",
          "AS",
          "TRUE",
          "FALSE",
          "NULL",
          "UNDEFINED",
          "JOIN",
          "IN",
          "BETWEEN",
          "GROUP",
          "DISTINCT",
          "LIKE",
          "EXISTS",
          "ARRAY");

  private SqlTokens() {}

  static List<Token> tokenize(String text) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    int n = text.length();
    while (i < n) {
      char ch = text.charAt(i);
      if (Character.isWhitespace(ch)) {
        i++;
      } else if (ch == '-' && i + 1 < n && text.charAt(i + 1) == '-') {
        while (i < n && text.charAt(i) != '\n') {
          i++;
        }
      } else if (Character.isLetter(ch) || ch == '_') {
        int start = i;
        while (i < n && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_')) {
          i++;
        }
        String word = text.substring(start, i);
        String upper = word.toUpperCase(Locale.ROOT);
        out.add(
            KEYWORDS.contains(upper)
                ? new Token(Kind.KEYWORD, upper, word, null, start, i)
                : new Token(Kind.IDENTIFIER, word, word, null, start, i));
      } else if (ch == '@') {
        int start = i++;
        while (i < n && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_')) {
          i++;
        }
        if (i == start + 1) {
          throw CosmosError.badRequest("Syntax error: '@' must be followed by a parameter name.");
        }
        String name = text.substring(start, i);
        out.add(new Token(Kind.PARAMETER, name, name, null, start, i));
      } else if (Character.isDigit(ch)
          || (ch == '.' && i + 1 < n && Character.isDigit(text.charAt(i + 1)))) {
        int start = i;
        while (i < n && (Character.isDigit(text.charAt(i)) || text.charAt(i) == '.')) {
          i++;
        }
        if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
          i++;
          if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
            i++;
          }
          while (i < n && Character.isDigit(text.charAt(i))) {
            i++;
          }
        }
        String raw = text.substring(start, i);
        out.add(new Token(Kind.NUMBER, raw, raw, number(raw), start, i));
      } else if (ch == '\'' || ch == '"') {
        int start = i;
        StringBuilder sb = new StringBuilder();
        i++;
        while (true) {
          if (i >= n) {
            throw CosmosError.badRequest("Syntax error: a string literal is not closed.");
          }
          char c = text.charAt(i++);
          if (c == ch) {
            break;
          }
          if (c == '\\') {
            if (i >= n) {
              throw CosmosError.badRequest("Syntax error: a string literal is not closed.");
            }
            char e = text.charAt(i++);
            switch (e) {
              case 'n' -> sb.append('\n');
              case 't' -> sb.append('\t');
              case 'r' -> sb.append('\r');
              case 'b' -> sb.append('\b');
              case 'f' -> sb.append('\f');
              case 'u' -> {
                if (i + 4 > n) {
                  throw CosmosError.badRequest("Syntax error: a \\u escape needs 4 hex digits.");
                }
                try {
                  sb.append((char) Integer.parseInt(text.substring(i, i + 4), 16));
                } catch (NumberFormatException ex) {
                  throw CosmosError.badRequest("Syntax error: a \\u escape needs 4 hex digits.");
                }
                i += 4;
              }
              default -> sb.append(e);
            }
          } else {
            sb.append(c);
          }
        }
        out.add(
            new Token(
                Kind.STRING,
                sb.toString(),
                text.substring(start, i),
                TextNode.valueOf(sb.toString()),
                start,
                i));
      } else {
        String two = i + 1 < n ? text.substring(i, i + 2) : "";
        if (Set.of("!=", "<>", "<=", ">=", "||", "??").contains(two)) {
          out.add(new Token(Kind.SYMBOL, two, two, null, i, i + 2));
          i += 2;
        } else if ("=<>.,()[]{}*+-/%?:&|^!".indexOf(ch) >= 0) {
          out.add(new Token(Kind.SYMBOL, String.valueOf(ch), String.valueOf(ch), null, i, i + 1));
          i++;
        } else {
          throw CosmosError.badRequest("Syntax error, unexpected character '" + ch + "'.");
        }
      }
    }
    return out;
  }

  private static JsonNode number(String raw) {
    try {
      BigDecimal d = new BigDecimal(raw);
      if (raw.indexOf('.') < 0 && raw.indexOf('e') < 0 && raw.indexOf('E') < 0) {
        return LongNode.valueOf(d.longValueExact());
      }
      return DoubleNode.valueOf(d.doubleValue());
    } catch (ArithmeticException | NumberFormatException e) {
      throw CosmosError.badRequest("Syntax error: '" + raw + "' is not a valid number.");
    }
  }

  enum Kind {
    IDENTIFIER,
    KEYWORD,
    NUMBER,
    STRING,
    PARAMETER,
    SYMBOL,
    END
  }

  /**
   * One token; {@code text} is upper-cased for keywords, decoded for strings; {@code start} and
   * {@code end} are its character offsets in the query text.
   */
  record Token(Kind kind, String text, String raw, JsonNode value, int start, int end) {}
}
