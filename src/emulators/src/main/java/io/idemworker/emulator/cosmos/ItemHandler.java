package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Serves the point operations on one item ({@code …/docs} and {@code …/docs/{id}}): create, upsert,
 * read (304 on a matching {@code If-None-Match}), replace, delete and patch, by id within the
 * header's partition key or by RID. It checks what the service checks before the write — size
 * ({@link #MAX_DOCUMENT_BYTES}, else 413), id, time to live, partition key against the document —
 * and answers with the item (unless {@code Prefer: return=minimal}), its etag, its charge and the
 * container's session headers.
 *
 * <p>Thread-safe: it keeps no state of its own; the write itself is as atomic as {@link
 * Container#execute} makes it. An item-level failure is thrown as an {@link ItemFailure}, which
 * still carries a charge and the session headers.
 */
final class ItemHandler {
  static final int MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;

  private final JsonBodies json;
  private final ObjectMapper mapper;

  ItemHandler(JsonBodies json) {
    this.json = json;
    this.mapper = json.mapper();
  }

  HttpReply read(Container c, HttpRequest h, String itemId, boolean byRid) {
    String pk;
    String id = itemId;
    if (byRid) {
      Container.ItemKey key = c.byRid(itemId);
      pk = key.partitionKey();
      id = key.id();
    } else {
      pk = RequestHeaders.partitionKey(mapper, h);
    }
    StoredItem item;
    try {
      item = c.read(pk, id);
    } catch (CosmosError e) {
      throw itemError(c, e);
    }
    String ifNoneMatch = h.getFirst("If-None-Match");
    if (ifNoneMatch != null && ifNoneMatch.equals(item.etag())) {
      return itemReply(c, 304, null, RequestCharges.MISS, c.lsn(), false);
    }
    return itemReply(c, 200, item, RequestCharges.read(item.json().length), c.lsn(), false);
  }

  HttpReply delete(Container c, HttpRequest h, String itemId, boolean byRid) {
    String pk;
    String id = itemId;
    if (byRid) {
      Container.ItemKey key = c.byRid(itemId);
      pk = key.partitionKey();
      id = key.id();
    } else {
      pk = RequestHeaders.partitionKey(mapper, h);
    }
    Container.ItemOp op =
        new Container.ItemOp(Container.Kind.DELETE, id, null, h.getFirst("If-Match"));
    return single(c, pk, op, false);
  }

  /** Creates or upserts the item in the body ({@code POST …/docs}). */
  HttpReply create(Container c, HttpRequest h, byte[] body, boolean upsert) {
    return write(c, h, body, upsert ? Container.Kind.UPSERT : Container.Kind.CREATE, null);
  }

  /** Replaces the item at {@code …/docs/{itemId}}; the body's id must match it. */
  HttpReply replace(Container c, HttpRequest h, String itemId, boolean byRid, byte[] body) {
    return write(c, h, body, Container.Kind.REPLACE, resolveId(c, itemId, byRid));
  }

  HttpReply patch(Container c, HttpRequest h, String itemId, boolean byRid, byte[] body) {
    String pk = RequestHeaders.partitionKey(mapper, h);
    Container.ItemOp op =
        Container.ItemOp.patch(
            resolveId(c, itemId, byRid), ItemPatch.parse(json.parse(body)), h.getFirst("If-Match"));
    return single(c, pk, op, RequestHeaders.minimal(h));
  }

  private static String resolveId(Container c, String itemId, boolean byRid) {
    return byRid ? c.byRid(itemId).id() : itemId;
  }

  private HttpReply write(
      Container c, HttpRequest h, byte[] body, Container.Kind kind, String urlId) {
    if (body.length > MAX_DOCUMENT_BYTES) {
      throw new CosmosError(413, "Request size is too large");
    }
    ObjectNode doc = json.parseObject(body);
    String id = Validation.resourceName(doc.get("id"), "item");
    if (urlId != null && !urlId.equals(id)) {
      throw CosmosError.badRequest(
          "The id '" + id + "' in the body does not match the id '" + urlId + "' in the request.");
    }
    c.validateTtl(doc);
    String pk = RequestHeaders.partitionKey(mapper, h);
    checkPartitionKey(c, doc, pk);
    Container.ItemOp op = new Container.ItemOp(kind, id, doc, h.getFirst("If-Match"));
    return single(c, pk, op, RequestHeaders.minimal(h));
  }

  /** Throws a 400 (sub-status 1001) when {@code doc}'s partition key is not {@code pk}. */
  static void checkPartitionKey(Container c, ObjectNode doc, String pk) {
    if (!pk.equals(c.partitionKeyOf(doc))) {
      throw new CosmosError(
          400,
          1001,
          "PartitionKey extracted from the document doesn't match the one specified in the header.");
    }
  }

  private HttpReply single(Container c, String pk, Container.ItemOp op, boolean minimal) {
    Container.Results r;
    try {
      r = c.execute(pk, List.of(op), false);
    } catch (CosmosError e) {
      throw itemError(c, e);
    }
    Container.OpResult result = r.results().get(0);
    return itemReply(c, result.status(), result.item(), result.charge(), r.lsn(), minimal);
  }

  private static ItemFailure itemError(Container c, CosmosError e) {
    double charge = e.status == 409 ? RequestCharges.CONFLICT : RequestCharges.MISS;
    return new ItemFailure(e, c, charge);
  }

  private static HttpReply itemReply(
      Container c, int status, StoredItem item, double charge, long lsn, boolean minimal) {
    byte[] body = item == null || minimal ? null : item.json();
    HttpReply reply = new HttpReply(status, body, charge);
    if (item != null) {
      reply.header("etag", item.etag());
    }
    return reply.withSession(c, lsn);
  }

  /** An item-level error that still carries session headers and a charge. */
  static final class ItemFailure extends CosmosError {
    final Container container;
    final double charge;

    ItemFailure(CosmosError cause, Container container, double charge) {
      super(cause.status, cause.subStatus, cause.getMessage());
      this.container = container;
      this.charge = charge;
    }
  }
}
