package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Cross-partition queries through the real SDK over three partition key ranges equal a plain Java
 * evaluation over all the items, for random items (some without the sort key) and random queries:
 * ORDER BY either way with a filter, TOP or OFFSET/LIMIT, read in random page sizes; and VALUE
 * aggregates.
 */
class CrossPartitionQueryProperties {
  private static CosmosEmulator emulator;
  private static CosmosClient client;
  private static final AtomicInteger CONTAINERS = new AtomicInteger();

  @BeforeContainer
  static void start() {
    emulator = CosmosEmulator.builder().partitionKeyRanges(3).start();
    client = Clients.sync(emulator);
    client.createDatabaseIfNotExists("props");
  }

  @AfterContainer
  static void stop() {
    client.close();
    emulator.close();
  }

  /** One item: its partition (0-7) and its amount, absent when empty. */
  record Item(int partition, OptionalInt amount) {}

  @Provide
  Arbitrary<List<Item>> items() {
    Arbitrary<OptionalInt> amount =
        Arbitraries.integers()
            .between(-5, 20)
            .map(OptionalInt::of)
            .injectNull(0.15)
            .map(a -> a == null ? OptionalInt.empty() : a);
    return Combinators.combine(Arbitraries.integers().between(0, 7), amount)
        .as(Item::new)
        .list()
        .ofMaxSize(30);
  }

  private static CosmosContainer fill(List<Item> items) {
    String id = "c" + CONTAINERS.incrementAndGet();
    client.getDatabase("props").createContainer(Clients.containerProps(id, null));
    CosmosContainer container = client.getDatabase("props").getContainer(id);
    for (int i = 0; i < items.size(); i++) {
      ObjectNode doc = JsonNodeFactory.instance.objectNode();
      doc.put("id", "i" + i).put("orderId", "p" + items.get(i).partition());
      items.get(i).amount().ifPresent(a -> doc.put("amount", a));
      container.createItem(doc);
    }
    return container;
  }

  private static List<JsonNode> run(CosmosContainer container, String sql, int pageSize) {
    List<JsonNode> out = new ArrayList<>();
    for (FeedResponse<JsonNode> page :
        container
            .queryItems(sql, new CosmosQueryRequestOptions(), JsonNode.class)
            .iterableByPage(pageSize)) {
      out.addAll(page.getResults());
    }
    return out;
  }

  /** Sort keys as the service orders them: undefined (as null here) first, then numbers. */
  private static final Comparator<Optional<Integer>> UNDEFINED_FIRST =
      Comparator.comparing((Optional<Integer> a) -> a.isPresent()).thenComparing(a -> a.orElse(0));

  @Property(tries = 25)
  void orderBy_withFilterAndLimits_equalsTheReference(
      @ForAll("items") List<Item> items,
      @ForAll boolean descending,
      @ForAll @IntRange(min = -6, max = 21) int threshold,
      @ForAll @IntRange(min = 0, max = 2) int limitKind,
      @ForAll @IntRange(min = 0, max = 12) int offset,
      @ForAll @IntRange(min = 0, max = 12) int count,
      @ForAll @IntRange(min = 1, max = 9) int pageSize) {
    CosmosContainer container = fill(items);
    String direction = descending ? " DESC" : " ASC";
    String sql =
        switch (limitKind) {
          case 0 ->
              "SELECT * FROM c WHERE c.amount >= " + threshold + " ORDER BY c.amount" + direction;
          case 1 -> "SELECT TOP " + count + " * FROM c ORDER BY c.amount" + direction;
          default ->
              "SELECT * FROM c ORDER BY c.amount"
                  + direction
                  + " OFFSET "
                  + offset
                  + " LIMIT "
                  + count;
        };

    List<Optional<Integer>> actual =
        run(container, sql, pageSize).stream()
            .map(
                d ->
                    d.has("amount")
                        ? Optional.of(d.get("amount").asInt())
                        : Optional.<Integer>empty())
            .toList();

    Comparator<Optional<Integer>> order = descending ? UNDEFINED_FIRST.reversed() : UNDEFINED_FIRST;
    List<Optional<Integer>> all =
        items.stream()
            .map(
                i ->
                    i.amount().isPresent()
                        ? Optional.of(i.amount().getAsInt())
                        : Optional.<Integer>empty())
            .sorted(order)
            .toList();
    List<Optional<Integer>> expected =
        switch (limitKind) {
          case 0 -> all.stream().filter(a -> a.isPresent() && a.get() >= threshold).toList();
          case 1 -> all.subList(0, Math.min(count, all.size()));
          default ->
              all.subList(Math.min(offset, all.size()), Math.min(offset + count, all.size()));
        };
    assertThat(actual).as(sql).containsExactlyElementsOf(expected);
  }

  @Property(tries = 20)
  void valueAggregates_equalTheReference(
      @ForAll("items") List<Item> items, @ForAll @IntRange(min = -6, max = 21) int threshold) {
    CosmosContainer container = fill(items);
    String where = " FROM c WHERE c.amount >= " + threshold;
    List<Integer> amounts =
        items.stream()
            .filter(i -> i.amount().isPresent() && i.amount().getAsInt() >= threshold)
            .map(i -> i.amount().getAsInt())
            .toList();

    assertThat(run(container, "SELECT VALUE COUNT(1)" + where, 10).get(0).asLong())
        .isEqualTo(amounts.size());
    assertThat(run(container, "SELECT VALUE SUM(c.amount)" + where, 10).get(0).asLong())
        .isEqualTo(amounts.stream().mapToLong(Integer::longValue).sum());
    List<JsonNode> max = run(container, "SELECT VALUE MAX(c.amount)" + where, 10);
    List<JsonNode> min = run(container, "SELECT VALUE MIN(c.amount)" + where, 10);
    if (amounts.isEmpty()) {
      assertThat(max).allSatisfy(v -> assertThat(v.isNull()).isTrue());
      assertThat(min).allSatisfy(v -> assertThat(v.isNull()).isTrue());
    } else {
      assertThat(max.get(0).asInt())
          .isEqualTo(amounts.stream().mapToInt(a -> a).max().orElseThrow());
      assertThat(min.get(0).asInt())
          .isEqualTo(amounts.stream().mapToInt(a -> a).min().orElseThrow());
    }
  }
}
