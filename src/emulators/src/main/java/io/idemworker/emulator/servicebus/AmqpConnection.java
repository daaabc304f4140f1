package io.idemworker.emulator.servicebus;

import io.idemworker.emulator.servicebus.EntityStore.Settled;
import io.idemworker.emulator.servicebus.StoredMessage.Snapshot;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import jdk.net.ExtendedSocketOptions;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.Accepted;
import org.apache.qpid.proton.amqp.messaging.Modified;
import org.apache.qpid.proton.amqp.messaging.Rejected;
import org.apache.qpid.proton.amqp.messaging.Released;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.transaction.Coordinator;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.DeliveryState;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.engine.Collector;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Event;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sasl;
import org.apache.qpid.proton.engine.SaslListener;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.engine.Session;
import org.apache.qpid.proton.engine.Transport;
import org.apache.qpid.proton.engine.TransportException;
import org.apache.qpid.proton.message.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection. Every proton-j object of the connection is touched only by the thread
 * running {@link #run()}; other threads talk to it through {@link #execute(Runnable)} and {@link
 * #requestPump()}, which wake its selector.
 */
final class AmqpConnection implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(AmqpConnection.class);
  static final int MAX_MESSAGE_SIZE = 256 * 1024;
  private static final int PRODUCER_CREDIT = 500;
  private static final int REQUEST_CREDIT = 100;
  private static final int IDLE_TIMEOUT_MILLIS = 120_000;
  private static final Symbol MESSAGE_SIZE_EXCEEDED =
      Symbol.valueOf("amqp:link:message-size-exceeded");
  private static final Symbol LOCK_LOST = Symbol.valueOf(ManagementNode.LOCK_LOST);
  private static final Symbol DEAD_LETTER = Symbol.valueOf("com.microsoft:dead-letter");
  private static final Symbol SESSION_FILTER = Symbol.valueOf("com.microsoft:session-filter");
  private static final Object OVERSIZE = new Object();
  private static final boolean QUICK_ACK = quickAckSupported();

  private enum Node {
    CBS,
    MANAGEMENT
  }

  private final class Consumer {
    final Sender sender;
    final EntityStore store;
    final boolean receiveAndDelete;
    final Set<UUID> tokens = new HashSet<>();
    final Runnable signal = AmqpConnection.this::requestPump;

    /** Messages taken on this link's credit that wait out the delivery delay. */
    int inTransit;

    Consumer(Sender sender, EntityStore store, boolean receiveAndDelete) {
      this.sender = sender;
      this.store = store;
      this.receiveAndDelete = receiveAndDelete;
    }
  }

  private record RequestLink(Node node, EntityStore store) {}

  private final SocketChannel channel;
  private final String remote;
  private final Broker broker;
  private final ScheduledExecutorService timer;
  private final Faults faults;
  private final Runnable onClosed;
  private final Selector selector;
  private final Transport transport = Transport.Factory.create();
  private final Connection connection = Connection.Factory.create();
  private final Collector collector = Collector.Factory.create();
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean pumpRequested = new AtomicBoolean();
  private final AtomicBoolean woken = new AtomicBoolean();
  private final Map<Link, Consumer> consumers = new IdentityHashMap<>();
  private final Map<Link, RequestLink> requestLinks = new IdentityHashMap<>();
  private final Map<String, Sender> replyLinks = new HashMap<>();
  private final byte[] scratch = new byte[64 * 1024];
  private volatile boolean stop;

  AmqpConnection(
      SocketChannel channel,
      Broker broker,
      ScheduledExecutorService timer,
      Faults faults,
      Runnable onClosed)
      throws IOException {
    this.channel = channel;
    SocketAddress address = channel.getRemoteAddress();
    this.remote = String.valueOf(address);
    this.broker = broker;
    this.timer = timer;
    this.faults = faults;
    this.onClosed = onClosed;
    this.selector = Selector.open();
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
   * returns, so nothing the peer sends afterwards takes effect; the connection thread then releases
   * the connection's locks and ends.
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
      sasl.setMechanisms("ANONYMOUS");
      sasl.setListener(new AcceptAll());
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
        for (Consumer c : new ArrayList<>(consumers.values())) {
          pump(c);
        }
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
        releaseAllLocks();
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
        for (Consumer c : new ArrayList<>(consumers.values())) {
          if (c.sender.getSession() == s) {
            closeConsumer(c);
          }
        }
        s.close();
      }
      case LINK_REMOTE_OPEN -> onAttach(event.getLink());
      case LINK_REMOTE_CLOSE, LINK_REMOTE_DETACH -> onDetach(event.getLink());
      case LINK_FLOW -> {
        Consumer c = consumers.get(event.getLink());
        if (c != null) {
          pump(c);
        }
      }
      case DELIVERY -> {
        Delivery d = event.getDelivery();
        if (d.getLink() instanceof Receiver r) {
          onTransfer(r, d);
        } else {
          onDisposition(d);
        }
      }
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

  private void onAttach(Link link) {
    if (link.getLocalState() != EndpointState.UNINITIALIZED) {
      return;
    }
    link.setSource(link.getRemoteSource());
    link.setTarget(link.getRemoteTarget());
    link.setSenderSettleMode(link.getRemoteSenderSettleMode());
    link.setReceiverSettleMode(link.getRemoteReceiverSettleMode());
    if (link.getRemoteTarget() instanceof Coordinator) {
      refuseUnsupported(link, "Transactions");
      return;
    }
    if (link.getRemoteSource() instanceof Source source
        && source.getFilter() != null
        && source.getFilter().containsKey(SESSION_FILTER)) {
      refuseUnsupported(link, "Sessions");
      return;
    }
    if (link instanceof Receiver r) {
      String address = address(r.getRemoteTarget());
      if ("$cbs".equalsIgnoreCase(address)) {
        requestLinks.put(r, new RequestLink(Node.CBS, null));
        r.open();
        r.flow(REQUEST_CREDIT);
        return;
      }
      if (address != null && Broker.normalise(address).endsWith(Broker.MANAGEMENT_SUFFIX)) {
        String entity = Broker.normalise(address);
        entity = entity.substring(0, entity.length() - Broker.MANAGEMENT_SUFFIX.length());
        Optional<EntityStore> store = broker.resolve(entity);
        if (store.isEmpty()) {
          refuse(link, address);
          return;
        }
        requestLinks.put(r, new RequestLink(Node.MANAGEMENT, store.get()));
        r.open();
        r.flow(REQUEST_CREDIT);
        return;
      }
      Optional<MessageSink> sink = broker.resolveSink(address);
      if (sink.isEmpty()) {
        refuse(link, address);
        return;
      }
      r.setMaxMessageSize(UnsignedLong.valueOf(MAX_MESSAGE_SIZE));
      r.open();
      r.flow(PRODUCER_CREDIT);
      LOG.debug("connection {}: sender attached to {}", remote, sink.get().path());
      return;
    }
    Sender s = (Sender) link;
    String address = address(s.getRemoteSource());
    if ("$cbs".equalsIgnoreCase(address)
        || (address != null && Broker.normalise(address).endsWith(Broker.MANAGEMENT_SUFFIX))) {
      String replyTo = address(s.getRemoteTarget());
      if (replyTo != null) {
        replyLinks.put(replyTo, s);
      }
      replyLinks.putIfAbsent(s.getName(), s);
      s.open();
      return;
    }
    Optional<EntityStore> store = broker.resolve(address);
    if (store.isEmpty()) {
      refuse(link, address);
      return;
    }
    boolean receiveAndDelete = s.getRemoteSenderSettleMode() == SenderSettleMode.SETTLED;
    Consumer c = new Consumer(s, store.get(), receiveAndDelete);
    consumers.put(s, c);
    store.get().addListener(c.signal);
    s.open();
    LOG.debug(
        "connection {}: receiver attached to {} ({})",
        remote,
        store.get().path(),
        receiveAndDelete ? "receive-and-delete" : "peek-lock");
  }

  private void refuse(Link link, String address) {
    LOG.warn("connection {}: attach to unknown entity '{}' refused", remote, address);
    refuse(
        link,
        new ErrorCondition(
            AmqpError.NOT_FOUND, "The messaging entity '" + address + "' could not be found."));
  }

  private void refuse(Link link, ErrorCondition condition) {
    if (link instanceof Sender) {
      link.setSource(null);
    } else {
      link.setTarget(null);
    }
    link.setCondition(condition);
    link.open();
    link.close();
  }

  private void refuseUnsupported(Link link, String feature) {
    LOG.warn("connection {}: link '{}' refused: {} not supported", remote, link.getName(), feature);
    refuse(
        link,
        new ErrorCondition(
            AmqpError.NOT_IMPLEMENTED, feature + " are not supported by this emulator."));
  }

  private static String address(Object terminus) {
    if (terminus instanceof Source s) {
      return s.getAddress();
    }
    if (terminus instanceof Target t) {
      return t.getAddress();
    }
    return null;
  }

  private void onDetach(Link link) {
    Consumer c = consumers.get(link);
    if (c != null) {
      closeConsumer(c);
    }
    requestLinks.remove(link);
    replyLinks.values().removeIf(s -> s == link);
    if (link.getLocalState() != EndpointState.CLOSED) {
      link.close();
    }
  }

  private void closeConsumer(Consumer c) {
    consumers.remove(c.sender);
    c.store.removeListener(c.signal);
    if (!c.tokens.isEmpty()) {
      c.store.releaseAll(c, c.tokens);
      c.tokens.clear();
    }
  }

  private void releaseAllLocks() {
    for (Consumer c : new ArrayList<>(consumers.values())) {
      closeConsumer(c);
    }
  }

  private void pump(Consumer c) {
    Sender s = c.sender;
    if (s.getLocalState() != EndpointState.ACTIVE || s.getRemoteState() != EndpointState.ACTIVE) {
      return;
    }
    // Link credit is an AMQP uint: proton-j's int reads 2^31 and above as negative. Messages in
    // transit already hold part of it.
    long credit = Integer.toUnsignedLong(s.getCredit()) - c.inTransit;
    if (credit > 0) {
      int max = (int) Math.min(credit, Integer.MAX_VALUE);
      List<Snapshot> messages = c.store.take(max, c, c.receiveAndDelete);
      long delay = messages.isEmpty() ? 0 : faults.nextDeliveryDelayNanos();
      if (delay <= 0) {
        messages.forEach(m -> send(c, m));
      } else {
        // Locked now (the lock runs from the take, as on the service), sent after the delay.
        if (!c.receiveAndDelete) {
          messages.forEach(m -> c.tokens.add(m.lockToken()));
        }
        c.inTransit += messages.size();
        timer.schedule(() -> execute(() -> deliverLate(c, messages)), delay, TimeUnit.NANOSECONDS);
      }
    }
    // A drain waits for the messages in transit: they are sent on the credit they hold.
    if (s.getDrain() && c.inTransit == 0 && s.getCredit() > 0) {
      s.drained();
    }
  }

  private void send(Consumer c, Snapshot m) {
    Sender s = c.sender;
    byte[] bytes = MessageCodec.encodeForDelivery(m, !c.receiveAndDelete);
    UUID token = c.receiveAndDelete ? UUID.randomUUID() : m.lockToken();
    Delivery d = s.delivery(MessageCodec.lockTokenToTag(token));
    d.setContext(token);
    s.send(bytes, 0, bytes.length);
    s.advance();
    if (c.receiveAndDelete) {
      d.settle();
    } else {
      c.tokens.add(token);
    }
  }

  /** Sends messages whose delivery delay is over, on the connection thread. */
  private void deliverLate(Consumer c, List<Snapshot> messages) {
    c.inTransit -= messages.size();
    if (consumers.get(c.sender) != c) {
      return; // the link closed meanwhile and gave its locks back
    }
    Sender s = c.sender;
    boolean active =
        s.getLocalState() == EndpointState.ACTIVE && s.getRemoteState() == EndpointState.ACTIVE;
    for (Snapshot m : messages) {
      if (active && s.getCredit() != 0) {
        send(c, m);
      } else if (!c.receiveAndDelete) {
        c.tokens.remove(m.lockToken());
        c.store.release(m.lockToken());
      } else {
        LOG.debug("connection {}: a receive-and-delete message in transit lost its credit", remote);
      }
    }
    pump(c);
  }

  private void onDisposition(Delivery d) {
    Consumer c = consumers.get(d.getLink());
    if (c == null) {
      if (d.remotelySettled() && !d.isSettled()) {
        d.settle();
      }
      return;
    }
    if (d.isSettled() || !(d.getContext() instanceof UUID token)) {
      return;
    }
    DeliveryState state = d.getRemoteState();
    if (state == null) {
      return;
    }
    long delay = faults.nextDispositionDelayNanos();
    if (delay <= 0) {
      settle(c, d, token, state);
    } else {
      timer.schedule(() -> execute(() -> settle(c, d, token, state)), delay, TimeUnit.NANOSECONDS);
    }
  }

  private void settle(Consumer c, Delivery d, UUID token, DeliveryState state) {
    if (d.isSettled() || d.getLink().getLocalState() == EndpointState.CLOSED) {
      return;
    }
    Settled result;
    DeliveryState answer;
    if (state instanceof Accepted) {
      result = c.store.complete(token);
      answer = Accepted.getInstance();
    } else if (state instanceof Rejected rejected) {
      ErrorCondition error = rejected.getError();
      String reason = null;
      String description = null;
      if (error != null && error.getInfo() != null) {
        reason = infoString(error.getInfo(), "DeadLetterReason");
        description = infoString(error.getInfo(), "DeadLetterErrorDescription");
      }
      if (error != null && !DEAD_LETTER.equals(error.getCondition()) && reason == null) {
        reason = String.valueOf(error.getCondition());
        description = error.getDescription();
      }
      result = c.store.deadLetter(token, reason, description, Map.of());
      answer = new Rejected();
    } else if (state instanceof Modified modified) {
      Map<String, Object> modify = new HashMap<>();
      if (modified.getMessageAnnotations() != null) {
        Map<?, ?> annotations = modified.getMessageAnnotations();
        annotations.forEach((k, v) -> modify.put(String.valueOf(k), v));
      }
      if (Boolean.TRUE.equals(modified.getUndeliverableHere())) {
        result = c.store.defer(token, modify);
      } else {
        result = c.store.abandon(token, modify);
      }
      Modified echo = new Modified();
      echo.setDeliveryFailed(modified.getDeliveryFailed());
      echo.setUndeliverableHere(modified.getUndeliverableHere());
      answer = echo;
    } else if (state instanceof Released) {
      result = c.store.release(token);
      answer = Released.getInstance();
    } else {
      return;
    }
    c.tokens.remove(token);
    if (result == Settled.LOCK_LOST) {
      LOG.info("connection {}: settlement of lock {} refused: lock lost", remote, token);
      Rejected lost = new Rejected();
      lost.setError(
          new ErrorCondition(
              LOCK_LOST,
              "The lock supplied is invalid. Either the lock expired, or the message has already"
                  + " been removed from the queue."));
      answer = lost;
    }
    if (!d.remotelySettled()) {
      d.disposition(answer);
    }
    d.settle();
  }

  private static String infoString(Map<?, ?> info, String key) {
    Object v = info.get(key);
    if (v == null) {
      v = info.get(Symbol.valueOf(key));
    }
    return v == null ? null : v.toString();
  }

  private void onTransfer(Receiver r, Delivery d) {
    if (d.isAborted()) {
      d.settle();
      // An aborted transfer used a credit like any other: give it back, or a sender that keeps
      // aborting stalls at zero credit.
      topUp(r, requestLinks.containsKey(r) ? REQUEST_CREDIT : PRODUCER_CREDIT);
      return;
    }
    if (d.isPartial()) {
      if (d.getContext() == OVERSIZE || d.pending() > MAX_MESSAGE_SIZE) {
        d.setContext(OVERSIZE);
        while (r.recv(scratch, 0, scratch.length) > 0) {
          // discard: the message will be rejected when complete
        }
      }
      return;
    }
    int size = d.pending();
    if (d.getContext() == OVERSIZE || size > MAX_MESSAGE_SIZE) {
      while (r.recv(scratch, 0, scratch.length) > 0) {
        // discard
      }
      r.advance();
      LOG.warn("connection {}: message larger than {} bytes rejected", remote, MAX_MESSAGE_SIZE);
      Rejected rejected = new Rejected();
      rejected.setError(
          new ErrorCondition(
              MESSAGE_SIZE_EXCEEDED,
              "The received message exceeds the maximum message size of "
                  + MAX_MESSAGE_SIZE
                  + " bytes."));
      answer(d, rejected);
      topUp(r, PRODUCER_CREDIT);
      return;
    }
    byte[] bytes = new byte[size];
    int read = r.recv(bytes, 0, size);
    int format = d.getMessageFormat();
    r.advance();
    RequestLink request = requestLinks.get(r);
    if (request != null) {
      onRequest(request, d, bytes, read);
      topUp(r, REQUEST_CREDIT);
      return;
    }
    Optional<MessageSink> sink = broker.resolveSink(address(r.getRemoteTarget()));
    if (sink.isEmpty()) {
      answer(d, rejected(AmqpError.NOT_FOUND, "entity deleted"));
      return;
    }
    List<Message> messages;
    try {
      messages = MessageCodec.decodeTransfer(bytes, read, format);
    } catch (RuntimeException e) {
      LOG.warn("connection {}: undecodable message rejected: {}", remote, e.toString());
      answer(d, rejected(AmqpError.DECODE_ERROR, "cannot decode message: " + e.getMessage()));
      topUp(r, PRODUCER_CREDIT);
      return;
    }
    sink.get().send(messages);
    answer(d, Accepted.getInstance());
    topUp(r, PRODUCER_CREDIT);
  }

  private static Rejected rejected(Symbol condition, String description) {
    Rejected rejected = new Rejected();
    rejected.setError(new ErrorCondition(condition, description));
    return rejected;
  }

  private static void answer(Delivery d, DeliveryState state) {
    if (!d.remotelySettled()) {
      d.disposition(state);
    }
    d.settle();
  }

  private static void topUp(Receiver r, int window) {
    int credit = r.getCredit();
    if (credit < window / 2) {
      r.flow(window - credit);
    }
  }

  private void onRequest(RequestLink link, Delivery d, byte[] bytes, int length) {
    Message request = Message.Factory.create();
    try {
      request.decode(bytes, 0, length);
    } catch (RuntimeException e) {
      LOG.warn("connection {}: undecodable request rejected: {}", remote, e.toString());
      answer(d, rejected(AmqpError.DECODE_ERROR, "cannot decode request"));
      return;
    }
    answer(d, Accepted.getInstance());
    Message response =
        link.node == Node.CBS
            ? ManagementNode.cbs(request)
            : ManagementNode.handle(link.store, request);
    response.setCorrelationId(request.getMessageId());
    String replyTo = request.getReplyTo();
    Sender reply = replyTo == null ? null : replyLinks.get(replyTo);
    if (reply == null || reply.getLocalState() != EndpointState.ACTIVE) {
      LOG.warn("connection {}: no reply link for reply-to '{}'; response dropped", remote, replyTo);
      return;
    }
    if (replyTo != null) {
      response.setAddress(replyTo);
    }
    byte[] out = MessageCodec.encode(response);
    Delivery rd =
        reply.delivery(
            UUID.randomUUID().toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    reply.send(out, 0, out.length);
    reply.advance();
    rd.settle();
  }

  private void cleanup() {
    try {
      releaseAllLocks();
    } catch (RuntimeException e) {
      LOG.warn("connection {}: releasing locks failed", remote, e);
    }
    try {
      selector.close();
    } catch (IOException e) {
      LOG.debug("closing selector failed", e);
    }
    try {
      // Drain unread input so that the peer sees an orderly close (FIN), not a reset.
      ByteBuffer discard = ByteBuffer.wrap(scratch);
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
