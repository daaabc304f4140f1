package io.idemworker.emulator.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.PartitionKey;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.emulator.cosmos.Fault;
import io.idemworker.emulator.cosmos.Operation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Tests that run at the same time on one shared set of emulators (the run-wide one) do not see each
 * other's faults, fault clearing or request counts, as long as each works on entities of its own.
 * JUnit runs the methods of this class concurrently ({@code
 * junit.jupiter.execution.parallel.enabled} in {@code junit-platform.properties},
 * {@code @Execution(CONCURRENT)} here); every test arms its faults, then waits until all of them
 * have armed theirs before sending a request, so the faults of all six are armed together, and a
 * run that is not parallel fails on that wait instead of passing without proving anything.
 */
@AzureEmulators(
    queues = {"iso-fast", "iso-slow", "iso-renew"},
    containers = {"iso/throttle-a:/pk", "iso/throttle-b:/pk", "iso/short:/pk", "iso/long:/pk"})
@Execution(ExecutionMode.CONCURRENT)
class ParallelIsolationTest {
  private static final int TESTS = 6;
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final CountDownLatch ALL_ARMED = new CountDownLatch(TESTS);
  private static CosmosClient cosmos;
  private static Emulators azure;

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

  /** Marks this test's faults as armed and waits until every test's are. */
  private static void armedAndWaitForTheOthers() throws InterruptedException {
    ALL_ARMED.countDown();
    assertThat(ALL_ARMED.await(WAIT.toSeconds(), TimeUnit.SECONDS))
        .as("all %d tests armed their faults at the same time (is parallel execution on?)", TESTS)
        .isTrue();
  }

  private static CosmosContainer container(String name) {
    return cosmos.getDatabase("iso").getContainer(name);
  }

  private static ObjectNode item(String id) {
    return JsonNodeFactory.instance.objectNode().put("id", id).put("pk", id);
  }

  /** Four throttles, retried by the SDK: five creates on this container, whatever runs beside. */
  private static void throttledCreateCountsItsOwnRequests(String name) throws Exception {
    azure.cosmos().stats().container("iso", name).reset();
    azure
        .cosmos()
        .faults()
        .container("iso", name)
        .inject(Operation.CREATE, Fault.status(429).retryAfter(Duration.ofMillis(5)).times(4));
    armedAndWaitForTheOthers();

    container(name).createItem(item(azure.uniqueName("order")));

    assertThat(azure.cosmos().stats().container("iso", name).count(Operation.CREATE)).isEqualTo(5);
  }

  @Test
  void throttlingOnContainerA_isMetOnlyByContainerA() throws Exception {
    throttledCreateCountsItsOwnRequests("throttle-a");
  }

  @Test
  void throttlingOnContainerB_isMetOnlyByContainerB() throws Exception {
    throttledCreateCountsItsOwnRequests("throttle-b");
  }

  /** The status a point read of a missing item gets: 404, or the injected fault's. */
  private static int readStatus(String name) {
    try {
      container(name).readItem("missing", new PartitionKey("missing"), ObjectNode.class);
      return 200;
    } catch (CosmosException e) {
      return e.getStatusCode();
    }
  }

  @Test
  void aTestThatEnds_clearsOnlyItsOwnFaults_short() throws Exception {
    azure.cosmos().faults().container("iso", "short").inject(Operation.READ, Fault.status(400));
    armedAndWaitForTheOthers();

    assertThat(readStatus("short")).isEqualTo(400);
  }

  @Test
  void aTestThatEnds_clearsOnlyItsOwnFaults_long() throws Exception {
    azure.cosmos().faults().container("iso", "long").inject(Operation.READ, Fault.status(400));
    armedAndWaitForTheOthers();

    // The short test ends and its faults are disarmed after it: its container reads normally.
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (readStatus("short") != 404 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
    assertThat(readStatus("short")).as("the short test's fault, cleared after it").isEqualTo(404);
    // This test's own fault outlived the other test's clearing.
    assertThat(readStatus("long")).isEqualTo(400);
  }

  private static ServiceBusClientBuilder serviceBus() {
    return new ServiceBusClientBuilder().connectionString(azure.serviceBusConnectionString());
  }

  private static List<ServiceBusReceivedMessage> receive(
      ServiceBusReceiverClient receiver, Duration within) {
    List<ServiceBusReceivedMessage> out = new ArrayList<>();
    receiver.receiveMessages(1, within).forEach(out::add);
    return out;
  }

  @Test
  void aDeliveryDelayOnOneQueue_leavesAnotherQueueOnTime() throws Exception {
    azure.serviceBus().faults().delayDeliveries("iso-slow", Duration.ofMinutes(10));
    armedAndWaitForTheOthers();

    try (ServiceBusSenderClient fast = serviceBus().sender().queueName("iso-fast").buildClient();
        ServiceBusSenderClient slow = serviceBus().sender().queueName("iso-slow").buildClient();
        ServiceBusReceiverClient fastReceiver =
            serviceBus().receiver().queueName("iso-fast").buildClient();
        ServiceBusReceiverClient slowReceiver =
            serviceBus().receiver().queueName("iso-slow").buildClient()) {
      fast.sendMessage(new ServiceBusMessage("f"));
      slow.sendMessage(new ServiceBusMessage("s"));

      List<ServiceBusReceivedMessage> got = receive(fastReceiver, Duration.ofSeconds(30));
      assertThat(got).as("the undelayed queue delivers").hasSize(1);
      fastReceiver.complete(got.get(0));
      assertThat(receive(slowReceiver, Duration.ofSeconds(1)))
          .as("the delayed queue holds its message for ten minutes")
          .isEmpty();
    }
    azure.serviceBus().faults().clear("iso-slow");
  }

  @Test
  void refusedRenewalsOnOneQueue_areCountedForThatQueue() throws Exception {
    azure.serviceBus().faults().refuseLockRenewals("iso-renew", 1);
    armedAndWaitForTheOthers();

    try (ServiceBusSenderClient sender =
            serviceBus().sender().queueName("iso-renew").buildClient();
        ServiceBusReceiverClient receiver =
            serviceBus().receiver().queueName("iso-renew").buildClient()) {
      sender.sendMessage(new ServiceBusMessage("r"));
      List<ServiceBusReceivedMessage> got = receive(receiver, Duration.ofSeconds(30));
      assertThat(got).hasSize(1);

      assertThatThrownBy(() -> receiver.renewMessageLock(got.get(0)))
          .isInstanceOfSatisfying(
              ServiceBusException.class,
              e -> assertThat(e.getReason()).isEqualTo(ServiceBusFailureReason.MESSAGE_LOCK_LOST));
      assertThat(azure.serviceBus().faults().refusedLockRenewals("iso-renew")).isEqualTo(1);
      assertThat(azure.serviceBus().faults().refusedLockRenewals("iso-fast")).isZero();
    }
  }
}
