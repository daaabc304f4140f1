package io.idemworker.emulator.junit;

import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import java.util.Optional;

/**
 * The emulators one store holds, each started on first need and closed with the store. The Cosmos
 * DB Java SDK validates TLS certificates unless told it talks to an emulator, so starting the
 * Cosmos emulator sets the SDK's emulator switches ({@code
 * COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED} and {@code COSMOS.DISABLE_IMDS_ACCESS})
 * unless they are set already: the SDK reads them when its first client is built, so a build that
 * makes Cosmos clients before this extension runs passes them with {@code -D} instead.
 */
final class EmulatorSet implements AutoCloseable {
  private ServiceBusEmulator serviceBus;
  private CosmosEmulator cosmos;
  private PaymentProviderEmulator payments;
  private int testsRunning;

  synchronized Emulators ensure(boolean wantServiceBus, boolean wantCosmos, boolean wantPayments) {
    if (wantServiceBus && serviceBus == null) {
      serviceBus = ServiceBusEmulator.builder().start();
    }
    if (wantCosmos && cosmos == null) {
      System.setProperty(
          "COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED",
          System.getProperty("COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED", "true"));
      System.setProperty(
          "COSMOS.DISABLE_IMDS_ACCESS", System.getProperty("COSMOS.DISABLE_IMDS_ACCESS", "true"));
      cosmos = CosmosEmulator.builder().start();
    }
    if (wantPayments && payments == null) {
      payments = PaymentProviderEmulator.builder().start();
    }
    return new Emulators(
        wantServiceBus ? Optional.of(serviceBus) : Optional.empty(),
        wantCosmos ? Optional.of(cosmos) : Optional.empty(),
        wantPayments ? Optional.of(payments) : Optional.empty());
  }

  /** Notes that a test on these emulators begins. */
  synchronized void testStarted() {
    testsRunning++;
  }

  /**
   * Notes that a test on these emulators ended; when none is running any more, clears every fault
   * (those armed off a test's thread or in {@code @BeforeAll} included), under the same lock as
   * {@link #testStarted()}, so a test that begins meanwhile arms its faults after the clearing.
   */
  synchronized void testEnded(Emulators emulators) {
    testsRunning = Math.max(0, testsRunning - 1);
    if (testsRunning == 0) {
      emulators.clearFaults();
    }
  }

  @Override
  public synchronized void close() {
    if (payments != null) {
      payments.close();
    }
    if (cosmos != null) {
      cosmos.close();
    }
    if (serviceBus != null) {
      serviceBus.close();
    }
  }
}
