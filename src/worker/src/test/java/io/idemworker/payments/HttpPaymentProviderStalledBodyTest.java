package io.idemworker.payments;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.orders.CaptureAnswer;
import io.idemworker.orders.CaptureAnswer.Ambiguous;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A provider that sends its headers and then stalls in the body: a shape the double never gives.
 * The JDK client's own request timeout stops counting once the headers arrive, so this proves the
 * adapter bounds the whole answer.
 */
class HttpPaymentProviderStalledBodyTest {

  @Test
  void bodyThatStallsAfterTheHeaders_isAmbiguousAfterTheTimeout() throws Exception {
    CountDownLatch testDone = new CountDownLatch(1);
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture<Void> stalling =
          CompletableFuture.runAsync(() -> answerHeadersThenStall(server, testDone));
      HttpPaymentProvider provider =
          new HttpPaymentProvider(
              URI.create("http://127.0.0.1:" + server.getLocalPort()),
              "sk_test_idemworker",
              Duration.ofSeconds(1));

      CaptureAnswer answer = provider.capture("pay-1", "ord-1", BigDecimal.ONE, "EUR");

      assertThat(answer).isInstanceOf(Ambiguous.class);
      assertThat(((Ambiguous) answer).description()).startsWith("no answer within PT1S");
      testDone.countDown();
      stalling.get(30, TimeUnit.SECONDS);
    } finally {
      testDone.countDown();
    }
  }

  private static void answerHeadersThenStall(ServerSocket server, CountDownLatch testDone) {
    try (Socket socket = server.accept()) {
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[8192];
      String request = "";
      while (!request.contains("\r\n\r\n")) {
        int n = in.read(buffer);
        if (n < 0) {
          return;
        }
        request += new String(buffer, 0, n, StandardCharsets.ISO_8859_1);
      }
      OutputStream out = socket.getOutputStream();
      out.write(
          "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
              .getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      testDone.await(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
