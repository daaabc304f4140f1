package io.idemworker.proof.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.proof.chaos.SessionsAudit.Fate;
import io.idemworker.proof.chaos.SessionsAudit.Findings;
import io.idemworker.proof.chaos.SessionsAudit.Letter;
import io.idemworker.proof.chaos.SessionsAudit.Operated;
import io.idemworker.proof.chaos.SessionsAudit.Plan;
import io.idemworker.proof.chaos.SessionsAudit.Seen;
import io.idemworker.servicebus.sessions.ParkedSessions;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the audit of {@code chaos --sessions} catches, without running anything: a clean run of
 * three orders (one completes, one is released, one discarded) is clean, and each broken release or
 * discard a mutant of the worker or of {@code dlq} could cause is counted where it belongs.
 */
class SessionsAuditTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String DONE = "ord-1";
  private static final String RELEASED = "ord-2";
  private static final String DISCARDED = "ord-3";

  private final List<Plan> plans =
      List.of(
          Plan.complete(DONE),
          new Plan(
              RELEASED,
              Fate.RELEASE,
              "crp-" + RELEASED,
              "BodyTooLarge",
              List.of(RELEASED + ":status:3", "cr-" + RELEASED, RELEASED + ":status:2")),
          new Plan(
              DISCARDED,
              Fate.DISCARD,
              "crx-" + DISCARDED,
              "CurrencyMismatch",
              List.of(DISCARDED + ":status:2", DISCARDED + ":status:3", "cr-" + DISCARDED)));

  private final Map<String, ObjectNode> orders = new HashMap<>();
  private final Map<String, Seen> seen = new HashMap<>();
  private final Map<String, Operated> operated = new HashMap<>();
  private final Set<String> processed = new HashSet<>();
  private List<Letter> deadLetters;

  /** The state a correct run leaves. */
  @BeforeEach
  void cleanRun() {
    orders.put(DONE, order(3, "Shipped", 1, SessionsAudit.CREDIT_UNITS));
    orders.put(
        RELEASED, order(3, "Shipped", 2, SessionsAudit.CREDIT_UNITS + SessionsAudit.POISON_UNITS));
    orders.put(DISCARDED, order(1, "Confirmed", 0, 0));
    seen.put(RELEASED, new Seen(Optional.of(parking(RELEASED, "BodyTooLarge", 11, 12, 13)), 1, 0));
    seen.put(
        DISCARDED,
        new Seen(Optional.of(parking(DISCARDED, "CurrencyMismatch", 21, 22, 23, 24)), 1, 0));
    operated.put(RELEASED, new Operated(true, List.of()));
    operated.put(
        DISCARDED,
        new Operated(
            false,
            List.of(
                moved(DISCARDED + ":status:2", 21),
                moved(DISCARDED + ":status:3", 22),
                moved("cr-" + DISCARDED, 23),
                moved(DISCARDED + ":status:1", 24))));
    processed.addAll(
        List.of(RELEASED + ":status:1", RELEASED + ":status:2", RELEASED + ":status:3"));
    deadLetters = List.of(new Letter("crx-" + DISCARDED, "CurrencyMismatch"));
  }

  private Findings audit() {
    return SessionsAudit.audit(plans, orders, seen, operated, processed, deadLetters);
  }

  @Test
  void correctRun_isClean() {
    Findings findings = audit();

    assertThat(findings.clean()).as(findings.examples().toString()).isTrue();
  }

  @Test
  void releasedOrderWhoseParkedMessagesNeverApplied_isLost() {
    orders.put(RELEASED, order(1, "Confirmed", 1, SessionsAudit.POISON_UNITS));
    processed.removeAll(List.of(RELEASED + ":status:2", RELEASED + ":status:3"));

    Findings findings = audit();

    assertThat(findings.lost()).isEqualTo(2);
    assertThat(findings.outOfOrder()).isEqualTo(2);
    assertThat(findings.examples()).anyMatch(e -> e.startsWith(RELEASED + ": status"));
  }

  @Test
  void releasedOrderWithVersionThreeBeforeTwo_isOutOfOrder_thoughItEndsAtThree() {
    // The guard refused version 2 as stale: the document ends right, the order of applying did not.
    processed.remove(RELEASED + ":status:2");

    Findings findings = audit();

    assertThat(findings.lost()).isZero();
    assertThat(findings.outOfOrder()).isEqualTo(1);
  }

  @Test
  void releaseThatAppliedAParkedCreditTwice_isDoubled() {
    orders.put(
        RELEASED,
        order(3, "Shipped", 3, 2 * SessionsAudit.CREDIT_UNITS + SessionsAudit.POISON_UNITS));

    assertThat(audit().doubled()).isEqualTo(1);
  }

  @Test
  void releaseThatDidNotFindItsDeadLetter_isCounted() {
    operated.put(RELEASED, new Operated(false, List.of()));
    deadLetters = List.of(deadLetters.get(0), new Letter("crp-" + RELEASED, "BodyTooLarge"));

    Findings findings = audit();

    assertThat(findings.lost()).isEqualTo(1);
    assertThat(findings.wrongDeadLetters()).isEqualTo(1);
  }

  @Test
  void discardThatDroppedAParkedMessageWithoutARecord_isCounted() {
    operated.put(
        DISCARDED,
        new Operated(
            false,
            List.of(
                moved(DISCARDED + ":status:2", 21),
                moved(DISCARDED + ":status:3", 22),
                moved(DISCARDED + ":status:1", 24))));

    Findings findings = audit();

    assertThat(findings.droppedWithoutRecord()).isEqualTo(2); // its sequence number and its id
    assertThat(findings.examples()).anyMatch(e -> e.contains("cr-" + DISCARDED));
  }

  @Test
  void discardedOrderThatMovedPastItsPoison_isCounted() {
    orders.put(DISCARDED, order(3, "Shipped", 1, SessionsAudit.CREDIT_UNITS));

    assertThat(audit().droppedWithoutRecord()).isEqualTo(1);
  }

  @Test
  void poisonedOrderNotParked_orAlreadyPastItsPoison_isNotParked() {
    seen.put(RELEASED, new Seen(Optional.empty(), 3, 1));
    seen.put(
        DISCARDED, new Seen(Optional.of(parking(DISCARDED, "CurrencyMismatch", 21, 22, 23)), 2, 0));

    assertThat(audit().notParked()).isEqualTo(2);
  }

  @Test
  void deadLetterOfACompleteOrder_orAMissingPoison_isAWrongDeadLetter() {
    deadLetters = List.of(new Letter(DONE + ":status:2", "SchemaViolation"));

    assertThat(audit().wrongDeadLetters()).isEqualTo(2);
  }

  private static ObjectNode order(long version, String status, long credits, long units) {
    ObjectNode order = JSON.createObjectNode();
    order.put("statusVersion", version).put("status", status);
    if (credits > 0) {
      order.put("creditCount", credits).put("creditedUnits", units);
    }
    return order;
  }

  private static ParkedSessions.Parking parking(String orderId, String reason, long... behind) {
    String poison = (reason.equals("BodyTooLarge") ? "crp-" : "crx-") + orderId;
    return new ParkedSessions.Parking(
        orderId,
        reason,
        poison,
        Instant.parse("2026-12-02T10:00:00Z"),
        java.util.Arrays.stream(behind).boxed().toList(),
        List.of());
  }

  private static ParkedSessions.Moved moved(String messageId, long sequenceNumber) {
    return new ParkedSessions.Moved(messageId, "OrderCredited", sequenceNumber);
  }
}
