/**
 * The {@code chaos} command: worker processes killed and restarted while the emulators fail in
 * every way the fault plan knows, a producer of every message type with duplicates from every
 * source, the drain, and the shared audit of the stores. Only {@link
 * io.idemworker.proof.chaos.ChaosCommand} is public.
 */
package io.idemworker.proof.chaos;
