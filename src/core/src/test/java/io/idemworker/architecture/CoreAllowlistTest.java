package io.idemworker.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The core module's allowlist: the pattern depends on the JDK, Jackson and itself, nothing else. A
 * module boundary already keeps Azure and the other modules out at compile time; this rule also
 * keeps out any library a future dependency would bring in.
 */
class CoreAllowlistTest {
  // archunit.properties (test resources) keeps the classes they use from being read from the class
  // path: the rules need only their names.
  private static final JavaClasses CORE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
          .importPackages("io.idemworker.core");

  @Test
  void coreDependsOnlyOnTheJdkJacksonAndItself() {
    classes()
        .that()
        .resideInAPackage("io.idemworker.core..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "com.fasterxml.jackson..", "io.idemworker.core..")
        .check(CORE);
  }
}
