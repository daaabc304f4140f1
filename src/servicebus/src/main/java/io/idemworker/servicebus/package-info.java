/**
 * The Service Bus side of the pattern. Packages by job, the public API at each package's root:
 *
 * <ul>
 *   <li>this package: what every host shares, the connection ({@link
 *       io.idemworker.servicebus.ServiceBusConnection}), the source and processor settings, the
 *       worker's status, and the start-up checks of the entity ({@link
 *       io.idemworker.servicebus.QueueRetentionCheck}, {@link
 *       io.idemworker.servicebus.SessionRequirementCheck});
 *   <li>{@link io.idemworker.servicebus.processor}: the processor host, {@link
 *       io.idemworker.servicebus.processor.ServiceBusWorker}, plain or on the SDK's session
 *       processor;
 *   <li>{@link io.idemworker.servicebus.sessions}: session mode that waits for missing versions and
 *       parks a session behind a dead-lettered message, and the operator's side of parking;
 *   <li>{@link io.idemworker.servicebus.deadletter}: reading and resubmitting dead-lettered
 *       messages;
 *   <li>{@link io.idemworker.servicebus.sending}: the producer kit and the message contract
 *       producers keep (MessageId rules, stamps, session ids).
 * </ul>
 *
 * <p>{@code io.idemworker.servicebus.internal} holds what the hosts share (settlement of an
 * outcome, the worker's life cycle, delivery conversion): public for the library's own packages,
 * not an API; it may change in any release.
 */
package io.idemworker.servicebus;
