package io.idemworker.emulator.payments;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;

/** The JSON bodies the emulator answers with, and the one way they are sent. */
final class Answers {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Answers() {}

  /** A capture as {@code POST} answers it and the ledger lists it. */
  static ObjectNode capture(ObjectMapper mapper, Ledger.Capture capture) {
    ObjectNode node = mapper.createObjectNode();
    node.put("id", capture.id());
    node.put("status", capture.status());
    capture.declineCode().ifPresent(code -> node.put("declineCode", code));
    node.put("orderId", capture.request().orderId());
    node.put("amount", capture.request().amountText());
    node.put("currency", capture.request().currency());
    node.put("createdAt", capture.createdAt().toString());
    capture
        .declineCode()
        .ifPresent(
            code ->
                node.putObject("error")
                    .put("type", "card_error")
                    .put("code", code)
                    .put("message", "the card was declined"));
    return node;
  }

  /** {@code {"error": {"type", "code", "param"?, "message"}}} with {@code status}. */
  static void error(
      HttpExchange exchange, int status, String type, String code, String param, String message)
      throws IOException {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode error = body.putObject("error");
    error.put("type", type).put("code", code);
    if (param != null) {
      error.put("param", param);
    }
    error.put("message", message);
    send(exchange, status, JSON.writeValueAsBytes(body), Map.of());
  }

  static void send(HttpExchange exchange, int status, byte[] body, Map<String, String> headers)
      throws IOException {
    try (exchange) {
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      headers.forEach(exchange.getResponseHeaders()::set);
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }
}
