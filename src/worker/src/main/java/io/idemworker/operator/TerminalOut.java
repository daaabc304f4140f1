package io.idemworker.operator;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * An operator's terminal output that sender-chosen text cannot drive: MessageIds, Subjects,
 * dead-letter descriptions (which embed field names from the body) and bodies reach it through
 * {@code printf} arguments, which are escaped whole — C0 controls (ESC, BEL, CR, LF, TAB …), DEL,
 * C1 controls (CSI, OSC as single bytes) and the bidirectional overrides become visible {@code
 * \xNN} / {@code \\uNNNN} / {@code \n} text, so no value can colour, retitle or rewrite the screen
 * or fake a line. Text printed with {@code println}/{@code print} keeps its line breaks (multi-line
 * JSON, whose strings Jackson already escapes) and loses every other control. Numbers pass as they
 * are. Thread-safe as {@link PrintStream} is.
 */
final class TerminalOut extends PrintStream {

  private TerminalOut(PrintStream target) {
    super(target, true, StandardCharsets.UTF_8);
  }

  /**
   * Wraps a stream, once.
   *
   * @param target where the text goes
   * @return an escaping stream
   */
  static PrintStream of(PrintStream target) {
    return target instanceof TerminalOut ? target : new TerminalOut(target);
  }

  /**
   * The text with every control character made visible.
   *
   * @param text any text
   * @param keepLineBreaks whether {@code \n} stays a line break
   * @return text safe to print on a terminal
   */
  static String escape(String text, boolean keepLineBreaks) {
    StringBuilder safe = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      String replacement = replacement(c, keepLineBreaks);
      if (replacement != null && safe == null) {
        safe = new StringBuilder(text.length() + 16).append(text, 0, i);
      }
      if (safe != null) {
        safe.append(replacement != null ? replacement : String.valueOf(c));
      }
    }
    return safe == null ? text : safe.toString();
  }

  private static String replacement(char c, boolean keepLineBreaks) {
    if (c == '\n') {
      return keepLineBreaks ? null : "\\n";
    }
    if (c == '\r') {
      return "\\r";
    }
    if (c == '\t') {
      return "\\t";
    }
    if (c < 0x20 || c == 0x7F) {
      return String.format("\\x%02x", (int) c);
    }
    if ((c >= 0x80 && c <= 0x9F)
        || (c >= 0x202A && c <= 0x202E)
        || (c >= 0x2066 && c <= 0x2069)
        || c == 0x200E
        || c == 0x200F) {
      return String.format("\\u%04x", (int) c);
    }
    return null;
  }

  private static Object[] escaped(Object[] args) {
    if (args == null) {
      return null;
    }
    Object[] safe = new Object[args.length];
    for (int i = 0; i < args.length; i++) {
      Object arg = args[i];
      safe[i] =
          arg == null || arg instanceof Number || arg instanceof Boolean
              ? arg
              : escape(String.valueOf(arg), false);
    }
    return safe;
  }

  @Override
  public PrintStream format(String format, Object... args) {
    return super.format(format, escaped(args));
  }

  @Override
  public PrintStream format(Locale l, String format, Object... args) {
    return super.format(l, format, escaped(args));
  }

  @Override
  public PrintStream printf(String format, Object... args) {
    return format(format, args);
  }

  @Override
  public PrintStream printf(Locale l, String format, Object... args) {
    return format(l, format, args);
  }

  @Override
  public void print(String s) {
    super.print(s == null ? null : escape(s, true));
  }

  @Override
  public void println(String x) {
    super.println(x == null ? null : escape(x, true));
  }

  @Override
  public void println(Object x) {
    println(String.valueOf(x));
  }
}
