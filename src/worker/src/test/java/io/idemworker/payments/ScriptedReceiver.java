package io.idemworker.payments;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A webhook receiver on a JDK HTTP server whose answers a test scripts: each request takes the next
 * scripted step for its event type (a status, or holding the request until released), then 200 once
 * the script is empty. It records every request and checks its signature with an implementation of
 * its own.
 */
final class ScriptedReceiver implements AutoCloseable {
  static final String SECRET = "whsec_scripted_receiver_01";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One request as received. */
  record Received(ObjectNode event, boolean signatureValid) {
    String id() {
      return event.get("id").asText();
    }

    String type() {
      return event.get("type").asText();
    }
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final java.util.Map<String, BlockingQueue<Integer>> scripts =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final BlockingQueue<Received> arrivals = new LinkedBlockingQueue<>();
  private final CountDownLatch release = new CountDownLatch(1);

  /** A scripted step meaning: hold the request until {@link #releaseHeld()}. */
  static final int HOLD = -1;

  ScriptedReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.createContext("/hooks", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hooks");
  }

  /** Scripts the answers to the next requests carrying events of {@code type}. */
  ScriptedReceiver then(String type, int... steps) {
    BlockingQueue<Integer> script = scripts.computeIfAbsent(type, t -> new LinkedBlockingQueue<>());
    for (int step : steps) {
      script.add(step);
    }
    return this;
  }

  List<Received> received() {
    return List.copyOf(received);
  }

  /** The next request to arrive, waiting at most 10 s. */
  Received next() throws InterruptedException {
    Received next = arrivals.poll(10, TimeUnit.SECONDS);
    if (next == null) {
      throw new AssertionError("no webhook arrived within 10 s");
    }
    return next;
  }

  void releaseHeld() {
    release.countDown();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      Received request =
          new Received(
              (ObjectNode) JSON.readTree(body),
              verifies(exchange.getRequestHeaders().getFirst("Webhook-Signature"), body));
      received.add(request);
      arrivals.add(request);
      BlockingQueue<Integer> script = scripts.get(request.type());
      Integer step = script == null ? null : script.poll();
      int status = step == null ? 200 : step;
      if (status == HOLD) {
        release.await(30, TimeUnit.SECONDS);
        status = 200;
      }
      byte[] answer = "{}".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, answer.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(answer);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static boolean verifies(String header, byte[] body) {
    if (header == null || !header.matches("t=[0-9]+,v1=[0-9a-f]{64}")) {
      return false;
    }
    String timestamp = header.substring(2, header.indexOf(','));
    String signature = header.substring(header.indexOf("v1=") + 3);
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.US_ASCII), "HmacSHA256"));
      mac.update((timestamp + ".").getBytes(StandardCharsets.US_ASCII));
      return MessageDigest.isEqual(HexFormat.of().parseHex(signature), mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    release.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
