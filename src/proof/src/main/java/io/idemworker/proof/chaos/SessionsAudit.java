package io.idemworker.proof.chaos;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.orders.OrderMessageTypes;
import io.idemworker.servicebus.sessions.ParkedSessions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The audit of {@code chaos --sessions}: a pure function of what the run read back (the order
 * documents, the parkings the operator saw, what release and discard did, the dead-letter queue and
 * the workers' outcome lines), so that a test can show it catches a broken release or a silent drop
 * without running anything.
 *
 * <p>Every order ends as its plan says. {@link Fate#COMPLETE}: version 3 {@code Shipped}, its
 * credit once. {@link Fate#RELEASE} (its poison failed for a reason the operator fixed, then {@code
 * dlq release}): parked after the main phase at version 1 with no credit, then version 3 with both
 * credits once, versions 2 and 3 each applied by the guard (a version applied after a higher one is
 * refused as stale, so both applied means in version order), its poison gone from the dead-letter
 * queue. {@link Fate#DISCARD} (its poison is bad for good, then {@code dlq discard}): parked, then
 * still at version 1 with no credit, every message parked behind it dropped with a record line, its
 * poison in the dead-letter queue with its reason. The dead-letter queue holds nothing else.
 * Stateless and thread-safe.
 */
final class SessionsAudit {
  private SessionsAudit() {}

  /** Units of 0.0001 of the good credit every order gets, and of a released poison credit. */
  static final long CREDIT_UNITS = 25_000;

  static final long POISON_UNITS = 15_000;

  /** What the run does with an order. */
  enum Fate {
    /** No poison: the order completes. */
    COMPLETE,
    /** A poison the operator fixes, then releases. */
    RELEASE,
    /** A poison that is bad for good: the operator discards what waits behind it. */
    DISCARD
  }

  /**
   * One order of the run.
   *
   * @param orderId the order
   * @param fate what happens to it
   * @param poisonId the poison message's id; empty for {@link Fate#COMPLETE}
   * @param poisonReason the dead-letter reason the poison must get
   * @param afterPoison the distinct ids of the order's messages sent after the poison
   */
  record Plan(
      String orderId, Fate fate, String poisonId, String poisonReason, List<String> afterPoison) {
    static Plan complete(String orderId) {
      return new Plan(orderId, Fate.COMPLETE, "", "", List.of());
    }
  }

  /**
   * A poisoned order as the operator found it once the workers had drained the rest.
   *
   * @param parking its session state's parking ({@code explain}'s data); empty when not parked
   * @param version the order document's status version then
   * @param credits the order document's credit count then
   */
  record Seen(Optional<ParkedSessions.Parking> parking, long version, long credits) {}

  /**
   * What the operator's command did.
   *
   * @param resubmitted {@code dlq release}: whether the dead-lettered message was found and sent
   *     back
   * @param dropped {@code dlq discard}: the record lines, one per dropped message
   */
  record Operated(boolean resubmitted, List<ParkedSessions.Moved> dropped) {}

  /** A dead-lettered message at the end: its id and reason. */
  record Letter(String messageId, String reason) {}

  /**
   * What the audit found; all counts zero is a clean run.
   *
   * @param lost effects missing (an order short of its version or a credit)
   * @param doubled credits applied more than once
   * @param notParked poisoned orders not parked as planned after the main phase, or already past
   *     their poison
   * @param outOfOrder released orders whose versions 2 and 3 were not both applied by the guard
   * @param droppedWithoutRecord messages parked behind a discarded order's poison that left without
   *     a record line, or a discarded order that moved past its poison
   * @param wrongDeadLetters dead-letters not planned, and planned ones missing
   * @param examples up to ten of them, for the report
   */
  record Findings(
      int lost,
      int doubled,
      int notParked,
      int outOfOrder,
      int droppedWithoutRecord,
      int wrongDeadLetters,
      List<String> examples) {
    boolean clean() {
      return lost == 0
          && doubled == 0
          && notParked == 0
          && outOfOrder == 0
          && droppedWithoutRecord == 0
          && wrongDeadLetters == 0;
    }
  }

  /**
   * Audits the run.
   *
   * @param plans every order of the run
   * @param orders the order documents at the end, by id; an absent one is lost
   * @param seen the poisoned orders as the operator found them after the main phase
   * @param operated what release or discard did, per poisoned order
   * @param processed the message ids the workers logged as processed
   * @param deadLetters the queue's dead-letter queue at the end
   * @return the findings
   */
  static Findings audit(
      List<Plan> plans,
      Map<String, ObjectNode> orders,
      Map<String, Seen> seen,
      Map<String, Operated> operated,
      Set<String> processed,
      List<Letter> deadLetters) {
    Tally t = new Tally();
    Map<String, Letter> expectedLetters = new HashMap<>();
    for (Plan plan : plans) {
      String id = plan.orderId();
      if (plan.fate() != Fate.COMPLETE) {
        checkParked(plan, Optional.ofNullable(seen.get(id)), t);
      }
      ObjectNode order = orders.get(id);
      if (order == null) {
        t.lost++;
        t.note(id + ": the order is missing");
        continue;
      }
      Optional<Operated> done = Optional.ofNullable(operated.get(id));
      switch (plan.fate()) {
        case COMPLETE -> expect(id, order, 3, "Shipped", 1, CREDIT_UNITS, t);
        case RELEASE -> {
          expect(id, order, 3, "Shipped", 2, CREDIT_UNITS + POISON_UNITS, t);
          if (!done.map(Operated::resubmitted).orElse(false)) {
            t.lost++;
            t.note(id + ": dlq release did not find its dead-lettered message");
          }
          for (long version = 2; version <= 3; version++) {
            if (!processed.contains(OrderMessageTypes.statusMessageId(id, version))) {
              t.outOfOrder++;
              t.note(id + ": version " + version + " was not applied by the guard after release");
            }
          }
        }
        case DISCARD -> {
          expectedLetters.put(plan.poisonId(), new Letter(plan.poisonId(), plan.poisonReason()));
          long version = order.path("statusVersion").asLong(0);
          long credits = order.path("creditCount").asLong(0);
          if (version != 1 || credits != 0) {
            t.droppedWithoutRecord++;
            t.note(id + ": discarded, but at v" + version + " with " + credits + " credit(s)");
          }
          checkRecords(plan, Optional.ofNullable(seen.get(id)), done, t);
        }
      }
    }
    Set<String> found = new HashSet<>();
    for (Letter letter : deadLetters) {
      Letter expected = expectedLetters.get(letter.messageId());
      if (expected == null || !expected.equals(letter) || !found.add(letter.messageId())) {
        t.wrongDeadLetters++;
        t.note("dead-lettered unexpectedly: " + letter.messageId() + " (" + letter.reason() + ")");
      }
    }
    for (String missing : expectedLetters.keySet()) {
      if (!found.contains(missing)) {
        t.wrongDeadLetters++;
        t.note("a discarded order's poison is not in the dead-letter queue: " + missing);
      }
    }
    return new Findings(
        t.lost,
        t.doubled,
        t.notParked,
        t.outOfOrder,
        t.droppedWithoutRecord,
        t.wrongDeadLetters,
        List.copyOf(t.examples));
  }

  /** Parked behind its poison, for the planned reason, the order still short of what follows. */
  private static void checkParked(Plan plan, Optional<Seen> seen, Tally t) {
    String id = plan.orderId();
    Optional<ParkedSessions.Parking> parking = seen.flatMap(Seen::parking);
    if (parking.isEmpty()) {
      t.notParked++;
      t.note(id + ": not parked after the main phase");
      return;
    }
    ParkedSessions.Parking p = parking.get();
    if (!p.messageId().equals(plan.poisonId())
        || !p.reason().equals(plan.poisonReason())
        || p.behind().size() < plan.afterPoison().size()) {
      t.notParked++;
      t.note(
          id
              + ": parked behind "
              + p.messageId()
              + " ("
              + p.reason()
              + ") with "
              + p.behind().size()
              + " message(s) behind it");
    }
    if (seen.get().version() != 1 || seen.get().credits() != 0) {
      t.notParked++;
      t.note(
          id
              + ": parked, but already at v"
              + seen.get().version()
              + " with "
              + seen.get().credits()
              + " credit(s)");
    }
  }

  /** Every message parked behind the poison left with a record line, the later ones included. */
  private static void checkRecords(
      Plan plan, Optional<Seen> seen, Optional<Operated> done, Tally t) {
    String id = plan.orderId();
    List<ParkedSessions.Moved> dropped = done.map(Operated::dropped).orElse(List.of());
    Set<Long> recorded =
        dropped.stream().map(ParkedSessions.Moved::sequenceNumber).collect(Collectors.toSet());
    List<Long> behind =
        seen.flatMap(Seen::parking).map(ParkedSessions.Parking::behind).orElse(List.of());
    for (Long sequenceNumber : behind) {
      if (!recorded.contains(sequenceNumber)) {
        t.droppedWithoutRecord++;
        t.note(id + ": parked message " + sequenceNumber + " left without a record line");
      }
    }
    Set<String> recordedIds =
        dropped.stream().map(ParkedSessions.Moved::messageId).collect(Collectors.toSet());
    for (String later : plan.afterPoison()) {
      if (!recordedIds.contains(later)) {
        t.droppedWithoutRecord++;
        t.note(id + ": " + later + " has no discard record");
      }
    }
  }

  private static void expect(
      String id, ObjectNode order, long version, String status, long credits, long units, Tally t) {
    long v = order.path("statusVersion").asLong(0);
    if (v != version || !status.equals(order.path("status").asText())) {
      t.lost++;
      t.note(id + ": status " + order.path("status").asText() + " v" + v);
    }
    long count = order.path("creditCount").asLong(0);
    long applied = order.path("creditedUnits").asLong(0);
    if (count < credits || applied < units) {
      t.lost++;
      t.note(id + ": credit missing (count " + count + ")");
    } else if (count > credits || applied > units) {
      t.doubled++;
      t.note(id + ": credits applied " + count + " times");
    }
  }

  private static final class Tally {
    int lost;
    int doubled;
    int notParked;
    int outOfOrder;
    int droppedWithoutRecord;
    int wrongDeadLetters;
    final List<String> examples = new ArrayList<>();

    void note(String example) {
      if (examples.size() < 10) {
        examples.add(example);
      }
    }
  }
}
