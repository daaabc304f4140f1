package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.exception.HttpResponseException;
import com.azure.core.exception.ResourceExistsException;
import com.azure.core.exception.ResourceNotFoundException;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.administration.ServiceBusAdministrationAsyncClient;
import com.azure.messaging.servicebus.administration.models.CorrelationRuleFilter;
import com.azure.messaging.servicebus.administration.models.CreateQueueOptions;
import com.azure.messaging.servicebus.administration.models.CreateRuleOptions;
import com.azure.messaging.servicebus.administration.models.CreateSubscriptionOptions;
import com.azure.messaging.servicebus.administration.models.CreateTopicOptions;
import com.azure.messaging.servicebus.administration.models.QueueProperties;
import com.azure.messaging.servicebus.administration.models.RuleProperties;
import com.azure.messaging.servicebus.administration.models.SqlRuleFilter;
import com.azure.messaging.servicebus.administration.models.SubscriptionProperties;
import com.azure.messaging.servicebus.administration.models.SubscriptionRuntimeProperties;
import com.azure.messaging.servicebus.administration.models.TopicProperties;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The administration API through the SDK's {@link ServiceBusAdministrationAsyncClient}: every
 * operation of the synchronous client's test, through the asynchronous stack (the SDK implements
 * the two separately), each awaited with {@code block()}.
 */
class ServiceBusEmulatorAdminAsyncTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static ServiceBusEmulator emulator;
  private static ServiceBusAdministrationAsyncClient admin;

  @BeforeAll
  static void start() {
    emulator = ServiceBusEmulator.builder().adminPort(0).start();
    admin = AdminClients.builder(emulator).buildAsyncClient();
  }

  @AfterAll
  static void stop() {
    emulator.close();
  }

  @Test
  void queue_createGetListUpdateExistsDelete_andRuntimeCounts() {
    QueueProperties created =
        admin
            .createQueue(
                "async-q",
                new CreateQueueOptions()
                    .setLockDuration(Duration.ofSeconds(30))
                    .setMaxDeliveryCount(5)
                    .setDeadLetteringOnMessageExpiration(true))
            .block(WAIT);
    try (ServiceBusSenderClient sender =
        Clients.builder(emulator).sender().queueName("async-q").buildClient()) {
      sender.sendMessages(List.of(new ServiceBusMessage("a"), new ServiceBusMessage("b")));
      sender.scheduleMessage(new ServiceBusMessage("later"), OffsetDateTime.now().plusDays(1));
    }

    QueueProperties read = admin.getQueue("async-q").block(WAIT);
    var runtime = admin.getQueueRuntimeProperties("async-q").block(WAIT);
    List<String> names = admin.listQueues().map(QueueProperties::getName).collectList().block(WAIT);

    assertThat(created.getLockDuration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(read.getMaxDeliveryCount()).isEqualTo(5);
    assertThat(read.isDeadLetteringOnMessageExpiration()).isTrue();
    assertThat(runtime.getActiveMessageCount()).isEqualTo(2);
    assertThat(runtime.getScheduledMessageCount()).isEqualTo(1);
    assertThat(runtime.getTotalMessageCount()).isEqualTo(3);
    assertThat(names).contains("async-q");
    assertThat(admin.getQueueExists("async-q").block(WAIT)).isTrue();

    QueueProperties updated =
        admin
            .updateQueue(read.setMaxDeliveryCount(9).setLockDuration(Duration.ofMinutes(2)))
            .block(WAIT);
    assertThat(updated.getMaxDeliveryCount()).isEqualTo(9);
    assertThat(admin.getQueue("async-q").block(WAIT).getLockDuration())
        .isEqualTo(Duration.ofMinutes(2));

    admin.deleteQueue("async-q").block(WAIT);
    assertThat(admin.getQueueExists("async-q").block(WAIT)).isFalse();
    assertThatThrownBy(() -> admin.getQueue("async-q").block(WAIT))
        .isInstanceOf(ResourceNotFoundException.class);
    assertThatThrownBy(() -> admin.deleteQueue("async-q").block(WAIT))
        .isInstanceOf(ResourceNotFoundException.class);
  }

  @Test
  void topicSubscriptionRule_createGetListUpdateExistsDelete() {
    admin.createTopic("async-t", new CreateTopicOptions().setMaxSizeInMegabytes(2048)).block(WAIT);
    admin
        .createSubscription(
            "async-t",
            "s1",
            new CreateSubscriptionOptions().setLockDuration(Duration.ofSeconds(15)))
        .block(WAIT);
    CorrelationRuleFilter redOnly = new CorrelationRuleFilter();
    redOnly.getProperties().put("colour", "red");
    RuleProperties rule =
        admin.createRule("async-t", "s1", "red", new CreateRuleOptions(redOnly)).block(WAIT);
    admin.deleteRule("async-t", "s1", "$Default").block(WAIT);

    try (ServiceBusSenderClient sender =
        Clients.builder(emulator).sender().topicName("async-t").buildClient()) {
      ServiceBusMessage red = new ServiceBusMessage("red");
      red.getApplicationProperties().put("colour", "red");
      ServiceBusMessage blue = new ServiceBusMessage("blue");
      blue.getApplicationProperties().put("colour", "blue");
      sender.sendMessages(List.of(red, blue));
    }

    TopicProperties topic = admin.getTopic("async-t").block(WAIT);
    SubscriptionProperties sub = admin.getSubscription("async-t", "s1").block(WAIT);
    SubscriptionRuntimeProperties subRuntime =
        admin.getSubscriptionRuntimeProperties("async-t", "s1").block(WAIT);
    assertThat(topic.getMaxSizeInMegabytes()).isEqualTo(2048);
    assertThat(admin.getTopicRuntimeProperties("async-t").block(WAIT).getSubscriptionCount())
        .isEqualTo(1);
    assertThat(sub.getLockDuration()).isEqualTo(Duration.ofSeconds(15));
    assertThat(subRuntime.getActiveMessageCount()).isEqualTo(1);
    assertThat(rule.getName()).isEqualTo("red");
    assertThat(admin.getRule("async-t", "s1", "red").block(WAIT).getFilter())
        .isInstanceOfSatisfying(
            CorrelationRuleFilter.class,
            f -> assertThat(f.getProperties()).containsEntry("colour", "red"));
    assertThat(admin.listTopics().map(TopicProperties::getName).collectList().block(WAIT))
        .contains("async-t");
    assertThat(
            admin
                .listSubscriptions("async-t")
                .map(SubscriptionProperties::getSubscriptionName)
                .collectList()
                .block(WAIT))
        .containsExactly("s1");
    assertThat(
            admin.listRules("async-t", "s1").map(RuleProperties::getName).collectList().block(WAIT))
        .containsExactly("red");
    assertThat(admin.getTopicExists("async-t").block(WAIT)).isTrue();
    assertThat(admin.getSubscriptionExists("async-t", "s1").block(WAIT)).isTrue();

    admin.updateTopic(topic.setDefaultMessageTimeToLive(Duration.ofHours(1))).block(WAIT);
    admin.updateSubscription(sub.setMaxDeliveryCount(4)).block(WAIT);
    admin
        .updateRule(
            "async-t",
            "s1",
            admin.getRule("async-t", "s1", "red").block(WAIT).setFilter(new SqlRuleFilter("1=1")))
        .block(WAIT);
    assertThat(admin.getTopic("async-t").block(WAIT).getDefaultMessageTimeToLive())
        .isEqualTo(Duration.ofHours(1));
    assertThat(admin.getSubscription("async-t", "s1").block(WAIT).getMaxDeliveryCount())
        .isEqualTo(4);

    admin.deleteRule("async-t", "s1", "red").block(WAIT);
    assertThat(admin.listRules("async-t", "s1").collectList().block(WAIT)).isEmpty();
    admin.deleteSubscription("async-t", "s1").block(WAIT);
    assertThat(admin.getSubscriptionExists("async-t", "s1").block(WAIT)).isFalse();
    admin.deleteTopic("async-t").block(WAIT);
    assertThat(admin.getTopicExists("async-t").block(WAIT)).isFalse();
  }

  @Test
  void serviceAnswers_409_404_400() {
    admin.createTopic("async-answers").block(WAIT);

    assertThatThrownBy(() -> admin.createTopic("async-answers").block(WAIT))
        .isInstanceOf(ResourceExistsException.class);
    assertThatThrownBy(() -> admin.createQueue("async-answers").block(WAIT))
        .isInstanceOf(ResourceExistsException.class);
    assertThatThrownBy(() -> admin.getTopic("async-none").block(WAIT))
        .isInstanceOf(ResourceNotFoundException.class);
    assertThatThrownBy(() -> admin.getRule("async-answers", "none", "none").block(WAIT))
        .isInstanceOf(ResourceNotFoundException.class);
    assertThatThrownBy(
            () ->
                admin
                    .createSubscription(
                        "async-answers",
                        "s",
                        new CreateSubscriptionOptions().setLockDuration(Duration.ofMinutes(10)))
                    .block(WAIT))
        .isInstanceOfSatisfying(
            HttpResponseException.class,
            e -> assertThat(e.getResponse().getStatusCode()).isEqualTo(400))
        .hasMessageContaining("LockDuration");
    assertThat(admin.getSubscriptionExists("async-answers", "s").block(WAIT)).isFalse();
  }
}
