package io.idemworker.emulator.servicebus;

/**
 * The filter of a subscription rule: a {@link CorrelationFilter} or a {@link SqlFilter}. A message
 * is copied into a subscription when the filter of any of its rules matches.
 */
public sealed interface RuleFilter permits CorrelationFilter, SqlFilter {}
