package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idemworker.emulator.FaultOwner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Faults and counters scoped to a container, and faults owned by the test that armed them. */
class ScopedFaultsTest {
  private final Faults faults = new Faults();
  private final RequestStats stats = new RequestStats();

  private List<Integer> statuses(Operation op, String container, int requests) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      out.add(faults.onRequest(op, container).failure().map(Fault::statusCode).orElse(0));
    }
    return out;
  }

  @Test
  void aContainersFault_isMetOnlyOnThatContainer() {
    faults.container("shop", "a").inject(Operation.CREATE, Fault.status(429).times(2));

    assertThat(statuses(Operation.CREATE, "shop/b", 3)).containsExactly(0, 0, 0);
    assertThat(statuses(Operation.CREATE, null, 1)).containsExactly(0);
    assertThat(statuses(Operation.CREATE, "shop/a", 3)).containsExactly(429, 429, 0);
  }

  @Test
  void anEmulatorWideFault_isMetOnEveryContainer() {
    faults.inject(Operation.READ, Fault.status(503).times(2));

    assertThat(statuses(Operation.READ, "shop/a", 1)).containsExactly(503);
    assertThat(statuses(Operation.READ, "shop/b", 2)).containsExactly(503, 0);
  }

  @Test
  void failNth_onAContainer_countsOnlyThatContainersRequests() {
    faults.container("shop", "a").failNth(Operation.BATCH, 2, Fault.status(503));

    assertThat(statuses(Operation.BATCH, "shop/b", 5)).containsOnly(0);
    assertThat(statuses(Operation.BATCH, "shop/a", 3)).containsExactly(0, 503, 0);
  }

  @Test
  void clearingAContainer_leavesOthersAndTheEmulatorWideFaults() {
    faults.container("shop", "a").inject(Operation.READ, Fault.status(400));
    faults.container("shop", "b").inject(Operation.READ, Fault.status(403));
    faults.inject(Operation.DELETE, Fault.status(503));

    faults.container("shop", "a").clear();

    assertThat(statuses(Operation.READ, "shop/a", 1)).containsExactly(0);
    assertThat(statuses(Operation.READ, "shop/b", 1)).containsExactly(403);
    assertThat(statuses(Operation.DELETE, "shop/a", 1)).containsExactly(503);
    faults.clear();
    assertThat(statuses(Operation.READ, "shop/b", 1)).containsExactly(0);
    assertThat(statuses(Operation.DELETE, "shop/a", 1)).containsExactly(0);
  }

  @Test
  void aContainersSwitchboard_hasNoContainersOfItsOwn() {
    assertThatThrownBy(() -> faults.container("shop", "a").container("shop", "b"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> faults.container("shop", " "))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void closingAnOwner_disarmsWhatItArmed_andNothingElse() throws Exception {
    faults.container("shop", "other").inject(Operation.READ, Fault.status(400));
    CompletableFuture.runAsync(
            () -> {
              FaultOwner test = FaultOwner.open("another test");
              faults.container("shop", "mine").inject(Operation.READ, Fault.status(403));
              assertThat(statuses(Operation.READ, "shop/mine", 1)).containsExactly(403);
              test.close();
            })
        .get();

    assertThat(statuses(Operation.READ, "shop/mine", 1)).containsExactly(0);
    assertThat(statuses(Operation.READ, "shop/other", 1)).containsExactly(400);
  }

  @Test
  void ownersNest_andAFaultSpentBeforeItsOwnerCloses_isNoTrouble() {
    FaultOwner outer = FaultOwner.open("outer");
    faults.inject(Operation.CREATE, Fault.status(503));
    FaultOwner inner = FaultOwner.open("inner");
    faults.inject(Operation.READ, Fault.status(503).times(1));
    assertThat(statuses(Operation.READ, null, 1)).containsExactly(503);
    inner.close();
    assertThat(statuses(Operation.CREATE, null, 1)).containsExactly(503);
    faults.inject(Operation.DELETE, Fault.status(503));
    outer.close();
    assertThat(statuses(Operation.CREATE, null, 1)).containsExactly(0);
    assertThat(statuses(Operation.DELETE, null, 1)).containsExactly(0);
  }

  @Test
  void aContainersCounters_countOnlyItsRequests_andResetAlone() {
    stats.record(Operation.CREATE, "shop/a");
    stats.record(Operation.CREATE, "shop/a");
    stats.record(Operation.CREATE, "shop/b");
    stats.record(Operation.METADATA, null);
    stats.charge(5.5, "shop/a");
    stats.charge(1, "shop/b");

    assertThat(stats.container("shop", "a").count(Operation.CREATE)).isEqualTo(2);
    assertThat(stats.container("shop", "a").totalRequestCharge()).isEqualTo(5.5);
    assertThat(stats.container("shop", "b").totalRequests()).isEqualTo(1);
    assertThat(stats.container("shop", "never").totalRequests()).isZero();
    assertThat(stats.count(Operation.CREATE)).isEqualTo(3);
    assertThat(stats.totalRequests()).isEqualTo(4);

    stats.container("shop", "a").reset();
    assertThat(stats.container("shop", "a").totalRequests()).isZero();
    assertThat(stats.container("shop", "b").totalRequests()).isEqualTo(1);
    assertThat(stats.totalRequests()).isEqualTo(4);
    stats.reset();
    assertThat(stats.container("shop", "b").totalRequests()).isZero();
  }
}
