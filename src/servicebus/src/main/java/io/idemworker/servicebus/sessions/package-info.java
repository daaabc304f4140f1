/**
 * Session mode: {@link io.idemworker.servicebus.sessions.SessionWorker} holds sessions itself, so
 * that a versioned change waits (deferred, bounded) for its missing predecessor and a session is
 * parked behind a dead-lettered message until an operator releases it ({@link
 * io.idemworker.servicebus.sessions.ParkedSessions}). Configured by {@link
 * io.idemworker.servicebus.sessions.SessionSettings}; what it does beyond the flow's outcomes is
 * heard through {@link io.idemworker.servicebus.sessions.SessionEvents}.
 */
package io.idemworker.servicebus.sessions;
