package io.idemworker.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idemworker.http.server.RawHttp;
import io.idemworker.servicebus.WorkerStatus;
import io.idemworker.servicebus.WorkerStatus.State;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HealthServerTest {
  private static final WorkerStatus RUNNING = new WorkerStatus(State.RUNNING, Optional.empty());

  private final AtomicReference<WorkerStatus> status = new AtomicReference<>(RUNNING);
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private HealthServer server;

  @BeforeEach
  void startServer() {
    server =
        new HealthServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), status::get);
    server.start();
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  @Test
  void stalledConnections_doNotHangTheProbes() {
    // given connections that send one byte of a request and then nothing
    List<RawHttp> stalled = new ArrayList<>();
    try {
      for (int i = 0; i < 20; i++) {
        stalled.add(RawHttp.connect("127.0.0.2", server.port()).send("G"));
      }

      // when the platform probes, then both probes answer at once
      for (String probe : List.of("/health/live", "/health/ready")) {
        try (RawHttp raw = RawHttp.connect("127.0.0.3", server.port())) {
          RawHttp.Reply reply =
              raw.send("GET " + probe + " HTTP/1.1\r\nHost: worker\r\n\r\n")
                  .read(Duration.ofSeconds(2));
          assertThat(reply.status()).as(probe).isEqualTo(200);
        }
      }
    } finally {
      stalled.forEach(RawHttp::close);
    }
  }

  @Test
  void readiness_followsTheWorkerStatus_throughAPauseAndBack() throws Exception {
    HttpResponse<String> running = get("/health/ready");
    status.set(new WorkerStatus(State.PAUSED, Optional.of("store status 403")));
    HttpResponse<String> paused = get("/health/ready");
    status.set(RUNNING);
    HttpResponse<String> resumed = get("/health/ready");

    assertThat(running.statusCode()).isEqualTo(200);
    assertThat(running.body()).isEqualTo("{\"status\":\"READY\"}");
    assertThat(running.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(paused.statusCode()).isEqualTo(503);
    assertThat(paused.body())
        .isEqualTo(
            "{\"status\":\"NOT_READY\",\"state\":\"PAUSED\",\"reason\":\"store status 403\"}");
    assertThat(resumed.statusCode()).isEqualTo(200);
  }

  @Test
  void notYetStartedWorker_isNotReady_withoutAReason() throws Exception {
    status.set(new WorkerStatus(State.CREATED, Optional.empty()));

    HttpResponse<String> response = get("/health/ready");

    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.body()).isEqualTo("{\"status\":\"NOT_READY\",\"state\":\"CREATED\"}");
  }

  @Test
  void statusSupplierThatFails_makesTheWorkerNotReady() throws Exception {
    HealthServer failing =
        new HealthServer(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            () -> {
              throw new IllegalStateException("boom");
            });
    failing.start();
    try {
      HttpResponse<String> response = send(failing.port(), "GET", "/health/ready");

      assertThat(response.statusCode()).isEqualTo(503);
      assertThat(response.body()).contains("\"status\":\"NOT_READY\"");
    } finally {
      failing.close();
    }
  }

  @Test
  void liveness_isUpWhateverTheWorkerDoes() throws Exception {
    HttpResponse<String> running = get("/health/live");
    status.set(new WorkerStatus(State.STOPPED, Optional.of("shutting down")));
    HttpResponse<String> stopped = get("/health/live");

    assertThat(running.statusCode()).isEqualTo(200);
    assertThat(running.body()).isEqualTo("{\"status\":\"UP\"}");
    assertThat(stopped.statusCode()).isEqualTo(200);
  }

  @Test
  void unknownPaths_areNotFound() throws Exception {
    assertThat(get("/").statusCode()).isEqualTo(404);
    assertThat(get("/health").statusCode()).isEqualTo(404);
    assertThat(get("/health/live/extra").statusCode()).isEqualTo(404);
  }

  @Test
  void otherMethods_areNotAllowed() throws Exception {
    HttpResponse<String> post = send(server.port(), "POST", "/health/ready");
    HttpResponse<String> delete = send(server.port(), "DELETE", "/health/live");

    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("Allow")).hasValue("GET");
    assertThat(delete.statusCode()).isEqualTo(405);
  }

  @Test
  void aPortOutsideTheRange_isRefusedNamingTheSetting() {
    // The port's variable is the application's (the worker's HEALTH_PORT, WorkerConfigTest).
    assertThatThrownBy(
            () -> new HealthServer(InetAddress.getLoopbackAddress(), 70_000, status::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the health port must be 0-65535, was 70000");
    assertThatThrownBy(() -> new HealthServer(InetAddress.getLoopbackAddress(), -1, status::get))
        .hasMessageContaining("0-65535");
  }

  private HttpResponse<String> get(String path) throws Exception {
    return send(server.port(), "GET", path);
  }

  private HttpResponse<String> send(int port, String method, String path) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build();
    return client.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
