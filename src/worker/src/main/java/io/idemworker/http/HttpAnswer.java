package io.idemworker.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One HTTP answer of the api: a status, extra headers and a JSON body. {@link #toJson} and {@link
 * #fromJson} are the form an answer is stored in for replay, so a replay is the same status, the
 * same headers and the same body bytes.
 *
 * @param status the HTTP status code
 * @param contentType {@code application/json} or {@code application/problem+json}
 * @param headers extra response headers (e.g. {@code Location}, {@code Retry-After}), in order
 * @param body the JSON body
 */
record HttpAnswer(int status, String contentType, Map<String, String> headers, JsonNode body) {
  static final String JSON_TYPE = "application/json";
  static final String PROBLEM_TYPE = "application/problem+json";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Checks the status and copies the headers in order. */
  public HttpAnswer {
    if (status < 100 || status > 599) {
      throw new IllegalArgumentException("not an HTTP status: " + status);
    }
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(body, "body");
    headers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));
  }

  /**
   * A JSON answer without extra headers.
   *
   * @param status the status
   * @param body the body
   * @return the answer
   */
  static HttpAnswer json(int status, JsonNode body) {
    return new HttpAnswer(status, JSON_TYPE, Map.of(), body);
  }

  /**
   * An RFC 9457 problem: {@code type} {@code urn:idemworker:problem:{reason}}, {@code title},
   * {@code status}, {@code detail} and the {@code reason} code as an extension member. The detail
   * names fields and rules, never values.
   *
   * @param status the status
   * @param reason the reason code, e.g. {@code SchemaViolation}
   * @param title a short summary of the problem type
   * @param detail this occurrence
   * @return the answer
   */
  static HttpAnswer problem(int status, String reason, String title, String detail) {
    ObjectNode body = JSON.createObjectNode();
    body.put("type", "urn:idemworker:problem:" + reason);
    body.put("title", title);
    body.put("status", status);
    body.put("detail", detail);
    body.put("reason", reason);
    return new HttpAnswer(status, PROBLEM_TYPE, Map.of(), body);
  }

  /**
   * This answer with one more header.
   *
   * @param name the header
   * @param value its value
   * @return a new answer
   */
  HttpAnswer with(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(name, value);
    return new HttpAnswer(status, contentType, more, body);
  }

  /**
   * The stored form.
   *
   * @return {@code {status, contentType, headers, body}}
   */
  ObjectNode toJson() {
    ObjectNode stored = JSON.createObjectNode();
    stored.put("status", status);
    stored.put("contentType", contentType);
    ObjectNode names = stored.putObject("headers");
    headers.forEach(names::put);
    stored.set("body", body.deepCopy());
    return stored;
  }

  /**
   * Reads the stored form back.
   *
   * @param stored what {@link #toJson} wrote
   * @return the answer
   * @throws IllegalArgumentException when the stored form is not one
   */
  static HttpAnswer fromJson(JsonNode stored) {
    if (!stored.path("status").canConvertToInt()
        || !stored.path("contentType").isTextual()
        || !stored.has("body")) {
      throw new IllegalArgumentException("not a stored answer");
    }
    Map<String, String> headers = new LinkedHashMap<>();
    stored
        .path("headers")
        .properties()
        .forEach(h -> headers.put(h.getKey(), h.getValue().asText()));
    return new HttpAnswer(
        stored.get("status").intValue(),
        stored.get("contentType").asText(),
        headers,
        stored.get("body"));
  }

  /**
   * The body's bytes.
   *
   * @return compact JSON
   */
  byte[] bodyBytes() {
    try {
      return JSON.writeValueAsBytes(body);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serialises", e);
    }
  }
}
