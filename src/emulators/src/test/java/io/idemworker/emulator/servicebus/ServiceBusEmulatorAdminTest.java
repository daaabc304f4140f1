package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.exception.HttpResponseException;
import com.azure.core.exception.ResourceExistsException;
import com.azure.core.exception.ResourceNotFoundException;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.administration.ServiceBusAdministrationClient;
import com.azure.messaging.servicebus.administration.models.CorrelationRuleFilter;
import com.azure.messaging.servicebus.administration.models.CreateQueueOptions;
import com.azure.messaging.servicebus.administration.models.CreateRuleOptions;
import com.azure.messaging.servicebus.administration.models.CreateSubscriptionOptions;
import com.azure.messaging.servicebus.administration.models.CreateTopicOptions;
import com.azure.messaging.servicebus.administration.models.EntityStatus;
import com.azure.messaging.servicebus.administration.models.FalseRuleFilter;
import com.azure.messaging.servicebus.administration.models.NamespaceProperties;
import com.azure.messaging.servicebus.administration.models.QueueProperties;
import com.azure.messaging.servicebus.administration.models.QueueRuntimeProperties;
import com.azure.messaging.servicebus.administration.models.RuleProperties;
import com.azure.messaging.servicebus.administration.models.SqlRuleAction;
import com.azure.messaging.servicebus.administration.models.SqlRuleFilter;
import com.azure.messaging.servicebus.administration.models.SubscriptionProperties;
import com.azure.messaging.servicebus.administration.models.SubscriptionRuntimeProperties;
import com.azure.messaging.servicebus.administration.models.TopicProperties;
import com.azure.messaging.servicebus.administration.models.TopicRuntimeProperties;
import com.azure.messaging.servicebus.administration.models.TrueRuleFilter;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Receiver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The administration API through the SDK's synchronous {@link ServiceBusAdministrationClient}:
 * queues, topics, subscriptions and rules created, read, listed, updated and deleted; runtime
 * message counts; the service's answers to a name taken (409), a missing entity (404) and invalid
 * settings (400); and entities made through it carrying messages over AMQP.
 */
class ServiceBusEmulatorAdminTest {
  private static ServiceBusEmulator emulator;
  private static ServiceBusAdministrationClient admin;

  @BeforeAll
  static void start() {
    emulator =
        ServiceBusEmulator.builder()
            .adminPort(0)
            .queue(QueueSettings.defaults("from-builder"))
            .start();
    admin = AdminClients.builder(emulator).buildClient();
  }

  @AfterAll
  static void stop() {
    emulator.close();
  }

  @Test
  void queue_createGetListUpdateDelete_roundTripsEverySetting() {
    QueueProperties created =
        admin.createQueue(
            "adm-q1",
            new CreateQueueOptions()
                .setLockDuration(Duration.ofSeconds(45))
                .setMaxDeliveryCount(4)
                .setDefaultMessageTimeToLive(Duration.ofHours(2))
                .setDeadLetteringOnMessageExpiration(true)
                .setDuplicateDetectionRequired(true)
                .setDuplicateDetectionHistoryTimeWindow(Duration.ofMinutes(3))
                .setSessionRequired(true)
                .setMaxSizeInMegabytes(2048)
                .setUserMetadata("owner=team-a"));

    QueueProperties read = admin.getQueue("adm-q1");

    for (QueueProperties q : List.of(created, read)) {
      assertThat(q.getName()).isEqualTo("adm-q1");
      assertThat(q.getLockDuration()).isEqualTo(Duration.ofSeconds(45));
      assertThat(q.getMaxDeliveryCount()).isEqualTo(4);
      assertThat(q.getDefaultMessageTimeToLive()).isEqualTo(Duration.ofHours(2));
      assertThat(q.isDeadLetteringOnMessageExpiration()).isTrue();
      assertThat(q.isDuplicateDetectionRequired()).isTrue();
      assertThat(q.getDuplicateDetectionHistoryTimeWindow()).isEqualTo(Duration.ofMinutes(3));
      assertThat(q.isSessionRequired()).isTrue();
      assertThat(q.getMaxSizeInMegabytes()).isEqualTo(2048);
      assertThat(q.getUserMetadata()).isEqualTo("owner=team-a");
      assertThat(q.getStatus().toString()).isEqualTo("Active");
    }
    assertThat(admin.getQueueExists("adm-q1")).isTrue();
    assertThat(admin.listQueues().stream().map(QueueProperties::getName))
        .contains("adm-q1", "from-builder");

    read.setLockDuration(Duration.ofSeconds(20)).setMaxDeliveryCount(7).setUserMetadata("b");
    QueueProperties updated = admin.updateQueue(read);

    assertThat(updated.getLockDuration()).isEqualTo(Duration.ofSeconds(20));
    assertThat(admin.getQueue("adm-q1").getMaxDeliveryCount()).isEqualTo(7);
    assertThat(admin.getQueue("adm-q1").getUserMetadata()).isEqualTo("b");
    assertThat(emulator.broker().queue("adm-q1").orElseThrow().main().settings().lockDuration())
        .isEqualTo(Duration.ofSeconds(20));

    admin.deleteQueue("adm-q1");

    assertThat(admin.getQueueExists("adm-q1")).isFalse();
    assertThatThrownBy(() -> admin.getQueue("adm-q1"))
        .isInstanceOf(ResourceNotFoundException.class);
  }

  @Test
  void queue_defaults_areTheServicesAndTheBuildersQueueIsReadable() {
    QueueProperties q = admin.createQueue("adm-defaults");
    QueueProperties fromBuilder = admin.getQueue("from-builder");

    assertThat(q.getLockDuration()).isEqualTo(Duration.ofMinutes(1));
    assertThat(q.getMaxDeliveryCount()).isEqualTo(10);
    assertThat(q.getDefaultMessageTimeToLive())
        .isEqualTo(Duration.parse("P10675199DT2H48M5.4775807S"));
    assertThat(q.getAutoDeleteOnIdle()).isEqualTo(Duration.parse("P10675199DT2H48M5.4775807S"));
    assertThat(q.isBatchedOperationsEnabled()).isTrue();
    assertThat(q.isPartitioningEnabled()).isFalse();
    assertThat(fromBuilder.getLockDuration()).isEqualTo(Duration.ofMinutes(1));
    assertThat(fromBuilder.getDefaultMessageTimeToLive()).isEqualTo(Duration.ofDays(14));
    assertThat(admin.getQueueRuntimeProperties("from-builder").getCreatedAt())
        .isBeforeOrEqualTo(OffsetDateTime.now());
  }

  @Test
  void queueRuntimeProperties_countActiveDeadLetteredAndScheduledMessages() {
    admin.createQueue("adm-counts");
    try (ServiceBusSenderClient sender =
            Clients.builder(emulator).sender().queueName("adm-counts").buildClient();
        ServiceBusReceiverClient receiver =
            Clients.builder(emulator)
                .receiver()
                .queueName("adm-counts")
                .disableAutoComplete()
                .buildClient()) {
      sender.sendMessages(
          IntStream.range(0, 4).mapToObj(i -> new ServiceBusMessage("m" + i)).toList());
      sender.scheduleMessage(new ServiceBusMessage("later"), OffsetDateTime.now().plusHours(1));
      List<ServiceBusReceivedMessage> got = EmulatorFixture.receive(receiver, 1);
      receiver.deadLetter(got.get(0));

      QueueRuntimeProperties runtime = admin.getQueueRuntimeProperties("adm-counts");

      assertThat(runtime.getActiveMessageCount()).isEqualTo(3);
      assertThat(runtime.getDeadLetterMessageCount()).isEqualTo(1);
      assertThat(runtime.getScheduledMessageCount()).isEqualTo(1);
      assertThat(runtime.getTransferMessageCount()).isZero();
      assertThat(runtime.getTransferDeadLetterMessageCount()).isZero();
      assertThat(runtime.getTotalMessageCount()).isEqualTo(5);
      assertThat(runtime.getSizeInBytes()).isPositive();
      assertThat(runtime.getName()).isEqualTo("adm-counts");
    }
  }

  @Test
  void topicSubscriptionsAndRules_madeThroughTheApi_routeMessagesOverAmqp() {
    admin.createTopic(
        "adm-events",
        new CreateTopicOptions()
            .setDuplicateDetectionRequired(true)
            .setDefaultMessageTimeToLive(Duration.ofDays(1)));
    admin.createSubscription("adm-events", "all");
    admin.createSubscription(
        "adm-events",
        "eu",
        "eu-only",
        new CreateSubscriptionOptions().setMaxDeliveryCount(3),
        new CreateRuleOptions(new SqlRuleFilter("region = 'eu'")));
    admin.createSubscription("adm-events", "accepted", new CreateSubscriptionOptions());
    admin.deleteRule("adm-events", "accepted", "$Default");
    // The synchronous client's four-argument createRule takes the rule's name second.
    admin.createRule(
        "adm-events",
        "by-subject",
        "accepted",
        new CreateRuleOptions(new CorrelationRuleFilter().setLabel("OrderAccepted")));

    try (ServiceBusSenderClient sender =
        Clients.builder(emulator).sender().topicName("adm-events").buildClient()) {
      ServiceBusMessage eu = new ServiceBusMessage("eu").setSubject("OrderPlaced");
      eu.getApplicationProperties().put("region", "eu");
      ServiceBusMessage accepted = new ServiceBusMessage("us").setSubject("OrderAccepted");
      accepted.getApplicationProperties().put("region", "us");
      sender.sendMessages(List.of(eu, accepted));
    }

    assertThat(emulator.messageCount("adm-events/Subscriptions/all")).isEqualTo(2);
    assertThat(emulator.messageCount("adm-events/Subscriptions/eu")).isEqualTo(1);
    assertThat(emulator.messageCount("adm-events/Subscriptions/accepted")).isEqualTo(1);
    TopicProperties topic = admin.getTopic("adm-events");
    assertThat(topic.isDuplicateDetectionRequired()).isTrue();
    assertThat(topic.getDefaultMessageTimeToLive()).isEqualTo(Duration.ofDays(1));
    TopicRuntimeProperties topicRuntime = admin.getTopicRuntimeProperties("adm-events");
    assertThat(topicRuntime.getSubscriptionCount()).isEqualTo(3);
    SubscriptionRuntimeProperties all = admin.getSubscriptionRuntimeProperties("adm-events", "all");
    assertThat(all.getActiveMessageCount()).isEqualTo(2);
    assertThat(all.getTotalMessageCount()).isEqualTo(2);
    assertThat(admin.getSubscription("adm-events", "eu").getMaxDeliveryCount()).isEqualTo(3);
    assertThat(admin.listSubscriptions("adm-events").stream().map(s -> s.getSubscriptionName()))
        .containsExactly("accepted", "all", "eu");
    assertThat(admin.listRules("adm-events", "eu").stream().map(RuleProperties::getName))
        .containsExactly("eu-only");
    RuleProperties byDefault = admin.getRule("adm-events", "all", "$Default");
    assertThat(byDefault.getFilter()).isInstanceOf(TrueRuleFilter.class);
    RuleProperties bySubject = admin.getRule("adm-events", "accepted", "by-subject");
    assertThat(bySubject.getFilter())
        .isInstanceOfSatisfying(
            CorrelationRuleFilter.class, f -> assertThat(f.getLabel()).isEqualTo("OrderAccepted"));
    RuleProperties euOnly = admin.getRule("adm-events", "eu", "eu-only");
    assertThat(euOnly.getFilter())
        .isInstanceOfSatisfying(
            SqlRuleFilter.class, f -> assertThat(f.getSqlExpression()).isEqualTo("region = 'eu'"));
  }

  @Test
  void messageScheduledOnATopic_isCountedOnTheTopicUntilDue_notInItsSubscriptions() {
    admin.createTopic("adm-sched");
    admin.createSubscription("adm-sched", "s");
    try (ServiceBusSenderClient sender =
        Clients.builder(emulator).sender().topicName("adm-sched").buildClient()) {
      sender.scheduleMessage(new ServiceBusMessage("later"), OffsetDateTime.now().plusHours(1));
      sender.sendMessage(new ServiceBusMessage("now"));
    }

    TopicRuntimeProperties topic = admin.getTopicRuntimeProperties("adm-sched");
    SubscriptionRuntimeProperties sub = admin.getSubscriptionRuntimeProperties("adm-sched", "s");

    assertThat(topic.getScheduledMessageCount()).isEqualTo(1);
    assertThat(sub.getActiveMessageCount()).isEqualTo(1);
    assertThat(sub.getTotalMessageCount()).isEqualTo(1);
  }

  @Test
  void deletingAQueue_detachesItsReceiversWithNotFound() throws Exception {
    admin.createQueue("adm-doomed");
    try (RawAmqpClient client = new RawAmqpClient(emulator.port())) {
      Receiver link = client.session.receiver("r-doomed");
      Source source = new Source();
      source.setAddress("adm-doomed");
      link.setSource(source);
      link.setTarget(new Target());
      link.open();
      link.flow(10);
      client.pumpUntil(() -> link.getRemoteState() == EndpointState.ACTIVE, Duration.ofSeconds(20));

      admin.deleteQueue("adm-doomed");
      client.pumpUntil(() -> link.getRemoteState() == EndpointState.CLOSED, Duration.ofSeconds(20));

      assertThat(link.getRemoteCondition().getCondition().toString()).isEqualTo("amqp:not-found");
      assertThat(link.getRemoteCondition().getDescription()).contains("adm-doomed");
    }
  }

  @Test
  void updates_ofTopicSubscriptionAndRule_takeEffect() {
    admin.createTopic("adm-upd");
    admin.createSubscription("adm-upd", "s1");
    TopicProperties topic = admin.getTopic("adm-upd");
    topic.setDefaultMessageTimeToLive(Duration.ofHours(3));
    SubscriptionProperties sub = admin.getSubscription("adm-upd", "s1");
    sub.setLockDuration(Duration.ofSeconds(30)).setMaxDeliveryCount(2).setUserMetadata("x");

    admin.updateTopic(topic);
    admin.updateSubscription(sub);
    RuleProperties rule = admin.getRule("adm-upd", "s1", "$Default");
    rule.setFilter(new FalseRuleFilter());
    admin.updateRule("adm-upd", "s1", rule);

    assertThat(admin.getTopic("adm-upd").getDefaultMessageTimeToLive())
        .isEqualTo(Duration.ofHours(3));
    SubscriptionProperties read = admin.getSubscription("adm-upd", "s1");
    assertThat(read.getLockDuration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(read.getMaxDeliveryCount()).isEqualTo(2);
    assertThat(read.getUserMetadata()).isEqualTo("x");
    assertThat(admin.getRule("adm-upd", "s1", "$Default").getFilter())
        .isInstanceOf(FalseRuleFilter.class);
    try (ServiceBusSenderClient sender =
        Clients.builder(emulator).sender().topicName("adm-upd").buildClient()) {
      sender.sendMessage(new ServiceBusMessage("dropped by the false filter"));
    }
    assertThat(emulator.messageCount("adm-upd/Subscriptions/s1")).isZero();

    admin.deleteSubscription("adm-upd", "s1");
    admin.deleteTopic("adm-upd");

    assertThat(admin.getTopicExists("adm-upd")).isFalse();
    assertThatThrownBy(() -> admin.getSubscription("adm-upd", "s1"))
        .isInstanceOf(ResourceNotFoundException.class);
  }

  @Test
  void nameTaken_is409_andMissingEntities_are404() {
    admin.createQueue("adm-taken");
    admin.createTopic("adm-taken-topic");
    admin.createSubscription("adm-taken-topic", "s");

    assertThatThrownBy(() -> admin.createQueue("adm-taken"))
        .isInstanceOf(ResourceExistsException.class)
        .hasMessageContaining("already exists");
    assertThatThrownBy(() -> admin.createTopic("adm-taken"))
        .isInstanceOf(ResourceExistsException.class);
    assertThatThrownBy(() -> admin.createSubscription("adm-taken-topic", "S"))
        .isInstanceOf(ResourceExistsException.class);
    assertThatThrownBy(
            () -> admin.createRule("adm-taken-topic", "$Default", "s", new CreateRuleOptions()))
        .isInstanceOf(ResourceExistsException.class);

    assertThatThrownBy(() -> admin.getQueue("adm-nowhere"))
        .isInstanceOf(ResourceNotFoundException.class);
    assertThatThrownBy(() -> admin.getTopic("adm-nowhere"))
        .isInstanceOf(ResourceNotFoundException.class);
    assertThatThrownBy(() -> admin.getSubscription("adm-taken-topic", "nowhere"))
        .isInstanceOf(ResourceNotFoundException.class);
    assertThatThrownBy(() -> admin.getSubscription("adm-nowhere", "s"))
        .isInstanceOf(ResourceNotFoundException.class);
    assertThatThrownBy(() -> admin.getRule("adm-taken-topic", "s", "nowhere"))
        .isInstanceOf(ResourceNotFoundException.class);
    assertThatThrownBy(() -> admin.deleteQueue("adm-nowhere"))
        .isInstanceOf(ResourceNotFoundException.class);
    assertThatThrownBy(() -> admin.deleteTopic("adm-nowhere"))
        .isInstanceOf(ResourceNotFoundException.class);
    assertThatThrownBy(() -> admin.deleteSubscription("adm-taken-topic", "nowhere"))
        .isInstanceOf(ResourceNotFoundException.class);
    assertThatThrownBy(() -> admin.deleteRule("adm-taken-topic", "s", "nowhere"))
        .isInstanceOf(ResourceNotFoundException.class);
    assertThatThrownBy(() -> admin.createSubscription("adm-nowhere", "s"))
        .isInstanceOf(ResourceNotFoundException.class);
    QueueProperties gone = admin.getQueue("adm-taken");
    admin.deleteQueue("adm-taken");
    assertThatThrownBy(() -> admin.updateQueue(gone)).isInstanceOf(ResourceNotFoundException.class);
    assertThat(admin.getSubscriptionExists("adm-taken-topic", "nowhere")).isFalse();
  }

  @Test
  void invalidSettings_are400_namingTheSetting() {
    assertThatThrownBy(
            () ->
                admin.createQueue(
                    "adm-bad", new CreateQueueOptions().setLockDuration(Duration.ofMinutes(6))))
        .isInstanceOf(HttpResponseException.class)
        .hasMessageContaining("LockDuration")
        .satisfies(e -> assertThat(status(e)).isEqualTo(400));
    assertThatThrownBy(
            () ->
                admin.createQueue(
                    "adm-bad", new CreateQueueOptions().setLockDuration(Duration.ofSeconds(1))))
        .satisfies(e -> assertThat(status(e)).isEqualTo(400));
    assertThatThrownBy(
            () ->
                admin.createQueue(
                    "adm-bad",
                    new CreateQueueOptions()
                        .setDuplicateDetectionHistoryTimeWindow(Duration.ofSeconds(5))))
        .hasMessageContaining("DuplicateDetectionHistoryTimeWindow")
        .satisfies(e -> assertThat(status(e)).isEqualTo(400));
    assertThatThrownBy(
            () -> admin.createQueue("adm-bad", new CreateQueueOptions().setMaxDeliveryCount(0)))
        .hasMessageContaining("MaxDeliveryCount")
        .satisfies(e -> assertThat(status(e)).isEqualTo(400));
    assertThatThrownBy(
            () ->
                admin.createQueue(
                    "adm-bad", new CreateQueueOptions().setAutoDeleteOnIdle(Duration.ofMinutes(1))))
        .hasMessageContaining("AutoDeleteOnIdle")
        .satisfies(e -> assertThat(status(e)).isEqualTo(400));
    assertThatThrownBy(() -> admin.createQueue("bad name!"))
        .satisfies(e -> assertThat(status(e)).isEqualTo(400));
    assertThat(admin.getQueueExists("adm-bad")).isFalse();

    admin.createTopic("adm-bad-topic");
    admin.createSubscription("adm-bad-topic", "s");
    assertThatThrownBy(
            () ->
                admin.createRule(
                    "adm-bad-topic",
                    "broken",
                    "s",
                    new CreateRuleOptions(new SqlRuleFilter("region = "))))
        .satisfies(e -> assertThat(status(e)).isEqualTo(400));
    assertThatThrownBy(
            () ->
                admin.createRule(
                    "adm-bad-topic",
                    "with-action",
                    "s",
                    new CreateRuleOptions(new TrueRuleFilter())
                        .setAction(new SqlRuleAction("SET a = 1"))))
        .hasMessageContaining("not supported by this emulator")
        .satisfies(e -> assertThat(status(e)).isEqualTo(400));
    assertThatThrownBy(
            () ->
                admin.createQueue(
                    "adm-forward", new CreateQueueOptions().setForwardTo("from-builder")))
        .hasMessageContaining("auto-forwarding is not supported by this emulator")
        .satisfies(e -> assertThat(status(e)).isEqualTo(400));

    QueueProperties disabled = admin.createQueue("adm-disabled").setStatus(EntityStatus.DISABLED);
    assertThatThrownBy(() -> admin.updateQueue(disabled))
        .hasMessageContaining("only Active entities are supported by this emulator")
        .satisfies(e -> assertThat(status(e)).isEqualTo(400));
    assertThat(admin.getQueue("adm-disabled").getStatus()).isEqualTo(EntityStatus.ACTIVE);
  }

  @Test
  void listing_pagesAHundredAtATime() {
    List<String> names =
        IntStream.range(0, 105).mapToObj(i -> String.format("adm-page-%03d", i)).toList();
    names.forEach(n -> emulator.createQueue(QueueSettings.defaults(n)));

    List<String> listed =
        admin.listQueues().stream()
            .map(QueueProperties::getName)
            .filter(n -> n.startsWith("adm-page-"))
            .collect(Collectors.toList());

    assertThat(listed).containsExactlyElementsOf(names);
  }

  @Test
  void namespaceProperties_nameTheNamespace() {
    NamespaceProperties ns = admin.getNamespaceProperties();

    assertThat(ns.getName()).isEqualTo("localhost");
    assertThat(ns.getMessagingSku().toString()).isEqualTo("Standard");
  }

  private static int status(Throwable e) {
    return ((HttpResponseException) e).getResponse().getStatusCode();
  }
}
