package io.idemworker.proof.producer;

import com.azure.core.util.BinaryData;
import com.azure.messaging.servicebus.ServiceBusMessage;
import io.idemworker.core.IdempotencyKey;
import io.idemworker.orders.InboxMarkers;
import io.idemworker.orders.OrderMessageTypes;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lifecycle part of the demo's scenario, sent once the orders exist: credits, each repeated
 * from one source; credits in the wrong currency; status changes that arrive out of order; and a
 * status change for an order that is never placed. Generated from the scenario's seed.
 *
 * <p>Immutable (its lists are unmodifiable) and thread-safe.
 */
public final class DemoLifecycle {
  /** The consumer name the demo's inbox markers carry. */
  public static final String CONSUMER = "orders";

  private static final Pattern CURRENCY = Pattern.compile("\"currency\":\"([A-Z]{3})\"");
  private static final String[] CURRENCIES = {"EUR", "USD", "GBP", "CHF", "SEK"};

  /** How a credit is repeated: every credit is sent twice in one of these ways. */
  public enum Source {
    /** The producer sends it again at once (lost acknowledgement): the broker drops the copy. */
    PRODUCER_RETRY("producer retry inside the duplicate-detection window"),
    /** The worker commits, then "crashes" before completing: the broker redelivers it. */
    CRASH("redelivered after a crash between commit and completion"),
    /** The producer sends it again after the broker's window: the worker sees both. */
    LATE_RESEND("resent after the detection window"),
    /** Two copies processed at the same time on the instances. */
    CONCURRENT("concurrent copies on the instances"),
    /** Not repeated (the wrong-currency credits). */
    ONCE("sent once");

    private final String label;

    Source(String label) {
      this.label = label;
    }

    /** How the credit is repeated, in words, for a report. */
    public String label() {
      return label;
    }
  }

  /**
   * One credit as the producer sends it.
   *
   * @param creditId the credit's id, its message's MessageId
   * @param orderId the order it credits
   * @param amount the amount, 1 to 4 decimals
   * @param currency its currency (another than the order's for a wrong-currency credit)
   * @param source how it is repeated
   */
  public record Credit(
      String creditId, String orderId, BigDecimal amount, String currency, Source source) {

    /** The units the order's {@code creditedUnits} grows by: amount × 10000, exactly. */
    public long units() {
      return amount.movePointRight(4).longValueExact();
    }

    /** The id of the inbox marker the worker writes when it applies the credit. */
    public String markerId() {
      return InboxMarkers.id(CONSUMER, new IdempotencyKey(creditId));
    }
  }

  /** Credits that must take effect, each repeated from one {@link Source}. */
  public final List<Credit> credits;

  /** Credits in another currency than their order's: dead-lettered, never applied. */
  public final List<Credit> wrongCurrency;

  /** Orders that get status version 3 ({@code Shipped}), then version 2 ({@code Packed}). */
  public final List<String> statusOrders;

  /** An order id that is never placed, but gets a status change. */
  public final String neverPlaced;

  private DemoLifecycle(
      List<Credit> credits,
      List<Credit> wrongCurrency,
      List<String> statusOrders,
      String neverPlaced) {
    this.credits = List.copyOf(credits);
    this.wrongCurrency = List.copyOf(wrongCurrency);
    this.statusOrders = List.copyOf(statusOrders);
    this.neverPlaced = neverPlaced;
  }

  /**
   * Generates the lifecycle for the scenario's orders.
   *
   * @param prefix the scenario's order id prefix
   * @param orders orderId → OrderPlaced body
   * @param random the scenario's random source, continued
   */
  static DemoLifecycle generate(String prefix, Map<String, String> orders, Random random) {
    List<Credit> credits = new ArrayList<>();
    List<Credit> wrongCurrency = new ArrayList<>();
    List<String> ids = new ArrayList<>(orders.keySet());
    Collections.shuffle(ids, random);
    int creditOrders = Math.max(4, ids.size() / 5);
    int statusCount = Math.max(2, ids.size() / 10);
    String creditPrefix = "cr-" + prefix.substring("ord-".length());
    List<Credit> unassigned = new ArrayList<>();
    for (String orderId : ids.subList(0, creditOrders)) {
      String currency = currency(orders.get(orderId));
      int count = 1 + random.nextInt(3);
      for (int i = 0; i < count; i++) {
        unassigned.add(
            new Credit(
                creditPrefix + (unassigned.size() + 1),
                orderId,
                amount(random),
                currency,
                Source.PRODUCER_RETRY));
      }
    }
    Collections.shuffle(unassigned, random);
    Source[] sources = {Source.PRODUCER_RETRY, Source.CRASH, Source.LATE_RESEND, Source.CONCURRENT};
    // As many concurrent pairs as the orders have: each first copy holds a processing slot at the
    // meeting point until its twin arrives, so more pairs than slots would stall until the
    // meeting's timeout.
    int concurrentLeft = Math.max(1, ids.size() / 20);
    for (int i = 0; i < unassigned.size(); i++) {
      Credit c = unassigned.get(i);
      Source source = sources[i % sources.length];
      if (source == Source.CONCURRENT && concurrentLeft-- <= 0) {
        source = sources[(i / sources.length) % (sources.length - 1)];
      }
      credits.add(new Credit(c.creditId(), c.orderId(), c.amount(), c.currency(), source));
    }
    // One wrong-currency credit on an order that has good credits, one on an order that has none.
    List<String> wrongTargets = List.of(ids.get(0), ids.get(creditOrders));
    for (int i = 0; i < wrongTargets.size(); i++) {
      String orderId = wrongTargets.get(i);
      String own = currency(orders.get(orderId));
      String other = CURRENCIES[(List.of(CURRENCIES).indexOf(own) + 1) % CURRENCIES.length];
      wrongCurrency.add(
          new Credit(creditPrefix + "fx-" + (i + 1), orderId, amount(random), other, Source.ONCE));
    }
    // Status orders overlap the credited ones in part, so both changes meet on one document.
    int from = creditOrders / 2;
    return new DemoLifecycle(
        credits, wrongCurrency, ids.subList(from, from + statusCount), prefix + "never-1");
  }

  /** Amounts with 1 to 4 decimals, such as 0.1 or 12.3456, that would drift as binary doubles. */
  private static BigDecimal amount(Random random) {
    int scale = 1 + random.nextInt(4);
    // At most 900: three credits on one order stay within its total (DemoScenario's prices).
    long unscaled = 1 + random.nextInt(scale == 1 ? 9_000 : 90_000);
    return BigDecimal.valueOf(unscaled, scale);
  }

  /**
   * The currency of an order's body, as the demo generates it.
   *
   * @param orderBody an {@code OrderPlaced} body of {@link DemoScenario#orders}
   * @return its ISO 4217 code
   */
  public static String currency(String orderBody) {
    Matcher m = CURRENCY.matcher(orderBody);
    if (!m.find()) {
      throw new IllegalStateException("the demo generated an order without a currency");
    }
    return m.group(1);
  }

  /** Credits repeated from one source, in the order of {@link #credits}. */
  public List<Credit> credits(Source source) {
    return credits.stream().filter(c -> c.source() == source).toList();
  }

  /**
   * orderId → its credits that must take effect, including orders that must have none (those of the
   * wrong-currency credits); a new map each call.
   */
  public Map<String, List<Credit>> creditsByOrder() {
    Map<String, List<Credit>> byOrder = new LinkedHashMap<>();
    credits.forEach(c -> byOrder.computeIfAbsent(c.orderId(), k -> new ArrayList<>()).add(c));
    wrongCurrency.forEach(c -> byOrder.computeIfAbsent(c.orderId(), k -> new ArrayList<>()));
    return byOrder;
  }

  /** How many lifecycle messages the producer sends in all. */
  public int messagesSent() {
    return credits.size()
        + credits(Source.PRODUCER_RETRY).size()
        + credits(Source.LATE_RESEND).size()
        + credits(Source.CONCURRENT).size()
        + wrongCurrency.size()
        + 2 * statusOrders.size()
        + 1;
  }

  /** How many credit messages the producer sends in all. */
  public int creditMessagesSent() {
    return credits.size()
        + credits(Source.PRODUCER_RETRY).size()
        + credits(Source.LATE_RESEND).size()
        + credits(Source.CONCURRENT).size()
        + wrongCurrency.size();
  }

  /**
   * A credit's {@code OrderCredited} message (a new message object each call).
   *
   * @param c the credit
   */
  public static ServiceBusMessage credit(Credit c) {
    String body =
        String.format(
            Locale.ROOT,
            "{\"orderId\":\"%s\",\"creditId\":\"%s\",\"amount\":%s,\"currency\":\"%s\",\"reason\":\"goodwill\"}",
            c.orderId(),
            c.creditId(),
            c.amount().toPlainString(),
            c.currency());
    return message(c.creditId(), OrderMessageTypes.ORDER_CREDITED, body);
  }

  /**
   * An {@code OrderStatusChanged} message (a new message object each call).
   *
   * @param orderId the order
   * @param version the status's version
   * @param status the status
   */
  public static ServiceBusMessage status(String orderId, int version, String status) {
    String body =
        String.format(
            Locale.ROOT,
            "{\"orderId\":\"%s\",\"status\":\"%s\",\"version\":%d,\"changedAt\":\"%s\"}",
            orderId,
            status,
            version,
            Instant.parse("2026-12-01T10:00:00Z").plusSeconds(3600L * version));
    return message(
        OrderMessageTypes.statusMessageId(orderId, version),
        OrderMessageTypes.ORDER_STATUS_CHANGED,
        body);
  }

  private static ServiceBusMessage message(String messageId, String subject, String body) {
    ServiceBusMessage message =
        new ServiceBusMessage(BinaryData.fromBytes(body.getBytes(StandardCharsets.UTF_8)));
    message.setMessageId(messageId);
    message.setContentType("application/json");
    message.setSubject(subject);
    message.setCorrelationId("demo-" + messageId);
    return message;
  }
}
