package io.idemworker.proof;

import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.Outcome;
import io.idemworker.proof.DemoAudit.Check;
import io.idemworker.proof.DemoPayments.Hazard;
import io.idemworker.proof.DemoPayments.Request;
import io.idemworker.proof.DemoTally.Delivery;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * The audit of the demo's payments phase: reads the payment provider's ledger (every capture it
 * executed, over its HTTP API), the orders, payment records and events from Cosmos DB, and the
 * dead-letter queue, and checks them against the requests the producer sent. Not thread-safe; used
 * once, after the workers stopped.
 */
final class DemoPaymentsAudit {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DemoPayments payments;
  private final List<Delivery> deliveries;
  private final Map<String, String> deadLetterReasons = new HashMap<>();
  private final BiFunction<String, String, Optional<ObjectNode>> read;
  private final long replays;
  private final Map<String, List<JsonNode>> ledgerByKey = new HashMap<>();
  private int ledgerSize;

  /**
   * @param payments what the producer sent
   * @param deliveries every delivery the workers finished
   * @param deadLetters the dead-letter queue as read back
   * @param read reads a document by partition key and id; empty if it does not exist
   * @param ledger the provider's ledger: every capture it executed, as its API lists them
   * @param replays how many answers the provider replayed for a key it had executed
   */
  DemoPaymentsAudit(
      DemoPayments payments,
      List<Delivery> deliveries,
      List<ServiceBusReceivedMessage> deadLetters,
      BiFunction<String, String, Optional<ObjectNode>> read,
      JsonNode ledger,
      long replays) {
    this.payments = payments;
    this.deliveries = deliveries;
    deadLetters.forEach(m -> deadLetterReasons.put(m.getMessageId(), m.getDeadLetterReason()));
    this.read = read;
    this.replays = replays;
    ledger.forEach(
        capture ->
            ledgerByKey
                .computeIfAbsent(capture.path("idempotencyKey").asText(), k -> new ArrayList<>())
                .add(capture));
    ledgerSize = ledger.size();
  }

  /**
   * Reads the provider's ledger over its API.
   *
   * @throws IllegalStateException if the provider does not answer 200 with a JSON array
   */
  static JsonNode ledger(URI baseUrl, String apiKey) throws InterruptedException {
    try {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(baseUrl + "/v1/captures"))
                      .header("Authorization", "Bearer " + apiKey)
                      .timeout(Duration.ofSeconds(30))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      JsonNode body = JSON.readTree(response.body());
      if (response.statusCode() != 200 || !body.isArray()) {
        throw new IllegalStateException(
            "the provider's ledger answered " + response.statusCode() + ": " + response.body());
      }
      return body;
    } catch (IOException e) {
      throw new IllegalStateException("the provider's ledger could not be read: " + e, e);
    }
  }

  List<Check> run() {
    return List.of(
        oneCapturePerRequest(),
        amountPaidPerOrder(),
        recordsCompleted(),
        retriesReplayed(),
        concurrentCopies(),
        declines(),
        reusedKeys());
  }

  private Check oneCapturePerRequest() {
    List<String> problems = new ArrayList<>();
    for (Request r : payments.requests) {
      List<JsonNode> captures = ledgerByKey.getOrDefault(r.paymentRequestId(), List.of());
      if (captures.size() != 1) {
        problems.add(r.paymentRequestId() + " executed " + captures.size() + " times");
        continue;
      }
      JsonNode capture = captures.get(0);
      if (amount(capture).compareTo(r.amount()) != 0
          || !capture.path("orderId").asText().equals(r.orderId())) {
        problems.add(r.paymentRequestId() + " executed as " + capture);
      }
      if (!capture.path("status").asText().equals(r.declines() ? "declined" : "captured")) {
        problems.add(r.paymentRequestId() + " is " + capture.path("status").asText());
      }
    }
    if (ledgerSize != payments.requests.size()) {
      problems.add("the ledger holds " + ledgerSize + " captures for " + payments.requests.size());
    }
    long declined = payments.requests.stream().filter(Request::declines).count();
    return new Check(
        "one capture per payment request at the provider: its ledger lists "
            + ledgerSize
            + " executed for "
            + payments.requests.size()
            + " requests ("
            + declined
            + " declined), one per key; "
            + replays
            + " repeated calls were answered by replays",
        problems.isEmpty(),
        summarize(problems));
  }

  private Check amountPaidPerOrder() {
    List<String> problems = new ArrayList<>();
    Map<String, List<Request>> byOrder = payments.byOrder();
    for (Map.Entry<String, List<Request>> entry : byOrder.entrySet()) {
      String orderId = entry.getKey();
      long expected =
          entry.getValue().stream().filter(r -> !r.declines()).mapToLong(Request::units).sum();
      long atProvider =
          entry.getValue().stream()
              .flatMap(r -> ledgerByKey.getOrDefault(r.paymentRequestId(), List.of()).stream())
              .filter(c -> "captured".equals(c.path("status").asText()))
              .mapToLong(c -> amount(c).movePointRight(4).longValueExact())
              .sum();
      Optional<ObjectNode> order = read.apply(orderId, orderId);
      if (order.isEmpty()) {
        problems.add(orderId + " missing");
        continue;
      }
      JsonNode paid = order.get().path("amountPaidUnits");
      long actual = paid.isMissingNode() ? 0 : paid.isIntegralNumber() ? paid.asLong() : -1;
      if (actual != expected || actual != atProvider) {
        problems.add(
            orderId
                + " amountPaidUnits "
                + paid
                + ", sent "
                + expected
                + ", captured at the provider "
                + atProvider);
      }
    }
    return new Check(
        "each order's amount paid = the sum of its captured requests at the provider, exactly: "
            + byOrder.size()
            + " orders, amountPaidUnits in units of 0.0001",
        problems.isEmpty(),
        summarize(problems));
  }

  private Check recordsCompleted() {
    List<String> problems = new ArrayList<>();
    for (Request r : payments.requests) {
      Optional<ObjectNode> record = read.apply(r.orderId(), r.recordId());
      if (record.isEmpty()) {
        problems.add(r.recordId() + " missing");
        continue;
      }
      JsonNode result = record.get().path("result");
      List<JsonNode> captures = ledgerByKey.getOrDefault(r.paymentRequestId(), List.of());
      String captureId = captures.isEmpty() ? "" : captures.get(0).path("id").asText();
      boolean answered =
          r.declines()
              ? "declined".equals(result.path("result").asText())
                  && result.path("declineCode").isTextual()
              : "captured".equals(result.path("result").asText())
                  && result.path("providerCaptureId").asText().equals(captureId);
      if (!"Completed".equals(record.get().path("status").asText()) || !answered) {
        problems.add(r.recordId() + " is " + record.get().path("status") + " with " + result);
      }
      String eventType = r.declines() ? "PaymentDeclined" : "PaymentCaptured";
      if (!read.apply(r.orderId(), r.eventId())
          .map(e -> e.path("eventType").asText())
          .filter(eventType::equals)
          .isPresent()) {
        problems.add(r.paymentRequestId() + " has no " + eventType + " event");
      }
    }
    return new Check(
        "every payment record Completed with the provider's answer (its capture id), and one PaymentCaptured/PaymentDeclined event each: "
            + payments.requests.size()
            + " records",
        problems.isEmpty(),
        summarize(problems));
  }

  private Check retriesReplayed() {
    List<String> problems = new ArrayList<>();
    List<Request> retried = new ArrayList<>(payments.requests(Hazard.CRASH));
    retried.addAll(payments.requests(Hazard.AMBIGUOUS));
    for (Request r : retried) {
      long attempt =
          read.apply(r.orderId(), r.recordId()).map(d -> d.path("attempt").asLong()).orElse(-1L);
      if (attempt != 2) {
        problems.add(r.recordId() + " completed by attempt " + attempt + ", expected 2");
      }
      List<Delivery> copies = copies(r);
      if (copies.isEmpty() || !(copies.get(0).outcome() instanceof Outcome.Retry)) {
        problems.add(r.paymentRequestId() + " was not retried after its first call");
      }
      if (processed(copies) != 1) {
        problems.add(r.paymentRequestId() + " completed by " + processed(copies) + " deliveries");
      }
    }
    if (replays < retried.size()) {
      problems.add(replays + " replays for " + retried.size() + " repeated calls");
    }
    return new Check(
        "a crash after the provider call ("
            + payments.requests(Hazard.CRASH).size()
            + ") and a dropped answer ("
            + payments.requests(Hazard.AMBIGUOUS).size()
            + ") were retried with the same key: attempt 2 took the lease over, the provider replayed, one charge",
        problems.isEmpty(),
        summarize(problems));
  }

  private Check concurrentCopies() {
    List<String> problems = new ArrayList<>();
    for (Request r : payments.requests(Hazard.CONCURRENT)) {
      List<Delivery> copies = copies(r);
      long duplicates =
          copies.stream().filter(d -> d.outcome() instanceof Outcome.Duplicate).count();
      if (processed(copies) != 1 || duplicates != 1) {
        problems.add(
            r.paymentRequestId()
                + ": "
                + processed(copies)
                + " completed, "
                + duplicates
                + " duplicates");
      }
    }
    return new Check(
        "concurrent copies of a payment request ("
            + payments.requests(Hazard.CONCURRENT).size()
            + " pairs): one claimed and called the provider, the other completed as a duplicate",
        problems.isEmpty(),
        summarize(problems));
  }

  private Check declines() {
    List<String> problems = new ArrayList<>();
    List<Request> declines = payments.requests(Hazard.DECLINE);
    for (Request r : declines) {
      Optional<ObjectNode> order = read.apply(r.orderId(), r.orderId());
      String status = order.map(o -> o.path("paymentStatus").asText()).orElse("missing");
      long paid = order.map(o -> o.path("amountPaidUnits").asLong(0)).orElse(-1L);
      if (!"declined".equals(status) || paid != 0) {
        problems.add(r.orderId() + " paymentStatus " + status + ", amountPaidUnits " + paid);
      }
      if (processed(copies(r)) != 1 || deadLetterReasons.containsKey(r.paymentRequestId())) {
        problems.add(r.paymentRequestId() + " was not completed once");
      }
    }
    return new Check(
        "a decline is a business answer: "
            + declines.size()
            + " declined requests completed, recorded with a PaymentDeclined event, nothing paid, none dead-lettered",
        problems.isEmpty(),
        summarize(problems));
  }

  private Check reusedKeys() {
    List<String> problems = new ArrayList<>();
    for (Request r : payments.reusedKeys) {
      if (!"IdempotencyConflict".equals(deadLetterReasons.get(r.paymentRequestId()))) {
        problems.add(r.paymentRequestId() + " not dead-lettered as IdempotencyConflict");
      }
      boolean charged =
          ledgerByKey.getOrDefault(r.paymentRequestId(), List.of()).stream()
              .anyMatch(c -> amount(c).compareTo(r.amount()) == 0);
      if (charged) {
        problems.add(r.paymentRequestId() + " was charged " + r.amount());
      }
      Optional<ObjectNode> record = read.apply(r.orderId(), r.recordId());
      if (record.isEmpty()
          || record.get().path("amount").decimalValue().compareTo(r.amount()) == 0) {
        problems.add(r.recordId() + " was overwritten or is missing");
      }
    }
    return new Check(
        "every payment key reused with another amount ("
            + payments.reusedKeys.size()
            + ") dead-lettered as IdempotencyConflict; nothing charged for it, its record untouched",
        problems.isEmpty(),
        summarize(problems));
  }

  private List<Delivery> copies(Request r) {
    return deliveries.stream()
        .filter(d -> DemoCommand.isType(d, DemoCommand.PAYMENT))
        .filter(d -> d.message().messageId().filter(r.paymentRequestId()::equals).isPresent())
        .sorted(java.util.Comparator.comparingLong(Delivery::startedNanos))
        .collect(Collectors.toList());
  }

  private static long processed(List<Delivery> copies) {
    return copies.stream().filter(d -> d.outcome() instanceof Outcome.Processed).count();
  }

  private static BigDecimal amount(JsonNode capture) {
    JsonNode amount = capture.path("amount");
    return amount.isNumber() ? amount.decimalValue() : new BigDecimal(amount.asText("-1"));
  }

  private static String summarize(List<String> problems) {
    return String.join("; ", problems.subList(0, Math.min(5, problems.size())));
  }
}
