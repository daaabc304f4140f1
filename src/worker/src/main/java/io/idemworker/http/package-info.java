/**
 * The HTTP intake adapter behind the {@code api} command: {@link io.idemworker.http.ApiServer} (a
 * route table on the bounded server of {@code io.idemworker.http.server}, authentication and the
 * body limit), {@code POST /orders} with an {@code Idempotency-Key} through the worker's own flow,
 * and {@code POST /webhooks/payments}, the route of the receiver of {@code io.idemworker.webhooks}.
 * {@link io.idemworker.http.OrderApi} assembles it; {@code IntakeAnswers} is the one place where
 * the core's results become HTTP statuses.
 */
package io.idemworker.http;
