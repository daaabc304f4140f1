/**
 * The composition root: the deployment's commands ({@code run}, {@code relay}, {@code api}), their
 * configuration read from environment variables and checked as a whole, and the wiring that builds
 * the worker, the relay, the topic consumers and the api from it. The one package that knows every
 * other; none of {@code telemetry}, {@code http} or {@code operator} depends on it.
 */
package io.idemworker.app;
