package io.idemworker.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.http.server.RawHttp;
import io.idemworker.http.server.ServerLimits;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.MutableClock;
import io.idemworker.webhooks.WebhookSecret;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The api under the stall that took it down (issue 33, D1): connections from one client that send
 * one byte of a request, trickle a body to {@code /webhooks/payments}, or send a body to {@code
 * /orders} without a key, with the api's default limits. The probes and another client's order must
 * still be answered within a probe's timeout. Real sockets, the Cosmos DB emulator.
 */
@AzureEmulators(serviceBus = false)
class ApiStallTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final String API_KEY = "stall-test-key-0123456789";
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

  private final List<RawHttp> stalled = new ArrayList<>();
  private ApiServer server;

  @BeforeEach
  void start() {
    server =
        OrderApi.create(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            new CosmosEffectStore(
                EmulatorClients.orders(azure),
                StoreCallListener.none(),
                OrderDocumentIds.PARTITION_KEY_PATH),
            ApiAuth.apiKey(API_KEY),
            Duration.ofSeconds(30),
            Duration.ofHours(24),
            262_144,
            new MutableClock(),
            IntakeFaults.NONE,
            ServerLimits.defaults(),
            Optional::empty,
            new OrderApi.Webhooks(
                Optional.of(new WebhookSecret("whsec_stall_test_0123456789")),
                Optional.of(Duration.ofDays(14))));
    server.start();
  }

  @AfterEach
  void stop() {
    stalled.forEach(RawHttp::close);
    server.close();
  }

  @ParameterizedTest(name = "{0} stalled connections")
  @ValueSource(ints = {16, 100})
  void stalledConnections_doNotDelayHealthProbes_andOtherClientsAreServed(int connections) {
    // given connections from one client that each stall the api's old way
    for (int i = 0; i < connections; i++) {
      RawHttp raw = RawHttp.connect("127.0.0.2", server.port());
      stalled.add(raw);
      switch (i % 3) {
        case 0 -> raw.send("P");
        case 1 ->
            raw.send(
                "POST /webhooks/payments HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 60000\r\n\r\n{");
        default ->
            raw.send(
                "POST /orders HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 200000\r\n\r\n{\"orderId\":");
      }
    }

    // when the platform probes the api and another client posts an order
    // then the probes and the order are answered within a probe's timeout
    for (String probe : List.of("/health/live", "/health/ready")) {
      try (RawHttp raw = RawHttp.connect("127.0.0.3", server.port())) {
        RawHttp.Reply reply =
            raw.send("GET " + probe + " HTTP/1.1\r\nHost: api\r\n\r\n").read(PROBE_TIMEOUT);
        assertThat(reply.status()).as(probe).isEqualTo(200);
      }
    }
    String orderId = "stall-" + UUID.randomUUID();
    String body =
        "{\"orderId\":\""
            + orderId
            + "\",\"customerId\":\"cust-1\",\"currency\":\"EUR\",\"placedAt\":\"2026-11-30T10:00:00Z\","
            + "\"lines\":[{\"sku\":\"SKU-1\",\"quantity\":1,\"unitPrice\":1}]}";
    try (RawHttp raw = RawHttp.connect("127.0.0.3", server.port())) {
      RawHttp.Reply reply =
          raw.send(
                  "POST /orders HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\n"
                      + "X-Api-Key: "
                      + API_KEY
                      + "\r\nIdempotency-Key: "
                      + UUID.randomUUID()
                      + "\r\nContent-Length: "
                      + body.length()
                      + "\r\n\r\n"
                      + body)
              .read(Duration.ofSeconds(10));
      assertThat(reply.status()).isEqualTo(201);
      assertThat(reply.header("Cache-Control")).isEqualTo("no-store");
    }
  }
}
