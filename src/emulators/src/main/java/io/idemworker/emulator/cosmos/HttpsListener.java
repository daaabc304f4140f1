package io.idemworker.emulator.cosmos;

import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small HTTP/1.1 server over TLS: blocking sockets, one thread per connection, keep-alive,
 * Content-Length and chunked request bodies, {@code Expect: 100-continue}. Every accepted socket
 * has TCP_NODELAY on, so no answer waits on the peer's delayed ACK, whatever the system properties.
 *
 * <p>At most {@code maxConnections} connections are served at once, each on its own thread; a
 * connection accepted past that is closed at once (before the TLS handshake) and the refusal is
 * logged, so threads and memory stay bounded whatever the peers do. A connection idle for {@value
 * #IDLE_TIMEOUT_MILLIS} ms is closed and frees its thread.
 *
 * <p>A malformed request gets 400 and the connection is closed; an I/O failure closes only its own
 * connection. The handler must not throw.
 */
final class HttpsListener implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HttpsListener.class);
  private static final int MAX_LINE = 16 * 1024;
  private static final int MAX_HEADERS = 200;
  private static final int IDLE_TIMEOUT_MILLIS = 120_000;
  private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

  private final ServerSocket serverSocket;
  private final Function<HttpRequest, HttpReply> handler;
  private final int maxBodyBytes;
  private final ExecutorService connections;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final int maxConnections;
  private final AtomicLong refused = new AtomicLong();
  private final Thread acceptor;
  private volatile boolean closed;

  HttpsListener(
      SSLContext ssl,
      InetAddress address,
      int port,
      int maxBodyBytes,
      int maxConnections,
      Function<HttpRequest, HttpReply> handler)
      throws IOException {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be positive, got " + maxConnections);
    }
    this.serverSocket = ssl.getServerSocketFactory().createServerSocket(port, 512, address);
    this.handler = handler;
    this.maxBodyBytes = maxBodyBytes;
    this.maxConnections = maxConnections;
    // No queue: a connection either gets a thread now or is refused, never waits unserved.
    this.connections =
        new ThreadPoolExecutor(
            0,
            maxConnections,
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            daemonThreads("cosmos-emulator-conn-" + port() + "-"));
    // Not a daemon, like the JDK server's dispatcher: a plain main keeps serving until close().
    this.acceptor = new Thread(this::acceptLoop, "cosmos-emulator-accept-" + port());
  }

  void start() {
    acceptor.start();
  }

  int port() {
    return serverSocket.getLocalPort();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket socket;
      try {
        socket = serverSocket.accept();
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("accept failed on port {}", port(), e);
          // back off so that a persistent failure (e.g. out of file descriptors) does not spin
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        continue;
      }
      try {
        socket.setTcpNoDelay(true);
        // A client that connects and goes silent (no handshake, a short body, no FIN) must not
        // hold a thread forever; the SDK closes idle connections after 60 s.
        socket.setSoTimeout(IDLE_TIMEOUT_MILLIS);
        open.add(socket);
        connections.execute(() -> serve(socket));
      } catch (RejectedExecutionException e) {
        open.remove(socket);
        closeQuietly(socket);
        refuse();
      } catch (IOException | RuntimeException e) {
        open.remove(socket);
        closeQuietly(socket);
      }
    }
  }

  private void refuse() {
    long n = refused.incrementAndGet();
    // One line per burst, not one per connection: a flood must not flood the log as well.
    if (!closed && Long.bitCount(n) == 1) {
      LOG.warn(
          "refused a connection on port {}: {} connections are open, the most this emulator serves"
              + " at once (idle ones close after {} s); {} refused so far",
          port(),
          maxConnections,
          IDLE_TIMEOUT_MILLIS / 1000,
          n);
    }
  }

  /** How many connections were closed unserved because {@code maxConnections} were open. */
  long refusedConnections() {
    return refused.get();
  }

  private void serve(Socket socket) {
    try (socket) {
      Input in = new Input(socket.getInputStream());
      OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 32 * 1024);
      while (!closed) {
        HttpRequest request;
        try {
          request = read(in, out);
        } catch (BadRequest e) {
          write(out, e.reply, false);
          return;
        }
        if (request == null) {
          return;
        }
        HttpReply reply = handler.apply(request);
        boolean keepAlive = !"close".equalsIgnoreCase(request.getFirst("connection"));
        write(out, reply, keepAlive);
        if (!keepAlive) {
          return;
        }
      }
    } catch (EOFException | SocketException e) {
      // the peer went away or we are closing
    } catch (IOException e) {
      LOG.debug("connection closed after I/O failure", e);
    } finally {
      open.remove(socket);
    }
  }

  /** Reads one request; null at a clean end of stream before a request line. */
  private HttpRequest read(Input in, OutputStream out) throws IOException {
    String line = readLine(in, true);
    if (line == null) {
      return null;
    }
    long arrived = System.nanoTime();
    String[] parts = line.split(" ");
    if (parts.length != 3 || !parts[2].startsWith("HTTP/1.")) {
      throw new BadRequest("Malformed request line");
    }
    Map<String, String> headers = new HashMap<>();
    for (int n = 0; ; n++) {
      String h = readLine(in, false);
      if (h.isEmpty()) {
        break;
      }
      if (n >= MAX_HEADERS) {
        throw new BadRequest("Too many headers");
      }
      int colon = h.indexOf(':');
      if (colon <= 0) {
        throw new BadRequest("Malformed header line");
      }
      headers.putIfAbsent(
          h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
    }
    if ("100-continue".equalsIgnoreCase(headers.get("expect"))) {
      out.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
    }
    byte[] body;
    String te = headers.get("transfer-encoding");
    if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
      body = readChunked(in);
    } else {
      String cl = headers.get("content-length");
      long length;
      try {
        length = cl == null ? 0 : Long.parseLong(cl.trim());
      } catch (NumberFormatException e) {
        throw new BadRequest("Invalid Content-Length");
      }
      if (length < 0) {
        throw new BadRequest("Invalid Content-Length");
      }
      if (length > maxBodyBytes) {
        throw new BadRequest(413, "Request size is too large");
      }
      body = in.readExactly((int) length);
    }
    String target = parts[1];
    if (target.startsWith("http://") || target.startsWith("https://")) {
      int slash = target.indexOf('/', target.indexOf("//") + 2);
      target = slash < 0 ? "/" : target.substring(slash);
    }
    int query = target.indexOf('?');
    String path = query < 0 ? target : target.substring(0, query);
    return new HttpRequest(parts[0].toUpperCase(Locale.ROOT), path, headers, body, arrived);
  }

  private byte[] readChunked(Input in) throws IOException {
    java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
    while (true) {
      String sizeLine = readLine(in, false);
      int semi = sizeLine.indexOf(';');
      int size;
      try {
        size = Integer.parseInt((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
      } catch (NumberFormatException e) {
        throw new BadRequest("Invalid chunk size");
      }
      if (size < 0 || buf.size() + (long) size > maxBodyBytes) {
        throw new BadRequest(413, "Request size is too large");
      }
      if (size == 0) {
        while (!readLine(in, false).isEmpty()) {
          // trailers are ignored
        }
        return buf.toByteArray();
      }
      buf.write(in.readExactly(size));
      readLine(in, false);
    }
  }

  /** An ASCII line without its CRLF; null at end of stream only if {@code eofAllowed}. */
  private static String readLine(Input in, boolean eofAllowed) throws IOException {
    return in.readLine(eofAllowed);
  }

  private static void write(OutputStream out, HttpReply reply, boolean keepAlive)
      throws IOException {
    boolean noBody = reply.status == 204 || reply.status == 304 || reply.status < 200;
    byte[] body = noBody || reply.body == null ? new byte[0] : reply.body;
    StringBuilder head = new StringBuilder(512);
    head.append("HTTP/1.1 ").append(reply.status).append(' ').append(reason(reply.status));
    head.append("\r\nDate: ").append(httpDate());
    for (Map.Entry<String, String> h : reply.headers.entrySet()) {
      head.append("\r\n").append(h.getKey()).append(": ").append(h.getValue());
    }
    if (!noBody) {
      head.append("\r\nContent-Length: ").append(body.length);
    }
    if (!keepAlive) {
      head.append("\r\nConnection: close");
    }
    head.append("\r\n\r\n");
    out.write(head.toString().getBytes(StandardCharsets.UTF_8));
    out.write(body);
    out.flush();
  }

  private static volatile String[] cachedDate = {"", ""};

  /** The Date header value, formatted at most once a second. */
  private static String httpDate() {
    String[] cached = cachedDate;
    String second = Long.toString(System.currentTimeMillis() / 1000);
    if (!second.equals(cached[0])) {
      cached = new String[] {second, HTTP_DATE.format(ZonedDateTime.now(ZoneOffset.UTC))};
      cachedDate = cached;
    }
    return cached[1];
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 201 -> "Created";
      case 204 -> "No Content";
      case 207 -> "Multi-Status";
      case 304 -> "Not Modified";
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 408 -> "Request Timeout";
      case 409 -> "Conflict";
      case 412 -> "Precondition Failed";
      case 413 -> "Request Entity Too Large";
      case 424 -> "Failed Dependency";
      case 429 -> "Too Many Requests";
      case 449 -> "Retry With";
      case 500 -> "Internal Server Error";
      case 501 -> "Not Implemented";
      case 503 -> "Service Unavailable";
      default -> "Status";
    };
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(serverSocket);
    for (Socket s : open) {
      closeQuietly(s);
    }
    connections.shutdownNow();
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // closing anyway
    }
  }

  static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** A buffered reader of one connection; not thread-safe, no per-byte locking. */
  private static final class Input {
    private final InputStream in;
    private final byte[] buf = new byte[32 * 1024];
    private int pos;
    private int limit;

    Input(InputStream in) {
      this.in = in;
    }

    private boolean fill() throws IOException {
      int n = in.read(buf, 0, buf.length);
      if (n <= 0) {
        return false;
      }
      pos = 0;
      limit = n;
      return true;
    }

    String readLine(boolean eofAllowed) throws IOException {
      StringBuilder spill = null;
      while (true) {
        if (pos == limit && !fill()) {
          if (eofAllowed && spill == null) {
            return null;
          }
          throw new EOFException();
        }
        int start = pos;
        while (pos < limit && buf[pos] != '\n') {
          pos++;
        }
        if (pos < limit) {
          int end = pos++;
          String part = new String(buf, start, end - start, StandardCharsets.ISO_8859_1);
          String line = spill == null ? part : spill.append(part).toString();
          return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
        }
        if (spill == null) {
          spill = new StringBuilder();
        }
        spill.append(new String(buf, start, pos - start, StandardCharsets.ISO_8859_1));
        if (spill.length() > MAX_LINE) {
          throw new BadRequest("Request line or header too long");
        }
      }
    }

    byte[] readExactly(int n) throws IOException {
      byte[] out = new byte[n];
      int have = Math.min(n, limit - pos);
      System.arraycopy(buf, pos, out, 0, have);
      pos += have;
      while (have < n) {
        int r = in.read(out, have, n - have);
        if (r < 0) {
          throw new EOFException();
        }
        have += r;
      }
      return out;
    }
  }

  /** A request we refuse to parse further; answered, then the connection is closed. */
  private static final class BadRequest extends IOException {
    final HttpReply reply;

    BadRequest(String message) {
      this(400, message);
    }

    BadRequest(int status, String message) {
      super(message);
      String json =
          "{\"code\":\""
              + CosmosError.codeFor(status)
              + "\",\"message\":\""
              + message.replace("\"", "'")
              + "\"}";
      this.reply =
          new HttpReply(status, json.getBytes(StandardCharsets.UTF_8), 0)
              .header("Content-Type", "application/json");
    }
  }
}
