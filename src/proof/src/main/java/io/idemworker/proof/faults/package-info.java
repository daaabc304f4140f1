/**
 * The fault plan (a seeded or hand-written schedule of kills and emulator faults at points of the
 * traffic) and its injector, the one place the demo, the chaos run and the bench inject a fault.
 */
package io.idemworker.proof.faults;
