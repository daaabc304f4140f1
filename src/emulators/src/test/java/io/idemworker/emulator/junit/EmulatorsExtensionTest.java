package io.idemworker.emulator.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosException;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.idemworker.emulator.cosmos.Fault;
import io.idemworker.emulator.cosmos.Operation;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * What JUnit reports for classes that use the extension: the scenario classes below run through the
 * engine test kit, each in a run of its own, and the results are asserted here.
 */
class EmulatorsExtensionTest {
  private static final Map<String, Integer> PORTS = new ConcurrentHashMap<>();

  private static EngineExecutionResults run(Class<?>... classes) {
    var request =
        EngineTestKit.engine("junit-jupiter")
            .configurationParameter(OnlyUnderTestKit.PARAMETER, "true");
    for (Class<?> c : classes) {
      request = request.selectors(selectClass(c));
    }
    return request.execute();
  }

  @Test
  void aFaultInjectedInOneTest_isClearedBeforeTheNext() {
    EngineExecutionResults results = run(FaultThenCleanCreate.class);

    results.testEvents().assertStatistics(stats -> stats.started(2).succeeded(2));
  }

  @Test
  void aMalformedContainerDeclaration_failsTheClass_namingIt() {
    assertClassFails(
        run(MalformedContainer.class),
        ExtensionConfigurationException.class,
        "'no-partition-key' is not database/container:/partitionKeyPath");
  }

  @Test
  void aMissingConfigFile_failsTheClass_namingThePath() {
    assertClassFails(
        run(MissingConfig.class),
        ExtensionConfigurationException.class,
        "no/such/Config.json",
        "no such class-path resource or file");
  }

  @Test
  void aForwardingQueueInConfigJson_failsTheClass_sayingForwardingIsNotServed() {
    assertClassFails(
        run(ForwardingQueue.class),
        ExtensionConfigurationException.class,
        "kit/forwarding-queue-Config.json",
        "ForwardTo");
  }

  @Test
  void askingForAnEmulatorThatIsOff_failsTheTest_namingTheAttribute() {
    run(ServiceBusOff.class)
        .testEvents()
        .assertThatEvents()
        .haveExactly(
            1,
            event(
                finishedWithFailure(
                    instanceOf(IllegalStateException.class),
                    message(m -> m.contains("set @AzureEmulators(serviceBus = true)")))));
  }

  @Test
  void askingForTheAdministrationApiWhenOff_failsTheTest_namingTheAttribute() {
    run(AdminNotAsked.class)
        .testEvents()
        .assertThatEvents()
        .haveExactly(
            1,
            event(
                finishedWithFailure(
                    instanceOf(IllegalStateException.class),
                    message(m -> m.contains("set @AzureEmulators(serviceBusAdmin = true)")))));
  }

  @Test
  void aKeyNameWithoutAKey_orAKeyWithASemicolon_failsTheClass_namingTheAttribute() {
    assertClassFails(
        run(KeyNameWithoutKey.class),
        ExtensionConfigurationException.class,
        "serviceBusSharedAccessKeyName = \"Send\"",
        "serviceBusSharedAccessKey is empty");
    assertClassFails(
        run(KeyWithSemicolon.class),
        ExtensionConfigurationException.class,
        "serviceBusSharedAccessKey",
        "must not contain ';'");
  }

  /** Exactly one container (the class) failed with {@code type}, its message naming each part. */
  private static void assertClassFails(
      EngineExecutionResults results, Class<? extends Throwable> type, String... parts) {
    results
        .containerEvents()
        .assertThatEvents()
        .haveExactly(
            1,
            event(
                finishedWithFailure(
                    instanceOf(type),
                    message(m -> java.util.Arrays.stream(parts).allMatch(m::contains)))));
  }

  @Test
  void perRunSharing_isOneEmulatorForEveryClass_perClassIsOneEach() {
    PORTS.clear();

    run(SharedA.class, SharedAdmin.class, SharedB.class, OwnA.class, OwnB.class)
        .testEvents()
        .assertStatistics(stats -> stats.succeeded(5));

    assertThat(PORTS.get("SharedA")).isEqualTo(PORTS.get("SharedB"));
    assertThat(
            List.of(
                PORTS.get("OwnA"),
                PORTS.get("OwnB"),
                PORTS.get("SharedA"),
                PORTS.get("SharedAdmin")))
        .doesNotHaveDuplicates();
  }

  @Test
  void
      perRunSharing_aClassAskingForOtherServiceBusSettings_getsAnEmulatorOfItsOwn_andLeavesTheRunsAlone() {
    PORTS.clear();

    run(SharedA.class, SharedAdmin.class, SharedB.class)
        .testEvents()
        .assertStatistics(stats -> stats.succeeded(3));

    // SharedB, after the class with the administration API, still has none (its test asserts so).
    assertThat(PORTS.get("SharedA")).isEqualTo(PORTS.get("SharedB"));
    assertThat(PORTS.get("SharedAdmin")).isNotEqualTo(PORTS.get("SharedA"));
  }

  // The scenarios, run only through run(...).

  @AzureEmulators(
      serviceBus = false,
      containers = "faults/items:/pk",
      sharing = AzureEmulators.Sharing.PER_CLASS)
  @ExtendWith(OnlyUnderTestKit.class)
  @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
  static class FaultThenCleanCreate {
    Emulators azure;

    private CosmosClient client() {
      return new CosmosClientBuilder()
          .endpoint(azure.cosmosEndpoint())
          .key(azure.cosmosKey())
          .gatewayMode()
          .buildClient();
    }

    @Test
    @Order(1)
    void createFailsWhileTheFaultIsOn() {
      azure.cosmos().faults().inject(Operation.CREATE, Fault.status(400));
      try (CosmosClient client = client()) {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () ->
                    client
                        .getDatabase("faults")
                        .getContainer("items")
                        .createItem(
                            JsonNodeFactory.instance.objectNode().put("id", "a").put("pk", "a")))
            .isInstanceOf(CosmosException.class);
      }
    }

    @Test
    @Order(2)
    void createSucceedsInTheNextTest() {
      try (CosmosClient client = client()) {
        client
            .getDatabase("faults")
            .getContainer("items")
            .createItem(JsonNodeFactory.instance.objectNode().put("id", "b").put("pk", "b"));
      }
    }
  }

  @AzureEmulators(
      cosmos = false,
      containers = "no-partition-key",
      sharing = AzureEmulators.Sharing.PER_CLASS)
  @ExtendWith(OnlyUnderTestKit.class)
  static class MalformedContainer {
    @Test
    void never() {}
  }

  @AzureEmulators(
      cosmos = false,
      serviceBusConfig = "no/such/Config.json",
      sharing = AzureEmulators.Sharing.PER_CLASS)
  @ExtendWith(OnlyUnderTestKit.class)
  static class MissingConfig {
    @Test
    void never() {}
  }

  @AzureEmulators(
      cosmos = false,
      serviceBusConfig = "kit/forwarding-queue-Config.json",
      sharing = AzureEmulators.Sharing.PER_CLASS)
  @ExtendWith(OnlyUnderTestKit.class)
  static class ForwardingQueue {
    @Test
    void never() {}
  }

  @AzureEmulators(serviceBus = false, sharing = AzureEmulators.Sharing.PER_CLASS)
  @ExtendWith(OnlyUnderTestKit.class)
  static class ServiceBusOff {
    @Test
    void asksForServiceBus(Emulators azure) {
      azure.serviceBusConnectionString();
    }
  }

  @AzureEmulators(cosmos = false)
  @ExtendWith(OnlyUnderTestKit.class)
  static class SharedA {
    @Test
    void recordsItsPort(Emulators azure) {
      PORTS.put("SharedA", azure.serviceBus().port());
    }
  }

  @AzureEmulators(cosmos = false)
  @ExtendWith(OnlyUnderTestKit.class)
  static class SharedB {
    @Test
    void recordsItsPort(Emulators azure) {
      PORTS.put("SharedB", azure.serviceBus().port());
      org.assertj.core.api.Assertions.assertThatThrownBy(azure::serviceBusAdmin)
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @AzureEmulators(cosmos = false, serviceBusAdmin = true)
  @ExtendWith(OnlyUnderTestKit.class)
  static class SharedAdmin {
    @Test
    void recordsItsPort(Emulators azure) {
      PORTS.put("SharedAdmin", azure.serviceBus().port());
      assertThat(azure.serviceBusAdmin().port()).isPositive();
    }
  }

  @AzureEmulators(cosmos = false, sharing = AzureEmulators.Sharing.PER_CLASS)
  @ExtendWith(OnlyUnderTestKit.class)
  static class AdminNotAsked {
    @Test
    void asksForTheAdministrationApi(Emulators azure) {
      azure.serviceBusAdmin();
    }
  }

  @AzureEmulators(
      cosmos = false,
      serviceBusSharedAccessKeyName = "Send",
      sharing = AzureEmulators.Sharing.PER_CLASS)
  @ExtendWith(OnlyUnderTestKit.class)
  static class KeyNameWithoutKey {
    @Test
    void never() {}
  }

  @AzureEmulators(
      cosmos = false,
      serviceBusSharedAccessKey = "a;b",
      sharing = AzureEmulators.Sharing.PER_CLASS)
  @ExtendWith(OnlyUnderTestKit.class)
  static class KeyWithSemicolon {
    @Test
    void never() {}
  }

  @AzureEmulators(cosmos = false, sharing = AzureEmulators.Sharing.PER_CLASS)
  @ExtendWith(OnlyUnderTestKit.class)
  static class OwnA {
    @Test
    void recordsItsPort(Emulators azure) {
      PORTS.put("OwnA", azure.serviceBus().port());
    }
  }

  @AzureEmulators(cosmos = false, sharing = AzureEmulators.Sharing.PER_CLASS)
  @ExtendWith(OnlyUnderTestKit.class)
  static class OwnB {
    @Test
    void recordsItsPort(Emulators azure) {
      PORTS.put("OwnB", azure.serviceBus().port());
    }
  }
}
