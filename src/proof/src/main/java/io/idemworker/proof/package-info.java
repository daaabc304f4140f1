/**
 * The proof tools beside the application: the {@code demo}, the {@code bench}marks, the {@code
 * chaos} run, the stand-alone {@code emulators} and the sample producer {@code send}, which run the
 * real worker against the in-process emulators (or given endpoints) and check the result from
 * outside. A deployment runs none of this; {@code io.idemworker.app} never depends on it.
 *
 * <p>This package only mounts the commands ({@link io.idemworker.proof.ProofCommands}, {@link
 * io.idemworker.proof.ProofMain}). Each command lives in the package of its job: {@code demo},
 * {@code chaos}, {@code bench}, {@code emulators} and {@code producer} (with {@code send}). What
 * several share lies below them: the seeded producer ({@code producer}), the fault plan and its
 * injector ({@code faults}), the external audit of the stores ({@code audit}), and the emulators'
 * clients, clock and topic ({@code emulators}). No sub-package depends on this one, nor {@code
 * demo}, {@code chaos} and {@code bench} on one another.
 */
package io.idemworker.proof;
