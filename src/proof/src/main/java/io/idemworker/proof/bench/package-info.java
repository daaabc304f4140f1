/**
 * The {@code bench} command and its modes: this worker against a naive consumer without duplicate
 * protection ({@code bench}), one {@code run} process ({@code bench process}), and one process
 * against its latency bound ({@code bench bound}). Only {@link
 * io.idemworker.proof.bench.BenchCommand} is public.
 */
package io.idemworker.proof.bench;
