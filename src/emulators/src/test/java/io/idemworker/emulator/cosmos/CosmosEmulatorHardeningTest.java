package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Inputs found by probing that once got the wrong answer: an authorization header that cannot be
 * URL-decoded, trailing bytes after a document, numbers beyond the double range or the parser's
 * limits, and more connections than the emulator serves.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorHardeningTest {
  private CosmosEmulator emulator;

  @BeforeAll
  void start() throws Exception {
    emulator = CosmosEmulator.builder().start();
    RawHttps.createDbAndContainer(emulator);
  }

  @AfterAll
  void stop() {
    emulator.close();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void authorizationThatCannotBeUrlDecoded_is401WithoutExceptionText() throws Exception {
    try (RawHttps http = new RawHttps(emulator)) {
      String request =
          "GET /dbs/db HTTP/1.1\r\nHost: localhost\r\nx-ms-date: "
              + RawHttps.date()
              + "\r\nAuthorization: type%3Dmaster%26sig%3D%zz\r\n\r\n";

      RawHttps.Response r = http.send(utf8(request));

      assertThat(r.status()).isEqualTo(401);
      assertThat(r.body()).contains("\"code\":\"Unauthorized\"").doesNotContain("Exception");
    }
  }

  @Test
  void documentFollowedByTrailingBytes_is400_andNothingIsStored() throws Exception {
    try (RawHttps http = new RawHttps(emulator)) {
      RawHttps.Response create =
          http.send(http.create("trail", utf8("{\"id\":\"trail\",\"orderId\":\"trail\"} {}")));
      RawHttps.Response read = http.send(http.read("trail", "trail"));

      assertThat(create.status()).isEqualTo(400);
      assertThat(create.body()).contains("BadRequest");
      assertThat(read.status()).isEqualTo(404);
    }
  }

  @Test
  void numberBeyondTheDoubleRange_is400NamingItsPath_andNothingIsStored() throws Exception {
    try (RawHttps http = new RawHttps(emulator)) {
      RawHttps.Response create =
          http.send(
              http.create(
                  "huge",
                  utf8("{\"id\":\"huge\",\"orderId\":\"huge\",\"a\":{\"v\":[1, -1e400]}}")));
      RawHttps.Response read = http.send(http.read("huge", "huge"));

      assertThat(create.status()).isEqualTo(400);
      assertThat(create.body()).contains("/a/v/1").contains("range of a double");
      assertThat(read.status()).isEqualTo(404);
    }
  }

  @Test
  void numberWithTooManyDigits_is400SayingItIsPastTheParserLimits() throws Exception {
    try (RawHttps http = new RawHttps(emulator)) {
      String digits = "9".repeat(200_000);
      RawHttps.Response longNumber =
          http.send(
              http.create(
                  "digits",
                  utf8("{\"id\":\"digits\",\"orderId\":\"digits\",\"n\":" + digits + "}")));
      RawHttps.Response longName =
          http.send(
              http.create(
                  "name",
                  utf8(
                      "{\"id\":\"name\",\"orderId\":\"name\",\"" + "k".repeat(200_000) + "\":1}")));

      assertThat(longNumber.status()).isEqualTo(400);
      assertThat(longNumber.body())
          .contains("beyond the JSON parser's limits")
          .doesNotContain("999");
      assertThat(longName.status()).isEqualTo(400);
      assertThat(longName.body()).contains("beyond the JSON parser's limits").doesNotContain("kkk");
    }
  }

  @Test
  void connectionsPastTheCap_areClosedAtOnce_andThreadsStayBounded() throws Exception {
    try (CosmosEmulator capped = CosmosEmulator.builder().maxConnections(4).start()) {
      String threadPrefix = "cosmos-emulator-conn-" + capped.port() + "-";
      List<Socket> idle = new ArrayList<>();
      try {
        // Idle sockets that never start TLS each hold a connection thread until the idle timeout.
        for (int i = 0; i < 4; i++) {
          Socket s = new Socket();
          s.connect(new InetSocketAddress("127.0.0.1", capped.port()), 10_000);
          idle.add(s);
        }
        try (Socket extra = new Socket()) {
          extra.connect(new InetSocketAddress("127.0.0.1", capped.port()), 10_000);
          extra.setSoTimeout(30_000);

          assertThat(readUntilClosed(extra.getInputStream()))
              .as("the server closes a connection past the cap without a byte")
              .isTrue();
        }
        assertThat(connectionThreads(threadPrefix)).isLessThanOrEqualTo(4);
      } finally {
        for (Socket s : idle) {
          s.close();
        }
      }

      // Once the idle peers are gone their threads are free again: a well-behaved client is served
      // (bounded retry: the server notices the closed sockets on its own schedule).
      RawHttps.Response account = null;
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (account == null && System.nanoTime() < deadline) {
        try (RawHttps http = new RawHttps(capped)) {
          account = http.send(http.signed("GET", "", "", "", null));
        } catch (java.io.IOException refusedWhileThreadsWindDown) {
          Thread.onSpinWait();
        }
      }
      assertThat(account).isNotNull();
      assertThat(account.status()).isEqualTo(200);
    }
  }

  private static boolean readUntilClosed(InputStream in) throws Exception {
    try {
      return in.read() < 0;
    } catch (SocketException reset) {
      return true;
    }
  }

  private static long connectionThreads(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(prefix))
        .count();
  }
}
