package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.ChangeFeedProcessor;
import com.azure.cosmos.ChangeFeedProcessorBuilder;
import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.ChangeFeedProcessorItem;
import com.azure.cosmos.models.ChangeFeedProcessorOptions;
import com.azure.cosmos.models.ChangeFeedProcessorState;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The SDK's change feed processor (latest-version mode, leases in a container of the emulator)
 * against a container of four partition key ranges: leases are made for every range, shared out
 * between hosts, taken over from a host that stops renewing them, and a restarted processor goes on
 * from the checkpoints. Waits are bounded polls on observable state (items handled, lease
 * documents), never fixed sleeps; lease intervals are short so that each step takes about a second.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorChangeFeedProcessorTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int RANGES = 4;

  private CosmosEmulator emulator;
  private CosmosClient client;
  private final List<CosmosAsyncClient> asyncClients = new ArrayList<>();
  private final List<ChangeFeedProcessor> processors = new ArrayList<>();

  @BeforeAll
  void start() {
    emulator = CosmosEmulator.builder().partitionKeyRanges(RANGES).start();
    client = Clients.sync(emulator);
    client.createDatabaseIfNotExists("cfp");
  }

  @AfterEach
  void stopProcessors() {
    emulator.faults().clear();
    for (ChangeFeedProcessor p : processors) {
      try {
        p.stop().block(Duration.ofSeconds(30));
      } catch (RuntimeException e) {
        // a processor whose client was closed under it cannot release its leases
      }
    }
    processors.clear();
    asyncClients.forEach(CosmosAsyncClient::close);
    asyncClients.clear();
  }

  @AfterAll
  void stop() {
    client.close();
    emulator.close();
  }

  /** A monitored container ({@code /pk}) and a lease container ({@code /id}), both fresh. */
  private record Containers(String feed, String leases) {}

  private Containers freshContainers() {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    Containers c = new Containers("feed-" + suffix, "leases-" + suffix);
    client.getDatabase("cfp").createContainer(new CosmosContainerProperties(c.feed(), "/pk"));
    client.getDatabase("cfp").createContainer(new CosmosContainerProperties(c.leases(), "/id"));
    return c;
  }

  private CosmosAsyncClient newAsyncClient() {
    return newAsyncClient("");
  }

  /** A client whose requests carry {@code name} in their User-Agent, for faults of its own. */
  private CosmosAsyncClient newAsyncClient(String name) {
    CosmosAsyncClient async =
        Clients.builder(emulator, emulator.key()).userAgentSuffix(name).buildAsyncClient();
    asyncClients.add(async);
    return async;
  }

  /**
   * Short lease intervals, but whole seconds: the SDK's partition supervisor gives a lease up when
   * no change feed answer came for 25 renew intervals counted in whole seconds, which a renew
   * interval under a second makes zero, so any pause of a second (a loaded machine) drops it.
   */
  private static ChangeFeedProcessorOptions shortIntervals() {
    return new ChangeFeedProcessorOptions()
        .setStartFromBeginning(true)
        .setLeaseRenewInterval(Duration.ofSeconds(1))
        .setLeaseAcquireInterval(Duration.ofSeconds(1))
        .setLeaseExpirationInterval(Duration.ofSeconds(5))
        .setFeedPollDelay(Duration.ofMillis(100))
        .setMaxItemCount(10);
  }

  /**
   * Starts a latest-version processor on its own client, handing every item's id to {@code seen}.
   */
  private ChangeFeedProcessor startHost(
      String host, Containers c, Consumer<String> seen, CosmosAsyncClient async) {
    CosmosAsyncContainer feed = async.getDatabase("cfp").getContainer(c.feed());
    CosmosAsyncContainer leases = async.getDatabase("cfp").getContainer(c.leases());
    ChangeFeedProcessor processor =
        new ChangeFeedProcessorBuilder()
            .hostName(host)
            .feedContainer(feed)
            .leaseContainer(leases)
            .options(shortIntervals())
            .handleLatestVersionChanges(
                (List<ChangeFeedProcessorItem> items) ->
                    items.forEach(i -> seen.accept(i.getCurrent().get("id").asText())))
            .buildChangeFeedProcessor();
    processors.add(processor);
    processor.start().block(WAIT);
    return processor;
  }

  private void write(Containers c, int from, int to) {
    CosmosContainer feed = client.getDatabase("cfp").getContainer(c.feed());
    for (int i = from; i < to; i++) {
      ObjectNode doc =
          JsonNodeFactory.instance.objectNode().put("id", "item-" + i).put("pk", "pk-" + i);
      feed.createItem(doc);
    }
  }

  private static Set<String> ids(int from, int to) {
    Set<String> ids = new java.util.HashSet<>();
    for (int i = from; i < to; i++) {
      ids.add("item-" + i);
    }
    return ids;
  }

  /** The lease documents of the processor (not its .info and .lock documents). */
  private List<JsonNode> leases(Containers c) {
    return client
        .getDatabase("cfp")
        .getContainer(c.leases())
        .queryItems("SELECT * FROM c", new CosmosQueryRequestOptions(), JsonNode.class)
        .stream()
        .filter(d -> d.has("LeaseToken"))
        .toList();
  }

  private volatile String lastLeases = "";

  private Map<String, Long> ownerCounts(Containers c) {
    List<JsonNode> leases = leases(c);
    lastLeases = "; leases " + leases;
    return leases.stream()
        .collect(
            Collectors.groupingBy(
                d -> d.path("Owner").isTextual() ? d.path("Owner").asText() : "",
                Collectors.counting()));
  }

  private void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + WAIT + ": " + what + lastLeases);
      }
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }

  @Test
  void oneHost_readsEveryRangeFromTheBeginning_andCheckpointsEachLease() {
    Containers c = freshContainers();
    write(c, 0, 40);
    Map<String, Integer> seen = new ConcurrentHashMap<>();

    startHost("host-a", c, id -> seen.merge(id, 1, Integer::sum), newAsyncClient());

    await("all 40 items handled", () -> seen.keySet().containsAll(ids(0, 40)));
    assertThat(leases(c)).hasSize(RANGES);
    await(
        "every lease checkpointed",
        () -> leases(c).stream().allMatch(l -> l.path("ContinuationToken").isTextual()));
    write(c, 40, 45);
    await("items written later are handled too", () -> seen.keySet().containsAll(ids(0, 45)));
  }

  @Test
  void twoHosts_shareTheLeases_twoEach() {
    Containers c = freshContainers();
    Set<String> seenA = ConcurrentHashMap.newKeySet();
    Set<String> seenB = ConcurrentHashMap.newKeySet();

    startHost("host-a", c, seenA::add, newAsyncClient());
    await("host-a owns every lease", () -> ownerCounts(c).getOrDefault("host-a", 0L) == RANGES);
    startHost("host-b", c, seenB::add, newAsyncClient());

    await(
        "two leases each",
        () -> {
          Map<String, Long> owners = ownerCounts(c);
          return owners.getOrDefault("host-a", 0L) == 2 && owners.getOrDefault("host-b", 0L) == 2;
        });
    write(c, 0, 40);
    await(
        "every item handled by one host or the other",
        () -> {
          Set<String> all = new java.util.HashSet<>(seenA);
          all.addAll(seenB);
          return all.containsAll(ids(0, 40));
        });
    assertThat(seenA).isNotEmpty();
    assertThat(seenB).isNotEmpty();
  }

  @Test
  void aHostThatDies_losesItsLeasesToTheOther_whichReadsOnFromItsCheckpoints() {
    Containers c = freshContainers();
    Set<String> seenA = ConcurrentHashMap.newKeySet();
    Set<String> seenB = ConcurrentHashMap.newKeySet();
    startHost("host-a", c, seenA::add, newAsyncClient("cfp-host-a"));
    await("host-a owns every lease", () -> ownerCounts(c).getOrDefault("host-a", 0L) == RANGES);
    startHost("host-b", c, seenB::add, newAsyncClient());
    await(
        "two leases each",
        () ->
            ownerCounts(c).getOrDefault("host-a", 0L) == 2
                && ownerCounts(c).getOrDefault("host-b", 0L) == 2);
    write(c, 0, 20);
    await(
        "the first items handled",
        () -> {
          Set<String> all = new java.util.HashSet<>(seenA);
          all.addAll(seenB);
          return all.containsAll(ids(0, 20));
        });

    // host-a dies: every request of its client fails from now on, so it neither renews nor
    // releases its leases, nor reads or checkpoints.
    Faults cutOff = emulator.faults().client("cfp-host-a");
    for (Operation op : Operation.values()) {
      cutOff.inject(op, Fault.status(503));
    }
    await("host-b owns every lease", () -> ownerCounts(c).getOrDefault("host-b", 0L) == RANGES);
    seenB.clear();
    write(c, 20, 40);

    await("host-b handles every later item", () -> seenB.containsAll(ids(20, 40)));
  }

  @Test
  void aRestartedProcessor_goesOnFromItsCheckpoints() {
    Containers c = freshContainers();
    write(c, 0, 20);
    Set<String> first = ConcurrentHashMap.newKeySet();
    ChangeFeedProcessor before = startHost("host-a", c, first::add, newAsyncClient());
    await("the first run handles the first items", () -> first.containsAll(ids(0, 20)));
    await(
        "every lease checkpointed at the end of its range (the estimator says no lag)",
        () -> {
          List<ChangeFeedProcessorState> states = before.getCurrentState().block(WAIT);
          return states != null
              && states.size() == RANGES
              && states.stream().allMatch(state -> state.getEstimatedLag() == 0);
        });
    before.stop().block(WAIT);
    processors.remove(before);
    // The SDK's stop() only cancels: each lease's worker ends after its current batch and then
    // releases the lease. Until every lease is released the stopped host may still read, handle
    // and checkpoint; once they are, nothing of it runs.
    await(
        "the stopped host released every lease",
        () -> {
          Map<String, Long> owners = ownerCounts(c);
          return owners.getOrDefault("", 0L) == RANGES;
        });
    write(c, 20, 30);

    Set<String> second = ConcurrentHashMap.newKeySet();
    startHost("host-a2", c, second::add, newAsyncClient());

    await(
        "the restart handles the items written while stopped",
        () -> second.containsAll(ids(20, 30)));
    assertThat(second)
        .as("nothing handled twice across the restart")
        .doesNotContainAnyElementsOf(ids(0, 20));
    assertThat(first).as("the stopped host handled nothing more").isEqualTo(ids(0, 20));
  }

  @Test
  void theLegacyHandler_readsEveryRange() {
    Containers c = freshContainers();
    write(c, 0, 20);
    Set<String> seen = ConcurrentHashMap.newKeySet();
    CosmosAsyncClient async = newAsyncClient();
    ChangeFeedProcessor processor =
        new ChangeFeedProcessorBuilder()
            .hostName("legacy")
            .feedContainer(async.getDatabase("cfp").getContainer(c.feed()))
            .leaseContainer(async.getDatabase("cfp").getContainer(c.leases()))
            .options(shortIntervals())
            .handleChanges(docs -> docs.forEach(d -> seen.add(d.get("id").asText())))
            .buildChangeFeedProcessor();
    processors.add(processor);
    processor.start().block(WAIT);

    await("all 20 items handled", () -> seen.containsAll(ids(0, 20)));
    assertThat(leases(c)).hasSize(RANGES);
  }
}
