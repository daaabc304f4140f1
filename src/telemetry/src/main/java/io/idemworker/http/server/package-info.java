/**
 * The HTTP server stack the api and the worker's health probes run on: Jetty's core server (no
 * servlets) behind {@link io.idemworker.http.server.BoundedServer}, which bounds what a client can
 * hold (connections, requests in flight, time to send a request head or body) and answers every
 * error, its own included, as {@code application/problem+json} with {@code Cache-Control:
 * no-store}. Routes plug in as {@link io.idemworker.http.server.Routes}: a non-blocking decision on
 * the request head (probes, early refusals) and blocking work on a bounded intake pool.
 */
package io.idemworker.http.server;
