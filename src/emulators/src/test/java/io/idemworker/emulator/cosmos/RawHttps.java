package io.idemworker.emulator.cosmos;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * One raw HTTP/1.1 connection over TLS to a {@link CosmosEmulator}, for requests no client library
 * would send (bad headers, trailing bytes, odd chunking, pipelining). Signs like the SDK does.
 * Single-threaded; not a general-purpose client.
 */
final class RawHttps implements AutoCloseable {
  private final SSLSocket socket;
  private final InputStream in;
  private final OutputStream out;
  private final String key;

  /** The answer to one request. */
  record Response(int status, Map<String, String> headers, String body) {}

  RawHttps(CosmosEmulator emulator) throws IOException {
    this.key = emulator.key();
    this.socket =
        (SSLSocket) trustAll().getSocketFactory().createSocket("127.0.0.1", emulator.port());
    socket.setSoTimeout(60_000);
    socket.startHandshake();
    this.in = new java.io.BufferedInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  /** Trusts the emulator's self-signed certificate without a trust store; tests only. */
  static SSLContext trustAll() {
    try {
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(
          null,
          new TrustManager[] {
            new X509TrustManager() {
              @Override
              public void checkClientTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public void checkServerTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
              }
            }
          },
          null);
      return ssl;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  static String date() {
    return DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
  }

  /** The url-encoded master-key token for one request. */
  static String authorization(String key, String verb, String type, String link, String date) {
    try {
      String payload =
          verb.toLowerCase(Locale.ROOT)
              + "\n"
              + type
              + "\n"
              + link
              + "\n"
              + date.toLowerCase(Locale.ROOT)
              + "\n\n";
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(Base64.getDecoder().decode(key), "HmacSHA256"));
      String sig =
          Base64.getEncoder().encodeToString(mac.doFinal(payload.getBytes(StandardCharsets.UTF_8)));
      return java.net.URLEncoder.encode("type=master&ver=1.0&sig=" + sig, StandardCharsets.UTF_8);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A signed request with a Content-Length body (none when {@code body} is null).
   *
   * @param extraHeaders name, value, name, value …
   */
  byte[] signed(
      String method, String path, String type, String link, byte[] body, String... extraHeaders) {
    String date = date();
    StringBuilder head = new StringBuilder();
    head.append(method).append(' ').append('/').append(path).append(" HTTP/1.1\r\n");
    head.append("Host: localhost\r\n");
    head.append("x-ms-date: ").append(date).append("\r\n");
    head.append("x-ms-version: 2020-07-15\r\n");
    head.append("Authorization: ")
        .append(authorization(key, method, type, link, date))
        .append("\r\n");
    for (int i = 0; i < extraHeaders.length; i += 2) {
      head.append(extraHeaders[i]).append(": ").append(extraHeaders[i + 1]).append("\r\n");
    }
    if (body != null) {
      head.append("Content-Length: ").append(body.length).append("\r\n");
    }
    head.append("\r\n");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
    if (body != null) {
      bytes.writeBytes(body);
    }
    return bytes.toByteArray();
  }

  /** A signed item create in {@code dbs/db/colls/c} with partition key {@code pk}. */
  byte[] create(String pk, byte[] body) {
    return signed(
        "POST",
        "dbs/db/colls/c/docs",
        "docs",
        "dbs/db/colls/c",
        body,
        "x-ms-documentdb-partitionkey",
        "[\"" + pk + "\"]",
        "Content-Type",
        "application/json");
  }

  /** A signed point read of {@code id} in {@code dbs/db/colls/c}. */
  byte[] read(String pk, String id) {
    return signed(
        "GET",
        "dbs/db/colls/c/docs/" + id,
        "docs",
        "dbs/db/colls/c/docs/" + id,
        null,
        "x-ms-documentdb-partitionkey",
        "[\"" + pk + "\"]");
  }

  /** Creates database {@code db} and container {@code c} (partition key /orderId) if missing. */
  static void createDbAndContainer(CosmosEmulator emulator) throws IOException {
    try (RawHttps http = new RawHttps(emulator)) {
      http.send(
          http.signed(
              "POST", "dbs", "dbs", "", "{\"id\":\"db\"}".getBytes(StandardCharsets.UTF_8)));
      http.send(
          http.signed(
              "POST",
              "dbs/db/colls",
              "colls",
              "dbs/db",
              "{\"id\":\"c\",\"partitionKey\":{\"paths\":[\"/orderId\"],\"kind\":\"Hash\"}}"
                  .getBytes(StandardCharsets.UTF_8)));
    }
  }

  /** Writes the bytes and reads one answer. */
  Response send(byte[] request) throws IOException {
    write(request);
    return read().orElseThrow(() -> new EOFException("connection closed without an answer"));
  }

  void soTimeout(int millis) throws IOException {
    socket.setSoTimeout(millis);
  }

  void write(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** The next answer, skipping interim 1xx ones; empty when the server closed the connection. */
  Optional<Response> read() throws IOException {
    while (true) {
      String statusLine;
      try {
        statusLine = line(true);
      } catch (SocketException e) {
        return Optional.empty();
      }
      if (statusLine == null) {
        return Optional.empty();
      }
      String[] parts = statusLine.split(" ", 3);
      int status = Integer.parseInt(parts[1]);
      Map<String, String> headers = new LinkedHashMap<>();
      for (String h = line(false); !h.isEmpty(); h = line(false)) {
        int colon = h.indexOf(':');
        headers.put(
            h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
      }
      if (status < 200) {
        continue;
      }
      int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
      byte[] body = in.readNBytes(length);
      if (body.length < length) {
        throw new EOFException("body cut short");
      }
      return Optional.of(new Response(status, headers, new String(body, StandardCharsets.UTF_8)));
    }
  }

  private String line(boolean eofAllowed) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        if (eofAllowed && buf.size() == 0) {
          return null;
        }
        throw new EOFException();
      }
      buf.write(b);
    }
    String s = buf.toString(StandardCharsets.ISO_8859_1);
    return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
