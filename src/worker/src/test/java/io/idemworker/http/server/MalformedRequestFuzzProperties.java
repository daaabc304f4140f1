package io.idemworker.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Requests no well-behaved client sends, drawn at random and sent through a real socket: request
 * smuggling shapes (Content-Length with Transfer-Encoding, two lengths, signed or hex lengths,
 * obsolete line folding, bare LF), bad request lines and versions, control characters, bad chunk
 * sizes, and each cut off at a random point (a slow or partial request). Whatever arrives, the
 * server answers within its timeouts with a status it documents, every error in the problem shape
 * with {@code Cache-Control: no-store}, or closes the connection; it never answers 500, never lets
 * a second request hide in a body, and still serves the next client. Seeded; {@code -Pfuzz} runs
 * more tries.
 */
class MalformedRequestFuzzProperties {
  private static final Set<Integer> DOCUMENTED =
      Set.of(200, 400, 401, 404, 405, 408, 411, 413, 414, 415, 426, 429, 431, 501, 503, 505);
  private static BoundedServer server;

  @BeforeContainer
  static void start() {
    Routes routes =
        head -> {
          if (head.path().equals("/health/live")) {
            return new Routes.Now(
                new Answer(
                    200, "application/json", Map.of(), "{}".getBytes(StandardCharsets.UTF_8)));
          }
          if (head.path().equals("/guarded") && head.single("X-Key").isEmpty()) {
            return new Routes.Now(Answer.problem(401, "Unauthorized", "Unauthorized", "no key"));
          }
          return new Routes.Admit(
              head.client(),
              1024,
              body ->
                  Optional.of(
                      new Answer(
                          200,
                          "application/json",
                          Map.of(),
                          ("{\"bytes\":" + body.length + "}").getBytes(StandardCharsets.UTF_8))));
        };
    server =
        new BoundedServer(
            "fuzz",
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            ServerLimits.defaults().withTimeouts(Duration.ofMillis(300), Duration.ofMillis(300)),
            routes);
    server.start();
  }

  @AfterContainer
  static void stop() {
    server.close();
  }

  @Property(tries = 150, seed = "20261202")
  void anyRequest_isAnsweredAsDocumentedOrClosed_andTheServerStaysUsable(
      @ForAll("hostile") String request, @ForAll("cut") double keep) {
    String sent = request.substring(0, (int) Math.round(request.length() * keep));
    try (RawHttp raw = RawHttp.connect(server.port())) {
      RawHttp.Reply reply = raw.send(sent).read(Duration.ofSeconds(5));
      if (!reply.closed()) {
        assertThat(DOCUMENTED).as(sent).contains(reply.status());
        assertThat(reply.header("Cache-Control")).as(sent).isEqualTo("no-store");
        if (reply.status() >= 400) {
          assertThat(reply.header("Content-Type")).as(sent).isEqualTo("application/problem+json");
          assertThat(reply.body())
              .as(sent)
              .contains("\"reason\":")
              .doesNotContainIgnoringCase("exception");
        }
        // Framing two parsers could read two ways (a length and a transfer coding, or two
        // lengths) is refused, so no request can hide in another's body.
        if (ambiguous(sent)) {
          assertThat(reply.status()).as(sent).isGreaterThanOrEqualTo(400);
        }
      }
    }
    try (RawHttp probe = RawHttp.connect(server.port())) {
      assertThat(
              probe
                  .send("GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
                  .read(Duration.ofSeconds(2))
                  .status())
          .isEqualTo(200);
    }
  }

  private static boolean ambiguous(String request) {
    String head = request.split("\r?\n\r?\n", 2)[0].toLowerCase(java.util.Locale.ROOT);
    long lengths = head.lines().filter(l -> l.startsWith("content-length:")).count();
    boolean coding = head.lines().anyMatch(l -> l.startsWith("transfer-encoding:"));
    return lengths > 1 || (lengths == 1 && coding);
  }

  @Provide
  Arbitrary<Double> cut() {
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, Arbitraries.just(1.0)),
        net.jqwik.api.Tuple.of(1, Arbitraries.doubles().between(0, 1)));
  }

  @Provide
  Arbitrary<String> hostile() {
    Arbitrary<String> method =
        Arbitraries.of("GET", "POST", "PUT", "DELETE", "G\u0000T", "", "POST ");
    Arbitrary<String> target =
        Arbitraries.of(
            "/echo",
            "/guarded",
            "/health/live",
            "/x/../echo",
            "*",
            "http://h/echo",
            "/e cho",
            "/%00");
    Arbitrary<String> version =
        Arbitraries.of("HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.1 ", "HTTP/9", "", "http/1.1");
    Arbitrary<String> eol = Arbitraries.of("\r\n", "\n");
    Arbitrary<List<String>> headers =
        Arbitraries.of(
                "Content-Length: 5",
                "Content-Length: +5",
                "Content-Length: 0x5",
                "Content-Length: 5, 6",
                "Content-Length: -1",
                "Content-Length: 99999999999999999999",
                "Transfer-Encoding: chunked",
                "Transfer-Encoding: gzip, chunked",
                "Transfer-Encoding: chunked, gzip",
                "Transfer-Encoding : chunked",
                "Transfer-Encoding: xchunked",
                "X-Folded: a\r\n b",
                "X-Nul: a\u0000b",
                "X-Esc: \u001b[31m",
                "Host: x",
                "Host: y",
                "X-Key: k",
                "Expect: 100-continue",
                "Connection: close",
                " Leading: space",
                "NoColon")
            .list()
            .ofMaxSize(4);
    Arbitrary<String> body =
        Arbitraries.of(
            "",
            "hello",
            "0\r\n\r\n",
            "5\r\nhello\r\n0\r\n\r\n",
            "5;ext=1\r\nhello\r\n0\r\nX-T: 1\r\n\r\n",
            "zz\r\nhello\r\n0\r\n\r\n",
            "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n",
            "hello" + "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n");
    return Combinators.combine(method, target, version, eol, headers, body)
        .as(
            (m, t, v, nl, hs, b) -> {
              StringBuilder request =
                  new StringBuilder(m).append(' ').append(t).append(' ').append(v).append(nl);
              hs.forEach(h -> request.append(h.replace("\r\n", nl)).append(nl));
              return request.append(nl).append(b).toString();
            });
  }
}
