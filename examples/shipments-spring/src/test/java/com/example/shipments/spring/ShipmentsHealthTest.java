package com.example.shipments.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.core.Outcome;
import io.idemworker.emulator.cosmos.Fault;
import io.idemworker.emulator.cosmos.Operation;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.spring.boot.IdemworkerHealthIndicator;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The health indicator follows the worker: OUT_OF_SERVICE (paused, with the reason) while the store
 * refuses the application's credential, and UP again when it no longer does; nothing is
 * dead-lettered meanwhile. Its own queue, so the held message cannot reach other tests.
 */
@AzureEmulators(queues = "shipments-health")
@SpringBootTest(
    classes = {ShipmentsApplication.class, ShipmentsApplicationTest.Observed.class},
    properties = "idemworker.queue=shipments-health")
class ShipmentsHealthTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  static Emulators azure;

  @DynamicPropertySource
  static void emulators(DynamicPropertyRegistry registry) {
    registry.add("idemworker.servicebus.connection-string", () -> azure.serviceBusConnectionString());
    registry.add("idemworker.cosmos.endpoint", () -> azure.cosmosEndpoint());
    registry.add("idemworker.cosmos.key", () -> azure.cosmosKey());
    registry.add("idemworker.cosmos.gateway-mode", () -> "true");
    registry.add("idemworker.cosmos.create-if-missing", () -> "true");
  }

  @Autowired ShipmentsApplicationTest.Recorder outcomes;
  @Autowired IdemworkerHealthIndicator health;

  @Test
  void aStoreRefusingTheCredential_pausesTheWorker_andHealthFollowsItBack() {
    // the key may read but not write, as a read-only key or role would
    azure.cosmos().faults().inject(Operation.BATCH, Fault.status(403));
    String id = azure.uniqueName("shp");
    ShipmentMessages.send(
        azure.serviceBusConnectionString(), "shipments-health", ShipmentMessages.created(id));

    Outcome first = outcomes.await(1).get(0);
    assertThat(first)
        .isInstanceOfSatisfying(
            Outcome.Retry.class,
            r -> assertThat(r.cause()).isEqualTo(Outcome.RetryCause.MISCONFIGURATION));
    Health paused = health.health();
    assertThat(paused.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
    assertThat(paused.getDetails()).containsEntry("state", "PAUSED");
    assertThat(paused.getDetails().get("reason")).asString().contains("403");

    azure.cosmos().faults().clear();

    // polled as a readiness probe polls it, within a bound
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!health.health().getStatus().equals(Status.UP) && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
  }
}
