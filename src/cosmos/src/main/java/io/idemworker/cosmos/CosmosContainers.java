package io.idemworker.cosmos;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.ExcludedPath;
import com.azure.cosmos.models.IncludedPath;
import com.azure.cosmos.models.IndexingMode;
import com.azure.cosmos.models.IndexingPolicy;
import java.util.List;

/**
 * Creates a worker's container where that is allowed, and reads what start-up checks of it. In
 * Azure, Bicep creates database and container (data-plane role assignments cannot); against an
 * emulator the worker may create them.
 */
public final class CosmosContainers {
  /**
   * The paths the containers index; every other path is excluded ({@code /*}), so a write pays for
   * indexing only what is queried. Each one, and who queries it: {@code /messageId/?} and {@code
   * /key/?} by {@code explain}'s cross-partition look-up ({@code c.key = @id OR c.messageId
   * = @id}); {@code /type/?} by partition-scoped reads that filter on the document type (the
   * proof's audit of outbox events, operators in Data Explorer). The worker, the relay (change
   * feed, point reads) and the topic consumers (point reads, batches) query nothing. {@code
   * infra/modules/cosmos.bicep} lists the same paths (a test keeps them in agreement).
   */
  public static final List<String> INDEXED_PATHS = List.of("/messageId/?", "/key/?", "/type/?");

  private CosmosContainers() {}

  /**
   * The indexing policy of the worker's containers: consistent, {@link #INDEXED_PATHS} included,
   * everything else excluded.
   *
   * @return a new policy object
   */
  public static IndexingPolicy indexingPolicy() {
    IndexingPolicy policy = new IndexingPolicy();
    policy.setIndexingMode(IndexingMode.CONSISTENT);
    policy.setAutomatic(true);
    policy.setIncludedPaths(INDEXED_PATHS.stream().map(IncludedPath::new).toList());
    policy.setExcludedPaths(List.of(new ExcludedPath("/*")));
    return policy;
  }

  /**
   * Creates the database and a container if missing, partitioned by the given path, with {@code
   * defaultTtl = -1} (so that documents may carry their own TTL) and the {@link #indexingPolicy()}.
   * An existing container is left as it is (its indexing policy too); {@link #partitionKeyPath}
   * tells whether it fits.
   *
   * @param client the client
   * @param database the database name
   * @param container the container name
   * @param partitionKeyPath e.g. {@code /shipmentId}
   * @return the container
   */
  public static CosmosContainer ensureExists(
      CosmosClient client, String database, String container, String partitionKeyPath) {
    client.createDatabaseIfNotExists(database);
    CosmosDatabase db = client.getDatabase(database);
    CosmosContainerProperties properties =
        new CosmosContainerProperties(container, partitionKeyPath);
    properties.setDefaultTimeToLiveInSeconds(-1);
    properties.setIndexingPolicy(indexingPolicy());
    db.createContainerIfNotExists(properties);
    return db.getContainer(container);
  }

  /**
   * The container's partition key path: a worker whose documents are keyed by another field would
   * have every write refused, so it checks this at start-up.
   *
   * @param container the container
   * @return e.g. {@code /shipmentId}
   */
  public static String partitionKeyPath(CosmosContainer container) {
    return partitionKeyPath(container.read().getProperties());
  }

  /**
   * The partition key path of container properties already read: start-up reads them once for this
   * and {@link #honoursItemTtl(CosmosContainerProperties)}.
   *
   * @param properties the container's properties
   * @return e.g. {@code /shipmentId}
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
