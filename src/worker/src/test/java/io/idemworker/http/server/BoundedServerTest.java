package io.idemworker.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The server stack through real sockets: what stalled, slow and malformed clients can and cannot do
 * to the others. Every wait is a socket read with a timeout.
 */
class BoundedServerTest {
  private static final Duration PROMPT = Duration.ofSeconds(3);

  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch blocked = new CountDownLatch(2);
  private final List<RawHttp> stalled = new ArrayList<>();
  private BoundedServer server;

  private final Routes routes =
      head -> {
        if (head.path().equals("/health/live")) {
          return new Routes.Now(json(200, "{\"status\":\"UP\"}"));
        }
        if (head.path().equals("/guarded") && head.single("X-Key").isEmpty()) {
          return new Routes.Now(Answer.problem(401, "Unauthorized", "Unauthorized", "no key"));
        }
        if (head.path().equals("/block")) {
          return new Routes.Admit(
              "blocker",
              1024,
              body -> {
                blocked.countDown();
                await(release);
                return Optional.of(json(200, "{}"));
              });
        }
        return new Routes.Admit(
            head.client(), 1024, body -> Optional.of(json(200, "{\"bytes\":" + body.length + "}")));
      };

  private void start(ServerLimits limits) {
    server =
        new BoundedServer(
            "test", new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), limits, routes);
    server.start();
  }

  @AfterEach
  void stop() {
    release.countDown();
    stalled.forEach(RawHttp::close);
    server.close();
  }

  @ParameterizedTest(name = "{0} stalled connections")
  @ValueSource(ints = {16, 100})
  void stalledConnections_doNotDelayProbesOrOtherClients(int connections) {
    // given connections that stall three ways: one byte of a head, a trickled body, a body to a
    // route that refuses on the head
    start(ServerLimits.defaults());
    for (int i = 0; i < connections; i++) {
      RawHttp raw = RawHttp.connect("127.0.0.2", server.port());
      stalled.add(raw);
      switch (i % 3) {
        case 0 -> raw.send("P");
        case 1 -> raw.send(post("/echo", 1000, "x"));
        default -> raw.send(post("/guarded", 1000, "x"));
      }
    }

    // when another client asks for a probe and posts a body
    // then both are answered promptly
    try (RawHttp probe = RawHttp.connect("127.0.0.3", server.port())) {
      RawHttp.Reply live = probe.send("GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n").read(PROMPT);
      assertThat(live.status()).isEqualTo(200);
      assertThat(live.body()).isEqualTo("{\"status\":\"UP\"}");
    }
    try (RawHttp other = RawHttp.connect("127.0.0.3", server.port())) {
      RawHttp.Reply echo = other.send(post("/echo", 5, "hello")).read(PROMPT);
      assertThat(echo.status()).isEqualTo(200);
      assertThat(echo.body()).isEqualTo("{\"bytes\":5}");
    }
  }

  @Test
  void partialHead_isAnswered408ProblemAndClosed_afterTheHeadTimeout() {
    // given a server with a short head timeout
    start(ServerLimits.defaults().withTimeouts(Duration.ofMillis(300), Duration.ofSeconds(30)));

    // when a client sends part of a head and nothing more
    try (RawHttp raw = RawHttp.connect(server.port())) {
      RawHttp.Reply reply = raw.send("POST /echo HTT").read(PROMPT);

      // then it gets a 408 problem and the connection ends
      assertThat(reply.status()).isEqualTo(408);
      assertProblem(reply, "RequestTimeout");
      assertThat(raw.closedWithin(PROMPT)).isTrue();
    }
  }

  @Test
  void trickledBody_isAnswered408ProblemAfterTheBodyTimeout_withoutTheRouteSeeingIt() {
    // given a server with a short body timeout
    start(ServerLimits.defaults().withTimeouts(Duration.ofSeconds(30), Duration.ofMillis(300)));

    // when a client sends a head and part of its body
    try (RawHttp raw = RawHttp.connect(server.port())) {
      String request = post("/echo", 100, "");
      RawHttp.Reply reply = raw.send(request + "abc").read(PROMPT);

      // then it gets a 408 problem and the connection ends
      assertThat(reply.status()).isEqualTo(408);
      assertProblem(reply, "RequestTimeout");
      assertThat(reply.header("Connection")).isEqualTo("close");
    }
  }

  @Test
  void idleKeptAliveConnection_isClosedAfterTheHeadTimeout() {
    // given a server with a short head timeout, and a connection that was answered once
    start(ServerLimits.defaults().withTimeouts(Duration.ofMillis(300), Duration.ofSeconds(30)));
    try (RawHttp raw = RawHttp.connect(server.port())) {
      assertThat(raw.send(post("/echo", 2, "hi")).read(PROMPT).status()).isEqualTo(200);

      // when it sends nothing more, then the server answers 408 and ends it
      assertThat(raw.read(PROMPT).status()).isEqualTo(408);
      assertThat(raw.closedWithin(PROMPT)).isTrue();
    }
  }

  @Test
  void malformedRequests_areAnsweredInTheProblemShape_withoutTheServersOwnText() {
    // given a running server
    start(ServerLimits.defaults());

    // then a bad request line, an oversized head, a signed or malformed Content-Length, a NUL in a
    // header value and an unknown transfer coding are refused in the problem shape
    assertThat(once("GARBAGE\r\n\r\n").status()).isEqualTo(400);
    assertProblem(once("GARBAGE\r\n\r\n"), "MalformedRequest");
    RawHttp.Reply big =
        once("GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(9000) + "\r\n\r\n");
    assertThat(big.status()).isEqualTo(431);
    assertProblem(big, "HeadersTooLarge");
    RawHttp.Reply plus = once("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\nhello");
    assertThat(plus.status()).isEqualTo(400);
    assertProblem(plus, "MalformedRequest");
    RawHttp.Reply nul = once("GET /health/live HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n");
    assertThat(nul.status()).isEqualTo(400);
    assertProblem(nul, "MalformedRequest");
    RawHttp.Reply both =
        once(
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
    assertThat(both.status()).isEqualTo(400);
    assertProblem(both, "MalformedRequest");
  }

  @Test
  void chunkedBodyWithTrailers_isAccepted() {
    // given a running server
    start(ServerLimits.defaults());

    // when a body arrives in chunks with a trailer
    RawHttp.Reply reply =
        once(
            "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3\r\nabc\r\n2\r\nde\r\n0\r\nX-Checksum: 1\r\n\r\n");

    // then the route sees the whole body
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.body()).isEqualTo("{\"bytes\":5}");
  }

  @Test
  void bodyOverTheLimit_is413_byLengthOrByChunks() {
    // given a route that takes at most 1024 bytes
    start(ServerLimits.defaults());

    // then a declared length over it and chunks that add up over it are both refused
    RawHttp.Reply declared = once(post("/echo", 5000, ""));
    assertThat(declared.status()).isEqualTo(413);
    assertProblem(declared, "BodyTooLarge");
    String chunk = Integer.toHexString(800) + "\r\n" + "a".repeat(800) + "\r\n";
    RawHttp.Reply chunked =
        once(
            "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + chunk
                + chunk
                + "0\r\n\r\n");
    assertThat(chunked.status()).isEqualTo(413);
  }

  /**
   * A body over the limit that the client sends whole is read and dropped before the 413, so the
   * connection is not reset under the client while it reads the answer.
   */
  @Test
  void aWholeBodyOverTheLimit_isDrainedAndEveryClientReadsItsAnswer() {
    start(ServerLimits.defaults());

    for (int i = 0; i < 20; i++) {
      RawHttp.Reply reply = once(post("/echo", 70_000, "a".repeat(70_000)));
      assertThat(reply.status()).as("request %d", i).isEqualTo(413);
      assertProblem(reply, "BodyTooLarge");
    }
  }

  @Test
  void oneCallerOverItsShare_is429_andAFullIntake_is503Busy_whileProbesStillAnswer()
      throws Exception {
    // given two requests working (the whole intake) and a caller allowed two at once
    start(new ServerLimits(64, 64, 2, 2, Duration.ofSeconds(10), Duration.ofSeconds(10), 8192));
    RawHttp first = RawHttp.connect(server.port()).send(post("/block", 0, ""));
    RawHttp second = RawHttp.connect(server.port()).send(post("/block", 0, ""));
    stalled.add(first);
    stalled.add(second);
    assertThat(blocked.await(5, TimeUnit.SECONDS)).isTrue();

    // when the same caller sends a third, and another caller one more
    RawHttp.Reply third = once(post("/block", 0, ""));
    RawHttp.Reply other = once(post("/echo", 2, "hi"));

    // then the third is 429, the other is 503 Busy, and probes answer
    assertThat(third.status()).isEqualTo(429);
    assertThat(third.header("Retry-After")).isEqualTo("1");
    assertProblem(third, "TooManyRequests");
    assertThat(other.status()).isEqualTo(503);
    assertProblem(other, "Busy");
    assertThat(once("GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n").status()).isEqualTo(200);

    // and once released, the intake serves again
    release.countDown();
    assertThat(first.read(PROMPT).status()).isEqualTo(200);
    assertThat(once(post("/echo", 2, "hi")).status()).isEqualTo(200);
  }

  @Test
  void aClosedLoopOfAsManyClientsAsWorkers_isNeverAnsweredBusy() throws Exception {
    // given two intake workers and one caller allowed two requests at once
    start(new ServerLimits(64, 64, 2, 2, Duration.ofSeconds(10), Duration.ofSeconds(10), 8192));
    java.util.concurrent.ExecutorService clients =
        java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      // when two clients each send their next request as soon as they have an answer
      List<java.util.concurrent.Future<List<Integer>>> runs = new ArrayList<>();
      for (int c = 0; c < 2; c++) {
        runs.add(
            clients.submit(
                () -> {
                  List<Integer> statuses = new ArrayList<>();
                  try (RawHttp raw = RawHttp.connect(server.port())) {
                    for (int i = 0; i < 300; i++) {
                      statuses.add(raw.send(post("/echo", 2, "hi")).read(PROMPT).status());
                    }
                  }
                  return statuses;
                }));
      }

      // then every answer is 200: a worker is free again before its answer leaves
      for (java.util.concurrent.Future<List<Integer>> run : runs) {
        assertThat(run.get(60, TimeUnit.SECONDS)).hasSize(300).containsOnly(200);
      }
    } finally {
      clients.shutdownNow();
    }
  }

  @Test
  void connectionsOverThePerClientBound_areClosedAtOnce_otherClientsAreServed() {
    // given a bound of four connections per client, all taken
    start(new ServerLimits(64, 4, 4, 4, Duration.ofSeconds(10), Duration.ofSeconds(10), 8192));
    for (int i = 0; i < 4; i++) {
      RawHttp raw = RawHttp.connect("127.0.0.2", server.port());
      stalled.add(raw);
      assertThat(raw.send(post("/echo", 2, "hi")).read(PROMPT).status()).isEqualTo(200);
    }

    // when that client opens a fifth, then it is closed; another client is served
    try (RawHttp fifth = RawHttp.connect("127.0.0.2", server.port())) {
      assertThat(fifth.closedWithin(PROMPT)).isTrue();
    }
    try (RawHttp other = RawHttp.connect("127.0.0.3", server.port())) {
      assertThat(other.send(post("/echo", 2, "hi")).read(PROMPT).status()).isEqualTo(200);
    }
  }

  private RawHttp.Reply once(String request) {
    try (RawHttp raw = RawHttp.connect(server.port())) {
      return raw.send(request).read(PROMPT);
    }
  }

  private static void assertProblem(RawHttp.Reply reply, String reason) {
    assertThat(reply.header("Content-Type")).isEqualTo("application/problem+json");
    assertThat(reply.header("Cache-Control")).isEqualTo("no-store");
    assertThat(reply.body())
        .contains("\"reason\":\"" + reason + "\"")
        .contains("\"type\":\"urn:idemworker:problem:" + reason + "\"")
        .doesNotContainIgnoringCase("exception")
        .doesNotContainIgnoringCase("jetty");
  }

  private static String post(String path, int length, String body) {
    return "POST "
        + path
        + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
        + length
        + "\r\n\r\n"
        + body;
  }

  private static Answer json(int status, String body) {
    return new Answer(status, "application/json", Map.of(), body.getBytes(StandardCharsets.UTF_8));
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
