package io.idemworker.infra;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A reader for the subset of classic Bicep our templates use: top-level {@code param}, {@code var},
 * {@code output}, {@code resource}, {@code module} and {@code targetScope} declarations whose
 * values are object and array literals down to expressions. Expressions are kept as text; {@link
 * #resolve} follows a bare parameter or variable name to its default or value.
 *
 * <p>It is not a Bicep compiler: it exists so tests can assert what the templates say (the syntax
 * itself is checked by {@code infra/check/check-bicep.sh}). Anything outside the subset fails
 * loudly with {@link IllegalArgumentException} rather than being skipped.
 */
final class Bicep {

  /** A value: an object literal, an array literal, or any other expression as source text. */
  sealed interface Node permits Obj, Arr, Expr {}

  /** An object literal; keys keep their quotes if the source quoted them. */
  record Obj(Map<String, Node> properties) implements Node {
    Optional<Node> at(String dottedPath) {
      Node current = this;
      for (String key : dottedPath.split("\\.")) {
        if (!(current instanceof Obj obj)) {
          return Optional.empty();
        }
        Node next = obj.properties().get(key);
        if (next == null) {
          next = obj.properties().get("'" + key + "'");
        }
        if (next == null) {
          return Optional.empty();
        }
        current = next;
      }
      return Optional.of(current);
    }

    Optional<String> text(String dottedPath) {
      return at(dottedPath).map(Bicep::text);
    }
  }

  /** An array literal. */
  record Arr(List<Node> items) implements Node {}

  /** Any other expression, as trimmed source text without comments. */
  record Expr(String text) implements Node {
    /** The value of a plain string literal (no interpolation), if this is one. */
    Optional<String> string() {
      if (text.length() >= 2
          && text.startsWith("'")
          && text.endsWith("'")
          && !text.contains("${")
          && text.indexOf('\'', 1) == text.length() - 1) {
        return Optional.of(text.substring(1, text.length() - 1));
      }
      return Optional.empty();
    }
  }

  /**
   * One top-level declaration. {@code type} is the resource type, module path or declared type;
   * {@code condition} the text inside a resource's or module's {@code if (…)}; {@code decorators}
   * each decorator's name and the text of its arguments ({@code minLength} → {@code 16}).
   */
  record Declaration(
      String keyword,
      String name,
      String type,
      Optional<Node> value,
      Optional<String> condition,
      Map<String, String> decorators) {
    Declaration(String keyword, String name, String type, Optional<Node> value) {
      this(keyword, name, type, value, Optional.empty(), Map.of());
    }
  }

  /**
   * A parsed file.
   *
   * @param existing the names of the resources declared {@code existing} (references, not deployed
   *     by this template)
   */
  record Template(List<Declaration> declarations, java.util.Set<String> existing) {
    boolean isExisting(Declaration declaration) {
      return existing.contains(declaration.name());
    }

    List<Declaration> all(String keyword) {
      return declarations.stream().filter(d -> d.keyword().equals(keyword)).toList();
    }

    Optional<Declaration> find(String keyword, String name) {
      return all(keyword).stream().filter(d -> d.name().equals(name)).findFirst();
    }

    /** Resources whose type (before the {@code @api-version}) equals {@code type}. */
    List<Declaration> resourcesOfType(String type) {
      return all("resource").stream()
          .filter(d -> d.type().substring(0, d.type().indexOf('@')).equalsIgnoreCase(type))
          .toList();
    }

    Obj body(Declaration declaration) {
      return declaration
          .value()
          .filter(Obj.class::isInstance)
          .map(Obj.class::cast)
          .orElseThrow(
              () -> new IllegalArgumentException(declaration.name() + " has no object body"));
    }

    /**
     * Follows a bare identifier naming a {@code param} (to its default) or a {@code var} (to its
     * value), repeatedly; any other node is returned unchanged.
     */
    Node resolve(Node node) {
      Node current = node;
      for (int hops = 0; hops < 10; hops++) {
        if (!(current instanceof Expr expr) || !IDENTIFIER.matcher(expr.text()).matches()) {
          return current;
        }
        Optional<Declaration> target =
            find("param", expr.text()).or(() -> find("var", expr.text()));
        if (target.isEmpty() || target.get().value().isEmpty()) {
          return current;
        }
        current = target.get().value().get();
      }
      return current;
    }

    String resolvedText(Node node) {
      return text(resolve(node));
    }
  }

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern GUID =
      Pattern.compile(
          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

  private final String src;
  private int pos;
  private final Map<String, String> decorators = new LinkedHashMap<>();
  private Optional<String> pendingCondition = Optional.empty();
  private final java.util.Set<String> existingNames = new java.util.HashSet<>();

  private Bicep(String source) {
    this.src = stripComments(source);
  }

  static Template parse(String source) {
    return new Bicep(source).template();
  }

  /** Source text of a node (objects and arrays rendered compactly, for messages and searches). */
  static String text(Node node) {
    if (node instanceof Expr e) {
      return e.text();
    }
    if (node instanceof Arr a) {
      return a.items().stream().map(Bicep::text).toList().toString();
    }
    StringBuilder sb = new StringBuilder("{");
    ((Obj) node)
        .properties()
        .forEach((k, v) -> sb.append(k).append(": ").append(text(v)).append("; "));
    return sb.append('}').toString();
  }

  /**
   * Every GUID in {@code text} or in the variables and parameters it names, followed transitively.
   */
  static List<String> guidsIn(Template template, String text) {
    List<String> found = new ArrayList<>();
    Matcher m = GUID.matcher(expand(template, text, 5));
    while (m.find()) {
      found.add(m.group().toLowerCase(java.util.Locale.ROOT));
    }
    return found;
  }

  /** {@code text} followed by the values of the variables and parameters it names, recursively. */
  static String expand(Template template, String text, int depth) {
    StringBuilder out = new StringBuilder(text);
    if (depth == 0) {
      return out.toString();
    }
    Matcher names = IDENTIFIER.matcher(text);
    while (names.find()) {
      Node resolved = template.resolve(new Expr(names.group()));
      if (!(resolved instanceof Expr e) || !e.text().equals(names.group())) {
        out.append(' ').append(expand(template, text(resolved), depth - 1));
      }
    }
    return out.toString();
  }

  private Template template() {
    List<Declaration> declarations = new ArrayList<>();
    while (true) {
      skipBlank();
      if (pos >= src.length()) {
        return new Template(List.copyOf(declarations), java.util.Set.copyOf(existingNames));
      }
      if (peek() == '@') {
        pos++;
        String decorator = identifier();
        skipSpaces();
        String args = "";
        if (pos < src.length() && peek() == '(') {
          int start = pos;
          balanced();
          args = src.substring(start + 1, pos - 1).trim().replaceAll("\\s+", " ");
        }
        decorators.put(decorator, args);
        continue;
      }
      String keyword = identifier();
      pendingCondition = Optional.empty();
      Declaration parsed =
          switch (keyword) {
            case "targetScope" -> {
              skipSpaces();
              expect('=');
              yield new Declaration(keyword, keyword, "", Optional.of(value()));
            }
            case "param" -> typedDeclaration(keyword, true);
            case "output" -> typedDeclaration(keyword, false);
            case "var" -> {
              String name = identifier();
              skipSpaces();
              expect('=');
              yield new Declaration(keyword, name, "", Optional.of(value()));
            }
            case "resource", "module" -> resourceOrModule(keyword);
            default ->
                throw new IllegalArgumentException(
                    "unsupported Bicep declaration '" + keyword + "' at offset " + pos);
          };
      declarations.add(
          new Declaration(
              parsed.keyword(),
              parsed.name(),
              parsed.type(),
              parsed.value(),
              pendingCondition,
              Map.copyOf(decorators)));
      decorators.clear();
    }
  }

  private Declaration typedDeclaration(String keyword, boolean defaultOptional) {
    String name = identifier();
    int start = pos;
    while (pos < src.length() && peek() != '=' && peek() != '\n') {
      pos++;
    }
    String type = src.substring(start, pos).trim();
    if (pos < src.length() && peek() == '=') {
      pos++;
      return new Declaration(keyword, name, type, Optional.of(value()));
    }
    if (!defaultOptional) {
      throw new IllegalArgumentException(keyword + " " + name + " has no value");
    }
    return new Declaration(keyword, name, type, Optional.empty());
  }

  private Declaration resourceOrModule(String keyword) {
    String name = identifier();
    skipSpaces();
    String type = stringLiteral();
    skipSpaces();
    if (src.startsWith("existing", pos)) {
      existingNames.add(name);
      pos += "existing".length();
      skipSpaces();
    }
    expect('=');
    skipSpaces();
    if (src.startsWith("if", pos)) {
      pos += 2;
      skipSpaces();
      int start = pos;
      balanced();
      pendingCondition =
          Optional.of(src.substring(start + 1, pos - 1).trim().replaceAll("\\s+", " "));
    }
    return new Declaration(keyword, name, type, Optional.of(value()));
  }

  private Node value() {
    skipSpaces();
    int start = pos;
    if (pos < src.length() && (peek() == '{' || peek() == '[')) {
      Node structured = peek() == '{' ? object() : array();
      int after = pos;
      skipSpaces();
      if (pos >= src.length()
          || peek() == '\n'
          || peek() == ','
          || peek() == '}'
          || peek() == ']') {
        pos = after;
        return structured;
      }
      pos = start;
    }
    return expression();
  }

  private Obj object() {
    expect('{');
    Map<String, Node> properties = new LinkedHashMap<>();
    while (true) {
      skipBlankAndCommas();
      if (peek() == '}') {
        pos++;
        return new Obj(properties);
      }
      String key = peek() == '\'' ? "'" + stringLiteral() + "'" : identifier();
      skipSpaces();
      expect(':');
      if (properties.put(key, value()) != null) {
        throw new IllegalArgumentException("duplicate property " + key + " at offset " + pos);
      }
    }
  }

  private Arr array() {
    expect('[');
    List<Node> items = new ArrayList<>();
    while (true) {
      skipBlankAndCommas();
      if (peek() == ']') {
        pos++;
        return new Arr(items);
      }
      items.add(value());
    }
  }

  /** An expression up to a newline, comma or unmatched closer at nesting depth zero. */
  private Expr expression() {
    int start = pos;
    int depth = 0;
    while (pos < src.length()) {
      char c = peek();
      if (c == '\'') {
        stringLiteral();
        continue;
      }
      if (c == '(' || c == '[' || c == '{') {
        depth++;
      } else if (c == ')' || c == ']' || c == '}') {
        if (depth == 0) {
          break;
        }
        depth--;
      } else if ((c == '\n' || c == ',') && depth == 0) {
        break;
      }
      pos++;
    }
    String text = src.substring(start, pos).trim().replaceAll("\\s+", " ");
    if (text.isEmpty()) {
      throw new IllegalArgumentException("empty expression at offset " + start);
    }
    return new Expr(text);
  }

  /** Skips a bracketed group starting at the current opener, strings included. */
  private void balanced() {
    int depth = 0;
    do {
      char c = peek();
      if (c == '\'') {
        stringLiteral();
        continue;
      }
      if (c == '(' || c == '[' || c == '{') {
        depth++;
      } else if (c == ')' || c == ']' || c == '}') {
        depth--;
      }
      pos++;
    } while (depth > 0 && pos < src.length());
  }

  /** Reads a single-quoted string (with interpolations) and returns its raw content. */
  private String stringLiteral() {
    expect('\'');
    int start = pos;
    while (pos < src.length()) {
      char c = peek();
      if (c == '\\') {
        pos += 2;
      } else if (c == '$' && pos + 1 < src.length() && src.charAt(pos + 1) == '{') {
        pos++;
        balanced();
      } else if (c == '\'') {
        pos++;
        return src.substring(start, pos - 1);
      } else {
        pos++;
      }
    }
    throw new IllegalArgumentException("unterminated string at offset " + start);
  }

  private String identifier() {
    skipSpaces();
    int start = pos;
    while (pos < src.length()
        && (Character.isLetterOrDigit(peek()) || peek() == '_' || peek() == '.')) {
      pos++;
    }
    if (start == pos) {
      throw new IllegalArgumentException(
          "expected a name at offset " + pos + " near: " + near(pos));
    }
    return src.substring(start, pos);
  }

  private void expect(char c) {
    skipSpaces();
    if (pos >= src.length() || peek() != c) {
      throw new IllegalArgumentException(
          "expected '" + c + "' at offset " + pos + " near: " + near(pos));
    }
    pos++;
  }

  private String near(int at) {
    return src.substring(Math.max(0, at - 20), Math.min(src.length(), at + 20));
  }

  private char peek() {
    return src.charAt(pos);
  }

  private void skipSpaces() {
    while (pos < src.length() && (peek() == ' ' || peek() == '\t' || peek() == '\r')) {
      pos++;
    }
  }

  private void skipBlank() {
    while (pos < src.length() && Character.isWhitespace(peek())) {
      pos++;
    }
  }

  private void skipBlankAndCommas() {
    while (pos < src.length() && (Character.isWhitespace(peek()) || peek() == ',')) {
      pos++;
    }
    if (pos >= src.length()) {
      throw new IllegalArgumentException("unexpected end of file");
    }
  }

  /** Blanks out comments, keeping line breaks and string literals (which may contain "//"). */
  static String stripComments(String source) {
    StringBuilder out = new StringBuilder(source.length());
    int i = 0;
    while (i < source.length()) {
      char c = source.charAt(i);
      if (c == '\'') {
        int end = i + 1;
        while (end < source.length() && source.charAt(end) != '\'') {
          end += source.charAt(end) == '\\' ? 2 : 1;
        }
        end = Math.min(end + 1, source.length());
        out.append(source, i, end);
        i = end;
      } else if (source.startsWith("//", i)) {
        while (i < source.length() && source.charAt(i) != '\n') {
          i++;
        }
      } else if (source.startsWith("/*", i)) {
        int end = source.indexOf("*/", i + 2);
        end = end < 0 ? source.length() : end + 2;
        for (int k = i; k < end; k++) {
          out.append(source.charAt(k) == '\n' ? '\n' : ' ');
        }
        i = end;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }
}
