package io.idemworker.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The documents that one message becomes, written atomically in one partition.
 *
 * <p>The first document is the <em>anchor</em>: its creation is the duplicate check. {@link #of}
 * stamps the anchor with the {@link Fingerprint} (fields {@value #FINGERPRINT_FIELD} and {@value
 * #FIELD_DIGESTS_FIELD}) so that a later copy of the message can be told from a different message
 * that reuses the key.
 *
 * <p>The {@link #patches} change documents that already exist (an inbox marker is the anchor and
 * the document it changes is patched beside it). A store applies the creates and then the patches,
 * every one or none; when the anchor exists it reports that first, whatever the patches would have
 * met, so a duplicate is always recognised as one.
 *
 * @param partitionKey the partition key value every document shares
 * @param documents the documents to create, anchor first; each with a unique string {@code id}
 * @param patches changes to existing documents of the partition, applied after the creates
 * @param fingerprint the fingerprint stamped on the anchor
 */
public record WriteSet(
    String partitionKey,
    List<ObjectNode> documents,
    List<DocumentPatch> patches,
    Fingerprint fingerprint) {

  /** Anchor field holding {@link Fingerprint#value()}. */
  public static final String FINGERPRINT_FIELD = "fingerprint";

  /** Anchor field holding {@link Fingerprint#fields()}. */
  public static final String FIELD_DIGESTS_FIELD = "fingerprintFields";

  /** The most operations one atomic write may hold (Cosmos DB's transactional batch limit). */
  public static final int MAX_DOCUMENTS = 100;

  /** Checks the documents' ids and the anchor's fingerprint; copies the list. */
  public WriteSet {
    Objects.requireNonNull(partitionKey, "partitionKey");
    Objects.requireNonNull(fingerprint, "fingerprint");
    documents = List.copyOf(documents);
    patches = List.copyOf(patches);
    if (documents.isEmpty() || documents.size() + patches.size() > MAX_DOCUMENTS) {
      throw new IllegalArgumentException(
          "a write set holds 1 to "
              + MAX_DOCUMENTS
              + " operations with at least one create, not "
              + documents.size()
              + " creates and "
              + patches.size()
              + " patches");
    }
    Set<String> ids = new HashSet<>();
    for (ObjectNode document : documents) {
      JsonNode id = document.get("id");
      if (id == null || !id.isTextual() || id.asText().isEmpty()) {
        throw new IllegalArgumentException("every document needs a non-empty string id");
      }
      if (!ids.add(id.asText())) {
        throw new IllegalArgumentException("document id " + id.asText() + " appears twice");
      }
    }
    for (DocumentPatch patch : patches) {
      if (!ids.add(patch.id())) {
        throw new IllegalArgumentException("document id " + patch.id() + " appears twice");
      }
    }
    if (!fingerprint.value().equals(documents.get(0).path(FINGERPRINT_FIELD).asText())) {
      throw new IllegalArgumentException("the anchor must carry the fingerprint; use WriteSet.of");
    }
  }

  /**
   * Builds a write set, stamping the fingerprint on (a copy of) the anchor.
   *
   * @param partitionKey the partition key value
   * @param fingerprint the message's fingerprint
   * @param anchor the document whose creation is the duplicate check
   * @param others the documents that commit with it
   * @return the write set
   */
  public static WriteSet of(
      String partitionKey, Fingerprint fingerprint, ObjectNode anchor, List<ObjectNode> others) {
    return of(partitionKey, fingerprint, anchor, others, List.of());
  }

  /**
   * Builds a write set that also patches existing documents, stamping the fingerprint on (a copy
   * of) the anchor.
   *
   * @param partitionKey the partition key value
   * @param fingerprint the message's fingerprint
   * @param anchor the document whose creation is the duplicate check
   * @param others the documents that are created with it
   * @param patches the existing documents changed with it
   * @return the write set
   */
  public static WriteSet of(
      String partitionKey,
      Fingerprint fingerprint,
      ObjectNode anchor,
      List<ObjectNode> others,
      List<DocumentPatch> patches) {
    ObjectNode stamped = anchor.deepCopy();
    stamped.put(FINGERPRINT_FIELD, fingerprint.value());
    ObjectNode digests = stamped.putObject(FIELD_DIGESTS_FIELD);
    fingerprint.fields().forEach(digests::put);
    List<ObjectNode> all = new ArrayList<>(1 + others.size());
    all.add(stamped);
    all.addAll(others);
    return new WriteSet(partitionKey, all, patches, fingerprint);
  }

  /**
   * The anchor document.
   *
   * @return the first document
   */
  public ObjectNode anchor() {
    return documents.get(0);
  }

  /**
   * The anchor's id.
   *
   * @return the id
   */
  public String anchorId() {
    return anchor().get("id").asText();
  }
}
