package io.idemworker.cosmos;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.models.CosmosContainerProperties;

/**
 * Creates the worker's container where that is allowed. In Azure, Bicep creates database and
 * container (data-plane role assignments cannot); against an emulator the worker may create them.
 */
public final class CosmosContainers {
  /** The partition key path of the orders container. */
  public static final String PARTITION_KEY_PATH = "/orderId";

  private CosmosContainers() {}

  /**
   * Creates the database and the orders container if missing: partitioned by {@value
   * #PARTITION_KEY_PATH}, with {@code defaultTtl = -1} so that documents may carry their own TTL.
   *
   * @param client the client
   * @param database the database name
   * @param container the container name
   * @return the container
   */
  public static CosmosContainer ensureExists(
      CosmosClient client, String database, String container) {
    return ensureExists(client, database, container, PARTITION_KEY_PATH);
  }

  /**
   * Creates the database and a container if missing, partitioned by the given path, with {@code
   * defaultTtl = -1}. An existing container is left as it is; {@link #partitionKeyPath} tells
   * whether it fits.
   *
   * @param client the client
   * @param database the database name
   * @param container the container name
   * @param partitionKeyPath e.g. {@code /customerId}
   * @return the container
   */
  public static CosmosContainer ensureExists(
      CosmosClient client, String database, String container, String partitionKeyPath) {
    client.createDatabaseIfNotExists(database);
    CosmosDatabase db = client.getDatabase(database);
    CosmosContainerProperties properties =
        new CosmosContainerProperties(container, partitionKeyPath);
    properties.setDefaultTimeToLiveInSeconds(-1);
    db.createContainerIfNotExists(properties);
    return db.getContainer(container);
  }

  /**
   * The container's partition key path: a worker whose documents are keyed by another field would
   * have every write refused, so it checks this at start-up.
   *
   * @param container the container
   * @return e.g. {@code /orderId}
   */
  public static String partitionKeyPath(CosmosContainer container) {
    return partitionKeyPath(container.read().getProperties());
  }

  /**
   * The partition key path of container properties already read: start-up reads them once for this
   * and {@link #honoursItemTtl(CosmosContainerProperties)}.
   *
   * @param properties the container's properties
   * @return e.g. {@code /orderId}
   */
  public static String partitionKeyPath(CosmosContainerProperties properties) {
    return properties.getPartitionKeyDefinition().getPaths().get(0);
  }

  /**
   * Whether the container honours item TTLs: its {@code defaultTtl} is set (-1: items live until
   * their own {@code ttl}; N: N seconds unless an item says otherwise). When it is unset, Cosmos DB
   * ignores every item's {@code ttl}, so inbox markers would never expire.
   *
   * @param container the container
   * @return true when TTL is on
   */
  public static boolean honoursItemTtl(CosmosContainer container) {
    return honoursItemTtl(container.read().getProperties());
  }

  /**
   * Whether container properties already read say TTL is on; see {@link
   * #honoursItemTtl(CosmosContainer)}.
   *
   * @param properties the container's properties
   * @return true when TTL is on
   */
  public static boolean honoursItemTtl(CosmosContainerProperties properties) {
    return properties.getDefaultTimeToLiveInSeconds() != null;
  }
}
