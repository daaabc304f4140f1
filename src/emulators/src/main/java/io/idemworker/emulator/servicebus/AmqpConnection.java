package io.idemworker.emulator.servicebus;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import jdk.net.ExtendedSocketOptions;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Collector;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Event;
import org.apache.qpid.proton.engine.Sasl;
import org.apache.qpid.proton.engine.SaslListener;
import org.apache.qpid.proton.engine.Session;
import org.apache.qpid.proton.engine.SslDomain;
import org.apache.qpid.proton.engine.Transport;
import org.apache.qpid.proton.engine.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: its socket, selector and proton-j transport (TLS on the TLS port, SASL
 * MSSBCBS or ANONYMOUS, frames, heartbeats), its connection and session endpoints, and the loop
 * that runs them. What its links do is {@link AmqpLinks}'s job; this class feeds it the link
 * events.
 *
 * <p>Every proton-j object of the connection is touched only by the thread running {@link #run()};
 * other threads talk to it through {@link #execute(Runnable)} and {@link #requestPump()}, which
 * wake its selector, and may end it with {@link #abort()}. Malformed input closes only this
 * connection; when it ends, however it ends, its links end and the locks they hold stay until their
 * LockDuration runs out, as on the service.
 */
final class AmqpConnection implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(AmqpConnection.class);
  private static final int IDLE_TIMEOUT_MILLIS = 120_000;
  private static final boolean QUICK_ACK = quickAckSupported();

  private final SocketChannel channel;
  private final String remote;
  private final Runnable onClosed;
  private final Selector selector;
  private final Transport transport = Transport.Factory.create();
  private final Connection connection = Connection.Factory.create();
  private final Collector collector = Collector.Factory.create();
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean pumpRequested = new AtomicBoolean();
  private final AtomicBoolean woken = new AtomicBoolean();
  private final AmqpLinks links;
  private final Optional<SSLContext> tls;
  private volatile boolean stop;

  AmqpConnection(
      SocketChannel channel,
      Broker broker,
      ScheduledExecutorService timer,
      Faults faults,
      Optional<SSLContext> tls,
      Optional<SharedAccessKeys> keys,
      Runnable onClosed)
      throws IOException {
    this.channel = channel;
    this.tls = tls;
    SocketAddress address = channel.getRemoteAddress();
    this.remote = String.valueOf(address);
    this.onClosed = onClosed;
    this.selector = Selector.open();
    this.links =
        new AmqpLinks(
            new LinkContext(remote, broker, faults, timer, this::execute, this::requestPump),
            keys.isEmpty() ? ConnectionClaims.NONE : new ConnectionClaims(remote, keys));
  }

  private static boolean quickAckSupported() {
    try (SocketChannel probe = SocketChannel.open()) {
      return probe.supportedOptions().contains(ExtendedSocketOptions.TCP_QUICKACK);
    } catch (IOException e) {
      return false;
    }
  }

  /** Runs a task on the connection thread. */
  void execute(Runnable task) {
    tasks.add(task);
    wake();
  }

  /** Detaches, on the connection thread, the receivers of entities that were deleted. */
  void entitiesDeleted(java.util.Set<EntityStore> stores) {
    execute(() -> links.detachConsumersOf(stores));
  }

  /** Asks the connection thread to offer available messages to its receivers. */
  void requestPump() {
    if (pumpRequested.compareAndSet(false, true)) {
      wake();
    }
  }

  private void wake() {
    if (woken.compareAndSet(false, true)) {
      selector.wakeup();
    }
  }

  /**
   * Closes the socket abruptly, as a dropped network would. The socket is closed before this
   * returns, so nothing the peer sends afterwards takes effect; the connection thread then ends its
   * links (their locks run out on the clock) and ends.
   */
  void abort() {
    stop = true;
    try {
      channel.close();
    } catch (IOException e) {
      LOG.debug("closing socket of {} failed", remote, e);
    }
    wake();
  }

  @Override
  public void run() {
    try {
      channel.configureBlocking(false);
      channel.socket().setTcpNoDelay(true);
      SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
      transport.setMaxFrameSize(65536);
      Sasl sasl = transport.sasl();
      sasl.server();
      sasl.setMechanisms("MSSBCBS", "ANONYMOUS");
      sasl.setListener(new AcceptAll());
      // After SASL: proton-j wraps the layers in call order, and TLS must be the outermost.
      tls.ifPresent(this::serveTls);
      transport.setIdleTimeout(IDLE_TIMEOUT_MILLIS);
      connection.collect(collector);
      transport.bind(connection);
      loop(key);
    } catch (IOException e) {
      LOG.debug("connection {} I/O ended: {}", remote, e.toString());
    } catch (RuntimeException e) {
      LOG.warn("connection {} failed", remote, e);
    } finally {
      cleanup();
    }
  }

  /**
   * Wraps the transport in TLS: proton-j's SSL layer runs the handshake and carries SASL and AMQP
   * inside it. No client certificate is asked for.
   */
  private void serveTls(SSLContext context) {
    SslDomain domain = SslDomain.Factory.create();
    domain.init(SslDomain.Mode.SERVER);
    domain.setSslContext(context);
    domain.setPeerAuthentication(SslDomain.VerifyMode.ANONYMOUS_PEER);
    transport.ssl(domain);
  }

  private void loop(SelectionKey key) throws IOException {
    boolean inputClosed = false;
    while (!stop) {
      Runnable task;
      while ((task = tasks.poll()) != null) {
        try {
          task.run();
        } catch (RuntimeException e) {
          LOG.warn("connection {}: task failed", remote, e);
        }
      }
      if (pumpRequested.getAndSet(false)) {
        links.pumpAll();
      }
      processEvents();
      long next = transport.tick(System.nanoTime() / 1_000_000);
      processEvents();
      boolean outputClosed = !write();
      if (outputClosed || (inputClosed && transport.pending() <= 0)) {
        // Either proton finished its output, or the peer is gone (or sent garbage) and whatever
        // proton had to say (a close frame with the error) has been written.
        return;
      }
      key.interestOps(
          transport.pending() > 0
              ? SelectionKey.OP_READ | SelectionKey.OP_WRITE
              : inputClosed ? 0 : SelectionKey.OP_READ);
      long timeout = next == 0 ? 1000 : Math.max(1, next - System.nanoTime() / 1_000_000);
      woken.set(false);
      if (tasks.isEmpty() && !pumpRequested.get()) {
        selector.select(Math.min(timeout, 1000));
      } else {
        selector.selectNow();
      }
      selector.selectedKeys().clear();
      if (stop) {
        return;
      }
      if (!inputClosed) {
        inputClosed = !read();
      }
    }
  }

  /** Returns false when the peer closed its end. */
  private boolean read() throws IOException {
    while (true) {
      int capacity = transport.capacity();
      if (capacity < 0) {
        return false;
      }
      if (capacity == 0) {
        return true;
      }
      ByteBuffer tail = transport.tail();
      int n = channel.read(tail);
      if (n < 0) {
        transport.close_tail();
        return false;
      }
      if (n == 0) {
        return true;
      }
      acknowledgeNow();
      try {
        transport.process();
      } catch (TransportException e) {
        LOG.warn("connection {} sent a malformed frame, closing it: {}", remote, e.getMessage());
        return false;
      }
      processEvents();
    }
  }

  /**
   * Acknowledges what was just read at once instead of after the kernel's delayed-ACK timer or with
   * the next frame we send. The Azure SDK's sockets keep Nagle's algorithm on (neither proton-j nor
   * the SDK sets TCP_NODELAY), so a client frame written while an earlier one is unacknowledged is
   * held until the ACK comes: with a disposition answer delayed by the fault injection, a flow
   * frame sent meanwhile by another call waited for whatever we sent next. Linux clears the option
   * after each use, hence after every read; where it is unsupported the kernel's default stays.
   */
  private void acknowledgeNow() {
    if (QUICK_ACK) {
      try {
        channel.setOption(ExtendedSocketOptions.TCP_QUICKACK, true);
      } catch (IOException | UnsupportedOperationException e) {
        LOG.debug("connection {}: TCP_QUICKACK not set: {}", remote, e.toString());
      }
    }
  }

  /** Writes pending output; returns false when the transport's output is closed. */
  private boolean write() throws IOException {
    while (true) {
      int pending = transport.pending();
      if (pending < 0) {
        return false;
      }
      if (pending == 0) {
        return true;
      }
      ByteBuffer head = transport.head();
      int n = channel.write(head);
      if (n <= 0) {
        return true;
      }
      transport.pop(n);
    }
  }

  private void processEvents() {
    Event event;
    while ((event = collector.peek()) != null) {
      try {
        handle(event);
      } catch (RuntimeException e) {
        LOG.warn("connection {}: error handling {}", remote, event.getType(), e);
        connection.setCondition(new ErrorCondition(AmqpError.INTERNAL_ERROR, e.toString()));
        connection.close();
      }
      collector.pop();
    }
  }

  private void handle(Event event) {
    switch (event.getType()) {
      case CONNECTION_REMOTE_OPEN -> {
        if (connection.getLocalState() == EndpointState.UNINITIALIZED) {
          connection.setContainer("idemworker-servicebus-emulator");
          connection.open();
        }
      }
      case CONNECTION_REMOTE_CLOSE -> {
        links.endAll();
        connection.close();
      }
      case SESSION_REMOTE_OPEN -> {
        Session s = event.getSession();
        if (s.getLocalState() == EndpointState.UNINITIALIZED) {
          s.open();
        }
      }
      case SESSION_REMOTE_CLOSE -> {
        Session s = event.getSession();
        links.onSessionClosed(s);
        s.close();
      }
      case LINK_REMOTE_OPEN -> links.onAttach(event.getLink());
      case LINK_REMOTE_CLOSE, LINK_REMOTE_DETACH -> links.onDetach(event.getLink());
      case LINK_FLOW -> links.onFlow(event.getLink());
      case DELIVERY -> links.onDelivery(event.getDelivery());
      case TRANSPORT_ERROR -> {
        ErrorCondition c = event.getTransport().getCondition();
        if (c != null && "connection aborted".equals(c.getDescription())) {
          LOG.debug("connection {} closed by the peer without an AMQP close", remote);
        } else {
          LOG.warn("connection {} transport error: {}", remote, c);
        }
      }
      default -> {}
    }
  }

  private void cleanup() {
    try {
      links.endAll();
    } catch (RuntimeException e) {
      LOG.warn("connection {}: ending its links failed", remote, e);
    }
    try {
      selector.close();
    } catch (IOException e) {
      LOG.debug("closing selector failed", e);
    }
    try {
      // Drain unread input so that the peer sees an orderly close (FIN), not a reset.
      ByteBuffer discard = ByteBuffer.allocate(64 * 1024);
      while (channel.isOpen() && !channel.isBlocking() && channel.read(discard) > 0) {
        discard.clear();
      }
    } catch (IOException e) {
      LOG.debug("draining socket failed", e);
    }
    try {
      channel.close();
    } catch (IOException e) {
      LOG.debug("closing socket failed", e);
    }
    onClosed.run();
    LOG.debug("connection {} closed", remote);
  }

  private static final class AcceptAll implements SaslListener {
    @Override
    public void onSaslMechanisms(Sasl sasl, Transport transport) {}

    @Override
    public void onSaslInit(Sasl sasl, Transport transport) {
      sasl.done(Sasl.SaslOutcome.PN_SASL_OK);
    }

    @Override
    public void onSaslChallenge(Sasl sasl, Transport transport) {}

    @Override
    public void onSaslResponse(Sasl sasl, Transport transport) {}

    @Override
    public void onSaslOutcome(Sasl sasl, Transport transport) {}
  }
}
