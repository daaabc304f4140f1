package io.idemworker.proof.audit;

/**
 * One audited claim and whether it held: what every check of the proof tools returns, the demo's
 * observations and the external audit's alike, so that one report prints them all.
 *
 * <p>Immutable and thread-safe.
 *
 * @param claim what is claimed, in words, with the figures it was checked on
 * @param pass whether it held
 * @param detail why not (the first problems found), or what it saw; may be empty
 */
public record Check(String claim, boolean pass, String detail) {}
