package io.idemworker.core;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link MessageDecoder} that hands each message to the decoder registered for its {@code
 * Subject}, the message type. Every type on one queue shares the flow; only the decoder and the
 * {@link Change} it declares differ.
 *
 * <p>A message without a {@code Subject}, with one no decoder is registered for, or with a content
 * type that is not JSON is dead-lettered as {@code UnsupportedMessage}, naming the subjects
 * handled: with several types on a queue, guessing the type of an unlabelled message could apply it
 * as the wrong one.
 *
 * <p>Thread-safe and stateless once built.
 */
public final class SubjectRouter implements MessageDecoder {
  private final Map<String, MessageDecoder> bySubject;

  /**
   * Creates the router.
   *
   * @param bySubject a decoder per subject, in the order they are listed in descriptions
   */
  public SubjectRouter(Map<String, MessageDecoder> bySubject) {
    if (bySubject.isEmpty()) {
      throw new IllegalArgumentException("a router needs at least one subject");
    }
    this.bySubject = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(bySubject));
  }

  @Override
  public Decoding decode(IncomingMessage message) {
    Optional<String> subject = message.subject().filter(s -> !s.isBlank());
    if (subject.isEmpty()) {
      return unsupported("Subject is missing; it names the message type, one of " + subjects());
    }
    MessageDecoder decoder = bySubject.get(subject.get());
    if (decoder == null) {
      return unsupported("Subject must be one of " + subjects() + " for this consumer");
    }
    if (message.contentType().filter(type -> !isJson(type)).isPresent()) {
      return unsupported("ContentType must be application/json");
    }
    return decoder.decode(message);
  }

  private String subjects() {
    return String.join(", ", bySubject.keySet());
  }

  private static Decoding unsupported(String description) {
    return new Invalid(DeadLetterReason.UNSUPPORTED_MESSAGE, description, Optional.empty());
  }

  private static boolean isJson(String contentType) {
    String type = contentType.toLowerCase(Locale.ROOT).split(";", 2)[0].trim();
    return type.equals("application/json") || type.endsWith("+json");
  }
}
