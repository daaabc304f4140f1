package io.idemworker.emulator.servicebus;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transport.ReceiverSettleMode;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sasl;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.engine.Session;
import org.apache.qpid.proton.engine.Transport;

/**
 * A minimal blocking proton-j client for protocol behaviour the Service Bus SDK never exercises
 * (drain, oversize transfers). Single-threaded; not a general-purpose client.
 */
final class RawAmqpClient implements AutoCloseable {
  final Connection connection = Connection.Factory.create();
  final Session session;
  final Transport transport = Transport.Factory.create();
  private final Socket socket = new Socket();
  private final InputStream in;
  private final OutputStream out;
  private long bytesRead;
  private boolean closedByPeer;

  RawAmqpClient(int port) throws IOException {
    this(port, 0);
  }

  /**
   * Connects and opens a connection and a session.
   *
   * @param idleTimeoutMillis the idle timeout this client announces (0 = none); the client itself
   *     never sends heartbeats
   */
  RawAmqpClient(int port, int idleTimeoutMillis) throws IOException {
    this(port, idleTimeoutMillis, "ANONYMOUS");
  }

  /**
   * Connects with the given SASL mechanism (Microsoft's Python and C SDKs ask for {@code MSSBCBS})
   * and opens a connection and a session.
   */
  RawAmqpClient(int port, int idleTimeoutMillis, String saslMechanism) throws IOException {
    socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(50);
    in = socket.getInputStream();
    out = socket.getOutputStream();
    Sasl sasl = transport.sasl();
    sasl.client();
    sasl.setMechanisms(saslMechanism);
    transport.setIdleTimeout(idleTimeoutMillis);
    transport.bind(connection);
    connection.setHostname("localhost");
    connection.setContainer("raw-test-client");
    connection.open();
    session = connection.session();
    session.open();
  }

  /** Pumps I/O until the condition holds; fails after the timeout. */
  void pumpUntil(BooleanSupplier condition, Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    byte[] buf = new byte[64 * 1024];
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not reached within " + timeout);
      }
      flush();
      try {
        int n = in.read(buf);
        if (n < 0) {
          closedByPeer = true;
          transport.close_tail();
          return;
        } else {
          bytesRead += n;
          int off = 0;
          while (off < n) {
            ByteBuffer tail = transport.tail();
            int chunk = Math.min(tail.remaining(), n - off);
            tail.put(buf, off, chunk);
            transport.process();
            off += chunk;
          }
        }
      } catch (SocketTimeoutException e) {
        // nothing to read yet
      }
      flush();
    }
  }

  /** Writes raw bytes on the socket, bypassing proton-j. */
  /** Opens an unsettled sender link {@code name} to {@code address}. */
  Sender openSender(String name, String address) {
    Sender s = session.sender(name);
    Target target = new Target();
    target.setAddress(address);
    s.setTarget(target);
    s.setSource(new Source());
    s.setSenderSettleMode(SenderSettleMode.UNSETTLED);
    s.open();
    return s;
  }

  /** Opens a receiver link {@code name} from {@code sourceAddress}, settling first. */
  Receiver openReceiver(String name, String sourceAddress, String targetAddress) {
    Receiver r = session.receiver(name);
    Source source = new Source();
    source.setAddress(sourceAddress);
    r.setSource(source);
    Target target = new Target();
    target.setAddress(targetAddress);
    r.setTarget(target);
    r.setSenderSettleMode(SenderSettleMode.UNSETTLED);
    r.setReceiverSettleMode(ReceiverSettleMode.FIRST);
    r.open();
    return r;
  }

  void writeRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** Whether the server closed the socket. */
  boolean socketClosed() {
    return closedByPeer;
  }

  /** Bytes received from the server so far. */
  long bytesRead() {
    return bytesRead;
  }

  private void flush() throws IOException {
    int pending;
    while ((pending = transport.pending()) > 0) {
      ByteBuffer head = transport.head();
      byte[] bytes = new byte[pending];
      head.get(bytes);
      out.write(bytes);
      transport.pop(pending);
    }
    out.flush();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
