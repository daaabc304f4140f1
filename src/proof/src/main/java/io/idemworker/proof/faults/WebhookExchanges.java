package io.idemworker.proof.faults;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import io.idemworker.webhooks.PaymentWebhookHandler;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Serves the payment webhook receiver on a JDK server, for the demo's and the chaos run's own
 * receivers, which hold requests back before the receiver sees them (a receiver slower than the
 * sender's timeout). The api serves the same receiver on its own server stack; this adapter keeps
 * that stack's route rules (404 off the path, 405, the head refusal, 413) so the runs see the same
 * answers.
 */
public final class WebhookExchanges {
  private static final ObjectMapper JSON = new ObjectMapper();

  private WebhookExchanges() {}

  /**
   * Answers one exchange with the receiver and closes it; a sender that gave up is not an error.
   *
   * @param receiver the receiver
   * @param exchange the exchange
   */
  public static void serve(PaymentWebhookHandler receiver, HttpExchange exchange) {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readNBytes(PaymentWebhookHandler.MAX_BODY_BYTES + 1);
      PaymentWebhookHandler.Reply reply;
      if (!PaymentWebhookHandler.PATH.equals(exchange.getRequestURI().getPath())) {
        reply = status(404);
      } else if (!"POST".equals(exchange.getRequestMethod())) {
        reply = status(405);
      } else {
        reply =
            receiver
                .refusal(Optional.ofNullable(exchange.getRequestHeaders().getFirst("Content-Type")))
                .orElseGet(
                    () ->
                        body.length > PaymentWebhookHandler.MAX_BODY_BYTES
                            ? status(413)
                            : receiver.receive(
                                exchange
                                    .getRequestHeaders()
                                    .getOrDefault("Webhook-Signature", List.of()),
                                body));
      }
      byte[] bytes = JSON.writeValueAsBytes(reply.body());
      reply.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
      exchange.getResponseHeaders().set("Content-Type", reply.contentType());
      exchange.getResponseHeaders().set("Cache-Control", "no-store");
      exchange.sendResponseHeaders(reply.status(), bytes.length);
      exchange.getResponseBody().write(bytes);
    } catch (IOException e) {
      // The sender gave up on this copy (its timeout) and redelivers it.
    }
  }

  private static PaymentWebhookHandler.Reply status(int status) {
    return new PaymentWebhookHandler.Reply(
        status,
        "application/problem+json",
        Map.of(),
        JSON.createObjectNode().put("status", status));
  }
}
