package io.idemworker.proof.audit;

import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.proof.producer.DemoPayments;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@link StateAudit}'s check of the payments: the provider's ledger (read over its API) against the
 * capture requests sent, and the orders container's payment records, events and paid totals against
 * the ledger. Counts lost and doubled effects like the rest of the audit.
 *
 * <p>Not thread-safe; used once, by {@link StateAudit}.
 */
final class PaymentsAudit {
  private final DemoPayments payments;
  private final JsonNode providerLedger;
  private final OrderPartitions docs;
  long lost;
  long doubled;

  /**
   * @param payments the capture requests sent
   * @param providerLedger every capture the provider executed, as its API lists them
   * @param docs the orders' partitions, as the audit read them
   */
  PaymentsAudit(DemoPayments payments, JsonNode providerLedger, OrderPartitions docs) {
    this.payments = payments;
    this.providerLedger = providerLedger;
    this.docs = docs;
  }

  private Optional<JsonNode> doc(String orderId, String id) {
    return docs.doc(orderId, id);
  }

  /**
   * One capture per request at the provider with its amount and result, its record and event in the
   * order's partition, the paid total and payment status per order.
   */
  Check check() {
    List<String> problems = new ArrayList<>();
    Map<String, List<JsonNode>> ledger = new HashMap<>();
    providerLedger.forEach(
        c ->
            ledger
                .computeIfAbsent(c.path("idempotencyKey").asText(), k -> new ArrayList<>())
                .add(c));
    Set<String> requested = new LinkedHashSet<>();
    for (DemoPayments.Request r : payments.requests) {
      requested.add(r.paymentRequestId());
      List<JsonNode> captures = ledger.getOrDefault(r.paymentRequestId(), List.of());
      if (captures.isEmpty()) {
        lost++;
        problems.add(r.paymentRequestId() + " never reached the provider");
        continue;
      }
      if (captures.size() > 1) {
        doubled += captures.size() - 1;
        problems.add(r.paymentRequestId() + " executed " + captures.size() + " times");
      }
      JsonNode capture = captures.get(0);
      if (StateAudit.decimal(capture.path("amount")).compareTo(r.amount()) != 0
          || !capture.path("orderId").asText().equals(r.orderId())
          || !capture.path("status").asText().equals(r.declines() ? "declined" : "captured")) {
        doubled++;
        problems.add(r.paymentRequestId() + " executed as " + capture);
      }
      String eventType =
          r.declines() ? OrderDocumentIds.PAYMENT_DECLINED : OrderDocumentIds.PAYMENT_CAPTURED;
      if (!doc(r.orderId(), r.eventId())
          .filter(e -> eventType.equals(e.path("eventType").asText()))
          .isPresent()) {
        lost++;
        problems.add(r.paymentRequestId() + " has no " + eventType + " event");
      }
      Optional<JsonNode> record = doc(r.orderId(), r.recordId());
      if (record.isEmpty() || !completedWith(record.get(), r, capture)) {
        lost++;
        problems.add(r.recordId() + " is not Completed with the provider's answer: " + record);
      }
    }
    for (DemoPayments.Request r : payments.reusedKeys) {
      Optional<JsonNode> record = doc(r.orderId(), r.recordId());
      if (record.isPresent()
          && StateAudit.decimal(record.get().path("amount")).compareTo(r.amount()) == 0) {
        doubled++;
        problems.add(r.recordId() + " overwritten by its reused key's amount " + r.amount());
      }
    }
    ledger.keySet().stream()
        .filter(key -> !requested.contains(key))
        .forEach(
            key -> {
              doubled++;
              problems.add("the provider executed unknown key " + key);
            });
    for (Map.Entry<String, List<DemoPayments.Request>> e : payments.byOrder().entrySet()) {
      long expected =
          e.getValue().stream()
              .filter(r -> !r.declines())
              .mapToLong(DemoPayments.Request::units)
              .sum();
      long paid =
          doc(e.getKey(), e.getKey()).map(o -> o.path("amountPaidUnits").asLong(0)).orElse(0L);
      if (paid > expected) {
        doubled++;
        problems.add(e.getKey() + " amountPaidUnits " + paid + ", captured " + expected);
      } else if (paid < expected) {
        lost++;
        problems.add(e.getKey() + " amountPaidUnits " + paid + ", captured " + expected);
      }
      // The status is the last result's: known when every request of the order had the same one.
      long declines = e.getValue().stream().filter(DemoPayments.Request::declines).count();
      String status =
          doc(e.getKey(), e.getKey()).map(o -> o.path("paymentStatus").asText("")).orElse("");
      if ((declines == e.getValue().size() && !status.equals("declined"))
          || (declines == 0 && !status.equals("captured"))) {
        lost++;
        problems.add(e.getKey() + " paymentStatus " + status);
      }
    }
    return StateAudit.check(
        "one capture per payment request at the provider ("
            + payments.requests.size()
            + ", its ledger read over its API) with its amount and result; its record Completed with that answer, untouched by a reused key; amount paid per order = the sum of its captures, its paymentStatus that of its results; one PaymentCaptured/PaymentDeclined event each",
        problems);
  }

  /** Whether a payment record holds the provider's answer to its one capture. */
  private static boolean completedWith(JsonNode record, DemoPayments.Request r, JsonNode capture) {
    JsonNode result = record.path("result");
    boolean answered =
        r.declines()
            ? "declined".equals(result.path("result").asText())
                && result.path("declineCode").isTextual()
            : "captured".equals(result.path("result").asText())
                && result.path("providerCaptureId").asText().equals(capture.path("id").asText());
    return "Completed".equals(record.path("status").asText())
        && StateAudit.decimal(record.path("amount")).compareTo(r.amount()) == 0
        && answered;
  }
}
