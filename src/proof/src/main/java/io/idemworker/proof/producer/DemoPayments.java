package io.idemworker.proof.producer;

import com.azure.core.util.BinaryData;
import com.azure.messaging.servicebus.ServiceBusMessage;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.OrderMessageTypes;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * The payments part of the demo's scenario, sent once the orders exist: capture requests ({@code
 * PaymentCaptureRequested}), each exposed to one hazard of a call that cannot join the store's
 * transaction, and keys reused with another amount. Generated from the scenario's seed.
 *
 * <p>Immutable (its lists are unmodifiable) and thread-safe.
 */
public final class DemoPayments {
  private static final BigDecimal DECLINING_FRACTION = new BigDecimal("0.13");

  /** What happens to a payment request on its way. */
  public enum Hazard {
    /** Sent once, nothing goes wrong. */
    NONE("sent once, nothing in the way"),
    /** The provider executes it, then drops the connection before answering. */
    AMBIGUOUS("connection dropped after the provider executed it"),
    /** The worker "dies" after the provider call, before the completion; its lease expires. */
    CRASH("crash after the provider call, lease taken over"),
    /** Two copies processed at the same time on the instances. */
    CONCURRENT("concurrent copies on the instances"),
    /** An amount the provider declines (fraction .13). */
    DECLINE("declined by the provider (amount ending in .13)");

    private final String label;

    Hazard(String label) {
      this.label = label;
    }

    /** What happens to the request, in words, for a report. */
    public String label() {
      return label;
    }
  }

  /**
   * One capture request as the producer sends it.
   *
   * @param paymentRequestId the request's id: its message's MessageId and the provider's
   *     idempotency key
   * @param orderId the order it pays
   * @param amount the amount; a fraction of .13 is declined by the provider
   * @param currency the order's currency
   * @param hazard what happens to it on its way
   */
  public record Request(
      String paymentRequestId, String orderId, BigDecimal amount, String currency, Hazard hazard) {

    /** Whether the provider declines it (its amount's fraction is .13). */
    public boolean declines() {
      return amount.remainder(BigDecimal.ONE).compareTo(DECLINING_FRACTION) == 0;
    }

    /** The units the order's {@code amountPaidUnits} grows by when captured. */
    public long units() {
      return amount.movePointRight(4).longValueExact();
    }

    /** The id of the payment record the worker keeps for it in the order's partition. */
    public String recordId() {
      return OrderDocumentIds.payment(new IdempotencyKey(paymentRequestId));
    }

    /** The id of the outbox event its result writes (PaymentCaptured or PaymentDeclined). */
    public String eventId() {
      return OrderDocumentIds.paymentEvent(new IdempotencyKey(paymentRequestId));
    }
  }

  /** Requests that must each be executed exactly once at the provider. */
  public final List<Request> requests;

  /** Completed requests' keys sent again with another amount: dead-lettered, never charged. */
  public final List<Request> reusedKeys;

  private DemoPayments(List<Request> requests, List<Request> reusedKeys) {
    this.requests = List.copyOf(requests);
    this.reusedKeys = List.copyOf(reusedKeys);
  }

  /**
   * Generates the payments for the scenario's orders.
   *
   * @param prefix the scenario's order id prefix
   * @param orders orderId → OrderPlaced body
   * @param random the scenario's random source, continued
   */
  static DemoPayments generate(String prefix, Map<String, String> orders, Random random) {
    List<Request> requests = new ArrayList<>();
    List<String> ids = new ArrayList<>(orders.keySet());
    Collections.shuffle(ids, random);
    int fortieth = Math.max(1, ids.size() / 40);
    Map<Hazard, Integer> counts = new LinkedHashMap<>();
    counts.put(Hazard.NONE, Math.max(4, ids.size() / 20));
    counts.put(Hazard.AMBIGUOUS, fortieth);
    counts.put(Hazard.CRASH, fortieth);
    // Each first copy holds a processing slot at the meeting point until its twin arrives.
    counts.put(Hazard.CONCURRENT, fortieth);
    counts.put(Hazard.DECLINE, 2);
    String requestPrefix = "pr-" + prefix.substring("ord-".length());
    int order = 0;
    for (Map.Entry<Hazard, Integer> count : counts.entrySet()) {
      for (int i = 0; i < count.getValue(); i++) {
        // Every other successful request goes to an order that already has one, so the paid
        // total is a sum; declines get orders of their own, which must end with nothing paid.
        boolean shareOrder = count.getKey() != Hazard.DECLINE && i % 2 == 1 && !requests.isEmpty();
        String orderId =
            shareOrder ? requests.get(requests.size() - 1).orderId() : ids.get(order++);
        BigDecimal amount =
            count.getKey() == Hazard.DECLINE ? declining(random) : capturing(random);
        requests.add(
            new Request(
                requestPrefix + (requests.size() + 1),
                orderId,
                amount,
                DemoLifecycle.currency(orders.get(orderId)),
                count.getKey()));
      }
    }
    List<Request> reusedKeys = new ArrayList<>();
    for (Request original : ofHazard(requests, Hazard.NONE).subList(0, 2)) {
      reusedKeys.add(
          new Request(
              original.paymentRequestId(),
              original.orderId(),
              original.amount().add(BigDecimal.ONE),
              original.currency(),
              Hazard.NONE));
    }
    return new DemoPayments(requests, reusedKeys);
  }

  /** Amounts with 2 to 4 decimals whose fraction is never .13. */
  private static BigDecimal capturing(Random random) {
    while (true) {
      // At most 1500: two requests on one order stay within its total (DemoScenario's prices).
      BigDecimal amount = BigDecimal.valueOf(1 + random.nextInt(150_000), 2 + random.nextInt(3));
      if (amount.remainder(BigDecimal.ONE).compareTo(DECLINING_FRACTION) != 0) {
        return amount;
      }
    }
  }

  private static BigDecimal declining(Random random) {
    return BigDecimal.valueOf(1 + random.nextInt(900)).add(DECLINING_FRACTION);
  }

  /** The requests exposed to one hazard, in the order of {@link #requests}. */
  public List<Request> requests(Hazard hazard) {
    return ofHazard(requests, hazard);
  }

  private static List<Request> ofHazard(List<Request> requests, Hazard hazard) {
    return requests.stream().filter(r -> r.hazard() == hazard).toList();
  }

  /** orderId → its requests; a new map each call. */
  public Map<String, List<Request>> byOrder() {
    Map<String, List<Request>> byOrder = new LinkedHashMap<>();
    requests.forEach(r -> byOrder.computeIfAbsent(r.orderId(), k -> new ArrayList<>()).add(r));
    return byOrder;
  }

  /** How many payment messages the producer sends in all. */
  public int messagesSent() {
    return requests.size() + requests(Hazard.CONCURRENT).size() + reusedKeys.size();
  }

  /**
   * A request's {@code PaymentCaptureRequested} message (a new message object each call).
   *
   * @param r the request
   */
  public static ServiceBusMessage message(Request r) {
    String body =
        String.format(
            Locale.ROOT,
            "{\"orderId\":\"%s\",\"paymentRequestId\":\"%s\",\"amount\":%s,\"currency\":\"%s\"}",
            r.orderId(),
            r.paymentRequestId(),
            r.amount().toPlainString(),
            r.currency());
    ServiceBusMessage message =
        new ServiceBusMessage(BinaryData.fromBytes(body.getBytes(StandardCharsets.UTF_8)));
    message.setMessageId(r.paymentRequestId());
    message.setContentType("application/json");
    message.setSubject(OrderMessageTypes.PAYMENT_CAPTURE_REQUESTED);
    message.setCorrelationId("demo-" + r.paymentRequestId());
    return message;
  }
}
