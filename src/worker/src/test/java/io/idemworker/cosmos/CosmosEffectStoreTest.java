package io.idemworker.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.EffectStore;
import io.idemworker.core.EffectStoreContract;
import io.idemworker.core.Fingerprint;
import io.idemworker.core.StoreFailure;
import io.idemworker.core.WriteSet;
import io.idemworker.emulator.cosmos.Fault;
import io.idemworker.emulator.cosmos.Operation;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.testing.EmulatorClients;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The shared store contract, plus Cosmos-specific failure classification, on the emulator. */
@AzureEmulators(serviceBus = false)
class CosmosEffectStoreTest extends EffectStoreContract {
  static Emulators azure; // injected by @AzureEmulators
  private final AtomicInteger calls = new AtomicInteger();
  private final CosmosEffectStore store =
      new CosmosEffectStore(
          EmulatorClients.orders(azure),
          (operation, status, charge, latency) -> calls.incrementAndGet(),
          OrderDocumentIds.PARTITION_KEY_PATH);

  @Override
  protected EffectStore store() {
    return store;
  }

  @AfterEach
  void clearFaults() {
    azure.cosmos().faults().clear();
  }

  private static WriteSet oneDocument() {
    String id = "ord-" + UUID.randomUUID();
    ObjectNode fields = JsonNodeFactory.instance.objectNode().put("orderId", id);
    return WriteSet.of(id, Fingerprint.of(fields), fields.deepCopy().put("id", id), List.of());
  }

  @Test
  void eachApplyAndEachLookup_isExactlyOneRoundTrip() {
    WriteSet writeSet = oneDocument();

    store.apply(writeSet);
    store.apply(writeSet);
    store.findAnchor(writeSet.partitionKey(), writeSet.anchorId());

    assertThat(calls).hasValue(3);
  }

  @Test
  void forbidden_isMisconfigurationAndTheProbeSaysSo() {
    azure.cosmos().faults().inject(Operation.BATCH, Fault.status(403));
    azure.cosmos().faults().inject(Operation.READ, Fault.status(403));

    EffectStore.WriteResult result = store.apply(oneDocument());

    assertThat(result)
        .isInstanceOfSatisfying(
            EffectStore.Failed.class,
            failed -> {
              assertThat(failed.failure().kind()).isEqualTo(StoreFailure.Kind.MISCONFIGURATION);
              assertThat(failed.failure().statusCode()).isEqualTo(403);
            });
    assertThat(store.problem()).hasValueSatisfying(p -> assertThat(p).contains("403"));
    azure.cosmos().faults().clear();
    assertThat(store.problem()).isEmpty();
  }

  @Test
  void unavailable_isTransient() {
    azure.cosmos().faults().inject(Operation.BATCH, Fault.status(503).times(1));

    assertThat(store.apply(oneDocument()))
        .isInstanceOfSatisfying(
            EffectStore.Failed.class,
            failed -> assertThat(failed.failure().kind()).isEqualTo(StoreFailure.Kind.TRANSIENT));
  }

  @Test
  void throttlingWithinTheSdksRetries_isInvisible() {
    azure.cosmos().faults().inject(Operation.BATCH, Fault.status(429).times(3));

    assertThat(store.apply(oneDocument())).isInstanceOf(EffectStore.Applied.class);
  }

  @Test
  void badRequest_isPermanent() {
    azure.cosmos().faults().inject(Operation.BATCH, Fault.status(400).times(1));

    assertThat(store.apply(oneDocument()))
        .isInstanceOfSatisfying(
            EffectStore.Failed.class,
            failed -> assertThat(failed.failure().kind()).isEqualTo(StoreFailure.Kind.PERMANENT));
  }

  @Test
  void missingContainer_isMisconfiguration() {
    azure.cosmos().faults().inject(Operation.BATCH, Fault.status(404).subStatus(1003).times(1));

    assertThat(store.apply(oneDocument()))
        .isInstanceOfSatisfying(
            EffectStore.Failed.class,
            failed ->
                assertThat(failed.failure().kind()).isEqualTo(StoreFailure.Kind.MISCONFIGURATION));
  }

  @Test
  void writeForbiddenDuringFailover_isRetriedByTheSdkAndTransientIfItPersists() {
    azure.cosmos().faults().inject(Operation.BATCH, Fault.status(403).subStatus(3).times(1));

    assertThat(store.apply(oneDocument())).isInstanceOf(EffectStore.Applied.class);
    assertThat(CosmosFailures.classify(403, CosmosFailures.WRITE_FORBIDDEN))
        .isEqualTo(StoreFailure.Kind.TRANSIENT);
    assertThat(CosmosFailures.classify(403, 0)).isEqualTo(StoreFailure.Kind.MISCONFIGURATION);
  }

  @Test
  void readOnlyAccess_failsTheProbeBecauseTheProbeWrites() {
    azure.cosmos().faults().inject(Operation.BATCH, Fault.status(403));

    assertThat(store.problem()).hasValueSatisfying(p -> assertThat(p).contains("403"));
  }
}
