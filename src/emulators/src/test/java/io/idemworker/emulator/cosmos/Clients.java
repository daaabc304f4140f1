package io.idemworker.emulator.cosmos;

import com.azure.cosmos.ConsistencyLevel;
import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.models.CosmosContainerProperties;

/** Real {@code azure-cosmos} clients in gateway mode, pointed at an emulator. */
final class Clients {
  private Clients() {}

  static CosmosClientBuilder builder(CosmosEmulator emulator, String key) {
    return new CosmosClientBuilder()
        .endpoint(emulator.endpoint())
        .key(key)
        .gatewayMode()
        .consistencyLevel(ConsistencyLevel.SESSION)
        .contentResponseOnWriteEnabled(true);
  }

  static CosmosClient sync(CosmosEmulator emulator) {
    return builder(emulator, emulator.key()).buildClient();
  }

  static CosmosAsyncClient async(CosmosEmulator emulator) {
    return builder(emulator, emulator.key()).buildAsyncClient();
  }

  static CosmosContainerProperties containerProps(String id, Integer defaultTtl) {
    CosmosContainerProperties props = new CosmosContainerProperties(id, "/orderId");
    if (defaultTtl != null) {
      props.setDefaultTimeToLiveInSeconds(defaultTtl);
    }
    return props;
  }
}
