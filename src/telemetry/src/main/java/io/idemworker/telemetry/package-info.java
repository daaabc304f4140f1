/**
 * Telemetry and health: the worker's OpenTelemetry metrics and traces ({@link
 * io.idemworker.telemetry.Telemetry}) and where they are exported, the relay's instruments, the
 * outcome log (one JSON line per delivery) and the HTTP probes for the container platform. Values
 * come in through constructors and the environment map; nothing here reads the configuration
 * records.
 */
package io.idemworker.telemetry;
