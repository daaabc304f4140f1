package com.example.shipments.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.azure.IdempotentWorker;
import io.idemworker.core.DeliveryObserver;
import io.idemworker.core.Outcome;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.spring.boot.IdemworkerLifecycle;
import io.idemworker.spring.boot.IdemworkerProperties;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Spring's shutdown drains the worker: a delivery in flight when the context closes is finished and
 * settled before the context is gone, and the message is not delivered again.
 */
@AzureEmulators(queues = "shipments-drain")
class ShipmentsShutdownTest {
  private static final long WAIT_SECONDS = 60;

  static final CountDownLatch IN_FLIGHT = new CountDownLatch(1);
  static final CountDownLatch STOPPING = new CountDownLatch(1);
  static final CompletableFuture<Outcome> OUTCOME = new CompletableFuture<>();
  static final CompletableFuture<Boolean> SETTLED = new CompletableFuture<>();

  /**
   * A delivery that waits for shutdown to begin before it goes on, and a lifecycle (replacing the
   * starter's) that says when it begins.
   */
  @Configuration(proxyBeanMethods = false)
  static class HeldDelivery {
    @Bean
    DeliveryObserver heldUntilShutdown() {
      return message -> {
        IN_FLIGHT.countDown();
        await(STOPPING);
        return (outcome, elapsed, settled) -> {
          OUTCOME.complete(outcome);
          SETTLED.complete(settled);
        };
      };
    }

    @Bean
    IdemworkerLifecycle idemworkerLifecycle(
        IdempotentWorker worker, IdemworkerProperties properties) {
      return new IdemworkerLifecycle(worker, properties.getShutdownTimeout()) {
        @Override
        public void stop(Runnable callback) {
          STOPPING.countDown();
          super.stop(callback);
        }
      };
    }
  }

  @Test
  void aDeliveryInFlight_isSettledBeforeTheContextCloses(Emulators azure) throws Exception {
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(ShipmentsApplication.class, HeldDelivery.class)
            .run(
                "--idemworker.queue=shipments-drain",
                "--idemworker.servicebus.connection-string=" + azure.serviceBusConnectionString(),
                "--idemworker.cosmos.endpoint=" + azure.cosmosEndpoint(),
                "--idemworker.cosmos.key=" + azure.cosmosKey(),
                "--idemworker.cosmos.gateway-mode=true",
                "--idemworker.cosmos.create-if-missing=true");
    IdemworkerLifecycle lifecycle = context.getBean(IdemworkerLifecycle.class);
    String id = azure.uniqueName("shp");
    ShipmentMessages.send(
        azure.serviceBusConnectionString(), "shipments-drain", ShipmentMessages.created(id));
    assertThat(IN_FLIGHT.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("delivery started").isTrue();

    // the delivery is held until the worker's stop begins; close() returns after it
    context.close();

    assertThat(OUTCOME.getNow(null)).isInstanceOf(Outcome.Processed.class);
    assertThat(SETTLED.getNow(null)).isTrue();
    assertThat(lifecycle.drained()).isTrue();
    assertThat(lifecycle.isRunning()).isFalse();
    assertThat(azure.serviceBus().messageCount("shipments-drain")).isZero();
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(Duration.ofSeconds(WAIT_SECONDS).toSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException("shutdown did not begin within " + WAIT_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
