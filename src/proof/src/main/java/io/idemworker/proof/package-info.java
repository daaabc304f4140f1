/**
 * The proof tools beside the application: the {@code demo}, the {@code bench}mark and the
 * stand-alone emulators, which run the real worker against the in-process emulators and check the
 * result from outside. A deployment runs none of this; {@code io.idemworker.app} never depends on
 * it.
 */
package io.idemworker.proof;
