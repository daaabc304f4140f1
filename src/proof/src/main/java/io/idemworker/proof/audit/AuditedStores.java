package io.idemworker.proof.audit;

import com.azure.cosmos.CosmosContainer;
import io.idemworker.proof.producer.DemoScenario;

/**
 * What the producer sent and the containers the audit reads, handed to a test's hook that runs
 * between a run and its audit (the chaos run's {@code tamper}) or after the audit, before it runs
 * again (the demo's {@code afterAudit}), so that the test can break the stores and see the audit
 * fail.
 *
 * <p>Immutable; the containers are the SDK's, thread-safe.
 *
 * @param scenario what the producer sent
 * @param orders the orders container
 * @param customers the topic consumers' container
 */
public record AuditedStores(
    DemoScenario scenario, CosmosContainer orders, CosmosContainer customers) {}
