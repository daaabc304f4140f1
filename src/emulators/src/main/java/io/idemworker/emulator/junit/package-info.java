/**
 * The emulators as a JUnit 5 test kit: {@link io.idemworker.emulator.junit.AzureEmulators} on a
 * test class starts the Service Bus and Cosmos DB emulators (and the payment-provider double when
 * asked) on free loopback ports, declares the entities the class needs, and injects an {@link
 * io.idemworker.emulator.junit.Emulators} handle (connection string, endpoint, key, fault controls,
 * fresh names) into test parameters and fields. No Docker, no network beyond loopback.
 */
package io.idemworker.emulator.junit;
