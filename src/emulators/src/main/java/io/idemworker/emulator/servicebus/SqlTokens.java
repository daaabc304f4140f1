package io.idemworker.emulator.servicebus;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/** Splits a {@link SqlFilter} expression into tokens. Stateless. */
final class SqlTokens {
  private SqlTokens() {}

  enum Kind {
    WORD,
    STRING,
    NUMBER,
    SYMBOL,
    END
  }

  record Token(Kind kind, String text, int position) {
    boolean is(String keyword) {
      return (kind == Kind.WORD || kind == Kind.SYMBOL) && text.equalsIgnoreCase(keyword);
    }
  }

  static List<Token> tokenize(String s) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '\'') {
        StringBuilder text = new StringBuilder();
        int start = i++;
        while (true) {
          if (i >= s.length()) {
            throw tokenError(s, start, "unterminated string");
          }
          char d = s.charAt(i++);
          if (d == '\'') {
            if (i < s.length() && s.charAt(i) == '\'') {
              text.append('\'');
              i++;
            } else {
              break;
            }
          } else {
            text.append(d);
          }
        }
        out.add(new Token(Kind.STRING, text.toString(), start));
      } else if (Character.isDigit(c) || (c == '.' && i + 1 < s.length() && isDigit(s, i + 1))) {
        int start = i;
        while (i < s.length() && (isDigit(s, i) || s.charAt(i) == '.')) {
          i++;
        }
        if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
          i++;
          if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            i++;
          }
          while (i < s.length() && isDigit(s, i)) {
            i++;
          }
        }
        String text = s.substring(start, i);
        try {
          new BigDecimal(text);
        } catch (NumberFormatException e) {
          throw tokenError(s, start, "bad number " + text);
        }
        out.add(new Token(Kind.NUMBER, text, start));
      } else if (Character.isLetter(c) || c == '_' || c == '[') {
        int start = i;
        i = word(s, i);
        if (i < s.length() && s.charAt(i) == '.' && i + 1 < s.length()) {
          i = word(s, i + 1);
        }
        out.add(new Token(Kind.WORD, s.substring(start, i), start));
      } else {
        int start = i;
        String two = i + 1 < s.length() ? s.substring(i, i + 2) : "";
        if (two.equals("<>") || two.equals("!=") || two.equals("<=") || two.equals(">=")) {
          out.add(new Token(Kind.SYMBOL, two, start));
          i += 2;
        } else if ("=<>(),+-*/%".indexOf(c) >= 0) {
          out.add(new Token(Kind.SYMBOL, String.valueOf(c), start));
          i++;
        } else {
          throw tokenError(s, start, "unexpected character '" + c + "'");
        }
      }
    }
    out.add(new Token(Kind.END, "", s.length()));
    return out;
  }

  /** Reads a name or a [bracketed name] from {@code i}; returns the index after it. */
  private static int word(String s, int i) {
    if (s.charAt(i) == '[') {
      int close = s.indexOf(']', i);
      if (close < 0) {
        throw tokenError(s, i, "unterminated [name]");
      }
      return close + 1;
    }
    while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_')) {
      i++;
    }
    return i;
  }

  private static boolean isDigit(String s, int i) {
    return Character.isDigit(s.charAt(i));
  }

  private static IllegalArgumentException tokenError(String s, int position, String message) {
    return new IllegalArgumentException(
        "SQL filter '" + s + "' at position " + (position + 1) + ": " + message);
  }
}
