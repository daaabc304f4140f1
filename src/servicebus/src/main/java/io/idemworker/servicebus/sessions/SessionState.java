package io.idemworker.servicebus.sessions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a session (one entity) remembers between messages, kept in the Service Bus session state and
 * nowhere else: the highest version applied, the messages deferred while a predecessor version is
 * missing, and whether the session is parked behind a dead-lettered message. Immutable; every
 * change returns a new state, which the worker writes before it settles the message the change is
 * about, so that a crash at any point leaves a state that describes the messages at least as far as
 * they got (see {@link HeldSession}).
 *
 * <p>Stored as JSON: {@code {"applied":3,"waiting":[{"seq":12,"version":5,"since":"…",
 * "applied":false}],"parked":{…}}}; an absent or empty state is {@link #EMPTY}.
 *
 * @param applied the highest version applied in this session, when known
 * @param waiting status changes deferred until their predecessor applies, in any sequence
 * @param parked the dead-lettered message that parks the session, and what waits behind it
 */
record SessionState(OptionalLong applied, List<Waiting> waiting, Optional<Parked> parked) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A session that remembers nothing. */
  static final SessionState EMPTY =
      new SessionState(OptionalLong.empty(), List.of(), Optional.empty());

  /** Copies the list. */
  SessionState {
    Objects.requireNonNull(applied, "applied");
    Objects.requireNonNull(parked, "parked");
    waiting = List.copyOf(waiting);
  }

  /**
   * A deferred message.
   *
   * @param sequenceNumber the broker's sequence number, to receive it again
   * @param version its version; 0 for a message without one (parked)
   * @param since when it was deferred
   * @param applied true once its effect was applied: only its completion may be missing
   */
  record Waiting(long sequenceNumber, long version, Instant since, boolean applied) {
    /** Requires the instant. */
    Waiting {
      Objects.requireNonNull(since, "since");
    }
  }

  /**
   * The session is parked: a message of it was dead-lettered, the ones after it wait.
   *
   * @param reason the dead-letter reason code
   * @param messageId the dead-lettered message's id
   * @param since when it was dead-lettered
   * @param behind the messages deferred behind it, in arrival order
   */
  record Parked(String reason, String messageId, Instant since, List<Waiting> behind) {
    /** Copies the list. */
    Parked {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(messageId, "messageId");
      Objects.requireNonNull(since, "since");
      behind = List.copyOf(behind);
    }
  }

  SessionState withApplied(long version) {
    long highest = applied.isPresent() ? Math.max(applied.getAsLong(), version) : version;
    return new SessionState(OptionalLong.of(highest), waiting, parked);
  }

  /** Adds a deferred message; a second entry for the same sequence number replaces the first. */
  SessionState withWaiting(Waiting entry) {
    List<Waiting> copy = new ArrayList<>(without(entry.sequenceNumber()).waiting);
    copy.add(entry);
    return new SessionState(applied, copy, parked);
  }

  SessionState without(long sequenceNumber) {
    List<Waiting> copy = new ArrayList<>(waiting);
    copy.removeIf(w -> w.sequenceNumber() == sequenceNumber);
    return new SessionState(applied, copy, parked);
  }

  /** Marks a waiting message applied and raises {@link #applied} to its version. */
  SessionState appliedWaiting(Waiting entry) {
    SessionState raised = without(entry.sequenceNumber()).withApplied(entry.version());
    List<Waiting> copy = new ArrayList<>(raised.waiting);
    copy.add(new Waiting(entry.sequenceNumber(), entry.version(), entry.since(), true));
    return new SessionState(raised.applied, copy, parked);
  }

  SessionState withParked(Optional<Parked> parking) {
    return new SessionState(applied, waiting, parking);
  }

  /**
   * The waiting message to apply next: the lowest version not yet applied, when it follows the
   * applied one or when {@code force} (the gap was given up).
   */
  Optional<Waiting> nextReady(boolean force) {
    return waiting.stream()
        .filter(w -> !w.applied())
        .min(Comparator.comparingLong(Waiting::version).thenComparingLong(Waiting::sequenceNumber))
        .filter(w -> force || w.version() <= applied.orElse(0) + 1);
  }

  /** Messages applied whose completion may be missing. */
  List<Waiting> appliedButWaiting() {
    return waiting.stream().filter(Waiting::applied).toList();
  }

  /** When the oldest message still waiting for a gap was deferred. */
  Optional<Instant> gapSince() {
    return waiting.stream()
        .filter(w -> !w.applied())
        .map(Waiting::since)
        .min(Comparator.naturalOrder());
  }

  /** How many messages this session keeps deferred. */
  int deferredCount() {
    return waiting.size() + parked.map(p -> p.behind().size()).orElse(0);
  }

  byte[] write() {
    ObjectNode root = JSON.createObjectNode();
    applied.ifPresent(v -> root.put("applied", v));
    root.set("waiting", entries(waiting));
    parked.ifPresent(
        p -> {
          ObjectNode node = root.putObject("parked");
          node.put("reason", p.reason());
          node.put("messageId", p.messageId());
          node.put("since", p.since().toString());
          node.set("behind", entries(p.behind()));
        });
    try {
      return JSON.writeValueAsBytes(root);
    } catch (IOException e) {
      throw new IllegalStateException("session state could not be written", e);
    }
  }

  /**
   * Reads a stored state.
   *
   * @param bytes the session state; null or empty = {@link #EMPTY}
   * @return the state
   * @throws IllegalArgumentException when the bytes are not a state this worker wrote
   */
  static SessionState read(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      return EMPTY;
    }
    try {
      JsonNode root = JSON.readTree(bytes);
      if (root == null || !root.isObject()) {
        throw new IllegalArgumentException("the session state is not a JSON object");
      }
      OptionalLong applied =
          root.has("applied")
              ? OptionalLong.of(root.get("applied").asLong())
              : OptionalLong.empty();
      Optional<Parked> parked = Optional.empty();
      JsonNode p = root.get("parked");
      if (p != null && p.isObject()) {
        parked =
            Optional.of(
                new Parked(
                    p.path("reason").asText(),
                    p.path("messageId").asText(),
                    Instant.parse(p.path("since").asText()),
                    entries(p.path("behind"))));
      }
      return new SessionState(applied, entries(root.path("waiting")), parked);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "the session state is not one this worker wrote: " + e.getClass().getSimpleName(), e);
    }
  }

  private static ArrayNode entries(List<Waiting> list) {
    ArrayNode array = JSON.createArrayNode();
    for (Waiting w : list) {
      ObjectNode node = array.addObject();
      node.put("seq", w.sequenceNumber());
      node.put("version", w.version());
      node.put("since", w.since().toString());
      node.put("applied", w.applied());
    }
    return array;
  }

  private static List<Waiting> entries(JsonNode array) {
    List<Waiting> list = new ArrayList<>();
    for (JsonNode node : array) {
      list.add(
          new Waiting(
              node.path("seq").asLong(),
              node.path("version").asLong(),
              Instant.parse(node.path("since").asText()),
              node.path("applied").asBoolean()));
    }
    return list;
  }
}
