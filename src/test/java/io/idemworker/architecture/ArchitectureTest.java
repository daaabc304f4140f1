package io.idemworker.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * Keeps the package layering of DESIGN.md. The rules run from plain Jupiter tests: Surefire does
 * not run ArchUnit's own engine's field-based tests alongside Jupiter and jqwik.
 */
class ArchitectureTest {
  private static final JavaClasses PRODUCTION =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.idemworker");

  private static final ArchRule coreIsFreeOfAzure =
      noClasses()
          .that()
          .resideInAPackage("io.idemworker.core..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("com.azure..", "reactor..", "io.netty..", "org.apache.qpid..");

  private static final ArchRule coreDependsOnNoOtherLayer =
      noClasses()
          .that()
          .resideInAPackage("io.idemworker.core..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.idemworker.orders..",
              "io.idemworker.customers..",
              "io.idemworker.cosmos..",
              "io.idemworker.servicebus..",
              "io.idemworker.app..",
              "io.idemworker.emulator..");

  private static final ArchRule ordersIsFreeOfAzure =
      noClasses()
          .that()
          .resideInAPackage("io.idemworker.orders..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "com.azure..", "io.idemworker.cosmos..", "io.idemworker.servicebus..");

  private static final ArchRule customersIsFreeOfAzure =
      noClasses()
          .that()
          .resideInAPackage("io.idemworker.customers..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "com.azure..",
              "io.idemworker.cosmos..",
              "io.idemworker.servicebus..",
              "io.idemworker.app..",
              "io.idemworker.emulator..");

  private static final ArchRule webhooksIsFreeOfAzure =
      noClasses()
          .that()
          .resideInAPackage("io.idemworker.webhooks..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "com.azure..",
              "io.idemworker.cosmos..",
              "io.idemworker.servicebus..",
              "io.idemworker.app..");

  private static final ArchRule adaptersDoNotDependOnEachOther =
      noClasses()
          .that()
          .resideInAPackage("io.idemworker.cosmos..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.idemworker.servicebus..", "io.idemworker.app..");

  private static final ArchRule productionCodeDoesNotUseTheEmulators =
      noClasses()
          .that()
          .resideInAnyPackage(
              "io.idemworker.core..",
              "io.idemworker.orders..",
              "io.idemworker.cosmos..",
              "io.idemworker.servicebus..",
              "io.idemworker.payments..",
              "io.idemworker.webhooks..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.idemworker.emulator..");

  private static final ArchRule nothingADeploymentRunsDependsOnTheProofTools =
      noClasses()
          .that()
          .resideInAnyPackage(
              "io.idemworker.app..",
              "io.idemworker.core..",
              "io.idemworker.orders..",
              "io.idemworker.customers..",
              "io.idemworker.cosmos..",
              "io.idemworker.servicebus..",
              "io.idemworker.payments..",
              "io.idemworker.webhooks..",
              "io.idemworker.relay..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.idemworker.proof..");

  private static final ArchRule appDoesNotUseTheEmulators =
      noClasses()
          .that()
          .resideInAPackage("io.idemworker.app..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.idemworker.emulator..");

  @Test
  void coreDependsOnNeitherAzureNorAnyOtherLayer() {
    coreIsFreeOfAzure.check(PRODUCTION);
    coreDependsOnNoOtherLayer.check(PRODUCTION);
  }

  @Test
  void businessIsFreeOfAzure() {
    ordersIsFreeOfAzure.check(PRODUCTION);
    customersIsFreeOfAzure.check(PRODUCTION);
    webhooksIsFreeOfAzure.check(PRODUCTION);
  }

  @Test
  void adaptersStayApartAndOffTheEmulators() {
    adaptersDoNotDependOnEachOther.check(PRODUCTION);
    productionCodeDoesNotUseTheEmulators.check(PRODUCTION);
  }

  @Test
  void appHoldsOnlyWhatADeploymentRuns() {
    nothingADeploymentRunsDependsOnTheProofTools.check(PRODUCTION);
    appDoesNotUseTheEmulators.check(PRODUCTION);
  }
}
