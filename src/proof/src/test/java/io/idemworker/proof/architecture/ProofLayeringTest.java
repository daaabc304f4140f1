package io.idemworker.proof.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The proof tools' packages point one way: the three tools (demo, chaos, bench) are independent of
 * each other and share the producer, the fault plan and the audit; nothing but the entry point
 * reaches back into the root package.
 */
class ProofLayeringTest {
  // archunit.properties (test resources) keeps the classes they use from being read from the class
  // path: the rules need only their names.
  private static final JavaClasses PROOF =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
          .importPackages("io.idemworker.proof");

  @Test
  void demoChaosAndBench_areIndependentOfEachOther() {
    noClasses()
        .that()
        .resideInAPackage("io.idemworker.proof.demo..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.idemworker.proof.chaos..", "io.idemworker.proof.bench..")
        .check(PROOF);
    noClasses()
        .that()
        .resideInAPackage("io.idemworker.proof.chaos..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.idemworker.proof.demo..", "io.idemworker.proof.bench..")
        .check(PROOF);
    noClasses()
        .that()
        .resideInAPackage("io.idemworker.proof.bench..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.idemworker.proof.demo..", "io.idemworker.proof.chaos..")
        .check(PROOF);
  }

  @Test
  void sharedPackages_doNotDependOnTheTools() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "io.idemworker.proof.audit..",
            "io.idemworker.proof.faults..",
            "io.idemworker.proof.producer..",
            "io.idemworker.proof.emulators..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.idemworker.proof.demo..",
            "io.idemworker.proof.chaos..",
            "io.idemworker.proof.bench..")
        .check(PROOF);
  }
}
