package io.idemworker.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.ArchConfiguration;
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
  // The rules need the module's own classes and the names of the classes they use, not those
  // classes read from the class path (Jackson and the JDK): resolving them cost most of this
  // class's time.
  private static final JavaClasses CORE =
      ArchConfiguration.withThreadLocalScope(
          configuration -> {
            configuration.setResolveMissingDependenciesFromClassPath(false);
            return new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages("io.idemworker.core");
          });

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
