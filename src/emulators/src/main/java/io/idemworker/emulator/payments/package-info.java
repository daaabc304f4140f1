/**
 * An in-process payment provider double for tests, demos and local runs: plain HTTP on loopback,
 * started with {@link io.idemworker.emulator.payments.PaymentProviderEmulator#builder()}.
 *
 * <h2>What it serves</h2>
 *
 * <ul>
 *   <li>{@code POST /v1/captures} with {@code Authorization: Bearer <key>}, {@code Idempotency-Key}
 *       (1-255 characters) and a JSON body {@code {"orderId", "amount", "currency"}}. The first
 *       request with a key executes and its answer (201 captured, or 402 declined for an amount
 *       ending in .13) is stored for 24 h of the injected clock; a repeat with equal parameters
 *       (compared in canonical form: 9.90 = 9.9) gets the stored status and body with {@code
 *       Idempotent-Replayed: true}; other parameters get 422; a repeat while the first is still
 *       executing gets 409. Requests refused before execution (401, 400, 415, 413) store nothing.
 *   <li>{@code GET /v1/captures[?orderId=...]}: the ledger, every capture executed (not replays),
 *       oldest first.
 * </ul>
 *
 * <p>Faults ({@link io.idemworker.emulator.payments.PaymentFaults}): fail before applying (500,
 * nothing recorded), apply then drop the connection (the ambiguous case), latency, and a pause that
 * holds an execution in flight until a test releases it.
 */
package io.idemworker.emulator.payments;
