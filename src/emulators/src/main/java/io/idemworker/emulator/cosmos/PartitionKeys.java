package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Canonical text of a partition key value, so that the header {@code ["a"]} and the document
 * property {@code "a"} compare equal, and {@code 5} equals {@code 5.0}. A missing property is
 * "undefined", written {@code {}} in the header.
 */
final class PartitionKeys {
  private PartitionKeys() {}

  static String canonical(List<JsonNode> values) {
    StringBuilder sb = new StringBuilder();
    for (JsonNode v : values) {
      if (sb.length() > 0) {
        sb.append('\u0000');
      }
      if (v == null || v.isMissingNode() || (v.isObject() && v.isEmpty())) {
        sb.append('u');
      } else if (v.isNull()) {
        sb.append('z');
      } else if (v.isNumber()) {
        sb.append('n').append(v.doubleValue());
      } else if (v.isBoolean()) {
        sb.append('b').append(v.booleanValue());
      } else if (v.isTextual()) {
        sb.append('s').append(v.textValue());
      } else {
        sb.append('j').append(v);
      }
    }
    return sb.toString();
  }

  /**
   * Parses the {@code x-ms-documentdb-partitionkey} header (a JSON array).
   *
   * @throws CosmosError 400 when missing or malformed
   */
  static String fromHeader(ObjectMapper mapper, String header, int expectedComponents) {
    if (header == null || header.isBlank()) {
      throw CosmosError.badRequest(
          "PartitionKey value must be supplied for this operation on a partitioned container.");
    }
    JsonNode node;
    try {
      node = mapper.readTree(header);
    } catch (IOException e) {
      throw CosmosError.badRequest("Partition key " + header + " is invalid.");
    }
    if (node == null || !node.isArray()) {
      throw CosmosError.badRequest("Partition key " + header + " is invalid.");
    }
    if (node.size() != expectedComponents) {
      throw CosmosError.badRequest(
          "Partition key provided either doesn't correspond to definition in the collection or"
              + " doesn't match partition key field values specified in the document.");
    }
    List<JsonNode> values = new ArrayList<>(node.size());
    node.forEach(values::add);
    return canonical(values);
  }
}
