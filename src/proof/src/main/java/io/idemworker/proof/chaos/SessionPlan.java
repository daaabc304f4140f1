package io.idemworker.proof.chaos;

import io.idemworker.orders.OrderMessageTypes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * What {@code chaos --sessions} sends, seeded. Every order: {@code OrderPlaced}, then status
 * versions 1–3 and a credit in a shuffled order. One order in ten ({@link
 * SessionsAudit.Fate#RELEASE}) and one in twenty ({@link SessionsAudit.Fate#DISCARD}) get a poison
 * credit in the middle instead: placed, version 1, the poison, then versions 2–3 and the credit
 * shuffled. A release poison is a valid credit whose body (a note in a non-Latin script, which the
 * producer's JSON writer escapes at six bytes a character) is over the workers' first {@code
 * WORKER_MAX_BODY_BYTES}: dead-lettered {@code BodyTooLarge} until the operator raises the limit,
 * then released unchanged. A discard poison is a credit in the wrong currency, {@code
 * CurrencyMismatch} for good. One message in five is sent twice back to back (the broker drops the
 * copy) and one in five again past the duplicate window (the worker's idempotency drops it); never
 * the poison, whose copy would be a second dead-letter. Not thread-safe.
 */
final class SessionPlan {
  /** The workers' body limit while the poison is sent: the least the worker accepts. */
  static final int TIGHT_BODY_BYTES = 1024;

  /** One message of the run, with the order (session) it belongs to. */
  record Send(String orderId, String messageId, String subject, String body) {}

  final List<SessionsAudit.Plan> orders = new ArrayList<>();
  final List<Send> first;
  final List<Send> late;
  final long early;

  SessionPlan(int orderCount, long seed, Random random) {
    List<List<Send>> firsts = new ArrayList<>();
    List<List<Send>> lates = new ArrayList<>();
    long earlyOrders = 0;
    for (int i = 0; i < orderCount; i++) {
      String orderId = "ord-s" + seed + "-" + i;
      SessionsAudit.Fate fate =
          i % 10 == 4
              ? SessionsAudit.Fate.RELEASE
              : i % 20 == 9 ? SessionsAudit.Fate.DISCARD : SessionsAudit.Fate.COMPLETE;
      List<Send> rest = new ArrayList<>();
      List<Send> head = new ArrayList<>(List.of(placed(orderId)));
      rest.add(status(orderId, 1, "Confirmed"));
      rest.add(status(orderId, 2, "Packed"));
      rest.add(status(orderId, 3, "Shipped"));
      rest.add(credit(orderId, "cr-" + orderId, "2.5", "EUR", "\"goodwill\""));
      Send poison = null;
      if (fate != SessionsAudit.Fate.COMPLETE) {
        head.add(rest.remove(0));
        poison =
            fate == SessionsAudit.Fate.RELEASE
                ? credit(orderId, "crp-" + orderId, "1.5", "EUR", escapedNote())
                : credit(orderId, "crx-" + orderId, "1.0", "USD", "\"goodwill\"");
      }
      Collections.shuffle(rest, random);
      if (poison == null) {
        orders.add(SessionsAudit.Plan.complete(orderId));
      } else {
        head.add(poison);
        orders.add(
            new SessionsAudit.Plan(
                orderId,
                fate,
                poison.messageId(),
                fate == SessionsAudit.Fate.RELEASE ? "BodyTooLarge" : "CurrencyMismatch",
                rest.stream().map(Send::messageId).toList()));
      }
      List<Send> sequence = new ArrayList<>();
      List<Send> again = new ArrayList<>();
      head.addAll(rest);
      for (Send send : head) {
        sequence.add(send);
        if (send == poison) {
          continue;
        }
        if (random.nextInt(5) == 0) {
          sequence.add(send); // a producer retry, dropped by duplicate detection
        }
        if (random.nextInt(5) == 0) {
          again.add(send); // sent again past the window: the worker's idempotency drops it
        }
      }
      List<String> statuses =
          head.stream()
              .filter(m -> m.subject().equals(OrderMessageTypes.ORDER_STATUS_CHANGED))
              .map(Send::messageId)
              .toList();
      if (!statuses.equals(statuses.stream().sorted().toList())) {
        earlyOrders++;
      }
      firsts.add(sequence);
      lates.add(again);
    }
    this.first = interleave(firsts, random);
    this.late = interleave(lates, random);
    this.early = earlyOrders;
  }

  long count(SessionsAudit.Fate fate) {
    return orders.stream().filter(o -> o.fate() == fate).count();
  }

  /** In order per order, shuffled across orders: each next message is a random order's next. */
  private static List<Send> interleave(List<List<Send>> perOrder, Random random) {
    List<ArrayDeque<Send>> queues = new ArrayList<>();
    perOrder.forEach(list -> queues.add(new ArrayDeque<>(list)));
    queues.removeIf(ArrayDeque::isEmpty);
    List<Send> out = new ArrayList<>();
    while (!queues.isEmpty()) {
      int i = random.nextInt(queues.size());
      out.add(queues.get(i).poll());
      if (queues.get(i).isEmpty()) {
        queues.remove(i);
      }
    }
    return out;
  }

  /**
   * A 200-character note (the contract's longest) in Japanese, as a JSON string whose every
   * character is escaped: about 1,200 bytes.
   */
  private static String escapedNote() {
    String phrase = "\u914d\u9001\u9045\u5ef6\u306e\u304a\u8a6b\u3073"; // 8 characters
    StringBuilder note = new StringBuilder("\"");
    for (int i = 0; i < 25; i++) {
      for (char c : phrase.toCharArray()) {
        note.append(String.format("\\u%04x", (int) c));
      }
    }
    return note.append('"').toString();
  }

  private static Send placed(String orderId) {
    return new Send(
        orderId,
        orderId,
        "OrderPlaced",
        "{\"orderId\":\""
            + orderId
            + "\",\"customerId\":\"cust-1\",\"currency\":\"EUR\",\"placedAt\":\"2026-11-30T10:00:00Z\","
            + "\"lines\":[{\"sku\":\"SKU-1\",\"quantity\":1,\"unitPrice\":9.99}]}");
  }

  private static Send status(String orderId, long version, String status) {
    return new Send(
        orderId,
        OrderMessageTypes.statusMessageId(orderId, version),
        OrderMessageTypes.ORDER_STATUS_CHANGED,
        "{\"orderId\":\""
            + orderId
            + "\",\"status\":\""
            + status
            + "\",\"version\":"
            + version
            + ",\"changedAt\":\"2026-11-30T11:00:00Z\"}");
  }

  private static Send credit(
      String orderId, String creditId, String amount, String currency, String reasonJson) {
    return new Send(
        orderId,
        creditId,
        OrderMessageTypes.ORDER_CREDITED,
        "{\"orderId\":\""
            + orderId
            + "\",\"creditId\":\""
            + creditId
            + "\",\"amount\":"
            + amount
            + ",\"currency\":\""
            + currency
            + "\",\"reason\":"
            + reasonJson
            + "}");
  }
}
