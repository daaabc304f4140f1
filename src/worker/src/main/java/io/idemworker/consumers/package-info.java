/**
 * Independent consumers of the {@code order-events} topic: {@code loyalty} (points per accepted
 * order) and {@code customer-stats} (orders and spend per customer and currency). Each reads its
 * own copy of every {@code OrderAccepted} event from its own subscription and writes into one
 * shared container partitioned by {@code /customerId}. Both effects are relative (an increment
 * applied twice counts twice), so each is protected by an inbox marker {@code
 * inbox:{consumer}:{eventId}} committed in the same batch: keyed by the pair (consumer, event id),
 * because a marker keyed by the event id alone would let the first consumer's record suppress every
 * other consumer's effect.
 *
 * <p>Free of Azure. Of the order worker's code it uses only {@code InboxMarkers}, the one rule for
 * marker ids and their TTL; the event body is the only contract shared with the producer.
 */
package io.idemworker.consumers;
