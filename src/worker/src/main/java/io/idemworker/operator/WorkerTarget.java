package io.idemworker.operator;

import com.azure.cosmos.CosmosClient;
import io.idemworker.servicebus.ServiceBusConnection;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The worker deployment that {@code explain} looks at, as the composition root reads it from the
 * variables of {@code run}: the worker's queue, its orders container, and how to reach them.
 *
 * @param queueName the worker's queue, whose dead-letter queue is read
 * @param cosmosDatabase the database
 * @param cosmosContainer the orders container
 * @param relayTopic the relay's topic ({@code RELAY_TOPIC_NAME}), whose lease holds the checkpoint
 *     that tells which events are published
 * @param cosmos opens a new Cosmos DB client on the account; the caller closes it
 * @param serviceBus the Service Bus namespace; a credential is built only when it is called
 */
public record WorkerTarget(
    String queueName,
    String cosmosDatabase,
    String cosmosContainer,
    String relayTopic,
    Supplier<CosmosClient> cosmos,
    Supplier<ServiceBusConnection> serviceBus) {

  /** Requires every value. */
  public WorkerTarget {
    Objects.requireNonNull(queueName, "queueName");
    Objects.requireNonNull(cosmosDatabase, "cosmosDatabase");
    Objects.requireNonNull(cosmosContainer, "cosmosContainer");
    Objects.requireNonNull(relayTopic, "relayTopic");
    Objects.requireNonNull(cosmos, "cosmos");
    Objects.requireNonNull(serviceBus, "serviceBus");
  }
}
