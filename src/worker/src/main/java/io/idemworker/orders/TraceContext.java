package io.idemworker.orders;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.IncomingMessage;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The W3C trace context of the message that caused an outbox event, stored on the event so the
 * relay sends it on and consumers join the same trace.
 *
 * @param traceparent a version-00 {@code traceparent}
 * @param tracestate its {@code tracestate}, if the message had one
 */
record TraceContext(String traceparent, Optional<String> tracestate) {
  private static final Pattern TRACEPARENT =
      Pattern.compile("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");
  // W3C: at most 32 list members of printable ASCII; 512 characters is what carriers must keep.
  private static final Pattern TRACESTATE = Pattern.compile("[\\x20-\\x7E]{1,512}");

  TraceContext {
    Objects.requireNonNull(traceparent, "traceparent");
    if (!valid(traceparent)) {
      throw new IllegalArgumentException("not a version-00 traceparent: " + traceparent);
    }
    tracestate = Objects.requireNonNull(tracestate, "tracestate").filter(TraceContext::validState);
  }

  /**
   * The message's trace context: its {@code traceparent} property, else its {@code Diagnostic-Id}
   * (where Service Bus SDKs put the producer's), with {@code tracestate}. A value that is not a
   * version-00 traceparent is not carried (an event must not spread junk to consumers).
   *
   * @param message the message
   * @return the context, or empty when the message carries none
   */
  static Optional<TraceContext> of(IncomingMessage message) {
    return message
        .property("traceparent")
        .or(() -> message.property("Diagnostic-Id"))
        .filter(TraceContext::valid)
        .map(t -> new TraceContext(t, message.property("tracestate")));
  }

  /** Whether {@code traceparent} is a version-00 traceparent. */
  static boolean valid(String traceparent) {
    return TRACEPARENT.matcher(traceparent).matches();
  }

  private static boolean validState(String tracestate) {
    return TRACESTATE.matcher(tracestate).matches();
  }

  /** Puts {@code traceparent} and {@code tracestate} on an outbox event document. */
  void writeTo(ObjectNode event) {
    event.put("traceparent", traceparent);
    tracestate.ifPresent(s -> event.put("tracestate", s));
  }
}
