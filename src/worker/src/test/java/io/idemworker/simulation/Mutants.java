package io.idemworker.simulation;

import io.idemworker.core.DocumentPatch;
import io.idemworker.core.EffectStore;
import io.idemworker.core.ForwardingEffectStore;
import io.idemworker.core.WriteSet;
import java.util.Optional;

/**
 * Broken versions of the protections, built by wrapping the store the real flow calls, so that the
 * real {@code AnchoredWrite} and {@code VersionGuard} run against them unchanged. The simulation
 * must catch each one.
 */
final class Mutants {
  private Mutants() {}

  /** Passes every call through; mutants override what they break. */
  private abstract static class Forwarding extends ForwardingEffectStore {
    Forwarding(ScheduledStore store) {
      super(store);
    }
  }

  /**
   * The batch loses its marker: a write set with patches sends only the patches.
   *
   * @param store the scheduled store
   * @return the mutant
   */
  static EffectStore dropMarkerFromBatch(ScheduledStore store) {
    return new Forwarding(store) {
      @Override
      public WriteResult apply(WriteSet writeSet) {
        if (writeSet.patches().isEmpty()) {
          return store.apply(writeSet);
        }
        for (DocumentPatch patch : writeSet.patches()) {
          UpdateResult result = store.update(writeSet.partitionKey(), patch);
          if (!(result instanceof Applied)) {
            return (WriteResult) result;
          }
        }
        return new Applied();
      }
    };
  }

  /**
   * Read-then-write instead of create-as-check: the anchor is read, and when absent the write set
   * is written blind in a second call.
   *
   * @param store the scheduled store
   * @return the mutant
   */
  static EffectStore readThenWrite(ScheduledStore store) {
    return new Forwarding(store) {
      @Override
      public WriteResult apply(WriteSet writeSet) {
        ReadResult read = store.read(writeSet.partitionKey(), writeSet.anchorId());
        if (read instanceof Document) {
          return new AnchorExists();
        }
        if (read instanceof Failed failed) {
          return failed;
        }
        return store.upsert(writeSet);
      }
    };
  }

  /**
   * Claim after the provider call: before the claim batch is written, the capture is made (with the
   * right key and parameters); the real flow's own call then gets the provider's replay.
   *
   * @param store the scheduled store
   * @return the mutant
   */
  static EffectStore claimAfterProviderCall(ScheduledStore store) {
    return new Forwarding(store) {
      @Override
      public WriteResult apply(WriteSet writeSet) {
        com.fasterxml.jackson.databind.node.ObjectNode anchor = writeSet.anchor();
        if ("payment".equals(anchor.path("type").asText())
            && "InProgress".equals(anchor.path("status").asText())) {
          store.capture(
              new StoreCall.Capture(
                  anchor.path("key").asText(),
                  anchor.path("orderId").asText(),
                  anchor.path("amount").decimalValue(),
                  anchor.path("currency").asText()));
        }
        return store.apply(writeSet);
      }
    };
  }

  /**
   * The version guard's condition is dropped: the status patch applies whatever is stored.
   *
   * @param store the scheduled store
   * @return the mutant
   */
  static EffectStore unguardedPatch(ScheduledStore store) {
    return new Forwarding(store) {
      @Override
      public UpdateResult update(String partitionKey, DocumentPatch patch) {
        return store.update(
            partitionKey, new DocumentPatch(patch.id(), patch.operations(), Optional.empty()));
      }
    };
  }
}
