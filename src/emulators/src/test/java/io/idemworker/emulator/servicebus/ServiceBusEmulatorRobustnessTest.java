package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Bad input, dropped connections and injected faults must not take the emulator down. */
class ServiceBusEmulatorRobustnessTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private EmulatorFixture fx;

  @BeforeEach
  void start() {
    fx = new EmulatorFixture(QueueSettings.defaults("orders"));
  }

  @AfterEach
  void stop() {
    fx.close();
  }

  private static List<ServiceBusReceivedMessage> receive(ServiceBusReceiverClient r, int n) {
    List<ServiceBusReceivedMessage> out = new ArrayList<>();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (out.size() < n && System.nanoTime() < deadline) {
      r.receiveMessages(n - out.size(), Duration.ofSeconds(5)).forEach(out::add);
    }
    return out;
  }

  /**
   * Writes bytes on a raw socket and returns how many bytes the server sent before closing it;
   * fails if the server keeps the connection open.
   */
  private int writeRaw(byte[] bytes) throws Exception {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", fx.emulator.port()), 10_000);
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write(bytes);
      out.flush();
      InputStream in = socket.getInputStream();
      int total = 0;
      byte[] buf = new byte[1024];
      int n;
      try {
        while ((n = in.read(buf)) >= 0) {
          total += n;
        }
      } catch (java.net.SocketException reset) {
        // a reset also closes the connection
      }
      return total;
    }
  }

  @Test
  void garbageOnTheSocket_closesOnlyThatConnection() throws Exception {
    ServiceBusSenderClient sender = fx.sender("orders");
    sender.sendMessage(new ServiceBusMessage("before"));

    assertThat(writeRaw("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII)))
        .as("the server answers with its protocol header before closing")
        .isGreaterThanOrEqualTo(0);
    byte[] badFrame = {
      'A',
      'M',
      'Q',
      'P',
      3,
      1,
      0,
      0, // SASL header
      0,
      0,
      0,
      16,
      2,
      1,
      0,
      0,
      0x00,
      0x53,
      (byte) 0x99,
      0x45,
      1,
      2,
      3,
      4 // frame of unknown type
    };
    writeRaw(badFrame);

    sender.sendMessage(new ServiceBusMessage("after"));
    assertThat(receive(fx.receiveAndDeleteReceiver("orders"), 2))
        .extracting(m -> m.getBody().toString())
        .containsExactly("before", "after");
  }

  @Test
  void droppedConnections_keepTheirLocksUntilLockDurationEnds_andClientsRecover() {
    ServiceBusSenderClient sender = fx.sender("orders");
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    sender.sendMessage(new ServiceBusMessage("m").setMessageId("m"));
    assertThat(receive(receiver, 1).get(0).getDeliveryCount()).isZero();

    fx.emulator.faults().dropConnections();

    assertThat(receiver.receiveMessages(1, Duration.ofSeconds(1)))
        .as("still locked after the connection dropped")
        .isEmpty();
    fx.advance(Duration.ofSeconds(61));
    ServiceBusReceivedMessage again = receive(receiver, 1).get(0);
    assertThat(again.getMessageId()).isEqualTo("m");
    assertThat(again.getDeliveryCount()).isEqualTo(1);
    receiver.complete(again);
    sender.sendMessage(new ServiceBusMessage("after drop"));
    assertThat(receive(receiver, 1)).hasSize(1);
  }

  @Test
  void closingAReceiver_keepsItsLocksUntilLockDurationEnds() {
    fx.sender("orders").sendMessage(new ServiceBusMessage("m").setMessageId("m"));
    ServiceBusReceiverClient first = fx.receiver("orders");
    assertThat(receive(first, 1)).hasSize(1);

    first.close();

    ServiceBusReceiverClient second = fx.receiver("orders");
    assertThat(second.receiveMessages(1, Duration.ofSeconds(1))).isEmpty();
    fx.advance(Duration.ofSeconds(61));
    ServiceBusReceivedMessage again = receive(second, 1).get(0);
    assertThat(again.getMessageId()).isEqualTo("m");
    assertThat(again.getDeliveryCount()).isEqualTo(1);
  }

  @Test
  void lockOfADroppedConnection_isRenewedAndSettledByLockTokenThroughTheManagementNode() {
    fx.sender("orders").sendMessage(new ServiceBusMessage("m").setMessageId("m"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    ServiceBusReceivedMessage m = receive(receiver, 1).get(0);

    fx.emulator.faults().dropConnections();
    fx.clock.advance(Duration.ofSeconds(30));
    // A receiver on a new connection that never receives: the SDK goes to the management node by
    // lock token. (The dropped client's own requests race its reconnection: a request sent on the
    // dead connection fails with "receive link termination", as it would on the service.)
    ServiceBusReceiverClient settler = fx.receiver("orders");
    OffsetDateTime renewed = settler.renewMessageLock(m);
    settler.complete(m);

    assertThat(renewed).isAfter(m.getLockedUntil());
    fx.advance(Duration.ofSeconds(120));
    assertThat(receiver.peekMessages(10)).as("completed, not redelivered").isEmpty();
  }

  @Test
  void delayedDispositions_slowSettlementDown() {
    fx.sender("orders").sendMessage(new ServiceBusMessage("m"));
    ServiceBusReceiverClient receiver = fx.receiver("orders");
    ServiceBusReceivedMessage m = receive(receiver, 1).get(0);
    fx.emulator.faults().delayDispositions(Duration.ofMillis(700));

    long start = System.nanoTime();
    receiver.complete(m);
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(tookMillis).isGreaterThanOrEqualTo(600);
    fx.emulator.faults().clear();
    assertThat(receiver.peekMessages(10)).isEmpty();
  }

  @Test
  void manyConcurrentConnections_allSendAndTheMessagesAllArrive() throws Exception {
    int clients = 8;
    int perClient = 20;
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        int id = c;
        futures.add(
            pool.submit(
                () -> {
                  ServiceBusSenderClient sender = fx.sender("orders");
                  for (int i = 0; i < perClient; i++) {
                    sender.sendMessage(new ServiceBusMessage("c" + id + "-" + i));
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(90, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    List<ServiceBusReceivedMessage> got =
        receive(fx.receiveAndDeleteReceiver("orders"), clients * perClient);
    assertThat(got).hasSize(clients * perClient);
    assertThat(got).extracting(m -> m.getBody().toString()).doesNotHaveDuplicates();
  }
}
