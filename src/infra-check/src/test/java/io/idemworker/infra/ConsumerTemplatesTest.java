package io.idemworker.infra;

import static io.idemworker.infra.Mutations.removeLines;
import static io.idemworker.infra.Mutations.replaceAfter;
import static io.idemworker.infra.Mutations.replaceOnce;
import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The topic's consumers (issue 12): the customers container, one Container App per consumer role on
 * its own subscription, Data Receiver on that subscription only. The real templates pass, and each
 * check notices a broken copy.
 */
class ConsumerTemplatesTest {
  private static final WorkerEnv ENV = WorkerEnv.load(Repo.ROOT);
  private static final String MAIN = Repo.read("infra/main.bicep");
  private static final String COSMOS = Repo.read("infra/modules/cosmos.bicep");
  private static final String SERVICE_BUS = Repo.read("infra/modules/servicebus.bicep");
  private static final String CONSUMER = Repo.read("infra/modules/consumer-app.bicep");

  @Test
  void realTemplates_passEveryConsumerCheck() {
    SoftAssertions.assertSoftly(
        soft -> {
          soft.assertThat(ConsumerChecks.customersContainer(COSMOS)).as("cosmos").isEmpty();
          soft.assertThat(ConsumerChecks.receivers(SERVICE_BUS)).as("service bus").isEmpty();
          soft.assertThat(ConsumerChecks.consumerApp(CONSUMER, ENV)).as("consumer app").isEmpty();
          soft.assertThat(ConsumerChecks.main(MAIN)).as("main").isEmpty();
          soft.assertThat(BicepChecks.outputs(CONSUMER)).as("outputs").isEmpty();
        });
  }

  // The customers container.

  @Test
  void customersPartitionedByOrder_isReported() {
    String broken = replaceOnce(COSMOS, "'/customerId'", "'/orderId'");

    assertThat(ConsumerChecks.customersContainer(broken))
        .anyMatch(p -> p.startsWith("properties.resource.partitionKey.paths is ['/orderId']"));
  }

  @Test
  void customersWithTtlOff_isReported() {
    String broken =
        removeLines(
            replaceAfter(COSMOS, "resource customersContainer ", "defaultTtl: -1", "MARK"),
            "MARK",
            1);

    assertThat(ConsumerChecks.customersContainer(broken))
        .contains("properties.resource.defaultTtl is not set");
  }

  @Test
  void customersContainerMissing_isReported() {
    String broken = replaceOnce(COSMOS, "name: customersContainerName\n", "name: 'customers-v2'\n");

    assertThat(ConsumerChecks.customersContainer(broken))
        .contains("expected one Cosmos container named customersContainerName, found 0");
  }

  @Test
  void consumerWithoutCosmosData_isReported() {
    String broken =
        replaceOnce(
            COSMOS,
            "    principalId: customerStatsPrincipalId\n",
            "    principalId: loyaltyPrincipalId\n");

    assertThat(ConsumerChecks.customersContainer(broken))
        .contains("no Cosmos Data Contributor assignment for customerStatsPrincipalId");
  }

  // Service Bus: each consumer receives from its own subscription only.

  @Test
  void receiverOnTheTopicOrNamespace_isReported() {
    String topic =
        replaceAfter(SERVICE_BUS, "resource loyaltyReceiver ", "scope: loyalty", "scope: topic");
    String namespace =
        replaceAfter(
            SERVICE_BUS,
            "resource customerStatsReceiver ",
            "scope: customerStats",
            "scope: sbNamespace");

    assertThat(ConsumerChecks.receivers(topic))
        .contains("loyaltyPrincipalId has no Data Receiver scoped to the subscription loyalty")
        .anyMatch(p -> p.contains("on topic, beyond its subscription"));
    assertThat(ConsumerChecks.receivers(namespace))
        .anyMatch(p -> p.contains("customerStatsPrincipalId has role"))
        .anyMatch(p -> p.contains("on sbNamespace, beyond its subscription"));
  }

  @Test
  void receiverOnTheOtherConsumersSubscription_isReported() {
    String broken =
        replaceAfter(
            SERVICE_BUS, "resource loyaltyReceiver ", "scope: loyalty", "scope: customerStats");

    assertThat(ConsumerChecks.receivers(broken))
        .contains("loyaltyPrincipalId has no Data Receiver scoped to the subscription loyalty");
  }

  @Test
  void consumerGivenDataOwner_isReported() {
    String broken =
        replaceAfter(
            SERVICE_BUS,
            "resource customerStatsReceiver ",
            "dataReceiverRoleId)\n    principalId",
            "dataOwnerRoleId)\n    principalId");

    assertThat(ConsumerChecks.receivers(broken))
        .anyMatch(p -> p.startsWith("customerStatsPrincipalId has role [090c5cfd"));
  }

  @Test
  void scalerWithoutManageOnTheTopic_isReported() {
    String broken =
        replaceAfter(SERVICE_BUS, "resource scalerTopicOwner ", "scope: topic", "scope: queue");

    assertThat(ConsumerChecks.receivers(broken))
        .anyMatch(p -> p.startsWith("the scaler has no Data Owner on the topic"));
  }

  @Test
  void subscriptionSettingsOutputNotTheOnesUsed_isReported() {
    String broken =
        replaceOnce(
            SERVICE_BUS,
            "output subscriptionLockDuration string = subscriptionLockDuration",
            "output subscriptionLockDuration string = 'PT2M'");

    assertThat(ConsumerChecks.receivers(broken))
        .contains(
            "subscription loyalty lockDuration is PT1M, output subscriptionLockDuration says PT2M");
  }

  // The consumer app.

  @Test
  void consumerReadingTheQueue_isReported() {
    String broken =
        replaceOnce(
            CONSUMER,
            "name: 'SERVICEBUS_TOPIC_NAME'\n              value: topicName",
            "name: 'SERVICEBUS_QUEUE_NAME'\n              value: topicName");

    assertThat(ConsumerChecks.consumerApp(broken, ENV))
        .contains("consumer app sets SERVICEBUS_QUEUE_NAME, which a consumer must not set")
        .contains("consumer app does not set SERVICEBUS_TOPIC_NAME");
  }

  @Test
  void consumerWithoutItsRoleOrSubscription_isReported() {
    String noRole = removeLines(CONSUMER, "name: 'WORKER_ROLE'", 2);
    String otherSubscription = replaceOnce(CONSUMER, "value: subscriptionName", "value: 'loyalty'");

    assertThat(ConsumerChecks.consumerApp(noRole, ENV))
        .contains("consumer app does not set WORKER_ROLE");
    assertThat(ConsumerChecks.consumerApp(otherSubscription, ENV))
        .contains("SERVICEBUS_SUBSCRIPTION_NAME is 'loyalty', expected subscriptionName");
  }

  @Test
  void consumerRunningTheRelay_isReported() {
    String broken = replaceAfter(CONSUMER, "name: 'RELAY_ENABLED'", "'false'", "'true'");

    assertThat(ConsumerChecks.consumerApp(broken, ENV))
        .contains("RELAY_ENABLED is 'true', expected 'false'");
  }

  @Test
  void consumerWithTheOrdersContainerOrQueueSettings_isReported() {
    String broken = replaceOnce(CONSUMER, "value: subscriptionLockDuration", "value: 'PT5M'");

    assertThat(ConsumerChecks.consumerApp(broken, ENV))
        .contains("SERVICEBUS_LOCK_DURATION is 'PT5M', expected subscriptionLockDuration");
  }

  @Test
  void consumerWithPayments_isReported() {
    String broken =
        replaceOnce(
            CONSUMER,
            "name: 'OTEL_SERVICE_NAME'",
            "name: 'PAYMENTS_BASE_URL'\n              value: 'x'\n            }\n            {\n"
                + "              name: 'OTEL_SERVICE_NAME'");

    assertThat(ConsumerChecks.consumerApp(broken, ENV))
        .contains("consumer app sets PAYMENTS_BASE_URL, which a consumer must not set");
  }

  @Test
  void kedaRuleOnAnotherSubscriptionOrTheQueue_isReported() {
    String other =
        replaceOnce(
            CONSUMER, "subscriptionName: subscriptionName", "subscriptionName: 'customer-stats'");
    String queue = replaceOnce(CONSUMER, "topicName: topicName\n", "queueName: 'orders'\n");

    assertThat(ConsumerChecks.consumerApp(other, ENV))
        .anyMatch(p -> p.startsWith("KEDA subscriptionName 'customer-stats' differs"));
    assertThat(ConsumerChecks.consumerApp(queue, ENV))
        .contains("the consumer's KEDA rule counts a queue, not its subscription")
        .anyMatch(p -> p.startsWith("KEDA topicName (unset) differs"));
  }

  @Test
  void kedaRuleWithTheConsumersIdentity_isReported() {
    String broken =
        replaceAfter(
            CONSUMER, "custom: {", "identity: scalerIdentityId", "identity: consumerIdentityId");

    assertThat(ConsumerChecks.consumerApp(broken, ENV))
        .contains("the scale rule authenticates with consumerIdentityId, not the scaler identity");
  }

  // main.bicep.

  @Test
  void consumerWiredToTheOtherSubscription_orTheQueueSettings_isReported() {
    String other =
        replaceOnce(
            MAIN,
            "subscriptionName: serviceBus.outputs.loyaltySubscriptionName",
            "subscriptionName: serviceBus.outputs.customerStatsSubscriptionName");
    String queueSettings =
        replaceAfter(
            MAIN,
            "module customerStatsApp ",
            "subscriptionLockDuration: serviceBus.outputs.subscriptionLockDuration",
            "subscriptionLockDuration: serviceBus.outputs.lockDuration");

    assertThat(ConsumerChecks.main(other))
        .anyMatch(p -> p.startsWith("loyaltyApp (loyalty) passes subscriptionName"));
    assertThat(ConsumerChecks.main(queueSettings))
        .anyMatch(
            p -> p.startsWith("customerStatsApp (customer-stats) passes subscriptionLockDuration"));
  }

  @Test
  void consumersSharingAnIdentity_orTheOrdersContainer_isReported() {
    String shared =
        replaceOnce(
            MAIN,
            "consumerIdentityId: identity.outputs.customerStatsId",
            "consumerIdentityId: identity.outputs.loyaltyId");
    String orders =
        replaceAfter(
            MAIN,
            "module loyaltyApp ",
            "cosmosContainerName: cosmos.outputs.customersContainerName",
            "cosmosContainerName: cosmos.outputs.containerName");

    assertThat(ConsumerChecks.main(shared)).anyMatch(p -> p.startsWith("consumer apps share"));
    assertThat(ConsumerChecks.main(orders))
        .anyMatch(p -> p.startsWith("loyaltyApp (loyalty) passes cosmosContainerName"));
  }

  @Test
  void aConsumerRoleNotDeployed_isReported() {
    String broken = replaceOnce(MAIN, "role: 'customer-stats'", "role: 'loyalty'");

    assertThat(ConsumerChecks.main(broken))
        .anyMatch(p -> p.startsWith("consumer apps deployed for"));
  }

  // Session mode (main's serviceBusSessions) covers the consumers.

  @Test
  void subscriptionsWithoutSessionsInSessionMode_areReported() {
    String broken =
        replaceOnce(
            SERVICE_BUS, "  requiresSession: requiresSession\n}", "  requiresSession: false\n}");

    assertThat(ConsumerChecks.receivers(broken))
        .anyMatch(
            p ->
                p.startsWith(
                    "subscription loyalty requiresSession is false when the queue's is true"));
  }

  @Test
  void consumerNotToldItsSubscriptionsSessions_isReported() {
    String broken =
        replaceOnce(CONSUMER, "value: string(subscriptionRequiresSession)", "value: 'false'");

    assertThat(ConsumerChecks.consumerApp(broken, ENV))
        .contains("SERVICEBUS_SESSIONS is 'false', expected string(subscriptionRequiresSession)")
        .contains("with subscriptionRequiresSession true, SERVICEBUS_SESSIONS is false");
  }

  @Test
  void kedaTargetIgnoringSessions_isReported() {
    String broken =
        replaceOnce(
            CONSUMER,
            "messageCount: string(activeMessagesPerReplica)",
            "messageCount: string(messagesPerReplica)");

    assertThat(ConsumerChecks.consumerApp(broken, ENV))
        .anyMatch(
            p ->
                p.startsWith(
                    "with subscriptionRequiresSession true, KEDA messageCount is 20, expected 8"));
  }

  @Test
  void consumerGivenMainsParameterInsteadOfTheSubscriptionsValue_isReported() {
    String broken =
        replaceAfter(
            MAIN,
            "module customerStatsApp ",
            "subscriptionRequiresSession: serviceBus.outputs.subscriptionRequiresSession",
            "subscriptionRequiresSession: serviceBusSessions");

    assertThat(ConsumerChecks.main(broken))
        .anyMatch(
            p ->
                p.startsWith(
                    "customerStatsApp (customer-stats) passes subscriptionRequiresSession:"));
  }
}
