package io.idemworker.emulator.servicebus;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Optional;
import java.util.function.BiConsumer;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One listening socket, plain or TLS, and the thread that accepts on it and hands each client
 * socket to the emulator with the TLS context its connection must wrap itself in.
 *
 * <p>Thread-safe: {@link #close()} may be called from any thread, also before {@link #start}; once
 * closed, the acceptor ends and accepts nothing more.
 */
final class AmqpListener {
  private static final Logger LOG = LoggerFactory.getLogger(AmqpListener.class);

  private final ServerSocketChannel channel;
  private final Optional<SSLContext> tls;
  private volatile Thread acceptor;
  private volatile boolean closed;

  private AmqpListener(ServerSocketChannel channel, Optional<SSLContext> tls) {
    this.channel = channel;
    this.tls = tls;
  }

  /**
   * Binds {@code host:port} (port 0: any free port).
   *
   * @throws UncheckedIOException naming the address when it cannot be bound
   */
  static AmqpListener bind(String host, int port, Optional<SSLContext> tls) {
    ServerSocketChannel channel = null;
    try {
      channel = ServerSocketChannel.open();
      channel.bind(new InetSocketAddress(host, port), 128);
      return new AmqpListener(channel, tls);
    } catch (IOException e) {
      closeQuietly(channel);
      throw new UncheckedIOException("cannot bind Service Bus emulator to " + host + ":" + port, e);
    }
  }

  /** Starts the acceptor thread; {@code serve} gets every accepted socket and the TLS context. */
  void start(String threadName, BiConsumer<SocketChannel, Optional<SSLContext>> serve) {
    Thread t = new Thread(() -> acceptLoop(serve), threadName);
    t.setDaemon(true);
    acceptor = t;
    t.start();
  }

  int port() {
    try {
      return ((InetSocketAddress) channel.getLocalAddress()).getPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Stops listening; idempotent. */
  void close() {
    closed = true;
    closeQuietly(channel);
  }

  /** Waits for the acceptor thread to end, at most {@code millis}. */
  void join(long millis) throws InterruptedException {
    Thread t = acceptor;
    if (t != null) {
      t.join(Math.max(1, millis));
    }
  }

  private void acceptLoop(BiConsumer<SocketChannel, Optional<SSLContext>> serve) {
    while (!closed) {
      SocketChannel socket;
      try {
        socket = channel.accept();
      } catch (ClosedChannelException e) {
        return;
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("accept failed", e);
        }
        continue;
      }
      serve.accept(socket, tls);
    }
  }

  private static void closeQuietly(ServerSocketChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        LOG.debug("closing listener failed", e);
      }
    }
  }
}
