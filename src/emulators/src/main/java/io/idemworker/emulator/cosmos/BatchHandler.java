package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Serves transactional batches ({@code POST …/docs} with {@code x-ms-cosmos-is-batch-request}):
 * create, upsert, replace, read, delete and patch operations on one logical partition, all or
 * nothing. The answer is 200 with every operation's result, or 207 with the failing operation's
 * status and 424 for every other; at most {@link #MAX_BATCH_OPERATIONS} operations (else 400) in at
 * most {@link ItemHandler#MAX_DOCUMENT_BYTES} (else 413), answering at most {@link
 * #MAX_RESPONSE_BYTES} of documents (else the operation past it gets 413). Non-atomic (bulk)
 * batches are 501.
 *
 * <p>Thread-safe: it keeps no state of its own; atomicity is {@link Container#execute}'s. An
 * operation that is malformed fails the batch as a 207 before anything is written.
 */
final class BatchHandler {
  static final int MAX_BATCH_OPERATIONS = 100;

  /**
   * Bytes of returned documents a batch's answer may carry: the service's 4 MB response limit (an
   * assumption for batches; the documented limit is for any response). The operation whose document
   * passes it fails with 413, so the batch is not applied (207, 424 on the others).
   */
  static final long MAX_RESPONSE_BYTES = 4L * 1024 * 1024;

  private final JsonBodies json;

  BatchHandler(JsonBodies json) {
    this.json = json;
  }

  HttpReply execute(Container c, HttpRequest h, byte[] body) {
    if (body.length > ItemHandler.MAX_DOCUMENT_BYTES) {
      throw new CosmosError(413, "Request size is too large: a batch may carry at most 2 MB.");
    }
    if (!RequestHeaders.isTrue(h, "x-ms-cosmos-batch-atomic")) {
      throw CosmosError.notImplemented("Bulk execution (non-atomic batch)");
    }
    JsonNode array = json.parse(body);
    if (!array.isArray()) {
      throw CosmosError.badRequest("The batch request body must be a JSON array of operations.");
    }
    if (array.isEmpty()) {
      throw CosmosError.badRequest("Batch request has no operations.");
    }
    if (array.size() > MAX_BATCH_OPERATIONS) {
      throw CosmosError.badRequest(
          "Batch request has more operations than what is supported: at most "
              + MAX_BATCH_OPERATIONS
              + ", got "
              + array.size()
              + ".");
    }
    String pk = RequestHeaders.partitionKey(json.mapper(), h);
    List<Container.ItemOp> ops = new ArrayList<>(array.size());
    boolean minimal = RequestHeaders.minimal(h);
    for (int i = 0; i < array.size(); i++) {
      try {
        ops.add(batchOp(c, array.get(i), pk));
      } catch (CosmosError e) {
        List<Container.OpResult> results = new ArrayList<>();
        for (int j = 0; j < array.size(); j++) {
          results.add(
              j == i ? Container.OpResult.failure(e) : Container.OpResult.failedDependency());
        }
        return batchReply(c, new Container.Results(false, results, c.lsn()), minimal);
      }
    }
    long responseLimit = minimal ? Long.MAX_VALUE : MAX_RESPONSE_BYTES;
    return batchReply(c, c.execute(pk, ops, true, responseLimit), minimal);
  }

  private static Container.ItemOp batchOp(Container c, JsonNode node, String pk) {
    if (!node.isObject()) {
      throw CosmosError.badRequest("A batch operation must be a JSON object.");
    }
    String type = node.path("operationType").asText("");
    Container.Kind kind =
        switch (type) {
          case "Create" -> Container.Kind.CREATE;
          case "Upsert" -> Container.Kind.UPSERT;
          case "Replace" -> Container.Kind.REPLACE;
          case "Read" -> Container.Kind.READ;
          case "Delete" -> Container.Kind.DELETE;
          case "Patch" -> Container.Kind.PATCH;
          default -> throw CosmosError.badRequest("Unknown batch operationType '" + type + "'.");
        };
    String ifMatch = node.hasNonNull("ifMatch") ? node.get("ifMatch").asText() : null;
    if (kind == Container.Kind.PATCH) {
      return ItemPatch.batchOperation(node, ifMatch);
    }
    JsonNode resource = node.get("resourceBody");
    if (kind == Container.Kind.READ || kind == Container.Kind.DELETE) {
      JsonNode id = node.get("id");
      if (id == null || !id.isTextual()) {
        throw CosmosError.badRequest("A " + type + " operation needs an id.");
      }
      return new Container.ItemOp(kind, id.textValue(), null, ifMatch);
    }
    if (!(resource instanceof ObjectNode doc)) {
      throw CosmosError.badRequest("A " + type + " operation needs a resourceBody object.");
    }
    String id = Validation.resourceName(doc.get("id"), "item");
    if (node.hasNonNull("id") && !node.get("id").asText().equals(id)) {
      throw CosmosError.badRequest("The id in the resourceBody does not match the operation's id.");
    }
    c.validateTtl(doc);
    ItemHandler.checkPartitionKey(c, doc, pk);
    return new Container.ItemOp(kind, id, doc, ifMatch);
  }

  private HttpReply batchReply(Container c, Container.Results r, boolean minimal) {
    ArrayNode out = json.mapper().createArrayNode();
    double total = 0;
    for (Container.OpResult result : r.results()) {
      ObjectNode o = out.addObject();
      o.put("statusCode", result.status());
      if (result.subStatus() != 0) {
        o.put("subStatusCode", result.subStatus());
      }
      o.put("requestCharge", result.charge());
      total += result.charge();
      StoredItem item = result.item();
      if (item != null) {
        o.put("eTag", item.etag());
        if (!minimal) {
          o.set("resourceBody", json.parse(item.json()));
        }
      }
    }
    HttpReply reply =
        new HttpReply(r.committed() ? 200 : 207, json.bytes(out), RequestCharges.round(total));
    reply.header("Content-Type", "application/json");
    return r.committed() ? reply.withSession(c, r.lsn()) : reply.withSessionToken(c, r.lsn());
  }
}
