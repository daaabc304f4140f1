/**
 * An in-process Azure Cosmos DB (NoSQL) emulator for tests, benchmarks and local runs: an HTTPS
 * server on loopback that serves the Cosmos DB gateway REST API well enough that the real {@code
 * com.azure:azure-cosmos} client (sync and async, {@code gatewayMode()}) cannot tell it from the
 * service for the operations the worker needs.
 *
 * <h2>Using it</h2>
 *
 * <pre>{@code
 * try (CosmosEmulator emulator = CosmosEmulator.builder().start()) {
 *   CosmosClient client = new CosmosClientBuilder()
 *       .endpoint(emulator.endpoint())          // https://localhost:PORT/
 *       .key(emulator.key())                    // CosmosEmulator.WELL_KNOWN_KEY by default
 *       .gatewayMode()
 *       .buildClient();
 * }
 * }</pre>
 *
 * The JVM running the client needs {@code
 * -DCOSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true} (the client then skips certificate
 * checks for localhost/127.0.0.1) or a trust store holding {@link
 * io.idemworker.emulator.cosmos.CosmosEmulator#certificate()} (see {@link
 * io.idemworker.emulator.cosmos.CosmosEmulator#writeTrustStore}); and {@code
 * -DCOSMOS.DISABLE_IMDS_ACCESS=true} so the client does not probe the Azure metadata address. The
 * server is a small HTTP/1.1 implementation over blocking TLS sockets (thread per connection) that
 * sets TCP_NODELAY on every socket itself, so no system property is needed on the emulator side.
 * Its acceptor thread is not a daemon: a plain {@code main} keeps serving until {@link
 * io.idemworker.emulator.cosmos.CosmosEmulator#close()}.
 *
 * <h2>What it serves</h2>
 *
 * <ul>
 *   <li>The database account ({@code GET /}), databases and containers (create, read, list, delete;
 *       container replace for {@code defaultTtl}), one partition key range per container (200, then
 *       304 on {@code If-None-Match}); every path by name and by RID.
 *   <li>Items: create (201/409), read (200/404, 304 on a matching {@code If-None-Match}), upsert
 *       (201/200), replace and delete (404, 412 on {@code If-Match}), {@code Prefer:
 *       return=minimal}, session tokens {@code 0:-1#LSN}. Identity is (partition key value, id);
 *       writes to one logical partition are serialised, so concurrent creates of one id have
 *       exactly one winner.
 *   <li>Transactional batch: all or nothing; 200, or 207 with the failing operation's status and
 *       424 for every other; at most 100 operations (else 400) and 2 MB (else 413).
 *   <li>Patch ({@code add, set, replace, remove, incr, move} on JSON-pointer paths, at most 10),
 *       alone or inside a transactional batch, with a filter predicate ({@code FROM c WHERE …},
 *       false → 412) and {@code If-Match} (412).
 *   <li>Change feed in latest-version mode: from the beginning, now, a point in time or a
 *       continuation; each changed item once in its latest version, in LSN order; 304 when nothing
 *       is new.
 *   <li>Single-partition queries in a subset ({@code SELECT * / c.a, c.b / VALUE x}, {@code WHERE},
 *       {@code ORDER BY} one property, {@code TOP}, {@code OFFSET … LIMIT}, parameters), with the
 *       SDK's query-plan handshake and continuation; anything else, cross-partition queries
 *       included, is a 400 naming what is not supported.
 *   <li>Time to live: container {@code defaultTtl} (absent = item {@code ttl} ignored, -1 = no
 *       default, n seconds) and item {@code ttl} (-1 = never), measured on the injected {@link
 *       java.time.Clock}; an expired item is absent at once and purged in the background.
 *   <li>Master-key authorization: a wrong signature gets 401 {@code Unauthorized}; the date is not
 *       checked for skew, so tests may move the clock freely.
 *   <li>Request charge in {@code x-ms-request-charge}: point read 1 RU per started KiB, write about
 *       5.7 RU for 1 KiB growing with size, metadata 1 RU, a batch the sum of its operations.
 *   <li>Errors as {@code {"code":"…","message":"…"}} with the service's status: malformed JSON,
 *       missing or mismatching partition key (400, sub-status 1001 on mismatch), invalid id ({@code
 *       / \ ? #}, empty, over 255 characters: 400), a document over 2 MB (413), unknown paths
 *       (404), unsupported verbs (405). No input stops the server.
 * </ul>
 *
 * <h2>Not implemented</h2>
 *
 * Queries of databases or containers, the all-versions-and-deletes change feed, read feeds of
 * items, bulk (non-atomic batches), stored procedures, triggers, UDFs, users, permissions,
 * offers/throughput, conflicts and attachments are answered with 501 {@code NotImplemented} and a
 * message naming the feature. There is a single region, a single partition key range and no
 * consistency levels weaker or stronger than "everything is immediately visible".
 *
 * <h2>Test hooks</h2>
 *
 * {@link io.idemworker.emulator.cosmos.Faults} injects statuses, sub-statuses, retry-after delays
 * and latency per {@link io.idemworker.emulator.cosmos.Operation}, for N occurrences, until
 * cleared, or on the N-th request, on the whole emulator, one container ({@code
 * faults().container(db, c)}) or one client ({@code faults().client(userAgentSuffix)}); {@link
 * io.idemworker.emulator.cosmos.RequestStats} counts requests by operation and sums the request
 * charge, for the emulator or one container. All public types are thread-safe unless stated
 * otherwise.
 */
package io.idemworker.emulator.cosmos;
