package io.idemworker.http;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One HTTP request as a route sees it: already routed, authenticated and read within the body
 * limit.
 *
 * @param method the method
 * @param path the decoded path
 * @param headers the headers, names in lower case
 * @param body the body bytes
 * @param principal who sent it: {@code apikey}, the Entra ID principal id, or {@code anonymous}
 */
record ApiRequest(
    String method, String path, Map<String, List<String>> headers, byte[] body, String principal) {

  /** Copies the headers with lower-case names. */
  public ApiRequest {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(principal, "principal");
    Map<String, List<String>> lower = new TreeMap<>();
    headers.forEach(
        (name, values) ->
            lower
                .computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> new java.util.ArrayList<>())
                .addAll(values));
    lower.replaceAll((name, values) -> List.copyOf(values));
    headers = java.util.Collections.unmodifiableMap(lower);
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
}
