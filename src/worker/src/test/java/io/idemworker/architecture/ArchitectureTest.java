package io.idemworker.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * Keeps the package layering inside the worker module that a module boundary cannot say: the
 * business is free of Azure, the adapters are independent of each other, and the arrows point from
 * the composition root ({@code app}) to telemetry, the HTTP intake and the operator tools, never
 * back. That the worker uses neither the emulators nor the proof tools, and that core is free of
 * Azure, are compile facts of the modules (the core module's own architecture test holds its
 * allowlist). The rules run from plain Jupiter tests: Surefire does not run ArchUnit's own engine's
 * field-based tests alongside Jupiter and jqwik.
 */
class ArchitectureTest {
  private static final JavaClasses PRODUCTION =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.idemworker");

  private static final ArchRule ordersIsFreeOfAzure =
      noClasses()
          .that()
          .resideInAPackage("io.idemworker.orders..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "com.azure..", "io.idemworker.cosmos..", "io.idemworker.servicebus..");

  private static final ArchRule consumersIsFreeOfAzure =
      noClasses()
          .that()
          .resideInAPackage("io.idemworker.consumers..")
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

  private static final ArchRule paymentsAdapterStaysApart =
      noClasses()
          .that()
          .resideInAPackage("io.idemworker.payments..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.idemworker.cosmos..", "io.idemworker.servicebus..");

  private static final ArchRule onlyTheCompositionRootKnowsTheWiring =
      noClasses()
          .that()
          .resideInAnyPackage(
              "io.idemworker.telemetry..", "io.idemworker.http..", "io.idemworker.operator..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.idemworker.app..");

  /** The order application's packages: the library's first user. */
  static final String[] APPLICATION =
      new String[] {
        "io.idemworker.app..",
        "io.idemworker.consumers..",
        "io.idemworker.operator..",
        "io.idemworker.orders..",
        "io.idemworker.payments..",
        "io.idemworker.webhooks..",
        "io.idemworker",
        "io.idemworker.http"
      };

  /**
   * The library's internal packages are public for the library's own use only: the application
   * depends on the library's API (every package but {@code ..internal..}).
   */
  private static final ArchRule applicationUsesOnlyTheLibrarysPublicApi =
      noClasses()
          .that()
          .resideInAnyPackage(APPLICATION)
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.idemworker..internal..")
          .because("a library's internal packages carry no compatibility promise");

  @Test
  void applicationUsesOnlyTheLibrarysPublicApi() {
    applicationUsesOnlyTheLibrarysPublicApi.check(PRODUCTION);
  }

  @Test
  void businessIsFreeOfAzure() {
    ordersIsFreeOfAzure.check(PRODUCTION);
    consumersIsFreeOfAzure.check(PRODUCTION);
    webhooksIsFreeOfAzure.check(PRODUCTION);
  }

  @Test
  void adaptersStayApart() {
    adaptersDoNotDependOnEachOther.check(PRODUCTION);
    paymentsAdapterStaysApart.check(PRODUCTION);
  }

  @Test
  void arrowsPointFromTheCompositionRoot() {
    onlyTheCompositionRootKnowsTheWiring.check(PRODUCTION);
  }
}
