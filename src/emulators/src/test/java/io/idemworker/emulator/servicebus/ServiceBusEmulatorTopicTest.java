package io.idemworker.emulator.servicebus;

import static io.idemworker.emulator.servicebus.EmulatorFixture.receive;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusMessageBatch;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusRuleManagerClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transport.ReceiverSettleMode;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Receiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Topics through the real SDK: fan-out, rules, duplicate detection and unknown entities. */
class ServiceBusEmulatorTopicTest {
  private static final String TOPIC = "order-events";
  private EmulatorFixture fx;

  @AfterEach
  void stop() {
    if (fx != null) {
      fx.close();
    }
  }

  private void start(TopicSettings topic) {
    fx = new EmulatorFixture(List.of(topic), QueueSettings.defaults("orders"));
  }

  private static TopicSettings topic(SubscriptionSettings... subscriptions) {
    TopicSettings t = TopicSettings.defaults(TOPIC);
    for (SubscriptionSettings s : subscriptions) {
      t = t.withSubscription(s);
    }
    return t;
  }

  private static SubscriptionSettings sub(String name, SubscriptionRule... rules) {
    SubscriptionSettings s = SubscriptionSettings.defaults(name);
    for (SubscriptionRule r : rules) {
      s = s.withRule(r);
    }
    return s;
  }

  private List<String> peekIds(String subscription) {
    return fx.subscriptionReceiver(TOPIC, subscription).peekMessages(50).stream()
        .map(ServiceBusReceivedMessage::getMessageId)
        .toList();
  }

  private static ServiceBusMessage message(String id, String subject, Map<String, Object> props) {
    ServiceBusMessage m = new ServiceBusMessage("{}").setMessageId(id).setSubject(subject);
    m.getApplicationProperties().putAll(props);
    return m;
  }

  @Test
  void singleAndBatchSends_reachEverySubscription_whichSettleTheirCopiesIndependently() {
    start(topic(sub("loyalty"), sub("customer-stats")));
    ServiceBusSenderClient sender = fx.topicSender(TOPIC);
    ServiceBusReceiverClient loyalty = fx.subscriptionReceiver(TOPIC, "loyalty");
    ServiceBusReceiverClient stats = fx.subscriptionReceiver(TOPIC, "customer-stats");

    sender.sendMessage(new ServiceBusMessage("1").setMessageId("m-1"));
    ServiceBusMessageBatch batch = sender.createMessageBatch();
    batch.tryAddMessage(new ServiceBusMessage("2").setMessageId("m-2"));
    batch.tryAddMessage(new ServiceBusMessage("3").setMessageId("m-3"));
    sender.sendMessages(batch);

    List<ServiceBusReceivedMessage> fromLoyalty = receive(loyalty, 3);
    List<ServiceBusReceivedMessage> fromStats = receive(stats, 3);
    assertThat(fromLoyalty)
        .extracting(ServiceBusReceivedMessage::getMessageId)
        .containsExactly("m-1", "m-2", "m-3");
    assertThat(fromStats)
        .extracting(ServiceBusReceivedMessage::getSequenceNumber)
        .as("one topic sequence number per message, the same in every subscription")
        .containsExactlyElementsOf(
            fromLoyalty.stream().map(ServiceBusReceivedMessage::getSequenceNumber).toList());

    fromLoyalty.forEach(loyalty::complete);
    stats.abandon(fromStats.get(0));
    stats.complete(fromStats.get(1));
    stats.complete(fromStats.get(2));

    assertThat(loyalty.peekMessages(10)).isEmpty();
    ServiceBusReceivedMessage again = receive(stats, 1).get(0);
    assertThat(again.getMessageId()).isEqualTo("m-1");
    assertThat(again.getDeliveryCount()).isEqualTo(1);
    stats.complete(again);
    assertThat(stats.peekMessages(10)).isEmpty();
  }

  @Test
  void receiveAndDelete_onASubscription_takesOnlyThatSubscriptionsCopy() {
    start(topic(sub("loyalty"), sub("customer-stats")));
    fx.topicSender(TOPIC).sendMessage(new ServiceBusMessage("x").setMessageId("x"));

    List<ServiceBusReceivedMessage> got =
        receive(fx.subscriptionReceiveAndDeleteReceiver(TOPIC, "loyalty"), 1);

    assertThat(got).extracting(ServiceBusReceivedMessage::getMessageId).containsExactly("x");
    assertThat(peekIds("loyalty")).isEmpty();
    assertThat(peekIds("customer-stats")).containsExactly("x");
  }

  @Test
  void correlationFilter_copiesOnlyMessagesThatMatchEveryCondition() {
    CorrelationFilter filter =
        CorrelationFilter.subject("OrderAccepted")
            .with("CorrelationId", "c-1")
            .with("ContentType", "application/json")
            .withApplicationProperty("region", "eu")
            .withApplicationProperty("priority", 2L);
    start(topic(sub("eu-accepted", SubscriptionRule.correlation("r", filter)), sub("all")));
    ServiceBusSenderClient sender = fx.topicSender(TOPIC);
    Map<String, Object> eu = Map.of("region", "eu", "priority", 2);

    sender.sendMessage(
        message("match", "OrderAccepted", eu)
            .setCorrelationId("c-1")
            .setContentType("application/json"));
    sender.sendMessage(
        message("wrong-subject", "OrderRejected", eu)
            .setCorrelationId("c-1")
            .setContentType("application/json"));
    sender.sendMessage(
        message("no-region", "OrderAccepted", Map.of("priority", 2))
            .setCorrelationId("c-1")
            .setContentType("application/json"));
    sender.sendMessage(
        message("other-correlation", "OrderAccepted", eu)
            .setCorrelationId("c-2")
            .setContentType("application/json"));
    sender.sendMessage(
        message("other-priority", "OrderAccepted", Map.of("region", "eu", "priority", 3))
            .setCorrelationId("c-1")
            .setContentType("application/json"));

    assertThat(peekIds("eu-accepted")).containsExactly("match");
    assertThat(peekIds("all")).hasSize(5);
  }

  @Test
  void sqlFilters_copyOnlyMessagesForWhichTheExpressionIsTrue() {
    start(
        topic(
            sub(
                "eu-accepted",
                SubscriptionRule.sql("r", "sys.Label = 'OrderAccepted' AND region = 'eu'")),
            sub("big-or-na", SubscriptionRule.sql("r", "amount > 100 OR region IN ('us', 'ca')")),
            sub(
                "real-orders",
                SubscriptionRule.sql("r", "NOT EXISTS(test) AND sys.MessageId LIKE 'o-%'")),
            sub(
                "two-rules",
                SubscriptionRule.sql("a", "sys.Label = 'OrderRejected'"),
                SubscriptionRule.sql("b", "user.amount IS NULL"))));
    ServiceBusSenderClient sender = fx.topicSender(TOPIC);

    sender.sendMessage(message("o-1", "OrderAccepted", Map.of("region", "eu", "amount", 50)));
    sender.sendMessage(message("o-2", "OrderAccepted", Map.of("region", "us", "amount", 150.5)));
    sender.sendMessage(message("o-3", "OrderRejected", Map.of("region", "eu", "amount", 500L)));
    sender.sendMessage(message("x-4", "OrderAccepted", Map.of("region", "eu", "test", true)));
    sender.sendMessage(message("o-5", "OrderAccepted", Map.of("region", "ca", "test", true)));

    assertThat(peekIds("eu-accepted")).containsExactly("o-1", "x-4");
    assertThat(peekIds("big-or-na")).containsExactly("o-2", "o-3", "o-5");
    assertThat(peekIds("real-orders")).containsExactly("o-1", "o-2", "o-3");
    assertThat(peekIds("two-rules"))
        .as("any rule lets a message in")
        .containsExactly("o-3", "x-4", "o-5");
  }

  @Test
  void topicDuplicateDetection_dropsARepeatForEverySubscriptionInsideTheWindowOnly() {
    start(
        topic(sub("loyalty"), sub("customer-stats"))
            .withRequiresDuplicateDetection(true)
            .withDuplicateDetectionHistoryTimeWindow(Duration.ofMinutes(1)));
    ServiceBusSenderClient sender = fx.topicSender(TOPIC);

    sender.sendMessage(new ServiceBusMessage("first").setMessageId("d-1"));
    fx.advance(Duration.ofSeconds(30));
    sender.sendMessages(
        List.of(
            new ServiceBusMessage("retry").setMessageId("d-1"),
            new ServiceBusMessage("other").setMessageId("d-2")));
    fx.advance(Duration.ofSeconds(31));
    sender.sendMessage(new ServiceBusMessage("after the window").setMessageId("d-1"));

    for (String subscription : List.of("loyalty", "customer-stats")) {
      List<ServiceBusReceivedMessage> got =
          fx.subscriptionReceiver(TOPIC, subscription).peekMessages(10).stream().toList();
      assertThat(got)
          .extracting(m -> m.getBody().toString())
          .as(subscription)
          .containsExactly("first", "other", "after the window");
    }
  }

  @Test
  void messageMatchingNoSubscription_isAcceptedAndDropped() {
    start(
        topic(sub("accepted", SubscriptionRule.correlation("r", CorrelationFilter.subject("A")))));
    ServiceBusSenderClient sender = fx.topicSender(TOPIC);

    sender.sendMessage(message("b", "B", Map.of()));
    sender.sendMessage(message("a", "A", Map.of()));

    assertThat(peekIds("accepted")).containsExactly("a");
  }

  @Test
  void processor_onASubscription_completesEveryMessageOfThatSubscriptionOnly() throws Exception {
    start(topic(sub("loyalty"), sub("customer-stats")));
    int total = 20;
    ServiceBusSenderClient sender = fx.topicSender(TOPIC);
    ServiceBusMessageBatch batch = sender.createMessageBatch();
    for (int i = 0; i < total; i++) {
      batch.tryAddMessage(new ServiceBusMessage("m" + i).setMessageId("m" + i));
    }
    sender.sendMessages(batch);
    Set<String> completed = ConcurrentHashMap.newKeySet();
    CountDownLatch done = new CountDownLatch(total);
    ServiceBusProcessorClient processor =
        Clients.builder(fx.emulator)
            .processor()
            .topicName(TOPIC)
            .subscriptionName("loyalty")
            .maxConcurrentCalls(4)
            .disableAutoComplete()
            .processMessage(
                ctx -> {
                  ctx.complete();
                  completed.add(ctx.getMessage().getMessageId());
                  done.countDown();
                })
            .processError(e -> {})
            .buildProcessorClient();
    try {
      processor.start();
      assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
    } finally {
      processor.close();
    }

    assertThat(completed).hasSize(total);
    assertThat(peekIds("loyalty")).isEmpty();
    assertThat(peekIds("customer-stats")).hasSize(total);
  }

  @Test
  void unknownTopicOrSubscription_isRefusedWithNotFound() throws Exception {
    start(topic(sub("loyalty")));
    ServiceBusSenderClient sender = fx.topicSender("no-such-topic");
    ServiceBusReceiverClient receiver = fx.subscriptionReceiver(TOPIC, "no-such-subscription");

    assertThatThrownBy(() -> sender.sendMessage(new ServiceBusMessage("x")))
        .isInstanceOf(ServiceBusException.class)
        .hasStackTraceContaining("could not be found");
    assertThatThrownBy(() -> receiver.receiveMessages(1, Duration.ofSeconds(10)).stream().toList())
        .isInstanceOf(RuntimeException.class)
        .hasMessageContaining("terminated");
    for (String address :
        List.of(
            TOPIC + "/Subscriptions/nope",
            TOPIC + "/Subscriptions/nope/$deadletterqueue",
            TOPIC,
            TOPIC + "/$deadletterqueue")) {
      assertThat(rawAttachCondition(address)).as(address).isEqualTo("amqp:not-found");
    }
  }

  @Test
  void ruleManagement_isRefusedAsNotImplemented() {
    start(topic(sub("loyalty")));
    ServiceBusRuleManagerClient rules =
        Clients.builder(fx.emulator)
            .ruleManager()
            .topicName(TOPIC)
            .subscriptionName("loyalty")
            .buildClient();
    try {
      assertThatThrownBy(() -> rules.listRules().stream().toList())
          .hasStackTraceContaining("not implemented");
    } finally {
      rules.close();
    }
  }

  @Test
  void subscriptionPaths_areCaseInsensitive() {
    start(topic(sub("loyalty")));
    fx.topicSender("ORDER-EVENTS").sendMessage(new ServiceBusMessage("x").setMessageId("x"));

    ServiceBusReceivedMessage got =
        receive(fx.subscriptionReceiver("Order-Events", "LOYALTY"), 1).get(0);

    assertThat(got.getMessageId()).isEqualTo("x");
  }

  /** Attaches a bare receiver link to an address and returns the error the server detached with. */
  private String rawAttachCondition(String address) throws Exception {
    try (RawAmqpClient client = new RawAmqpClient(fx.emulator.port())) {
      Receiver r = client.session.receiver("r-" + address);
      Source source = new Source();
      source.setAddress(address);
      r.setSource(source);
      Target target = new Target();
      target.setAddress("raw-client");
      r.setTarget(target);
      r.setSenderSettleMode(SenderSettleMode.UNSETTLED);
      r.setReceiverSettleMode(ReceiverSettleMode.SECOND);
      r.open();
      client.pumpUntil(() -> r.getRemoteState() == EndpointState.CLOSED, Duration.ofSeconds(20));
      return r.getRemoteCondition().getCondition().toString();
    }
  }
}
