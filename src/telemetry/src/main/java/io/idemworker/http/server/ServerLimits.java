package io.idemworker.http.server;

import java.time.Duration;
import java.util.Objects;

/**
 * What one {@link BoundedServer} lets its clients hold. A client is a remote address; behind a
 * proxy (Container Apps' ingress) it is the proxy's address, so the per-client bounds then limit
 * one ingress node rather than one caller, and the caller's own bound is the in-flight bound per
 * authenticated principal that the routes pass as {@link Routes.Admit#caller()}.
 *
 * @param maxConnections open connections at once; more wait in the accept backlog
 * @param maxConnectionsPerClient open connections from one remote address; more are closed at once
 * @param maxInFlight requests whose work runs at once (the intake pool's threads); more are
 *     answered 503 {@code Busy} with {@code Retry-After}
 * @param maxInFlightPerCaller admitted requests of one caller (reading a body or working); more are
 *     answered 429 {@code TooManyRequests} with {@code Retry-After}
 * @param headerTimeout how long a connection may take to send a complete request head, counted from
 *     its opening or from its previous answer; then it is answered 408 and closed
 * @param bodyTimeout how long an admitted request may take to send its body; then it is answered
 *     408 and closed. Bodies are read without holding an intake thread
 * @param maxHeaderBytes the largest request head (request line and headers); larger is 431
 */
public record ServerLimits(
    int maxConnections,
    int maxConnectionsPerClient,
    int maxInFlight,
    int maxInFlightPerCaller,
    Duration headerTimeout,
    Duration bodyTimeout,
    int maxHeaderBytes) {

  /** Checks every bound, naming the one that is out of range. */
  public ServerLimits {
    Objects.requireNonNull(headerTimeout, "headerTimeout");
    Objects.requireNonNull(bodyTimeout, "bodyTimeout");
    check("maxConnections", maxConnections, 1, 100_000);
    check("maxConnectionsPerClient", maxConnectionsPerClient, 1, maxConnections);
    check("maxInFlight", maxInFlight, 1, 1024);
    check("maxInFlightPerCaller", maxInFlightPerCaller, 1, 100_000);
    check("maxHeaderBytes", maxHeaderBytes, 1024, 65_536);
    if (headerTimeout.isNegative() || headerTimeout.isZero()) {
      throw new IllegalArgumentException("headerTimeout must be positive, was " + headerTimeout);
    }
    if (bodyTimeout.isNegative() || bodyTimeout.isZero()) {
      throw new IllegalArgumentException("bodyTimeout must be positive, was " + bodyTimeout);
    }
  }

  /**
   * The api's defaults: 1024 connections, 256 per client, 16 requests working, 64 per caller, 10
   * seconds for a head, 30 for a body, 8 KiB of head.
   *
   * @return the defaults
   */
  public static ServerLimits defaults() {
    return new ServerLimits(
        1024, 256, 16, 64, Duration.ofSeconds(10), Duration.ofSeconds(30), 8192);
  }

  /**
   * These limits with another number of requests working at once.
   *
   * @param inFlight 1–1024
   * @return new limits
   */
  public ServerLimits withMaxInFlight(int inFlight) {
    return new ServerLimits(
        maxConnections,
        maxConnectionsPerClient,
        inFlight,
        maxInFlightPerCaller,
        headerTimeout,
        bodyTimeout,
        maxHeaderBytes);
  }

  /**
   * These limits with other timeouts.
   *
   * @param header the head timeout
   * @param body the body timeout
   * @return new limits
   */
  public ServerLimits withTimeouts(Duration header, Duration body) {
    return new ServerLimits(
        maxConnections,
        maxConnectionsPerClient,
        maxInFlight,
        maxInFlightPerCaller,
        header,
        body,
        maxHeaderBytes);
  }

  private static void check(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + " must be from " + min + " to " + max + ", was " + value);
    }
  }
}
