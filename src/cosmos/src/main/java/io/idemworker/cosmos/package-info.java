/**
 * The Cosmos DB (NoSQL) adapter of {@link io.idemworker.core.EffectStore}: a write set becomes one
 * transactional batch of creates in its partition, so the create of the anchor is the duplicate
 * check and everything commits together; status codes are classified here, at the edge, so the flow
 * never sees a {@code CosmosException}.
 */
package io.idemworker.cosmos;
