package io.idemworker.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.http.server.ServerLimits;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.orders.Orders;
import io.idemworker.testing.EmulatorClients;
import io.idemworker.testing.MutableClock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code API_AUTH=entra} (issue 33, D2 and D3) through real HTTP connections and the Cosmos DB
 * emulator: each caller sees and replays only its own orders, conflicts name no field of another
 * caller's order, and the platform's identity headers must agree and name an allowed application.
 * The headers are what Container Apps' authentication sets in front of the app.
 */
@AzureEmulators(serviceBus = false)
class EntraCallersTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String APP = "11111111-2222-3333-4444-555555555555";
  private static final String OTHER_APP = "99999999-2222-3333-4444-555555555555";
  private static final String ALICE = "aaaaaaaa-0000-0000-0000-000000000001";
  private static final String BOB = "bbbbbbbb-0000-0000-0000-000000000002";

  private final HttpClient http = HttpClient.newHttpClient();
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
            ApiAuth.entra(Set.of(APP)),
            Duration.ofSeconds(30),
            Duration.ofHours(24),
            262_144,
            new MutableClock(),
            IntakeFaults.NONE,
            ServerLimits.defaults(),
            Optional::empty,
            OrderApi.Webhooks.unconfigured());
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /** The three headers as the platform sets them for a caller of an application. */
  private static HttpRequest.Builder as(
      HttpRequest.Builder request, String objectId, String appId, String headerObjectId) {
    String claims =
        """
        {"auth_typ":"aad","claims":[{"typ":"http://schemas.microsoft.com/identity/claims/objectidentifier","val":"%s"},{"typ":"appid","val":"%s"}],"name_typ":"name","role_typ":"roles"}"""
            .formatted(objectId, appId);
    return request
        .header("X-MS-CLIENT-PRINCIPAL-ID", headerObjectId)
        .header("X-MS-CLIENT-PRINCIPAL-IDP", "aad")
        .header(
            "X-MS-CLIENT-PRINCIPAL",
            Base64.getEncoder().encodeToString(claims.getBytes(StandardCharsets.UTF_8)));
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }

  private HttpResponse<String> post(String who, String key, String body) throws Exception {
    return http.send(
        as(
                HttpRequest.newBuilder(uri("/orders"))
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", key)
                    .POST(HttpRequest.BodyPublishers.ofString(body)),
                who,
                APP,
                who)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String who, String orderId) throws Exception {
    return http.send(
        as(HttpRequest.newBuilder(uri("/orders/" + orderId)).GET(), who, APP, who).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void twoPrincipals_cannotSeeOrReplayEachOthersOrders_andConflictsNameNoField() throws Exception {
    // given Alice's order
    String orderId = "entra-" + UUID.randomUUID().toString().substring(0, 12);
    String body = Orders.body(orderId, "alice-customer");
    assertThat(post(ALICE, "k-1", body).statusCode()).isEqualTo(201);

    // when Bob reads it, posts the same body under a new key, and posts other content for it
    HttpResponse<String> bobReads = get(BOB, orderId);
    HttpResponse<String> bobReplays = post(BOB, "k-2", body);
    HttpResponse<String> bobConflicts = post(BOB, "k-3", Orders.body(orderId, "bob-customer"));

    // then Bob learns nothing of it: not found, and a conflict that names no field or value
    assertThat(bobReads.statusCode()).isEqualTo(404);
    for (HttpResponse<String> refused : java.util.List.of(bobReplays, bobConflicts)) {
      assertThat(refused.statusCode()).isEqualTo(422);
      assertThat(refused.headers().firstValue("Idempotent-Replayed")).isEmpty();
      JsonNode problem = JSON.readTree(refused.body());
      assertThat(problem.get("reason").asText()).isEqualTo("OrderConflict");
      assertThat(refused.body())
          .doesNotContain("customerId")
          .doesNotContain("alice-customer")
          .doesNotContain("lines")
          .doesNotContain("total");
    }
    // and Alice still reads and replays her own
    HttpResponse<String> aliceReads = get(ALICE, orderId);
    assertThat(aliceReads.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(aliceReads.body()).get("customerId").asText())
        .isEqualTo("alice-customer");
    HttpResponse<String> aliceNewKey = post(ALICE, "k-4", body);
    assertThat(aliceNewKey.statusCode()).isEqualTo(201);
    assertThat(aliceNewKey.headers().firstValue("Idempotent-Replayed")).contains("true");
  }

  @Test
  void identityHeadersThatDisagree_orAnApplicationNotAllowed_are401() throws Exception {
    String orderId = "entra-" + UUID.randomUUID().toString().substring(0, 12);

    // a bare X-MS-CLIENT-PRINCIPAL-ID, as a client could send it past a missing platform
    HttpResponse<String> bare =
        http.send(
            HttpRequest.newBuilder(uri("/orders/" + orderId))
                .header("X-MS-CLIENT-PRINCIPAL-ID", ALICE)
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    // claims for Bob under Alice's id header
    HttpResponse<String> mismatched =
        http.send(
            as(HttpRequest.newBuilder(uri("/orders/" + orderId)).GET(), BOB, APP, ALICE).build(),
            HttpResponse.BodyHandlers.ofString());
    // a token of an application the api does not allow
    HttpResponse<String> otherApp =
        http.send(
            as(HttpRequest.newBuilder(uri("/orders/" + orderId)).GET(), ALICE, OTHER_APP, ALICE)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    // the claims header is not base64 JSON
    HttpResponse<String> garbage =
        http.send(
            HttpRequest.newBuilder(uri("/orders/" + orderId))
                .header("X-MS-CLIENT-PRINCIPAL-ID", ALICE)
                .header("X-MS-CLIENT-PRINCIPAL-IDP", "aad")
                .header("X-MS-CLIENT-PRINCIPAL", "not base64 at all")
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());

    for (HttpResponse<String> refused : java.util.List.of(bare, mismatched, otherApp, garbage)) {
      assertThat(refused.statusCode()).isEqualTo(401);
      assertThat(refused.headers().firstValue("WWW-Authenticate")).contains("Bearer");
      assertThat(refused.headers().firstValue("Content-Type")).contains("application/problem+json");
    }
    // while the agreeing headers of an allowed application pass (the order does not exist)
    assertThat(
            http.send(
                    as(HttpRequest.newBuilder(uri("/orders/" + orderId)).GET(), ALICE, APP, ALICE)
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(404);
  }
}
