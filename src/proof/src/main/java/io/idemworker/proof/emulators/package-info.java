/**
 * The in-process emulators as the proof tools use them: the stand-alone {@code emulators} command,
 * clients configured as the worker configures its own, a clock that jumps past windows and leases,
 * and the event topic every harness relays to.
 */
package io.idemworker.proof.emulators;
