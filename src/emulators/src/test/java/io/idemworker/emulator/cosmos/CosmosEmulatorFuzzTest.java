package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.testing.FuzzBudget;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzzes the Cosmos DB emulator with seeded mutated HTTP over TLS: signed requests of every kind
 * the SDK sends, then with headers dropped, garbled or duplicated, bad signatures, odd paths and
 * percent-encodings, generated bodies (numbers beyond the double range, deep nesting, trailing
 * bytes, odd Unicode), chunked bodies with random and bad chunk sizes, pipelined requests and
 * random byte flips. Every answer must be one of the service's status codes, never a 500 and never
 * exception text; the connection threads stay under the cap; a well-formed client is served after.
 *
 * <p>Bounded by {@link FuzzBudget}: a few seconds in the default build, longer with {@code -Pfuzz}
 * or {@code -Dfuzz.seconds=N}; {@code -Dfuzz.seed=S} replays or varies the cases.
 */
class CosmosEmulatorFuzzTest {
  private static final Set<Integer> SERVICE_STATUSES =
      Set.of(200, 201, 204, 207, 304, 400, 401, 404, 405, 409, 412, 413, 501);
  private static final int MAX_CONNECTIONS = 32;
  private CosmosEmulator emulator;

  @BeforeEach
  void start() throws Exception {
    emulator = CosmosEmulator.builder().maxConnections(MAX_CONNECTIONS).start();
    RawHttps.createDbAndContainer(emulator);
  }

  @AfterEach
  void stop() {
    emulator.close();
  }

  // The suite default (120 s) is for ordinary tests; -Pfuzz runs this one for minutes.
  @Test
  @Timeout(value = 2, unit = TimeUnit.HOURS)
  void mutatedRequests_getServiceStatusesWithoutExceptionText_andAWellFormedClientIsServed()
      throws Exception {
    FuzzBudget budget = FuzzBudget.fromSystemProperties(120);
    Random random = new Random(budget.seed());
    long started = System.nanoTime();
    int cases = 0;
    while (budget.allows(started, cases)) {
      String what = "case " + cases + " (seed " + budget.seed() + ")";
      try (RawHttps http = new RawHttps(emulator)) {
        http.write(fuzzCase(http, random));
        for (int answers = 0; answers < 4; answers++) {
          Optional<RawHttps.Response> r = readOrSilence(http);
          if (r.isEmpty()) {
            break;
          }
          assertThat(r.get().status()).as(what + " " + r.get()).isIn(SERVICE_STATUSES);
          assertThat(r.get().body())
              .as(what)
              .doesNotContain("Exception")
              .doesNotContain("java.")
              .doesNotContain("\tat ");
        }
      } catch (IOException handshakeOrWriteRefused) {
        // the server closed a connection it would not serve: allowed
      }
      cases++;
    }

    assertThat(connectionThreads()).isLessThanOrEqualTo(MAX_CONNECTIONS);
    try (RawHttps http = new RawHttps(emulator)) {
      byte[] doc = "{\"id\":\"after\",\"orderId\":\"after\"}".getBytes(StandardCharsets.UTF_8);
      assertThat(http.send(http.create("after", doc)).status()).isIn(201, 409);
      assertThat(http.send(http.read("after", "after")).status()).isEqualTo(200);
    }
    assertThat(cases).isPositive();
  }

  private static Optional<RawHttps.Response> readOrSilence(RawHttps http) throws IOException {
    try {
      return http.read();
    } catch (SocketTimeoutException | java.io.EOFException | NumberFormatException silent) {
      return Optional.empty();
    }
  }

  private long connectionThreads() {
    String prefix = "cosmos-emulator-conn-" + emulator.port() + "-";
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(prefix))
        .count();
  }

  private byte[] fuzzCase(RawHttps http, Random random) throws IOException {
    http.soTimeout(1500);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int requests = random.nextInt(5) == 0 ? 2 + random.nextInt(2) : 1;
    for (int i = 0; i < requests; i++) {
      byte[] request = request(http, random);
      out.writeBytes(
          switch (random.nextInt(8)) {
            case 0 -> flipBytes(request, random);
            case 1 -> chunked(request, random);
            case 2 -> garbleHeaders(request, random);
            default -> request;
          });
    }
    return out.toByteArray();
  }

  private static byte[] request(RawHttps http, Random random) {
    String id = pick(random, List.of("a", "b", "%2Fx", "é", "a b", "x".repeat(300), "", "..", "."));
    String pk = "[\"" + id + "\"]";
    byte[] body = body(random, id).getBytes(StandardCharsets.UTF_8);
    return switch (random.nextInt(9)) {
      case 0 -> http.signed("GET", "", "", "", null);
      case 1 -> http.signed("GET", "dbs/db", "dbs", "dbs/db", null);
      case 2 ->
          http.signed(
              "GET",
              "dbs/db/colls/c/pkranges",
              "pkranges",
              "dbs/db/colls/c",
              null,
              "A-IM",
              "Incremental Feed");
      case 3 ->
          http.signed(
              "POST",
              "dbs/db/colls/c/docs",
              "docs",
              "dbs/db/colls/c",
              body,
              "x-ms-documentdb-partitionkey",
              pick(random, List.of(pk, "[1e400]", "x", "[]", pk + " ")),
              "x-ms-documentdb-is-upsert",
              random.nextBoolean() ? "true" : "false");
      case 4 ->
          http.signed(
              "GET",
              "dbs/db/colls/c/docs/" + id,
              "docs",
              "dbs/db/colls/c/docs/" + id,
              null,
              "x-ms-documentdb-partitionkey",
              pk);
      case 5 ->
          http.signed(
              pick(random, List.of("PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "get")),
              "dbs/db/colls/c/docs/" + id,
              "docs",
              "dbs/db/colls/c/docs/" + id,
              body,
              "x-ms-documentdb-partitionkey",
              pk,
              "If-Match",
              "\"nope\"");
      case 6 ->
          http.signed(
              "POST",
              "dbs/db/colls/c/docs",
              "docs",
              "dbs/db/colls/c",
              ("[{\"operationType\":\""
                      + pick(random, List.of("Create", "Upsert", "Read", "Patch", "X"))
                      + "\",\"id\":\""
                      + id
                      + "\",\"resourceBody\":"
                      + body(random, id)
                      + "}]")
                  .getBytes(StandardCharsets.UTF_8),
              "x-ms-cosmos-is-batch-request",
              "true",
              "x-ms-cosmos-batch-atomic",
              random.nextBoolean() ? "true" : "false",
              "x-ms-documentdb-partitionkey",
              pk);
      case 7 -> {
        String path = randomPath(random);
        yield http.signed(pick(random, List.of("GET", "POST", "DELETE")), path, "docs", path, body);
      }
      default ->
          http.signed(
              "POST",
              "dbs/db/colls",
              "colls",
              "dbs/db",
              body,
              "x-ms-documentdb-isquery",
              random.nextBoolean() ? "true" : "false");
    };
  }

  private static String body(Random random, String id) {
    String value =
        pick(
            random,
            List.of(
                "1",
                "1e400",
                "-1e400",
                "1e-400",
                "9".repeat(1001),
                "0.1",
                "\"\\ud800\"",
                "\"\u202e\"",
                "[".repeat(1001) + "]".repeat(1001),
                "[".repeat(50) + "]".repeat(50),
                "{\"a\":1,\"a\":2}",
                "null",
                "true",
                "\"" + "s".repeat(3000) + "\""));
    String doc = "{\"id\":\"" + id + "\",\"orderId\":\"" + id + "\",\"v\":" + value;
    return switch (random.nextInt(6)) {
      case 0 -> doc + "} {}";
      case 1 -> doc;
      case 2 -> doc + ",\"ttl\":" + pick(random, List.of("0", "-2", "1.5", "\"x\"")) + "}";
      default -> doc + "}";
    };
  }

  private static String randomPath(Random random) {
    StringBuilder path = new StringBuilder();
    int segments = random.nextInt(10);
    for (int i = 0; i < segments; i++) {
      if (i > 0) {
        path.append('/');
      }
      path.append(
          pick(
              random,
              List.of(
                  "dbs",
                  "db",
                  "colls",
                  "c",
                  "docs",
                  "pkranges",
                  "sprocs",
                  "%",
                  "%zz",
                  "%00",
                  "%2F",
                  "..",
                  "x".repeat(2000),
                  "AAAAAA==",
                  "é")));
    }
    return path.toString();
  }

  private static byte[] chunked(byte[] request, Random random) {
    String text = new String(request, StandardCharsets.ISO_8859_1);
    int split = text.indexOf("\r\n\r\n");
    String head = text.substring(0, split).replaceAll("(?i)\r\nContent-Length: \\d+", "");
    byte[] body = text.substring(split + 4).getBytes(StandardCharsets.ISO_8859_1);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(
        (head + "\r\nTransfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
    int at = 0;
    while (at < body.length) {
      int n = Math.min(body.length - at, 1 + random.nextInt(64));
      String size =
          random.nextInt(20) == 0
              ? pick(random, List.of("zz", "-1", "fffffffff", "7fffffff", ""))
              : Integer.toHexString(n) + (random.nextInt(10) == 0 ? ";ext=1" : "");
      out.writeBytes((size + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
      out.write(body, at, n);
      out.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
      at += n;
    }
    out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    return out.toByteArray();
  }

  private static byte[] garbleHeaders(byte[] request, Random random) {
    String text = new String(request, StandardCharsets.ISO_8859_1);
    String garbled =
        switch (random.nextInt(7)) {
          case 0 ->
              text.replaceFirst(
                  "Authorization: [^\r]*", "Authorization: type%3Dmaster%26sig%3D%zz");
          case 1 -> text.replaceFirst("Authorization: [^\r]*", "Authorization: ");
          case 2 -> text.replaceFirst("x-ms-date: [^\r]*", "x-ms-date: yesterday");
          case 3 -> text.replaceFirst("Content-Length: \\d+", "Content-Length: -5");
          case 4 ->
              text.replaceFirst("Content-Length: \\d+", "Content-Length: 99999999999999999999");
          case 5 -> text.replaceFirst("Host: localhost", "Host: localhost\r\nNoColonHere");
          default -> text.replaceFirst(" HTTP/1.1", " HTTP/9.9");
        };
    return garbled.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static byte[] flipBytes(byte[] request, Random random) {
    byte[] out = request.clone();
    int flips = 1 + random.nextInt(4);
    for (int i = 0; i < flips; i++) {
      out[random.nextInt(out.length)] = (byte) random.nextInt(256);
    }
    return out;
  }

  private static String pick(Random random, List<String> options) {
    return options.get(random.nextInt(options.size()));
  }
}
