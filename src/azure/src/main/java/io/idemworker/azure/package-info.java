/**
 * The library's front door: register {@link io.idemworker.azure.MessageType}s (subject, body
 * fields, entity, key rule, protection, events) and build a running, closeable {@link
 * io.idemworker.azure.IdempotentWorker} from a Service Bus queue or subscription to a Cosmos DB
 * container, in code; ask a {@link io.idemworker.azure.MessageExplainer} what became of one
 * message. Everything else a service may need is public in the library's other packages ({@code
 * io.idemworker.core}, {@code io.idemworker.servicebus} and its job packages, {@code
 * io.idemworker.cosmos}, {@code io.idemworker.relay}, {@code io.idemworker.telemetry}); packages
 * named {@code internal} are not an API.
 *
 * <p><b>Compatibility.</b> Within a major version, the public types of the non-internal packages
 * keep their source and behaviour: new methods, builder options and sealed-type members may be
 * added in a minor version (an exhaustive {@code fold} gains a parameter only in a major version);
 * document ids, marker ids ({@code inbox:{consumer}:{key}}), event ids ({@link
 * io.idemworker.azure.EventIds}), fingerprints and dead-letter reason codes never change, because
 * data written by one version is read by the next. See {@code docs/compatibility.md}.
 */
package io.idemworker.azure;
