package io.idemworker.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.cosmos.CosmosContainers;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.testing.EmulatorClients;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code api} command as a real process: configured by the environment, ready on its port,
 * answering and replaying orders over HTTP, refusing a bad configuration with exit code 2, and
 * stopping on SIGTERM with exit code 0.
 */
@AzureEmulators(serviceBus = false)
class ApiCommandProcessTest {
  static Emulators azure; // injected by @AzureEmulators
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String KEY = "process-test-key-0123456789";
  private static final String WEBHOOK_SECRET = "whsec_process_test_0123456789";
  private Process process;

  @AfterEach
  void cleanUp() {
    if (process != null) {
      process.destroyForcibly();
    }
  }

  @Tag("e2e")
  @Test
  void apiCommand_createsAndReplaysAnOrder_andOnSigtermExitsZero() throws Exception {
    // given a fresh database and the api as its own process
    String database = "api-" + UUID.randomUUID().toString().substring(0, 8);
    CosmosContainers.ensureExists(
        EmulatorClients.cosmosClient(azure),
        database,
        "orders",
        OrderDocumentIds.PARTITION_KEY_PATH);
    int port = ChildJvm.freePort();
    process =
        ChildJvm.command(
                "api",
                Map.of(
                    "COSMOS_ENDPOINT",
                    azure.cosmos().endpoint(),
                    "COSMOS_KEY",
                    azure.cosmos().key(),
                    "COSMOS_DATABASE",
                    database,
                    "API_PORT",
                    Integer.toString(port),
                    "API_KEY",
                    KEY,
                    "PAYMENTS_WEBHOOK_SECRET",
                    WEBHOOK_SECRET))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    ChildJvm.awaitReadiness(process, "api process", port, 200, WAIT);

    // when one order is posted twice under one key
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest post =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
            .timeout(Duration.ofSeconds(30))
            .header("X-Api-Key", KEY)
            .header("Idempotency-Key", "process-1")
            .header("Content-Type", "application/json")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"orderId\":\"ord-p1\",\"customerId\":\"c-1\",\"currency\":\"EUR\","
                        + "\"placedAt\":\"2026-11-30T10:00:00Z\",\"lines\":[{\"sku\":\"S\","
                        + "\"quantity\":1,\"unitPrice\":1.5}]}"))
            .build();
    HttpResponse<String> first = http.send(post, HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> second = http.send(post, HttpResponse.BodyHandlers.ofString());

    // then the first creates it and the second replays it
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(second.statusCode()).isEqualTo(201);
    assertThat(second.headers().firstValue("Idempotent-Replayed")).contains("true");
    assertThat(second.body()).isEqualTo(first.body());
    // and a signed payment event on the same port is applied without the api key
    String event =
        "{\"id\":\"evt_process_1\",\"type\":\"capture.succeeded\","
            + "\"created\":\"2026-11-30T10:01:00Z\",\"data\":{\"captureId\":\"cap_p1\","
            + "\"orderId\":\"ord-p1\",\"idempotencyKey\":\"ord-p1-pr\",\"amount\":1.5,"
            + "\"currency\":\"EUR\"}}";
    long now = java.time.Instant.now().getEpochSecond();
    javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
    mac.init(
        new javax.crypto.spec.SecretKeySpec(
            WEBHOOK_SECRET.getBytes(StandardCharsets.US_ASCII), "HmacSHA256"));
    String signature =
        "t="
            + now
            + ",v1="
            + java.util.HexFormat.of()
                .formatHex(mac.doFinal((now + "." + event).getBytes(StandardCharsets.UTF_8)));
    HttpResponse<String> webhook =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/webhooks/payments"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Webhook-Signature", signature)
                .POST(HttpRequest.BodyPublishers.ofString(event))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(webhook.statusCode()).isEqualTo(200);
    assertThat(webhook.body()).contains("processed");
    // and SIGTERM stops it cleanly
    process.toHandle().destroy();
    assertThat(process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isZero();
  }

  @Test
  void badConfiguration_exitsTwoWithOneLineNamingTheVariable(@TempDir Path dir) throws Exception {
    Path errors = dir.resolve("stderr.txt");
    process =
        ChildJvm.command(
                "api",
                Map.of(
                    "COSMOS_ENDPOINT", "https://cosmos.example.net/",
                    "API_AUTH", "none",
                    "PAYMENTS_WEBHOOK_SECRET", "not-long-enough"))
            .redirectError(errors.toFile())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();

    assertThat(process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(Files.readAllLines(errors))
        .anySatisfy(line -> assertThat(line.strip()).startsWith("API_AUTH: none is only allowed"))
        .anySatisfy(line -> assertThat(line.strip()).startsWith("PAYMENTS_WEBHOOK_SECRET: must be"))
        .noneSatisfy(line -> assertThat(line).contains("not-long-enough"));
  }
}
