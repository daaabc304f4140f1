package io.idemworker.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.core.MarkerRetention;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.servicebus.SubscriptionSettings;
import io.idemworker.emulator.servicebus.TopicSettings;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.WorkerStatus;
import io.idemworker.servicebus.sessions.SessionSettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link IdempotentWorker.Builder#build()}'s start-up checks, through the real SDKs against the
 * emulators: each refusal names the builder method (or the container) and what to change, and every
 * problem found is named at once.
 */
@AzureEmulators
class IdempotentWorkerStartupTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String DATABASE = "library";

  /** The builder's default retention: lock 1 min × 10 deliveries + TTL 6 days + resubmit 7 days. */
  private static final Duration DEFAULT_HORIZON =
      Duration.ofMinutes(10).plus(Duration.ofDays(6)).plus(Duration.ofDays(7));

  Emulators azure;
  private CosmosClient cosmos;
  private CosmosContainer things;
  private String queue;
  private IdempotentWorker built;

  record Thing(String thingId, String name) {}

  @BeforeEach
  void connect() {
    cosmos = AzureTestClients.cosmos(azure);
    things =
        CosmosContainers.ensureExists(cosmos, DATABASE, azure.uniqueName("things"), "/thingId");
    queue = azure.newQueue("things");
  }

  @AfterEach
  void close() {
    if (built != null) {
      built.close();
    }
    cosmos.close();
  }

  static MessageType<Thing> created() {
    return MessageType.of("ThingCreated", Thing.class)
        .fields(f -> f.id("thingId").text("name", 1, 64))
        .entity(Thing::thingId)
        .key("thingId", Thing::thingId)
        .creates(t -> JSON.createObjectNode().put("name", t.name()));
  }

  private IdempotentWorker.Builder builder() {
    return IdempotentWorker.builder()
        .connection(new ServiceBusConnection.ConnectionString(azure.serviceBusConnectionString()))
        .queue(queue)
        .container(things)
        .register(created());
  }

  private static List<String> problems(IdempotentWorker.Builder builder) {
    Throwable thrown = catchThrowable(builder::build);
    assertThat(thrown).isInstanceOf(IdempotentWorker.StartupRefused.class);
    IdempotentWorker.StartupRefused refused = (IdempotentWorker.StartupRefused) thrown;
    assertThat(refused.getMessage())
        .isEqualTo("the worker cannot start: " + String.join("; ", refused.problems()));
    return refused.problems();
  }

  @Test
  void theDefaults_passEveryCheck() {
    built = builder().build();

    assertThat(built.status().state()).isEqualTo(WorkerStatus.State.CREATED);
    assertThat(built.relay()).isEmpty();
    built.start();
    assertThat(built.status().ready()).isTrue();
  }

  @Test
  void markersThatExpireBeforeTheRedeliveryHorizon_areRefused_namingBothSettings() {
    Duration short1s = DEFAULT_HORIZON.minusSeconds(1);

    assertThat(problems(builder().markerTtl(Optional.of(short1s))))
        .singleElement()
        .satisfies(
            p ->
                assertThat(p)
                    .startsWith(
                        "markerTtl(Optional<Duration>), retention(MarkerRetention): inbox marker"
                            + " TTL "
                            + short1s
                            + " is shorter than the redelivery horizon "
                            + DEFAULT_HORIZON)
                    .contains("a late copy would find no marker"));
  }

  @Test
  void markersThatLiveTheHorizonOrForever_pass() {
    try (IdempotentWorker exactly = builder().markerTtl(Optional.of(DEFAULT_HORIZON)).build();
        IdempotentWorker forever = builder().markerTtl(Optional.empty()).build()) {
      assertThat(exactly.status().state()).isEqualTo(WorkerStatus.State.CREATED);
      assertThat(forever.status().state()).isEqualTo(WorkerStatus.State.CREATED);
    }
  }

  @Test
  void aLongerQueueRetention_refusesTheDefaultMarkerTtl() {
    MarkerRetention longTtl =
        new MarkerRetention(Duration.ofMinutes(1), 10, Duration.ofDays(14), Duration.ofDays(7));

    assertThat(problems(builder().retention(longTtl)))
        .singleElement()
        .satisfies(
            p ->
                assertThat(p)
                    .startsWith("markerTtl(Optional<Duration>), retention(MarkerRetention):")
                    .contains("inbox marker TTL PT336H", "horizon " + longTtl.horizon()));
  }

  @Test
  void sessionsOnAQueueWithoutSessions_isRefused_namingTheBuilderMethod() {
    assertThat(problems(builder().sessions(SessionSettings.defaults())))
        .containsExactly(
            "sessions(SessionSettings): session mode is on, but queue "
                + queue
                + " does not require sessions: create it with requiresSession, or turn session"
                + " mode off");
  }

  /**
   * One message in a session, so that the start-up's session probe is handed that session by the
   * broker and answers at once: on an entity with no session waiting, an agreeing probe can only
   * wait out its bound (ten seconds by default) before it passes.
   */
  private void oneSessionWaiting(ServiceBusClientBuilder.ServiceBusSenderClientBuilder to) {
    try (ServiceBusSenderClient sender = to.buildClient()) {
      sender.sendMessage(new ServiceBusMessage("{}").setSessionId("thing-1"));
    }
  }

  private ServiceBusClientBuilder.ServiceBusSenderClientBuilder sender() {
    return new ServiceBusClientBuilder()
        .connectionString(azure.serviceBusConnectionString())
        .sender();
  }

  @Test
  void sessionsOnAQueueThatRequiresThem_pass() {
    queue = azure.newQueue("things-sessions", "sessions");
    oneSessionWaiting(sender().queueName(queue));

    built = builder().sessions(SessionSettings.defaults()).build();

    assertThat(built.status().state()).isEqualTo(WorkerStatus.State.CREATED);
  }

  @Test
  void aPlainWorkerOnAQueueThatRequiresSessions_isNotReady_namingTheBuilderMethod() {
    queue = azure.newQueue("things-sessions", "sessions");
    built = builder().build();

    built.start();

    // The processor's first receive is refused; polled as a readiness probe polls, within a bound.
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (built.status().ready() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
    WorkerStatus status = built.status();
    assertThat(status.ready()).isFalse();
    assertThat(status.reason())
        .hasValue(
            "sessions(SessionSettings): session mode is off, but queue "
                + queue
                + " requires sessions, so Service Bus refuses the worker's receiver: turn session"
                + " mode on (producers set SessionId on every message)");
  }

  /** A topic with a subscription {@code plain} and one {@code sessions} that requires sessions. */
  private String newTopic() {
    String topic = azure.uniqueName("things-events");
    azure
        .serviceBus()
        .createTopic(
            TopicSettings.defaults(topic)
                .withSubscription(SubscriptionSettings.defaults("plain"))
                .withSubscription(
                    SubscriptionSettings.defaults("sessions").withRequiresSession(true)));
    return topic;
  }

  private IdempotentWorker.Builder onSubscription(String topic, String subscription) {
    return IdempotentWorker.builder()
        .connection(new ServiceBusConnection.ConnectionString(azure.serviceBusConnectionString()))
        .subscription(topic, subscription)
        .container(things)
        .register(created());
  }

  @Test
  void sessionsOnAPlainSubscription_isRefused_namingTheSubscription() {
    String topic = newTopic();

    assertThat(problems(onSubscription(topic, "plain").sessions(SessionSettings.defaults())))
        .containsExactly(
            "sessions(SessionSettings): session mode is on, but subscription "
                + topic
                + "/plain does not require sessions: create it with requiresSession, or turn"
                + " session mode off");
  }

  @Test
  void aPlainWorkerOnASessionSubscription_isNotReady_sayingWhoSetsSessionIds() {
    String topic = newTopic();
    oneSessionWaiting(sender().topicName(topic));
    try (IdempotentWorker agreeing =
        onSubscription(topic, "sessions").sessions(SessionSettings.defaults()).build()) {
      assertThat(agreeing.status().state()).isEqualTo(WorkerStatus.State.CREATED);
    }
    built = onSubscription(topic, "sessions").build();

    built.start();

    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (built.status().ready() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
    assertThat(built.status().reason())
        .hasValueSatisfying(
            r ->
                assertThat(r)
                    .startsWith(
                        "sessions(SessionSettings): session mode is off, but subscription "
                            + topic
                            + "/sessions requires sessions")
                    .endsWith("turn session mode on (the relay sets SessionId on every event)"));
  }

  @Test
  void aContainerWithTtlOff_isRefused_namingTheContainerAndTheFix() {
    String id = azure.uniqueName("nottl");
    cosmos.getDatabase(DATABASE).createContainerIfNotExists(id, "/thingId");

    assertThat(problems(builder().container(cosmos.getDatabase(DATABASE).getContainer(id))))
        .containsExactly(
            "container "
                + id
                + " has TTL off (no defaultTtl), so inbox markers and outbox events would never"
                + " expire: turn it on with defaultTtl -1");
  }

  @Test
  void aContainerPartitionedByANestedPath_isRefused_namingThePath() {
    CosmosContainer nested =
        CosmosContainers.ensureExists(cosmos, DATABASE, azure.uniqueName("nested"), "/thing/id");

    assertThat(problems(builder().container(nested)))
        .containsExactly(
            "container "
                + nested.getId()
                + " is partitioned by /thing/id; the worker needs one top-level field, such as"
                + " /entityId");
  }

  @Test
  void aContainerThatDoesNotExist_isRefused_namingWhatToCheck() {
    CosmosContainer missing = cosmos.getDatabase(DATABASE).getContainer(azure.uniqueName("none"));

    assertThat(problems(builder().container(missing)))
        .singleElement()
        .satisfies(
            p ->
                assertThat(p)
                    .startsWith("container " + missing.getId() + " could not be read (")
                    .endsWith(
                        "): check the endpoint, the credential's data-plane role and that it"
                            + " exists"));
  }

  @Test
  void everyProblem_isNamedAtOnce() {
    String id = azure.uniqueName("nottl");
    cosmos.getDatabase(DATABASE).createContainerIfNotExists(id, "/thingId");

    List<String> problems =
        problems(
            builder()
                .container(cosmos.getDatabase(DATABASE).getContainer(id))
                .markerTtl(Optional.of(Duration.ofDays(1)))
                .sessions(SessionSettings.defaults()));

    assertThat(problems).hasSize(3);
    assertThat(problems.get(0)).startsWith("markerTtl(Optional<Duration>)");
    assertThat(problems.get(1)).contains("has TTL off");
    assertThat(problems.get(2)).startsWith("sessions(SessionSettings): session mode is on");
  }

  @Test
  void missingSettings_areNamedByTheirBuilderMethods() {
    assertThatThrownBy(() -> IdempotentWorker.builder().register(created()).build())
        .isExactlyInstanceOf(IllegalStateException.class)
        .hasMessage(
            "the worker needs connection(ServiceBusConnection), queue(String) or"
                + " subscription(String, String), container(CosmosContainer)");
    assertThatThrownBy(() -> builder().connection(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("connection");
    assertThatThrownBy(
            () ->
                IdempotentWorker.builder()
                    .connection(
                        new ServiceBusConnection.ConnectionString(
                            azure.serviceBusConnectionString()))
                    .queue(queue)
                    .register(created())
                    .build())
        .hasMessage("the worker needs container(CosmosContainer)");
  }

  @Test
  void noRegisteredType_isRefused_namingHowToRegister() {
    assertThatThrownBy(
            () ->
                IdempotentWorker.builder()
                    .connection(
                        new ServiceBusConnection.ConnectionString(
                            azure.serviceBusConnectionString()))
                    .queue(queue)
                    .container(things)
                    .build())
        .isExactlyInstanceOf(IllegalStateException.class)
        .hasMessage(
            "register at least one message type: register(MessageType) or register(String,"
                + " MessageDecoder)");
  }

  @Test
  void aConsumerNameOutsideTheMarkerIdAlphabet_isRefusedAtOnce() {
    assertThatThrownBy(() -> builder().consumerName("no spaces"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("consumerName must be 1-64 letters, digits or _.-, was no spaces");
    assertThatThrownBy(() -> builder().consumerName("x".repeat(65)))
        .hasMessageStartingWith("consumerName must be 1-64");
  }
}
