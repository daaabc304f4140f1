package io.idemworker.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.DeliveryOrigin;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.relay.RelayProgress;
import io.idemworker.servicebus.deadletter.DeadLetterReader;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * What {@code explain} found about one message or order, and its two renderings: a short text
 * timeline for people and a JSON document for scripts. Documents are summarised field by field;
 * payloads (outbox event payloads, dead-lettered bodies) are never shown.
 *
 * @param query the id asked about
 * @param orderId the order (partition) that was read
 * @param resolvedBy how the order id was found
 * @param documents every document in the order's partition
 * @param deadLetters dead-lettered copies of the message or of others for the same order
 * @param relay what the relay did with each outbox event, read from its checkpoint
 * @param problems what could not be read, or was read only in part
 */
record Explanation(
    String query,
    String orderId,
    String resolvedBy,
    List<JsonNode> documents,
    List<DeadLetterReader.DeadLetter> deadLetters,
    Function<JsonNode, RelayProgress.State> relay,
    List<String> problems) {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** Copies the lists. */
  Explanation {
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(orderId, "orderId");
    Objects.requireNonNull(resolvedBy, "resolvedBy");
    documents = List.copyOf(documents);
    deadLetters = List.copyOf(deadLetters);
    Objects.requireNonNull(relay, "relay");
    problems = List.copyOf(problems);
  }

  /**
   * Whether anything at all was found.
   *
   * @return true when a document or a dead-lettered copy was found
   */
  boolean found() {
    return !documents.isEmpty() || !deadLetters.isEmpty();
  }

  private Optional<JsonNode> order() {
    return ofType("order").stream().findFirst();
  }

  private List<JsonNode> ofType(String type) {
    return documents.stream().filter(d -> type.equals(d.path("type").asText())).toList();
  }

  /** Whether a document records the effect of the message asked about. */
  private boolean matches(JsonNode document) {
    for (String field : List.of("messageId", "creditId", "paymentRequestId", "causationId")) {
      if (query.equals(document.path(field).asText(null))) {
        return true;
      }
    }
    String key = document.path("key").asText("");
    return key.equals(query) || key.endsWith(":" + query);
  }

  /**
   * The JSON rendering (field names are the contract for scripts; see docs/operations.md).
   *
   * @param clock now, for the markers' TTL left
   * @return the document
   */
  ObjectNode toJson(Clock clock) {
    ObjectNode root = JSON.objectNode();
    root.put("query", query);
    root.put("orderId", orderId);
    root.put("resolvedBy", resolvedBy);
    root.put("found", found());
    root.set("order", order().<JsonNode>map(this::orderJson).orElse(JSON.nullNode()));
    root.put("lines", order().map(o -> o.path("lines").size()).orElse(0));
    ArrayNode markers = root.putArray("markers");
    ofType("inbox").forEach(m -> markers.add(markerJson(m, clock)));
    ArrayNode payments = root.putArray("payments");
    ofType("payment").forEach(p -> payments.add(paymentJson(p)));
    ArrayNode outbox = root.putArray("outbox");
    ofType("outbox").forEach(e -> outbox.add(outboxJson(e)));
    ArrayNode copies = root.putArray("deadLetters");
    deadLetters.forEach(d -> copies.add(deadLetterJson(d)));
    ArrayNode timeline = root.putArray("timeline");
    for (Event event : timeline(clock)) {
      ObjectNode entry = timeline.addObject();
      entry.put("at", event.at().map(Instant::toString).orElse(null));
      entry.put("event", event.text());
    }
    ArrayNode notes = root.putArray("problems");
    problems.forEach(notes::add);
    return root;
  }

  /** The fields every order has, then those each message type writes, in contract order. */
  private static final List<String> ORDER_FIELDS =
      Stream.concat(
              Stream.of(
                  "id",
                  "acceptedAt",
                  "messageId",
                  "idempotencyKey",
                  "correlationId",
                  "fingerprint",
                  DeliveryOrigin.FIELD,
                  "statusVersionWrittenBy"),
              OrderMessageTypes.TYPES.stream().flatMap(type -> type.orderFields().stream()))
          .toList();

  private ObjectNode orderJson(JsonNode order) {
    ObjectNode node = JSON.objectNode();
    for (String field : ORDER_FIELDS) {
      if (order.has(field)) {
        node.set(field, order.get(field));
      }
    }
    node.put("matches", matches(order));
    return node;
  }

  private ObjectNode markerJson(JsonNode marker, Clock clock) {
    ObjectNode node = JSON.objectNode();
    copy(
        marker,
        node,
        "id",
        "consumer",
        "key",
        "messageType",
        "creditId",
        "processedAt",
        "ttl",
        DeliveryOrigin.FIELD);
    expiry(marker)
        .ifPresentOrElse(
            at -> {
              node.put("expiresAt", at.toString());
              node.put(
                  "ttlLeftSeconds", Math.max(0, Duration.between(clock.instant(), at).toSeconds()));
            },
            () -> {
              node.putNull("expiresAt");
              node.putNull("ttlLeftSeconds");
            });
    node.put("matches", matches(marker));
    return node;
  }

  private ObjectNode paymentJson(JsonNode payment) {
    ObjectNode node = JSON.objectNode();
    copy(
        payment,
        node,
        "id",
        "paymentRequestId",
        "status",
        "attempt",
        "amount",
        "currency",
        "claimedAt",
        "completedAt",
        DeliveryOrigin.FIELD);
    leaseUntil(payment).ifPresent(at -> node.put("leaseUntil", at.toString()));
    JsonNode result = payment.path("result");
    if (result.isObject() && result.has("result")) {
      node.set("result", result.get("result"));
    }
    node.put("matches", matches(payment));
    return node;
  }

  private ObjectNode outboxJson(JsonNode event) {
    ObjectNode node = JSON.objectNode();
    copy(event, node, "id", "eventType", "causationId", "createdAt", "publishedAt");
    RelayProgress.State state = relay.apply(event);
    node.put("relay", state.name().toLowerCase(Locale.ROOT));
    node.put("published", state == RelayProgress.State.PUBLISHED);
    return node;
  }

  private ObjectNode deadLetterJson(DeadLetterReader.DeadLetter copy) {
    ObjectNode node = JSON.objectNode();
    node.put("entity", copy.source().label());
    node.put("sequenceNumber", copy.sequenceNumber());
    node.put("messageId", copy.messageId().orElse(null));
    node.put("subject", copy.subject().orElse(null));
    node.put("reason", copy.reason());
    node.put("description", copy.description().orElse(null));
    node.put("enqueuedAt", copy.enqueuedAt().toString());
    node.put("deliveryCount", copy.deliveryCount());
    node.put("matches", copy.messageId().filter(query::equals).isPresent());
    return node;
  }

  private static void copy(JsonNode from, ObjectNode to, String... fields) {
    for (String field : fields) {
      if (from.has(field)) {
        to.set(field, from.get(field));
      }
    }
  }

  /**
   * Prints the text rendering.
   *
   * @param out where to print
   * @param clock now, for the markers' TTL left
   */
  void print(PrintStream out, Clock clock) {
    out.printf("%s: order %s (%s)%n", query, orderId, resolvedBy);
    order()
        .ifPresentOrElse(
            o -> {
              out.printf(
                  "order     accepted %s from message %s, fingerprint %s%n",
                  o.path("acceptedAt").asText("?"),
                  o.path("messageId").asText(o.path("idempotencyKey").asText("?")),
                  shortFingerprint(o.path("fingerprint")));
              out.printf("          written by %s%n", writer(o.get(DeliveryOrigin.FIELD)));
              out.printf(
                  "          customer %s, %s %s, %d line(s)%n",
                  o.path("customerId").asText("?"),
                  o.path("currency").asText("?"),
                  o.path("total").asText("?"),
                  o.path("lines").size());
              if (o.has("status")) {
                out.printf(
                    "status    %s (version %s) since %s; earlier statuses are not stored%n",
                    o.path("status").asText(),
                    o.path("statusVersion").asText("?"),
                    o.path("statusChangedAt").asText("?"));
                out.printf("          written by %s%n", writer(o.get("statusVersionWrittenBy")));
              }
              if (o.has("creditCount")) {
                out.printf(
                    "credits   %s credit(s), creditedUnits %s (units of 0.0001)%n",
                    o.path("creditCount").asText(), o.path("creditedUnits").asText("0"));
              }
              if (o.has("paymentStatus") || o.has("amountPaidUnits")) {
                out.printf(
                    "payments  paymentStatus %s, amountPaidUnits %s%n",
                    o.path("paymentStatus").asText("?"), o.path("amountPaidUnits").asText("0"));
              }
            },
            () -> out.printf("order     not in Cosmos DB%n"));
    section(out, "markers", ofType("inbox"), m -> markerLine(m, clock));
    section(out, "payment records", ofType("payment"), this::paymentLine);
    section(out, "outbox", ofType("outbox"), this::outboxLine);
    section(out, "dead-lettered", deadLetters, this::deadLetterLine);
    out.println("timeline");
    for (Event event : timeline(clock)) {
      out.printf(
          "  %-30s %s%n", event.at().map(Instant::toString).orElse("(no time)"), event.text());
    }
    problems.forEach(p -> out.printf("note: %s%n", p));
  }

  private static <T> void section(
      PrintStream out, String title, List<T> items, java.util.function.Function<T, String> line) {
    if (items.isEmpty()) {
      return;
    }
    out.println(title);
    items.forEach(item -> out.printf("  %s%n", line.apply(item)));
  }

  private String markerLine(JsonNode marker, Clock clock) {
    return String.format(
        "%s%s  %s, processed %s, %s; written by %s",
        marker.path("id").asText(),
        matches(marker) ? " (this message)" : "",
        marker.path("messageType").asText("?"),
        marker.path("processedAt").asText("?"),
        expiry(marker)
            .map(at -> "TTL left " + human(Duration.between(clock.instant(), at)))
            .orElse("never expires"),
        writer(marker.get(DeliveryOrigin.FIELD)));
  }

  private String paymentLine(JsonNode payment) {
    JsonNode result = payment.path("result");
    return String.format(
        "%s%s  %s, attempt %s%s%s; last claimed by %s",
        payment.path("id").asText(),
        matches(payment) ? " (this message)" : "",
        payment.path("status").asText("?"),
        payment.path("attempt").asText("?"),
        leaseUntil(payment)
            .filter(at -> !"Completed".equals(payment.path("status").asText()))
            .map(at -> ", lease until " + at)
            .orElse(""),
        result.isObject() && result.has("result")
            ? ", result " + result.get("result").asText()
            : "",
        writer(payment.get(DeliveryOrigin.FIELD)));
  }

  /**
   * The delivery that wrote a document, from its stamp: what a later duplicate is compared with. A
   * copy with the same sequence number is a redelivery; another copy enqueued after the lock's end
   * is a resend; one enqueued before it was concurrent.
   */
  static String writer(JsonNode stamp) {
    return DeliveryOrigin.read(stamp)
        .map(
            written -> {
              DeliveryOrigin origin = written.origin();
              StringBuilder text =
                  new StringBuilder("delivery seq ")
                      .append(origin.sequenceNumber())
                      .append(" (deliveryCount ")
                      .append(origin.deliveryCount())
                      .append(", enqueued ")
                      .append(origin.enqueuedTime())
                      .append(", locked until ")
                      .append(origin.lockedUntil())
                      .append(", wrote after ")
                      .append(written.writtenAfter().toMillis())
                      .append(" ms");
              if (origin.via() != DeliveryOrigin.Via.SEND) {
                text.append(", via ").append(origin.via().label());
              }
              if (origin.producerAttempt() > 0) {
                text.append(", producer attempt ").append(origin.producerAttempt());
              }
              return text.append(')').toString();
            })
        .orElse("an unstamped delivery (written before stamps, or origin unknown)");
  }

  private String outboxLine(JsonNode event) {
    RelayProgress.State state = relay.apply(event);
    String progress =
        switch (state) {
          case PUBLISHED ->
              "published by the relay"
                  + (event.has("publishedAt") ? " at " + event.get("publishedAt").asText() : "");
          case SENDING -> "being sent by the relay (its checkpoint not yet past it)";
          case PENDING -> "not yet published (pending)";
          case UNPUBLISHABLE -> "unpublishable: " + event.path("unpublishableReason").asText("?");
          case UNKNOWN -> "not known (the relay's backlog is longer than explain reads)";
        };
    return String.format(
        "%s  %s, %s, caused by %s",
        event.path("id").asText(),
        event.path("eventType").asText("?"),
        progress,
        event.path("causationId").asText("?"));
  }

  private String deadLetterLine(DeadLetterReader.DeadLetter copy) {
    return String.format(
        "%s/$deadletterqueue  %s%s  %s  %s: %s",
        copy.source().label(),
        copy.messageId().orElse("(no MessageId)"),
        copy.messageId().filter(query::equals).isPresent() ? " (this message)" : "",
        copy.subject().orElse("(no Subject)"),
        copy.reason().isEmpty() ? "(no reason)" : copy.reason(),
        copy.description().orElse(""));
  }

  private record Event(Optional<Instant> at, String text) {}

  private List<Event> timeline(Clock clock) {
    List<Event> events = new ArrayList<>();
    order()
        .ifPresent(
            o -> {
              events.add(
                  new Event(
                      instant(o.path("acceptedAt")),
                      "order accepted from message "
                          + o.path("messageId").asText(o.path("idempotencyKey").asText("?"))
                          + ", fingerprint "
                          + shortFingerprint(o.path("fingerprint"))));
              if (o.has("statusChangedAt")) {
                events.add(
                    new Event(
                        instant(o.path("statusChangedAt")),
                        "status "
                            + o.path("status").asText()
                            + " (version "
                            + o.path("statusVersion").asText("?")
                            + ", at the message's changedAt)"));
              }
            });
    for (JsonNode marker : ofType("inbox")) {
      events.add(
          new Event(
              instant(marker.path("processedAt")),
              marker.path("messageType").asText("message")
                  + " "
                  + marker.path("key").asText("?")
                  + " applied; marker "
                  + expiry(marker)
                      .map(
                          at ->
                              "expires "
                                  + at
                                  + " ("
                                  + human(Duration.between(clock.instant(), at))
                                  + " left)")
                      .orElse("never expires")));
    }
    for (JsonNode payment : ofType("payment")) {
      events.add(
          new Event(
              instant(payment.path("claimedAt")),
              "payment " + payment.path("paymentRequestId").asText("?") + " claimed"));
      if (payment.has("completedAt")) {
        events.add(
            new Event(
                instant(payment.path("completedAt")),
                "payment "
                    + payment.path("paymentRequestId").asText("?")
                    + " completed: "
                    + payment.path("result").path("result").asText("?")));
      }
    }
    for (JsonNode event : ofType("outbox")) {
      events.add(
          new Event(
              instant(event.path("createdAt")),
              "outbox "
                  + event.path("eventType").asText("?")
                  + " written, "
                  + relay.apply(event).name().toLowerCase(Locale.ROOT)));
      if (event.has("publishedAt")) {
        events.add(
            new Event(
                instant(event.path("publishedAt")),
                "outbox " + event.path("eventType").asText("?") + " published"));
      }
    }
    for (DeadLetterReader.DeadLetter copy : deadLetters) {
      events.add(
          new Event(
              Optional.of(copy.enqueuedAt()),
              "dead-lettered "
                  + copy.subject().orElse("message")
                  + " "
                  + copy.messageId().orElse("(no MessageId)")
                  + " on "
                  + copy.source().label()
                  + ": "
                  + copy.reason()));
    }
    events.sort(
        Comparator.comparing((Event e) -> e.at().orElse(Instant.MAX), Comparator.naturalOrder()));
    return events;
  }

  /** When a marker expires: its last write ({@code _ts}) plus its {@code ttl}; never for -1. */
  private static Optional<Instant> expiry(JsonNode marker) {
    long ttl = marker.path("ttl").asLong(-1);
    if (ttl < 0) {
      return Optional.empty();
    }
    Optional<Instant> written =
        marker.has("_ts")
            ? Optional.of(Instant.ofEpochSecond(marker.get("_ts").asLong()))
            : instant(marker.path("processedAt"));
    return written.map(at -> at.plusSeconds(ttl));
  }

  private static Optional<Instant> leaseUntil(JsonNode payment) {
    JsonNode millis = payment.path("leaseUntilMillis");
    return millis.isNumber()
        ? Optional.of(Instant.ofEpochMilli(millis.asLong()))
        : Optional.empty();
  }

  private static Optional<Instant> instant(JsonNode node) {
    if (!node.isTextual()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(node.asText()));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  private static String shortFingerprint(JsonNode fingerprint) {
    String text = fingerprint.isTextual() ? fingerprint.asText() : fingerprint.toString();
    if (fingerprint.isMissingNode() || text.isEmpty()) {
      return "(none)";
    }
    return text.length() > 19 ? text.substring(0, 19) + "…" : text;
  }

  private static String human(Duration left) {
    if (left.isNegative() || left.isZero()) {
      return "expired";
    }
    long days = left.toDays();
    long hours = left.toHoursPart();
    long minutes = left.toMinutesPart();
    return days > 0
        ? days + "d " + hours + "h"
        : hours > 0 ? hours + "h " + minutes + "m" : minutes + "m " + left.toSecondsPart() + "s";
  }
}
