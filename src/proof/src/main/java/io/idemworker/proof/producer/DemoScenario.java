package io.idemworker.proof.producer;

import com.azure.core.util.BinaryData;
import com.azure.messaging.servicebus.ServiceBusMessage;
import io.idemworker.app.OrderMessages;
import io.idemworker.core.DeadLetterReason;
import io.idemworker.servicebus.sending.Outgoing;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * What the demo's producer sends, generated from a seed so that a run can be repeated: new orders,
 * and the misbehaviours the pattern must absorb. The demo, the chaos run, the benches and {@code
 * send} all send it, and the audit's expectations are read from it.
 *
 * <p>Immutable once {@link #generate}d (its collections are unmodifiable), and so thread-safe; the
 * poison's messages are the SDK's mutable {@link ServiceBusMessage}s, which the callers only send.
 */
public final class DemoScenario {
  private static final String[] CURRENCIES = {"EUR", "USD", "GBP", "CHF", "SEK"};

  /**
   * A message the demo expects to be dead-lettered, with the reason it expects.
   *
   * @param label what is wrong with it, for a report
   * @param orderId the order it names, which must never be written
   * @param expected the reason it must be dead-lettered with
   * @param message the message as sent
   */
  public record Poison(
      String label, String orderId, DeadLetterReason expected, ServiceBusMessage message) {}

  final long seed;

  /** orderId → original body, for every order that must be created; in the order generated. */
  public final Map<String, String> orders;

  /** Orders sent once normally in phase 1. */
  public final List<String> firstWave;

  /** Orders the producer re-sends at once, as after a lost acknowledgement (inside the window). */
  public final List<String> producerRetries;

  /** Orders whose first processing "crashes" between commit and completion. */
  public final List<String> crashes;

  /** Orders the producer re-sends after the duplicate-detection window. */
  public final List<String> lateResends;

  /** Orders whose id is re-sent with other content after the window. */
  public final List<String> conflicts;

  /** New orders sent twice, the copies processed at the same time by the two instances. */
  public final List<String> concurrentCopies;

  /** Messages that must be dead-lettered, each with its reason. */
  public final List<Poison> poisons;

  /** Credits and status changes for the orders, sent once they exist. */
  public final DemoLifecycle lifecycle;

  /** Payment capture requests for the orders, sent last. */
  public final DemoPayments payments;

  private DemoScenario(
      long seed,
      Map<String, String> orders,
      List<String> firstWave,
      List<String> producerRetries,
      List<String> crashes,
      List<String> lateResends,
      List<String> conflicts,
      List<String> concurrentCopies,
      List<Poison> poisons,
      DemoLifecycle lifecycle,
      DemoPayments payments) {
    this.seed = seed;
    this.orders = Collections.unmodifiableMap(new LinkedHashMap<>(orders));
    this.firstWave = List.copyOf(firstWave);
    this.producerRetries = List.copyOf(producerRetries);
    this.crashes = List.copyOf(crashes);
    this.lateResends = List.copyOf(lateResends);
    this.conflicts = List.copyOf(conflicts);
    this.concurrentCopies = List.copyOf(concurrentCopies);
    this.poisons = List.copyOf(poisons);
    this.lifecycle = lifecycle;
    this.payments = payments;
  }

  /**
   * Generates a scenario; the same arguments generate the same scenario.
   *
   * @param orderCount how many new orders, 10 or more (fewer do not fit the shares of repeats)
   * @param seed the seed of every choice, order ids included ({@code ord-<seed>-<n>})
   * @param maxBodyBytes the worker's body limit, which one poison exceeds
   */
  public static DemoScenario generate(int orderCount, long seed, int maxBodyBytes) {
    Random random = new Random(seed);
    String prefix = "ord-" + seed + "-";
    Map<String, String> orders = new LinkedHashMap<>();
    List<String> firstWave = new ArrayList<>();
    for (int i = 1; i <= orderCount; i++) {
      String orderId = prefix + i;
      orders.put(orderId, body(orderId, random, i));
      firstWave.add(orderId);
    }
    List<String> shuffled = new ArrayList<>(firstWave);
    Collections.shuffle(shuffled, random);
    int tenth = Math.max(1, orderCount / 10);
    int twentieth = Math.max(1, orderCount / 20);
    int cursor = 0;
    List<String> producerRetries = shuffled.subList(cursor, cursor += tenth);
    List<String> crashes = shuffled.subList(cursor, cursor += twentieth);
    List<String> lateResends = shuffled.subList(cursor, cursor += tenth);
    List<String> conflicts = shuffled.subList(cursor, cursor += Math.max(2, orderCount / 40));
    List<String> concurrentCopies = new ArrayList<>();
    for (int i = 1; i <= twentieth; i++) {
      String orderId = prefix + "pair-" + i;
      orders.put(orderId, body(orderId, random, orderCount + i));
      concurrentCopies.add(orderId);
    }
    List<Poison> poisons = poisons(prefix, random, maxBodyBytes);
    DemoLifecycle lifecycle = DemoLifecycle.generate(prefix, orders, random);
    DemoPayments payments = DemoPayments.generate(prefix, orders, random);
    return new DemoScenario(
        seed,
        orders,
        firstWave,
        producerRetries,
        crashes,
        lateResends,
        conflicts,
        concurrentCopies,
        poisons,
        lifecycle,
        payments);
  }

  /**
   * The {@code OrderPlaced} message of one of the orders, as the producer sends it (a new message
   * object each call: MessageId = orderId, the body as generated).
   *
   * @param orderId one of {@link #orders}
   */
  public ServiceBusMessage message(String orderId) {
    return OrderMessages.orderPlaced(orderId, orders.get(orderId), "demo-" + orderId);
  }

  /**
   * The order's message for the producer kit, as {@code send} sends it.
   *
   * @param orderId one of {@link #orders}
   * @return the message
   */
  public Outgoing outgoing(String orderId) {
    return OrderMessages.outgoing(orderId, orders.get(orderId), "demo-" + orderId);
  }

  /**
   * The same order id with other content: another customer (a new message object each call).
   *
   * @param orderId one of {@link #orders}
   */
  public ServiceBusMessage conflicting(String orderId) {
    String original = orders.get(orderId);
    String other =
        original.replaceFirst("\"customerId\":\"[^\"]*\"", "\"customerId\":\"cust-other\"");
    return OrderMessages.orderPlaced(orderId, other, "demo-conflict-" + orderId);
  }

  private static List<Poison> poisons(String prefix, Random random, int maxBodyBytes) {
    List<Poison> poisons = new ArrayList<>();
    String p = prefix + "poison-";
    ServiceBusMessage noId =
        new ServiceBusMessage(BinaryData.fromString(body(p + 1, random, 1)))
            .setContentType("application/json")
            .setSubject("OrderPlaced");
    poisons.add(
        new Poison(
            "no MessageId (the broker assigns its own)",
            p + 1,
            DeadLetterReason.MESSAGE_ID_MISMATCH,
            noId));
    poisons.add(
        new Poison(
            "MessageId differs from orderId",
            p + 2,
            DeadLetterReason.MESSAGE_ID_MISMATCH,
            OrderMessages.orderPlaced(p + "2-other", body(p + 2, random, 2), "demo-poison")));
    poisons.add(
        new Poison(
            "body is not JSON",
            p + 3,
            DeadLetterReason.UNREADABLE_BODY,
            OrderMessages.orderPlaced(
                p + 3, "{\"orderId\": \"" + p + "3\", lines: oops", "demo-poison")));
    poisons.add(
        new Poison(
            "unknown currency",
            p + 4,
            DeadLetterReason.SCHEMA_VIOLATION,
            OrderMessages.orderPlaced(
                p + 4,
                body(p + 4, random, 4)
                    .replaceFirst("\"currency\":\"[A-Z]{3}\"", "\"currency\":\"XYZ\""),
                "demo-poison")));
    poisons.add(
        new Poison(
            "no lines",
            p + 5,
            DeadLetterReason.SCHEMA_VIOLATION,
            OrderMessages.orderPlaced(
                p + 5,
                body(p + 5, random, 5).replaceFirst("\"lines\":\\[.*\\]", "\"lines\":[]"),
                "demo-poison")));
    poisons.add(
        new Poison(
            "negative quantity",
            p + 6,
            DeadLetterReason.SCHEMA_VIOLATION,
            OrderMessages.orderPlaced(
                p + 6,
                body(p + 6, random, 6).replaceFirst("\"quantity\":\\d+", "\"quantity\":-3"),
                "demo-poison")));
    String padding = "x".repeat(maxBodyBytes);
    poisons.add(
        new Poison(
            "body larger than WORKER_MAX_BODY_BYTES",
            p + 7,
            DeadLetterReason.BODY_TOO_LARGE,
            OrderMessages.orderPlaced(
                p + 7,
                body(p + 7, random, 7).replaceFirst("\\}$", ",\"note\":\"" + padding + "\"}"),
                "demo-poison")));
    ServiceBusMessage wrongSubject =
        OrderMessages.orderPlaced(p + 8, body(p + 8, random, 8), "demo-poison");
    wrongSubject.setSubject("OrderCancelled");
    poisons.add(
        new Poison(
            "subject is not a message type of the queue",
            p + 8,
            DeadLetterReason.UNSUPPORTED_MESSAGE,
            wrongSubject));
    return poisons;
  }

  private static String body(String orderId, Random random, int n) {
    StringBuilder lines = new StringBuilder();
    int count = 1 + random.nextInt(4);
    for (int i = 0; i < count; i++) {
      // At least 3000 per line: every order can take its capture requests (at most two of 1500)
      // and its credits (at most three of 900) within its total, as the money bounds require.
      BigDecimal price = BigDecimal.valueOf(300_000 + random.nextInt(20_000), 2);
      lines
          .append(i == 0 ? "" : ",")
          .append(
              String.format(
                  Locale.ROOT,
                  "{\"sku\":\"SKU-%d\",\"quantity\":%d,\"unitPrice\":%s}",
                  random.nextInt(500),
                  1 + random.nextInt(5),
                  price.toPlainString()));
    }
    return String.format(
        Locale.ROOT,
        "{\"orderId\":\"%s\",\"customerId\":\"cust-%d\",\"currency\":\"%s\",\"placedAt\":\"%s\",\"lines\":[%s]}",
        orderId,
        random.nextInt(1000),
        CURRENCIES[random.nextInt(CURRENCIES.length)],
        Instant.parse("2026-11-30T10:00:00Z").plusSeconds(60L * n),
        lines);
  }
}
