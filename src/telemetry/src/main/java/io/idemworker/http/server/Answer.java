package io.idemworker.http.server;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One answer as the server writes it. The server adds {@code Cache-Control: no-store} to every
 * answer; {@code Content-Length} follows from the body.
 *
 * @param status the HTTP status, 100–599
 * @param contentType the body's media type
 * @param headers extra headers, in order
 * @param body the body's bytes
 */
public record Answer(int status, String contentType, Map<String, String> headers, byte[] body) {
  /** The media type of every error. */
  public static final String PROBLEM_TYPE = "application/problem+json";

  /** Checks the status and copies the headers in order. */
  public Answer {
    if (status < 100 || status > 599) {
      throw new IllegalArgumentException("not an HTTP status: " + status);
    }
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(body, "body");
    headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
  }

  /**
   * An RFC 9457 problem in the api's shape: {@code type} {@code urn:idemworker:problem:{reason}},
   * {@code title}, {@code status}, {@code detail}, {@code reason}. The texts are the server's own
   * (never a value from the request), so they are written without a JSON library.
   *
   * @param status the status
   * @param reason the reason code, letters only
   * @param title a short summary
   * @param detail this occurrence, without quotes or backslashes
   * @return the answer
   */
  public static Answer problem(int status, String reason, String title, String detail) {
    String json =
        "{\"type\":\"urn:idemworker:problem:%s\",\"title\":\"%s\",\"status\":%d,\"detail\":\"%s\",\"reason\":\"%s\"}"
            .formatted(plain(reason), plain(title), status, plain(detail), plain(reason));
    return new Answer(status, PROBLEM_TYPE, Map.of(), json.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * This answer with one more header.
   *
   * @param name the header
   * @param value its value
   * @return a new answer
   */
  public Answer with(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(name, value);
    return new Answer(status, contentType, more, body);
  }

  private static String plain(String text) {
    if (text.chars().anyMatch(c -> c == '"' || c == '\\' || c < 0x20)) {
      throw new IllegalArgumentException("problem texts are plain: " + text);
    }
    return text;
  }
}
