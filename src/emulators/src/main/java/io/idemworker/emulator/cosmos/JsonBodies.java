package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

/**
 * Request and reply bodies as JSON, over the emulator's {@link ObjectMapper}: parsing a request
 * body as the service does (a malformed, empty or out-of-range body is a 400 {@link CosmosError} in
 * the service's words) and writing a reply. Thread-safe: the mapper is configured before it gets
 * here and never changed.
 */
final class JsonBodies {
  private final ObjectMapper mapper;

  JsonBodies(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  ObjectMapper mapper() {
    return mapper;
  }

  /** Parses any JSON value, numbers checked to be finite doubles. */
  JsonNode parse(byte[] body) {
    try {
      JsonNode node = mapper.readTree(body);
      if (node == null || node.isMissingNode()) {
        throw CosmosError.badRequest("The request payload is invalid: it is empty.");
      }
      JsonChecks.rejectNonFiniteNumbers(node);
      return node;
    } catch (StreamConstraintsException e) {
      throw CosmosError.badRequest(JsonChecks.beyondLimits(e));
    } catch (IOException e) {
      throw CosmosError.badRequest(
          "The request payload is invalid. Ensure to provide a valid request payload.");
    }
  }

  /** Parses a JSON object; any other value is a 400. */
  ObjectNode parseObject(byte[] body) {
    JsonNode node = parse(body);
    if (!(node instanceof ObjectNode o)) {
      throw CosmosError.badRequest("The request payload is invalid: a JSON object is expected.");
    }
    return o;
  }

  byte[] bytes(JsonNode node) {
    try {
      return mapper.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A reply with {@code node} as its body, charged as a metadata request. */
  HttpReply reply(int status, JsonNode node) {
    return new HttpReply(status, bytes(node), RequestCharges.METADATA);
  }
}
