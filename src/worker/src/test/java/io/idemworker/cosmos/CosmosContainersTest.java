package io.idemworker.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.ExcludedPath;
import com.azure.cosmos.models.IncludedPath;
import com.azure.cosmos.models.IndexingPolicy;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.testing.EmulatorClients;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The containers the worker creates index what is queried and nothing else. */
@AzureEmulators(serviceBus = false)
class CosmosContainersTest {
  static Emulators azure; // injected by @AzureEmulators

  @Test
  void createdContainer_indexesOnlyTheQueriedPaths_andItsWritesCostLessThanIndexingAll() {
    // given a container the worker creates and one with the default policy
    String database = "containers-" + UUID.randomUUID().toString().substring(0, 8);
    CosmosContainer narrow =
        CosmosContainers.ensureExists(
            EmulatorClients.cosmosClient(azure),
            database,
            "orders",
            OrderDocumentIds.PARTITION_KEY_PATH);
    EmulatorClients.cosmosClient(azure)
        .getDatabase(database)
        .createContainerIfNotExists("everything", OrderDocumentIds.PARTITION_KEY_PATH);
    CosmosContainer everything =
        EmulatorClients.cosmosClient(azure).getDatabase(database).getContainer("everything");

    // when the same order-like document is written to both
    ObjectNode order = JsonNodeFactory.instance.objectNode();
    order.put("id", "ord-1").put("orderId", "ord-1").put("type", "order").put("messageId", "ord-1");
    order.put("customerId", "cust-1").put("currency", "EUR").put("total", "19.98");
    order.putArray("lines").addObject().put("sku", "A").put("quantity", 2).put("unitPrice", "9.99");
    double narrowCharge =
        narrow.createItem(order, new PartitionKey("ord-1"), null).getRequestCharge();
    double everythingCharge =
        everything.createItem(order, new PartitionKey("ord-1"), null).getRequestCharge();

    // then the policy is the one the worker declares, and the write is cheaper by the terms left
    // out: orderId, customerId, currency, total and the line's three
    IndexingPolicy policy = narrow.read().getProperties().getIndexingPolicy();
    assertThat(policy.getIncludedPaths())
        .extracting(IncludedPath::getPath)
        .containsExactlyElementsOf(CosmosContainers.INDEXED_PATHS);
    assertThat(policy.getExcludedPaths()).extracting(ExcludedPath::getPath).containsExactly("/*");
    assertThat(narrowCharge)
        .isCloseTo(everythingCharge - 7 * 0.1, org.assertj.core.data.Offset.offset(0.011));
  }
}
