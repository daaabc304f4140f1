package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.util.Random;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Malformed HTTP and non-TLS bytes on the emulator's port: each bad connection is answered with an
 * error or closed, and the real client keeps working.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorHttpRobustnessTest {
  private CosmosEmulator emulator;
  private CosmosClient client;
  private SSLContext ssl;

  @BeforeAll
  void start() throws Exception {
    emulator = CosmosEmulator.builder().start();
    client = Clients.sync(emulator);
    client.createDatabaseIfNotExists("db");
    client.getDatabase("db").createContainerIfNotExists(Clients.containerProps("c", null));
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("emulator", emulator.certificate());
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
  }

  @AfterAll
  void stop() {
    client.close();
    emulator.close();
  }

  /** Sends raw bytes over TLS, half-closes, and returns what the server answered before closing. */
  private String exchange(byte[] request) throws IOException {
    try (SSLSocket s =
        (SSLSocket)
            ssl.getSocketFactory()
                .createSocket(InetAddress.getLoopbackAddress(), emulator.port())) {
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write(request);
      out.flush();
      s.shutdownOutput();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    } catch (UnsupportedOperationException e) {
      // SSLSocket cannot half-close before TLS 1.3 on some providers; close fully instead
      return "";
    }
  }

  private void assertClientStillWorks(String id) {
    assertThat(
            client
                .getDatabase("db")
                .getContainer("c")
                .createItem(CosmosEmulatorSyncClientTest.order(id, "p"))
                .getStatusCode())
        .isEqualTo(201);
  }

  @Test
  void malformedRequestLine_is400() throws IOException {
    String answer = exchange("NONSENSE\r\n\r\n".getBytes(StandardCharsets.US_ASCII));

    assertThat(answer).startsWith("HTTP/1.1 400");
    assertClientStillWorks("after-bad-line");
  }

  @Test
  void malformedHeaderAndLength_are400() throws IOException {
    String noColon =
        exchange("GET / HTTP/1.1\r\nbroken header\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    String badLength =
        exchange(
            "POST /dbs HTTP/1.1\r\nContent-Length: -5\r\n\r\n".getBytes(StandardCharsets.US_ASCII));

    assertThat(noColon).startsWith("HTTP/1.1 400");
    assertThat(badLength).startsWith("HTTP/1.1 400");
    assertClientStillWorks("after-bad-headers");
  }

  @Test
  void hugeDeclaredBody_is413WithoutBeingRead() throws IOException {
    String answer =
        exchange(
            "POST /dbs/db/colls/c/docs HTTP/1.1\r\nContent-Length: 999999999\r\n\r\n{"
                .getBytes(StandardCharsets.US_ASCII));

    assertThat(answer).startsWith("HTTP/1.1 413");
  }

  @Test
  void truncatedRequestsAndRandomBytes_onlyCloseTheirConnection() throws IOException {
    exchange(
        "POST /dbs HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"id\""
            .getBytes(StandardCharsets.US_ASCII));
    exchange("GET / HTTP/1.1\r\nHost: x".getBytes(StandardCharsets.US_ASCII));
    Random random = new Random(42);
    for (int i = 0; i < 20; i++) {
      byte[] garbage = new byte[1 + random.nextInt(2048)];
      random.nextBytes(garbage);
      exchange(garbage);
    }
    try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), emulator.port())) {
      plain.setSoTimeout(30_000);
      plain.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      plain.getOutputStream().flush();
      assertThat(plain.getInputStream().readAllBytes().length).isLessThan(10_000);
    } catch (IOException expected) {
      // a reset is as good as a close
    }

    assertClientStillWorks("after-garbage-bytes");
  }

  @Test
  void keepAlive_servesSeveralRequestsOnOneConnection() throws IOException {
    String one = "GET /nothing HTTP/1.1\r\nHost: localhost\r\n\r\n";
    String answer = exchange((one + one).getBytes(StandardCharsets.US_ASCII));

    // An unknown path is answered before the signature is checked: 404, twice.
    assertThat(answer.split("HTTP/1.1 404", -1)).hasSize(3);
  }
}
