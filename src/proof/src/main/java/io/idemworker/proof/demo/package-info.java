/**
 * The {@code demo} command: the whole pattern on in-process emulators, in phases (queue, lifecycle,
 * payments, HTTP intake, relay and topic consumers, webhooks), a summary of what it observed and
 * the shared audit of the stores ({@link io.idemworker.proof.audit.StateAudit}). Only {@link
 * io.idemworker.proof.demo.DemoCommand} is public.
 */
package io.idemworker.proof.demo;
