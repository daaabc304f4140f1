package io.idemworker.proof.emulators;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import io.idemworker.emulator.cosmos.CosmosEmulator;

/**
 * Clients of the in-process emulators, configured as the worker configures its own. Stateless and
 * thread-safe.
 */
public final class LocalClients {
  private LocalClients() {}

  /**
   * A Cosmos DB client of an in-process emulator: gateway mode (the only mode an emulator without
   * direct-mode replicas serves), no content echoed on writes.
   *
   * @param emulator the emulator
   * @return the client; close it
   */
  public static CosmosClient cosmos(CosmosEmulator emulator) {
    return new CosmosClientBuilder()
        .endpoint(emulator.endpoint())
        .key(emulator.key())
        .gatewayMode()
        .contentResponseOnWriteEnabled(false)
        .buildClient();
  }
}
