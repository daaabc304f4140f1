package io.idemworker.emulator.junit;

import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The emulators one store holds, each started on first need and closed with the store. The Cosmos
 * DB Java SDK validates TLS certificates unless told it talks to an emulator, so starting the
 * Cosmos emulator sets the SDK's emulator switches ({@code
 * COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED} and {@code COSMOS.DISABLE_IMDS_ACCESS})
 * unless they are set already: the SDK reads them when its first client is built, so a build that
 * makes Cosmos clients before this extension runs passes them with {@code -D} instead.
 *
 * <p>One Service Bus emulator per distinct {@link ServiceBusOptions}: classes asking for the
 * administration API or SAS checking never change the emulator other classes use.
 */
final class EmulatorSet implements AutoCloseable {
  private final Map<ServiceBusOptions, ServiceBusEmulator> serviceBuses = new LinkedHashMap<>();
  private CosmosEmulator cosmos;
  private PaymentProviderEmulator payments;
  private int testsRunning;

  /** What a class asks of the set. */
  record Wanted(
      boolean serviceBus, ServiceBusOptions serviceBusOptions, boolean cosmos, boolean payments) {}

  /**
   * How a Service Bus emulator is started.
   *
   * @param admin whether it serves the administration API
   * @param keyName the shared access key's name, when tokens are checked
   * @param key the shared access key; empty: tokens are not checked
   */
  record ServiceBusOptions(boolean admin, String keyName, String key) {
    ServiceBusEmulator start() {
      ServiceBusEmulator.Builder builder = ServiceBusEmulator.builder();
      if (admin) {
        builder.adminPort(0);
      }
      if (!key.isEmpty()) {
        builder.sharedAccessKey(keyName, key);
      }
      return builder.start();
    }

    @Override
    public String toString() {
      return "ServiceBusOptions[admin=" + admin + ", keyChecked=" + !key.isEmpty() + "]";
    }
  }

  synchronized Emulators ensure(Wanted wanted) {
    ServiceBusEmulator serviceBus = null;
    if (wanted.serviceBus()) {
      serviceBus =
          serviceBuses.computeIfAbsent(wanted.serviceBusOptions(), ServiceBusOptions::start);
    }
    if (wanted.cosmos() && cosmos == null) {
      System.setProperty(
          "COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED",
          System.getProperty("COSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED", "true"));
      System.setProperty(
          "COSMOS.DISABLE_IMDS_ACCESS", System.getProperty("COSMOS.DISABLE_IMDS_ACCESS", "true"));
      cosmos = CosmosEmulator.builder().start();
    }
    if (wanted.payments() && payments == null) {
      payments = PaymentProviderEmulator.builder().start();
    }
    return new Emulators(
        Optional.ofNullable(serviceBus),
        wanted.cosmos() ? Optional.of(cosmos) : Optional.empty(),
        wanted.payments() ? Optional.of(payments) : Optional.empty());
  }

  /** Notes that a test on these emulators begins. */
  synchronized void testStarted() {
    testsRunning++;
  }

  /**
   * Notes that a test on these emulators ended; when none is running any more, clears every fault
   * of every emulator of the set (those armed off a test's thread or in {@code @BeforeAll}
   * included), under the same lock as {@link #testStarted()}, so a test that begins meanwhile arms
   * its faults after the clearing.
   */
  synchronized void testEnded() {
    testsRunning = Math.max(0, testsRunning - 1);
    if (testsRunning == 0) {
      serviceBuses.values().forEach(s -> s.faults().clear());
      if (cosmos != null) {
        cosmos.faults().clear();
      }
      if (payments != null) {
        payments.faults().clear();
      }
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
    serviceBuses.values().forEach(ServiceBusEmulator::close);
  }
}
