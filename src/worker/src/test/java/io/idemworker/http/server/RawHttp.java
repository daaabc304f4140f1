package io.idemworker.http.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * A client on a plain socket, for requests no well-behaved client would send: partial heads,
 * trickled bodies, malformed framing. Every read is bounded by a socket timeout.
 */
public final class RawHttp implements AutoCloseable {
  private final Socket socket;

  private RawHttp(Socket socket) {
    this.socket = socket;
  }

  /**
   * Connects from a given loopback address, so tests can stand for several clients.
   *
   * @param localAddress e.g. {@code 127.0.0.2}
   * @param port the server's port
   * @return the connection
   */
  public static RawHttp connect(String localAddress, int port) {
    try {
      Socket socket = new Socket();
      socket.bind(new InetSocketAddress(InetAddress.getByName(localAddress), 0));
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
      socket.setSoTimeout(10_000);
      return new RawHttp(socket);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static RawHttp connect(int port) {
    return connect("127.0.0.1", port);
  }

  public RawHttp send(String text) {
    try {
      socket.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads one answer: the head, then {@code Content-Length} bytes of body.
   *
   * @param timeout the longest wait
   * @return the answer as text (head and body)
   */
  public Reply read(Duration timeout) {
    try {
      socket.setSoTimeout((int) timeout.toMillis());
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
        int b = in.read();
        if (b < 0) {
          return new Reply(head.toString(StandardCharsets.ISO_8859_1), "", true);
        }
        head.write(b);
      }
      String headText = head.toString(StandardCharsets.ISO_8859_1);
      int length = 0;
      for (String line : headText.split("\r\n")) {
        if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
          length = Integer.parseInt(line.substring(15).strip());
        }
      }
      byte[] body = in.readNBytes(length);
      return new Reply(headText, new String(body, StandardCharsets.UTF_8), false);
    } catch (SocketTimeoutException e) {
      throw new AssertionError("no answer within " + timeout, e);
    } catch (IOException e) {
      return new Reply("", "", true);
    }
  }

  /**
   * Whether the server closed the connection within the timeout, without sending anything more.
   *
   * @param timeout the longest wait
   * @return true when the read ended
   */
  public boolean closedWithin(Duration timeout) {
    try {
      socket.setSoTimeout((int) timeout.toMillis());
      return socket.getInputStream().read() < 0;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing a test socket: nothing to do
    }
  }

  /**
   * One answer.
   *
   * @param head the status line and headers
   * @param body the body
   * @param closed whether the connection ended before a full head
   */
  public record Reply(String head, String body, boolean closed) {
    public int status() {
      return head.length() >= 12 ? Integer.parseInt(head.substring(9, 12)) : -1;
    }

    public String header(String name) {
      for (String line : head.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) {
          return line.substring(colon + 1).strip();
        }
      }
      return null;
    }
  }
}
