package io.idemworker.emulator.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.ServiceBusSessionReceiverClient;
import com.azure.messaging.servicebus.models.SubQueue;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.emulator.cosmos.Operation;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the annotation's inline options declare, observed through the real SDKs: partition key
 * ranges and time to live of containers; lock duration, delivery count, sessions and duplicate
 * detection of queues.
 */
@AzureEmulators(
    queues = {
      "decl-lock lockDuration=7s",
      "decl-deliveries maxDeliveryCount=2",
      "decl-sessions sessions",
      "decl-duplicates duplicateDetection=1m"
    },
    containers = {"decl/ranged:/pk ranges=3", "decl/expiring:/pk ttl=3s", "decl/ttl-on:/pk ttl=on"})
class DeclaredSettingsTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static Emulators azure;
  private static CosmosClient cosmos;

  @BeforeAll
  static void client() {
    cosmos =
        new CosmosClientBuilder()
            .endpoint(azure.cosmosEndpoint())
            .key(azure.cosmosKey())
            .gatewayMode()
            .buildClient();
  }

  @AfterAll
  static void close() {
    cosmos.close();
  }

  private static CosmosContainer container(String name) {
    return cosmos.getDatabase("decl").getContainer(name);
  }

  private static ObjectNode item(String id, int n) {
    return JsonNodeFactory.instance.objectNode().put("id", id).put("pk", id).put("n", n);
  }

  @Test
  void ranges3_givesThreeFeedRanges_andACrossPartitionQueryMergedOverThem() {
    CosmosContainer ranged = container("ranged");
    for (int n = 0; n < 30; n++) {
      ranged.createItem(item("o-" + n, n));
    }
    azure.cosmos().stats().container("decl", "ranged").reset();

    List<Integer> sorted =
        ranged
            .queryItems(
                "SELECT VALUE c.n FROM c ORDER BY c.n DESC",
                new CosmosQueryRequestOptions(),
                Integer.class)
            .stream()
            .toList();

    assertThat(sorted).hasSize(30).isSortedAccordingTo((a, b) -> b - a);
    // The plan, then one query per range at least: the SDK fanned out and merged.
    assertThat(azure.cosmos().stats().container("decl", "ranged").count(Operation.QUERY))
        .isGreaterThanOrEqualTo(4);
    List<FeedRange> ranges = ranged.getFeedRanges();
    assertThat(ranges).hasSize(3);
    List<Integer> perRange = new ArrayList<>();
    for (FeedRange range : ranges) {
      perRange.add(
          (int)
              ranged
                  .queryItems(
                      "SELECT * FROM c",
                      new CosmosQueryRequestOptions().setFeedRange(range),
                      ObjectNode.class)
                  .stream()
                  .count());
    }
    assertThat(perRange).as("items per range").allMatch(n -> n > 0);
    assertThat(perRange.stream().mapToInt(Integer::intValue).sum()).isEqualTo(30);
  }

  private static boolean readable(CosmosContainer c, String id) {
    try {
      c.readItem(id, new PartitionKey(id), ObjectNode.class);
      return true;
    } catch (CosmosException e) {
      if (e.getStatusCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  /** Polls until the item is gone; answers whether it went within the wait. */
  private static boolean goneWithin(CosmosContainer c, String id, Duration wait) {
    long deadline = System.nanoTime() + wait.toNanos();
    while (System.nanoTime() < deadline) {
      if (!readable(c, id)) {
        return true;
      }
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
    return false;
  }

  @Test
  void ttl3s_isTheContainersDefaultTtl_andAnItemExpiresByIt() {
    CosmosContainer expiring = container("expiring");
    assertThat(expiring.read().getProperties().getDefaultTimeToLiveInSeconds()).isEqualTo(3);

    expiring.createItem(item("soon", 1));

    assertThat(readable(expiring, "soon")).as("readable while its three seconds last").isTrue();
    assertThat(goneWithin(expiring, "soon", WAIT)).as("expired within %s", WAIT).isTrue();
  }

  @Test
  void ttlOn_keepsItemsWithoutTtl_andExpiresThoseWithOne() {
    CosmosContainer ttlOn = container("ttl-on");
    assertThat(ttlOn.read().getProperties().getDefaultTimeToLiveInSeconds()).isEqualTo(-1);

    ttlOn.createItem(item("keep", 1));
    ttlOn.createItem(item("drop", 2).put("ttl", 1));

    assertThat(goneWithin(ttlOn, "drop", WAIT)).isTrue();
    assertThat(readable(ttlOn, "keep")).isTrue();
  }

  private static ServiceBusClientBuilder serviceBus() {
    return new ServiceBusClientBuilder().connectionString(azure.serviceBusConnectionString());
  }

  private static ServiceBusReceivedMessage receiveOne(ServiceBusReceiverClient receiver) {
    List<ServiceBusReceivedMessage> out = new ArrayList<>();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (out.isEmpty() && System.nanoTime() < deadline) {
      receiver.receiveMessages(1, Duration.ofSeconds(5)).forEach(out::add);
    }
    assertThat(out).as("a message within %s", WAIT).hasSize(1);
    return out.get(0);
  }

  @Test
  void lockDuration7s_showsInTheReceivedMessagesLockedUntil() {
    try (ServiceBusSenderClient sender =
            serviceBus().sender().queueName("decl-lock").buildClient();
        ServiceBusReceiverClient receiver =
            serviceBus()
                .receiver()
                .queueName("decl-lock")
                .maxAutoLockRenewDuration(Duration.ZERO)
                .buildClient()) {
      sender.sendMessage(new ServiceBusMessage("m"));
      OffsetDateTime before = OffsetDateTime.now();

      ServiceBusReceivedMessage m = receiveOne(receiver);

      assertLockedFor(Duration.ofSeconds(7), before, m);
      receiver.complete(m);
    }
  }

  /** The lock began between {@code before} and now and lasts {@code lock} (to a second). */
  private static void assertLockedFor(
      Duration lock, OffsetDateTime before, ServiceBusReceivedMessage m) {
    OffsetDateTime after = OffsetDateTime.now();
    assertThat(m.getLockedUntil())
        .isAfterOrEqualTo(before.plus(lock).minusSeconds(1))
        .isBeforeOrEqualTo(after.plus(lock).plusSeconds(1));
  }

  @Test
  void maxDeliveryCount2_deadLettersTheMessageOnItsSecondAbandon() {
    try (ServiceBusSenderClient sender =
            serviceBus().sender().queueName("decl-deliveries").buildClient();
        ServiceBusReceiverClient receiver =
            serviceBus().receiver().queueName("decl-deliveries").buildClient();
        ServiceBusReceiverClient deadLetters =
            serviceBus()
                .receiver()
                .queueName("decl-deliveries")
                .subQueue(SubQueue.DEAD_LETTER_QUEUE)
                .buildClient()) {
      sender.sendMessage(new ServiceBusMessage("poison").setMessageId("p-1"));

      receiver.abandon(receiveOne(receiver));
      receiver.abandon(receiveOne(receiver));

      ServiceBusReceivedMessage dead = receiveOne(deadLetters);
      assertThat(dead.getMessageId()).isEqualTo("p-1");
      assertThat(dead.getDeadLetterReason()).isEqualTo("MaxDeliveryCountExceeded");
      deadLetters.complete(dead);
      assertThat(azure.serviceBus().messageCount("decl-deliveries")).isZero();
    }
  }

  @Test
  void sessions_refuseAMessageWithoutASession_andServeASessionReceiver() {
    try (ServiceBusSenderClient sender =
            serviceBus().sender().queueName("decl-sessions").buildClient();
        ServiceBusSessionReceiverClient sessions =
            serviceBus().sessionReceiver().queueName("decl-sessions").buildClient()) {
      assertThatThrownBy(() -> sender.sendMessage(new ServiceBusMessage("no session")))
          .isInstanceOf(RuntimeException.class);
      sender.sendMessage(new ServiceBusMessage("a").setSessionId("customer-1"));

      try (ServiceBusReceiverClient session = sessions.acceptNextSession()) {
        ServiceBusReceivedMessage m = receiveOne(session);
        assertThat(m.getSessionId()).isEqualTo("customer-1");
        session.complete(m);
      }
    }
  }

  @Test
  void duplicateDetection_dropsASecondMessageWithTheSameId() {
    try (ServiceBusSenderClient sender =
        serviceBus().sender().queueName("decl-duplicates").buildClient()) {
      sender.sendMessage(new ServiceBusMessage("first").setMessageId("same"));
      sender.sendMessage(new ServiceBusMessage("second").setMessageId("same"));

      assertThat(azure.serviceBus().messageCount("decl-duplicates")).isEqualTo(1);
    }
  }

  @Test
  void newContainerAndNewQueue_takeTheSameOptions() {
    String name = azure.newContainer("decl", "fresh", "/pk ranges=2 ttl=30");
    assertThat(container(name).getFeedRanges()).hasSize(2);
    assertThat(container(name).read().getProperties().getDefaultTimeToLiveInSeconds())
        .isEqualTo(30);

    String queue = azure.newQueue("fresh", "lockDuration=6s");
    try (ServiceBusSenderClient sender = serviceBus().sender().queueName(queue).buildClient();
        ServiceBusReceiverClient receiver =
            serviceBus()
                .receiver()
                .queueName(queue)
                .maxAutoLockRenewDuration(Duration.ZERO)
                .buildClient()) {
      sender.sendMessage(new ServiceBusMessage("m"));
      OffsetDateTime before = OffsetDateTime.now();
      ServiceBusReceivedMessage m = receiveOne(receiver);
      assertLockedFor(Duration.ofSeconds(6), before, m);
      receiver.complete(m);
    }
    assertThatThrownBy(() -> azure.newQueue("bad", "lockDuration=soon"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'soon' is not a duration");
  }
}
