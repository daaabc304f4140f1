package io.idemworker.telemetry;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What telemetry calls the business entity a message changes (the id a decoder reports as {@link
 * io.idemworker.core.MessageDecoder.ValidMessage#entityId()}), so that an application's spans, log
 * lines and session metrics use its own words and the library none of its own.
 *
 * @param entitySpanAttribute the span attribute that carries the entity id, e.g. {@code
 *     idemworker.entity_id}
 * @param entityLogField the field of each outcome line that carries it, e.g. {@code entityId}
 * @param sessionEntities the plural noun in session mode's metric names for parked sessions: {@code
 *     idemworker.sessions.<sessionEntities>.parked} and so on; a lower-case word
 */
public record TelemetryNames(
    String entitySpanAttribute, String entityLogField, String sessionEntities) {
  private static final Pattern ATTRIBUTE = Pattern.compile("[a-z][a-z0-9_.]{0,99}");
  private static final Pattern FIELD = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
  private static final Pattern NOUN = Pattern.compile("[a-z][a-z0-9_]{0,31}");

  /** Checks each name's shape, naming the one that is wrong. */
  public TelemetryNames {
    check("entitySpanAttribute", entitySpanAttribute, ATTRIBUTE);
    check("entityLogField", entityLogField, FIELD);
    check("sessionEntities", sessionEntities, NOUN);
  }

  /**
   * The library's own names: span attribute {@code idemworker.entity_id}, log field {@code
   * entityId}, metrics {@code idemworker.sessions.entities.parked} and so on.
   *
   * @return the defaults
   */
  public static TelemetryNames defaults() {
    return new TelemetryNames("idemworker.entity_id", "entityId", "entities");
  }

  private static void check(String name, String value, Pattern shape) {
    Objects.requireNonNull(value, name);
    if (!shape.matcher(value).matches()) {
      throw new IllegalArgumentException(
          name + " must match " + shape.pattern() + ", was " + value);
    }
  }
}
