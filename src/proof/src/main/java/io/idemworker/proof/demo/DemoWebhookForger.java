package io.idemworker.proof.demo;

import io.idemworker.emulator.payments.WebhookSender;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Sends webhook events the receiver must refuse: signed with another secret, signed with the right
 * secret ten minutes ago (a replay), and unsigned. Each names a real order, so a receiver that
 * applied it would show in the order.
 */
final class DemoWebhookForger {
  private final URI url;
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  DemoWebhookForger(URI url) {
    this.url = url;
  }

  /**
   * What the forger sent and got.
   *
   * @param eventIds the forged events' ids
   * @param orderId the order they named
   * @param statuses the receiver's answers, in order
   */
  record Result(List<String> eventIds, String orderId, List<Integer> statuses) {}

  Result run(String orderId) throws InterruptedException {
    List<String> ids = new ArrayList<>();
    List<Integer> statuses = new ArrayList<>();
    long now = Instant.now().getEpochSecond();
    String[][] attempts = {
      {"whsec_not_the_shared_secret", Long.toString(now)},
      {DemoWebhookPhase.SECRET, Long.toString(now - 600)},
      {"", ""}
    };
    for (String[] attempt : attempts) {
      String id = "evt_forged" + UUID.randomUUID().toString().replace("-", "").substring(0, 14);
      ids.add(id);
      String body =
          ("{\"id\":\"%s\",\"type\":\"capture.succeeded\",\"created\":\"%s\",\"data\":{"
                  + "\"captureId\":\"cap_forged\",\"orderId\":\"%s\",\"idempotencyKey\":\"forged\","
                  + "\"amount\":1000,\"currency\":\"EUR\"}}")
              .formatted(id, Instant.now(), orderId);
      HttpRequest.Builder request =
          HttpRequest.newBuilder(url)
              .timeout(Duration.ofSeconds(10))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body));
      if (!attempt[0].isEmpty()) {
        request.header(
            "Webhook-Signature",
            WebhookSender.signature(
                attempt[0], Long.parseLong(attempt[1]), body.getBytes(StandardCharsets.UTF_8)));
      }
      try {
        statuses.add(
            client.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode());
      } catch (IOException e) {
        statuses.add(0);
      }
    }
    return new Result(ids, orderId, statuses);
  }
}
