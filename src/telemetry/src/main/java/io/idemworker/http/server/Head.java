package io.idemworker.http.server;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * A request's head, as the server parsed it (Jetty's parser, RFC 9110 compliance).
 *
 * @param method the method
 * @param path the decoded path
 * @param headers the headers, names in lower case, values in order
 * @param client the remote address (without port)
 */
public record Head(String method, String path, Map<String, List<String>> headers, String client) {
  /** Copies the headers with lower-case names. */
  public Head {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(client, "client");
    Map<String, List<String>> lower = new TreeMap<>();
    headers.forEach(
        (name, values) ->
            lower
                .computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> new ArrayList<>())
                .addAll(values));
    lower.replaceAll((name, values) -> List.copyOf(values));
    headers = Collections.unmodifiableMap(lower);
  }

  /**
   * Every value of a header.
   *
   * @param name the header, any case
   * @return its values; empty when absent
   */
  public List<String> header(String name) {
    return headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
  }

  /**
   * The one value of a header.
   *
   * @param name the header, any case
   * @return the value when the header appears exactly once
   */
  public Optional<String> single(String name) {
    List<String> values = header(name);
    return values.size() == 1 ? Optional.of(values.get(0)) : Optional.empty();
  }

  /**
   * The declared body length; the server's parser has already refused a malformed one.
   *
   * @return the length, or empty when the body is chunked or absent
   */
  public OptionalLong contentLength() {
    return single("Content-Length")
        .map(v -> OptionalLong.of(Long.parseLong(v.strip())))
        .orElse(OptionalLong.empty());
  }
}
