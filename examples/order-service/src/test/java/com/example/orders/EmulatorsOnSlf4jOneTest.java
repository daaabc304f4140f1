package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import org.junit.jupiter.api.Test;

/**
 * The emulators log through the slf4j-api your Azure SDK brings: this project manages no slf4j of
 * its own, so that is azure-core's 1.7.36, and every test here runs the emulators on slf4j 1.x (the
 * kit's own tests run them on 2.x).
 */
@AzureEmulators
class EmulatorsOnSlf4jOneTest {
  Emulators azure;

  @Test
  void theEmulatorsServe_withSlf4jOneOnTheClassPath() {
    assertThatThrownBy(() -> Class.forName("org.slf4j.spi.LoggingEventBuilder"))
        .as("slf4j 2's fluent API, absent from 1.x")
        .isInstanceOf(ClassNotFoundException.class);
    assertThat(org.slf4j.LoggerFactory.class.getPackage().getImplementationVersion())
        .startsWith("1.7.");

    String queue = azure.newQueue("slf4j");

    assertThat(azure.serviceBus().messageCount(queue)).isZero();
  }
}
