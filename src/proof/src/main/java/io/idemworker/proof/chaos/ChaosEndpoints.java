package io.idemworker.proof.chaos;

import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosChangeFeedRequestOptions;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.FeedResponse;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.SubQueue;
import com.fasterxml.jackson.databind.JsonNode;
import io.idemworker.consumers.CustomerDocumentIds;
import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.proof.emulators.EventTopic;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The endpoints a chaos run is given instead of starting its own emulators ("external mode"): a
 * Service Bus namespace and a Cosmos DB account, which must already hold the run's entities, empty.
 *
 * @param serviceBusConnectionString with Send and Listen rights on the queue and the topic
 * @param cosmosEndpoint the account's endpoint
 * @param cosmosKey the account's key
 * @param cosmosDatabase the database holding the {@code orders} and {@code customers} containers
 * @param duplicateWindow the queue's duplicate-detection window, as the run waits it out
 * @param cosmosEmulator whether the endpoint is an emulator's with a self-signed certificate; a
 *     loopback endpoint always is
 */
record ChaosEndpoints(
    String serviceBusConnectionString,
    URI cosmosEndpoint,
    String cosmosKey,
    String cosmosDatabase,
    Duration duplicateWindow,
    boolean cosmosEmulator) {

  /** The options that make a run external; all or none. */
  static final List<String> OPTIONS =
      List.of("--servicebus-connection-string", "--cosmos-endpoint", "--cosmos-key");

  /** The subscriptions of the topic the run needs: the consumers' and the one it reads. */
  static final List<String> SUBSCRIPTIONS =
      List.of(
          EventTopic.CONSUMERS.get(0), EventTopic.CONSUMERS.get(1), EventTopic.AUDIT_SUBSCRIPTION);

  /** Checks its parts; the options' presence is {@link #missing}'s job. */
  ChaosEndpoints {
    if (serviceBusConnectionString.isBlank() || cosmosKey.isBlank() || cosmosDatabase.isBlank()) {
      throw new IllegalArgumentException(
          "--servicebus-connection-string, --cosmos-key and --cosmos-database must not be blank");
    }
    if (!"https".equalsIgnoreCase(cosmosEndpoint.getScheme()) || cosmosEndpoint.getHost() == null) {
      throw new IllegalArgumentException(
          "--cosmos-endpoint must be an https URL, got '" + cosmosEndpoint + "'");
    }
    if (duplicateWindow.isNegative() || duplicateWindow.isZero()) {
      throw new IllegalArgumentException("--duplicate-detection-window must be positive");
    }
  }

  /** Where the two secrets come from when their options are not given. */
  static final String SERVICEBUS_CONNECTION_STRING_ENV = "CHAOS_SERVICEBUS_CONNECTION_STRING";

  static final String COSMOS_KEY_ENV = "CHAOS_COSMOS_KEY";

  /**
   * The secret given on the command line, or else, when the endpoints are given at all ({@code
   * --cosmos-endpoint}), the environment's: a key or a connection string on a command line shows in
   * the process list and the shell's history. Without {@code --cosmos-endpoint} the environment is
   * not read, so a shell that has the variables set still runs against the emulators.
   *
   * @param option the option's value, null when not given
   * @param cosmosEndpoint {@code --cosmos-endpoint}, null when not given
   * @param env the environment
   * @param variable the variable to read
   * @return the value to use, null when neither gives one
   */
  static String secret(
      String option, String cosmosEndpoint, Map<String, String> env, String variable) {
    if (option != null || cosmosEndpoint == null) {
      return option;
    }
    String value = env.get(variable);
    return value == null || value.isBlank() ? null : value;
  }

  /**
   * Which of the three options are missing when some are given.
   *
   * @param given each of {@link #OPTIONS}' values, in that order, null when not given
   * @return the missing options' names; empty when all or none are given
   */
  static List<String> missing(String... given) {
    List<String> missing = new ArrayList<>();
    for (int i = 0; i < OPTIONS.size(); i++) {
      if (given[i] == null) {
        missing.add(OPTIONS.get(i));
      }
    }
    return missing.size() == OPTIONS.size() ? List.of() : missing;
  }

  /**
   * The JVM options the worker processes need to reach the Cosmos DB endpoint: trust for an
   * emulator's self-signed certificate, and only for it. The SDK skips certificate checks for
   * loopback hosts (or the host {@code COSMOS.EMULATOR_HOST} names) and checks every other, so a
   * real account is always checked.
   */
  List<String> trustOptions() {
    if (!cosmosEmulator && !loopback()) {
      return List.of();
    }
    List<String> options = new ArrayList<>();
    options.add("-DCOSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true");
    emulatorHost().ifPresent(h -> options.add("-DCOSMOS.EMULATOR_HOST=" + h));
    return options;
  }

  /** The emulator's host when it is not loopback, for {@code COSMOS.EMULATOR_HOST}. */
  Optional<String> emulatorHost() {
    return cosmosEmulator && !loopback() ? Optional.of(cosmosEndpoint.getHost()) : Optional.empty();
  }

  private boolean loopback() {
    String host = cosmosEndpoint.getHost().toLowerCase(Locale.ROOT);
    return host.equals("localhost")
        || host.equals("127.0.0.1")
        || host.equals("[::1]")
        || host.equals("[0:0:0:0:0:0:0:1]");
  }

  /**
   * Checks that every entity the run uses exists and holds nothing: the queue, its dead-letter
   * queue, the topic, the subscriptions (the consumers' and {@code audit}, which the run reads the
   * events from) and theirs, the database and the {@code orders} and {@code customers} containers
   * with their partition keys. Nothing is created: a namespace's Listen/Send rights cannot, and a
   * deployment creates its entities itself. Empty, because the audit compares what the stores hold
   * with what this run sent.
   *
   * @param cosmos a client of the account
   * @return what is missing or not empty, each naming the entity; empty when all is well
   */
  List<String> problems(CosmosClient cosmos) {
    List<String> problems = new ArrayList<>();
    serviceBusProblems(problems);
    cosmosProblems(cosmos, problems);
    return problems;
  }

  private void serviceBusProblems(List<String> problems) {
    String queue = ChaosCommand.QUEUE;
    String topic = EventTopic.NAME;
    peekable("queue '" + queue + "'", queue, false, problems);
    peekable("the dead-letter queue of queue '" + queue + "'", queue, true, problems);
    try (ServiceBusSenderClient sender = builder().sender().topicName(topic).buildClient()) {
      // Opens the send link (the relay needs one) without sending anything.
      sender.createMessageBatch();
    } catch (RuntimeException e) {
      problems.add(what("topic '" + topic + "'", e));
      return;
    }
    for (String s : SUBSCRIPTIONS) {
      String entity = topic + "/Subscriptions/" + s;
      String name = "subscription '" + s + "' of topic '" + topic + "'";
      peekable(name, entity, false, problems);
      peekable("the dead-letter queue of " + name, entity, true, problems);
    }
  }

  private void peekable(String name, String entity, boolean deadLetters, List<String> problems) {
    ServiceBusClientBuilder.ServiceBusReceiverClientBuilder b =
        ChaosBroker.receiver(serviceBusConnectionString, entity);
    if (deadLetters) {
      b.subQueue(SubQueue.DEAD_LETTER_QUEUE);
    }
    try (ServiceBusReceiverClient receiver = b.buildClient()) {
      int held = ChaosBroker.peekCount(receiver, 0);
      if (held > 0) {
        problems.add(name + " is not empty");
      }
    } catch (RuntimeException e) {
      problems.add(what(name, e));
    }
  }

  private ServiceBusClientBuilder builder() {
    // Not found is not retried by the SDK; anything else gets one more try, not three minutes.
    return new ServiceBusClientBuilder()
        .connectionString(serviceBusConnectionString)
        .retryOptions(
            new AmqpRetryOptions().setMaxRetries(1).setTryTimeout(Duration.ofSeconds(20)));
  }

  private static String what(String name, RuntimeException e) {
    if (e instanceof ServiceBusException sbe
        && sbe.getReason() == ServiceBusFailureReason.MESSAGING_ENTITY_NOT_FOUND) {
      return name + " does not exist";
    }
    return name + " cannot be read: " + e.getMessage();
  }

  private void cosmosProblems(CosmosClient cosmos, List<String> problems) {
    try {
      cosmos.getDatabase(cosmosDatabase).read();
    } catch (CosmosException e) {
      problems.add(
          e.getStatusCode() == 404
              ? "Cosmos DB database '" + cosmosDatabase + "' does not exist"
              : "Cosmos DB database '" + cosmosDatabase + "' cannot be read: " + e.getStatusCode());
      return;
    }
    container(cosmos, ChaosCommand.QUEUE, OrderDocumentIds.PARTITION_KEY_PATH, problems);
    container(cosmos, ChaosEnvironment.CUSTOMERS, CustomerDocumentIds.PARTITION_KEY_PATH, problems);
  }

  private void container(CosmosClient cosmos, String name, String key, List<String> problems) {
    String what = "Cosmos DB container '" + name + "' in database '" + cosmosDatabase + "'";
    CosmosContainer container = cosmos.getDatabase(cosmosDatabase).getContainer(name);
    try {
      String path = CosmosContainers.partitionKeyPath(container);
      if (!path.equals(key)) {
        problems.add(what + " is partitioned by " + path + ", the run needs " + key);
        return;
      }
      if (!empty(container)) {
        problems.add(what + " is not empty");
      }
    } catch (CosmosException e) {
      problems.add(
          e.getStatusCode() == 404
              ? what + " does not exist"
              : what + " cannot be read: " + e.getStatusCode());
    }
  }

  /** Whether the change feed from the beginning is empty: no item was ever left in it. */
  private static boolean empty(CosmosContainer container) {
    CosmosChangeFeedRequestOptions options =
        CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(FeedRange.forFullRange());
    Iterator<FeedResponse<JsonNode>> pages =
        container.queryChangeFeed(options, JsonNode.class).iterableByPage(1).iterator();
    return !pages.hasNext() || pages.next().getResults().isEmpty();
  }
}
