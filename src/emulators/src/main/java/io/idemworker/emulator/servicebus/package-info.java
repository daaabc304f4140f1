/**
 * An in-process Azure Service Bus emulator: an AMQP 1.0 server on Apache Qpid proton-j that the
 * real {@code azure-messaging-servicebus} client talks to as if it were a namespace.
 *
 * <h2>Contract</h2>
 *
 * <ul>
 *   <li>{@link io.idemworker.emulator.servicebus.ServiceBusEmulator} listens on plain TCP (loopback
 *       by default, port 0 = any free port) and hands out a connection string with {@code
 *       UseDevelopmentEmulator=true}; optionally also AMQP over TLS on a second port ({@code
 *       Builder.tlsPort}, {@link io.idemworker.emulator.servicebus.TlsEndpoint}) with a certificate
 *       made at start-up or read from a PKCS12 file. It is thread-safe; {@code close()} stops every
 *       thread it started.
 *   <li>Queues are {@link io.idemworker.emulator.servicebus.QueueSettings} and topics {@link
 *       io.idemworker.emulator.servicebus.TopicSettings} (with their subscriptions and rules),
 *       given to the builder, read from a Microsoft emulator {@code Config.json} by {@link
 *       io.idemworker.emulator.servicebus.ServiceBusEmulatorConfig#load(java.nio.file.Path)}, or
 *       created at runtime. Names are case-insensitive; each queue and each subscription ({@code
 *       topic/Subscriptions/name}) has a {@code $deadletterqueue}.
 *   <li>All broker time (enqueued time, lock expiry, time-to-live, duplicate window, scheduled
 *       enqueue) comes from the injected {@link java.time.Clock}; housekeeping applies it every 100
 *       ms of wall-clock time and {@code evaluateExpiries()} applies it at once. Heartbeats use the
 *       wall clock.
 *   <li>{@link io.idemworker.emulator.servicebus.Faults} injects failures: dropped connections,
 *       lost locks, delayed dispositions.
 *   <li>Nothing is persisted: the namespace lives as long as the emulator object.
 * </ul>
 *
 * <h2>Implemented</h2>
 *
 * SASL MSSBCBS and ANONYMOUS; {@code $cbs} put-token (any token accepted); requests without
 * reply-to answered on the node's receiver link; heartbeats; many concurrent connections, one
 * thread each; sending single messages and batches (format 0x80013700) with a 256 KiB
 * max-message-size announced on attach and enforced ({@code amqp:link:message-size-exceeded});
 * bodies of several data or sequence sections; sequence numbers, enqueued time, broker-assigned
 * message-ids; duplicate detection (window PT20S to P7D unless relaxed for tests); PEEK_LOCK and
 * RECEIVE_AND_DELETE receivers with credit and drain; 16-byte lock tokens in .NET GUID byte order;
 * complete, abandon (with properties to modify), dead-letter (reason, description), defer, release;
 * lock expiry, MaxDeliveryCount and TTL expiry with dead-lettering ({@code
 * MaxDeliveryCountExceeded}, {@code TTLExpiredException}); {@code com.microsoft:message-lock-lost}
 * for late settlement; locks that outlive their link or connection until LockDuration ends;
 * management operations renew-lock, update-disposition, peek-message, schedule-message,
 * cancel-scheduled-message and receive-by-sequence-number; topics with subscriptions (a copy per
 * matching subscription, settled independently; the default true rule, correlation filters and a
 * SQL filter subset, see {@link io.idemworker.emulator.servicebus.SqlFilter}; duplicate detection
 * on the topic; lock duration, MaxDeliveryCount, time-to-live and dead-lettering per subscription);
 * schedule and cancel on a topic's management node; sessions on queues and subscriptions that
 * require them (session receivers for a named or the next available session, one receiver per
 * session, in-order delivery per session, session locks with renewal and expiry, session state,
 * deferral and receive by sequence number within a session; see {@link
 * io.idemworker.emulator.servicebus.EntitySessions}); unknown entities refused with {@code
 * amqp:not-found}; malformed input closes only the offending connection; transactions (a
 * coordinator link declares and discharges them; sends, link settlements and management
 * update-disposition and schedule-message join them; see {@link
 * io.idemworker.emulator.servicebus.Transactions}).
 *
 * <p>With {@code Builder.adminPort}, the HTTPS administration API ({@code
 * ServiceBusAdministrationClient}; {@link io.idemworker.emulator.servicebus.AdminEndpoint}):
 * queues, topics, subscriptions and rules created, read, listed, updated and deleted, runtime
 * message counts, and the service's 409, 404 and 400 answers. With {@code Builder.sharedAccessKey},
 * shared access signatures are checked on {@code $cbs} put-tokens, link attaches and administration
 * requests (off by default: every token and key is accepted).
 *
 * <h2>Not implemented</h2>
 *
 * Rule management over AMQP ({@code add-rule}, {@code remove-rule}, {@code enumerate-rules}; the
 * administration API manages rules) and rule actions, SQL arithmetic and functions, listing
 * sessions, global (distributed) transactions, auto-forwarding ({@code ForwardTo}), authorisation
 * beyond one shared access key (no rights per key; the TLS port checks no client certificate),
 * entity status other than Active, partitioned entities, message size quotas per tier other than
 * 256 KiB, and persistence. Unsupported management operations answer status 501 {@code
 * amqp:not-implemented}; a {@code Config.json} that asks for forwarding or rule actions is refused
 * with a message naming the field.
 */
package io.idemworker.emulator.servicebus;
