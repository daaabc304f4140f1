package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.ServiceBusSessionReceiverClient;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Sessions through the real SDK: session receivers, locks, state, deferral and the processor. */
class ServiceBusEmulatorSessionTest {
  private static final Duration LOCK = Duration.ofSeconds(30);
  private EmulatorFixture fx;
  private final List<AutoCloseable> opened = new ArrayList<>();

  @BeforeEach
  void start() {
    fx =
        new EmulatorFixture(
            List.of(
                TopicSettings.defaults("events")
                    .withSubscription(
                        SubscriptionSettings.defaults("ordered")
                            .withRequiresSession(true)
                            .withLockDuration(LOCK))),
            QueueSettings.defaults("ordered")
                .withRequiresSession(true)
                .withLockDuration(LOCK)
                .withMaxDeliveryCount(5),
            QueueSettings.defaults("plain"));
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
    fx.close();
  }

  private ServiceBusSessionReceiverClient sessions(String queue) {
    ServiceBusSessionReceiverClient c =
        Clients.builder(fx.emulator)
            .sessionReceiver()
            .queueName(queue)
            .disableAutoComplete()
            .maxAutoLockRenewDuration(Duration.ZERO)
            .buildClient();
    opened.add(c);
    return c;
  }

  private ServiceBusReceiverClient accept(ServiceBusSessionReceiverClient sessions, String id) {
    ServiceBusReceiverClient r = sessions.acceptSession(id);
    opened.add(r);
    return r;
  }

  private static ServiceBusMessage message(String sessionId, String body) {
    return new ServiceBusMessage(body).setSessionId(sessionId).setMessageId(body);
  }

  private static List<String> bodies(List<ServiceBusReceivedMessage> messages) {
    return messages.stream().map(m -> m.getBody().toString()).toList();
  }

  @Test
  void namedSession_receivesOnlyItsMessages_inSendOrder() {
    ServiceBusSenderClient sender = fx.sender("ordered");
    for (int i = 1; i <= 3; i++) {
      sender.sendMessage(message("a", "a" + i));
      sender.sendMessage(message("b", "b" + i));
    }

    ServiceBusReceiverClient a = accept(sessions("ordered"), "a");
    List<ServiceBusReceivedMessage> got = EmulatorFixture.receive(a, 3);

    assertThat(a.getSessionId()).isEqualTo("a");
    assertThat(bodies(got)).containsExactly("a1", "a2", "a3");
    assertThat(got).allSatisfy(m -> assertThat(m.getSessionId()).isEqualTo("a"));
    got.forEach(a::complete);
    assertThat(fx.emulator.messageCount("ordered")).isEqualTo(3);
  }

  @Test
  void nextAvailableSession_isTheOneWithTheOldestMessage_andNeverOneAlreadyHeld() {
    ServiceBusSenderClient sender = fx.sender("ordered");
    sender.sendMessage(message("second", "s1"));
    sender.sendMessage(message("first-free", "f1"));
    ServiceBusSessionReceiverClient sessions = sessions("ordered");
    ServiceBusReceiverClient holder = accept(sessions, "second");

    ServiceBusReceiverClient next = sessions.acceptNextSession();
    opened.add(next);

    assertThat(holder.getSessionId()).isEqualTo("second");
    assertThat(next.getSessionId()).isEqualTo("first-free");
    assertThat(bodies(EmulatorFixture.receive(next, 1))).containsExactly("f1");
  }

  @Test
  void sessionHeldByOneReceiver_cannotBeAcceptedByAnother() {
    fx.sender("ordered").sendMessage(message("a", "a1"));
    accept(sessions("ordered"), "a");

    assertThatThrownBy(() -> sessions("ordered").acceptSession("a"))
        .hasStackTraceContaining("cannot be accepted");
  }

  @Test
  void closingASessionReceiver_releasesTheSession_andItsUnsettledMessagesComeBackInOrder() {
    ServiceBusSenderClient sender = fx.sender("ordered");
    sender.sendMessage(message("a", "a1"));
    sender.sendMessage(message("a", "a2"));
    ServiceBusReceiverClient first = sessions("ordered").acceptSession("a");
    assertThat(bodies(EmulatorFixture.receive(first, 2))).containsExactly("a1", "a2");

    first.close();
    ServiceBusReceiverClient second = accept(sessions("ordered"), "a");
    List<ServiceBusReceivedMessage> again = EmulatorFixture.receive(second, 2);

    assertThat(bodies(again)).containsExactly("a1", "a2");
    assertThat(again).allSatisfy(m -> assertThat(m.getDeliveryCount()).isEqualTo(1));
  }

  @Test
  void droppedConnection_releasesItsSessions_forAnotherReceiverAtOnce() {
    fx.sender("ordered").sendMessage(message("a", "a1"));
    ServiceBusReceiverClient crashed = accept(sessions("ordered"), "a");
    assertThat(EmulatorFixture.receive(crashed, 1)).hasSize(1);

    fx.emulator.faults().dropConnections();
    ServiceBusReceiverClient next = accept(sessions("ordered"), "a");

    ServiceBusReceivedMessage again = EmulatorFixture.receive(next, 1).get(0);
    assertThat(again.getBody().toString()).isEqualTo("a1");
    assertThat(again.getDeliveryCount()).isEqualTo(1);
  }

  @Test
  void receiversRacingForTheNextSession_eachGetADifferentOne() throws Exception {
    int n = 3;
    ServiceBusSenderClient sender = fx.sender("ordered");
    for (int s = 0; s < n; s++) {
      sender.sendMessage(message("s" + s, "m" + s));
    }
    List<ServiceBusSessionReceiverClient> clients = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      clients.add(sessions("ordered"));
    }
    CountDownLatch gate = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      List<Future<ServiceBusReceiverClient>> racing = new ArrayList<>();
      for (ServiceBusSessionReceiverClient c : clients) {
        racing.add(
            pool.submit(
                () -> {
                  gate.await();
                  return c.acceptNextSession();
                }));
      }
      gate.countDown();
      Set<String> won = ConcurrentHashMap.newKeySet();
      for (Future<ServiceBusReceiverClient> f : racing) {
        ServiceBusReceiverClient r = f.get(30, TimeUnit.SECONDS);
        opened.add(r);
        won.add(r.getSessionId());
      }

      assertThat(won).containsExactlyInAnyOrder("s0", "s1", "s2");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void lostLocksFault_endsTheSessionLock_andTheSessionCanBeAcceptedAgain() {
    fx.sender("ordered").sendMessage(message("a", "a1"));
    ServiceBusReceiverClient holder = accept(sessions("ordered"), "a");
    assertThat(EmulatorFixture.receive(holder, 1)).hasSize(1);

    int lost = fx.emulator.faults().loseLocks("ordered");

    assertThat(lost).as("the session lock and its message's").isEqualTo(2);
    assertThatThrownBy(holder::renewSessionLock).isInstanceOf(ServiceBusException.class);
    ServiceBusReceiverClient next = accept(sessions("ordered"), "a");
    ServiceBusReceivedMessage again = EmulatorFixture.receive(next, 1).get(0);
    assertThat(again.getDeliveryCount()).isEqualTo(1);
  }

  @Test
  void sessionLock_thatRunsOut_isLost_andTheSessionGoesToTheNextReceiver() {
    fx.sender("ordered").sendMessage(message("a", "a1"));
    ServiceBusReceiverClient first = accept(sessions("ordered"), "a");
    ServiceBusReceivedMessage held = EmulatorFixture.receive(first, 1).get(0);

    fx.advance(LOCK.plusSeconds(1));

    assertThatThrownBy(first::renewSessionLock).isInstanceOf(ServiceBusException.class);
    assertThatThrownBy(() -> first.complete(held)).isInstanceOf(RuntimeException.class);
    ServiceBusReceiverClient second = accept(sessions("ordered"), "a");
    ServiceBusReceivedMessage redelivered = EmulatorFixture.receive(second, 1).get(0);
    assertThat(redelivered.getBody().toString()).isEqualTo("a1");
    assertThat(redelivered.getDeliveryCount()).isEqualTo(1);
  }

  @Test
  void aReceiverWhoseLockRanOut_cannotRenewReadOrSetTheSessionTheNextHolderHolds() {
    fx.sender("ordered").sendMessage(message("a", "a1"));
    ServiceBusReceiverClient first = accept(sessions("ordered"), "a");
    fx.advance(LOCK.plusSeconds(1));
    ServiceBusReceiverClient second = accept(sessions("ordered"), "a");
    second.setSessionState("second's".getBytes(StandardCharsets.UTF_8));

    // the first holder's session calls are refused as lock lost, and change nothing of the second's
    assertThatThrownBy(first::renewSessionLock)
        .isInstanceOfSatisfying(
            ServiceBusException.class,
            e -> assertThat(e.getReason()).isEqualTo(ServiceBusFailureReason.SESSION_LOCK_LOST));
    assertThatThrownBy(() -> first.setSessionState(new byte[] {1}))
        .isInstanceOfSatisfying(
            ServiceBusException.class,
            e -> assertThat(e.getReason()).isEqualTo(ServiceBusFailureReason.SESSION_LOCK_LOST));
    assertThatThrownBy(first::getSessionState).isInstanceOf(ServiceBusException.class);
    assertThat(new String(second.getSessionState(), StandardCharsets.UTF_8)).isEqualTo("second's");
    assertThat(second.renewSessionLock()).as("the holder renews").isNotNull();
    ServiceBusReceivedMessage m = EmulatorFixture.receive(second, 1).get(0);
    second.complete(m);
  }

  @Test
  void renewedSessionLock_outlastsTheFirstLockDuration() {
    fx.sender("ordered").sendMessage(message("a", "a1"));
    ServiceBusReceiverClient holder = accept(sessions("ordered"), "a");
    fx.advance(LOCK.minusSeconds(5));

    holder.renewSessionLock();
    fx.advance(Duration.ofSeconds(10));

    ServiceBusReceivedMessage m = EmulatorFixture.receive(holder, 1).get(0);
    holder.complete(m);
    assertThatThrownBy(() -> sessions("ordered").acceptSession("a"))
        .hasStackTraceContaining("cannot be accepted");
  }

  @Test
  void sessionState_isSetAndRead_andOutlivesTheReceiver() {
    ServiceBusReceiverClient first = sessions("ordered").acceptSession("a");
    assertThat(first.getSessionState()).isNull();
    first.setSessionState("deferred:7,9".getBytes(StandardCharsets.UTF_8));
    first.close();

    ServiceBusReceiverClient second = accept(sessions("ordered"), "a");

    assertThat(new String(second.getSessionState(), StandardCharsets.UTF_8))
        .isEqualTo("deferred:7,9");
    second.setSessionState(null);
    assertThat(second.getSessionState()).isNull();
  }

  @Test
  void deferredSessionMessage_isReceivedBySequenceNumber_afterItsSuccessor() {
    ServiceBusSenderClient sender = fx.sender("ordered");
    sender.sendMessage(message("a", "v2"));
    sender.sendMessage(message("a", "v1"));
    ServiceBusReceiverClient first = sessions("ordered").acceptSession("a");
    ServiceBusReceivedMessage v2 = EmulatorFixture.receive(first, 1).get(0);
    first.defer(v2);
    first.setSessionState(Long.toString(v2.getSequenceNumber()).getBytes(StandardCharsets.UTF_8));
    ServiceBusReceivedMessage v1 = EmulatorFixture.receive(first, 1).get(0);
    first.complete(v1);
    first.close();

    ServiceBusReceiverClient second = accept(sessions("ordered"), "a");
    long seq = Long.parseLong(new String(second.getSessionState(), StandardCharsets.UTF_8));
    ServiceBusReceivedMessage again = second.receiveDeferredMessage(seq);

    assertThat(again.getBody().toString()).isEqualTo("v2");
    assertThat(again.getSessionId()).isEqualTo("a");
    second.complete(again);
    assertThat(fx.emulator.messageCount("ordered")).isZero();
  }

  @Test
  void deadLetteredSessionMessage_isInTheDeadLetterQueue_andTheSessionGoesOn() {
    ServiceBusSenderClient sender = fx.sender("ordered");
    sender.sendMessage(message("a", "poison"));
    sender.sendMessage(message("a", "next"));
    ServiceBusReceiverClient holder = accept(sessions("ordered"), "a");
    ServiceBusReceivedMessage poison = EmulatorFixture.receive(holder, 1).get(0);

    holder.deadLetter(
        poison,
        new DeadLetterOptions()
            .setDeadLetterReason("Bad")
            .setDeadLetterErrorDescription("field x"));
    ServiceBusReceivedMessage next = EmulatorFixture.receive(holder, 1).get(0);

    assertThat(next.getBody().toString()).isEqualTo("next");
    ServiceBusReceivedMessage dead =
        EmulatorFixture.receive(fx.deadLetterReceiver("ordered"), 1).get(0);
    assertThat(dead.getSessionId()).isEqualTo("a");
    assertThat(dead.getDeadLetterReason()).isEqualTo("Bad");
  }

  @Test
  void plainReceiverOnASessionQueue_isRefused() {
    ServiceBusReceiverClient plain = fx.receiver("ordered");

    assertThatThrownBy(() -> plain.receiveMessages(1, Duration.ofSeconds(10)).stream().toList())
        .hasStackTraceContaining("requires sessions to create a non-sessionful message receiver");
    assertThat(fx.emulator.unsettledCount("ordered")).isZero();
  }

  @Test
  void messageWithoutSessionId_isRefusedByASessionQueue() {
    ServiceBusSenderClient sender = fx.sender("ordered");

    assertThatThrownBy(() -> sender.sendMessage(new ServiceBusMessage("no session")))
        .isInstanceOf(ServiceBusException.class)
        .hasStackTraceContaining("SessionId was not set");
    assertThat(fx.emulator.messageCount("ordered")).isZero();
  }

  @Test
  void sessionSubscription_deliversBySession_andDeadLettersACopyWithoutSessionId() {
    ServiceBusSenderClient sender = fx.topicSender("events");
    sender.sendMessage(message("a", "a1"));
    sender.sendMessage(new ServiceBusMessage("loose"));
    ServiceBusSessionReceiverClient sessions =
        Clients.builder(fx.emulator)
            .sessionReceiver()
            .topicName("events")
            .subscriptionName("ordered")
            .disableAutoComplete()
            .maxAutoLockRenewDuration(Duration.ZERO)
            .buildClient();
    opened.add(sessions);

    ServiceBusReceiverClient next = sessions.acceptNextSession();
    opened.add(next);

    assertThat(next.getSessionId()).isEqualTo("a");
    assertThat(bodies(EmulatorFixture.receive(next, 1))).containsExactly("a1");
    ServiceBusReceivedMessage dead =
        EmulatorFixture.receive(fx.subscriptionDeadLetterReceiver("events", "ordered"), 1).get(0);
    assertThat(dead.getBody().toString()).isEqualTo("loose");
    assertThat(dead.getDeadLetterReason()).isEqualTo("Session id is null.");
  }

  @Test
  void acceptNextSession_waitsForAMessage_thenTakesItsSession() throws Exception {
    ServiceBusSessionReceiverClient sessions = sessions("ordered");
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<ServiceBusReceiverClient> waiting = pool.submit(sessions::acceptNextSession);
      fx.sender("ordered").sendMessage(message("late", "l1"));

      ServiceBusReceiverClient next = waiting.get(20, TimeUnit.SECONDS);
      opened.add(next);

      assertThat(next.getSessionId()).isEqualTo("late");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void sessionProcessor_runsSessionsInParallel_eachInOrder_movingOnWhenASessionIsIdle()
      throws Exception {
    int sessionCount = 4;
    int perSession = 5;
    ServiceBusSenderClient sender = fx.sender("ordered");
    for (int i = 1; i <= perSession; i++) {
      for (int s = 0; s < sessionCount; s++) {
        sender.sendMessage(message("s" + s, "s" + s + "-" + i));
      }
    }
    CountDownLatch all = new CountDownLatch(sessionCount * perSession);
    Map<String, List<String>> seen = new ConcurrentHashMap<>();
    Set<String> busy = ConcurrentHashMap.newKeySet();
    AtomicBoolean overlap = new AtomicBoolean();
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger maxInFlight = new AtomicInteger();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    ServiceBusProcessorClient processor =
        Clients.builder(fx.emulator)
            .sessionProcessor()
            .queueName("ordered")
            .maxConcurrentSessions(2)
            .sessionIdleTimeout(Duration.ofSeconds(1))
            .disableAutoComplete()
            .processMessage(
                ctx -> {
                  ServiceBusReceivedMessage m = ctx.getMessage();
                  if (!busy.add(m.getSessionId())) {
                    overlap.set(true);
                  }
                  maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                  seen.computeIfAbsent(m.getSessionId(), k -> new CopyOnWriteArrayList<>())
                      .add(m.getBody().toString());
                  inFlight.decrementAndGet();
                  busy.remove(m.getSessionId());
                  ctx.complete();
                  all.countDown();
                })
            .processError(ctx -> errors.add(ctx.getException()))
            .buildProcessorClient();
    opened.add(processor);

    processor.start();

    assertThat(all.await(60, TimeUnit.SECONDS)).isTrue();
    assertThat(overlap).isFalse();
    assertThat(maxInFlight.get()).isLessThanOrEqualTo(2);
    assertThat(seen).hasSize(sessionCount);
    seen.forEach(
        (session, got) -> {
          List<String> expected = new ArrayList<>();
          for (int i = 1; i <= perSession; i++) {
            expected.add(session + "-" + i);
          }
          assertThat(got).as(session).containsExactlyElementsOf(expected);
        });
  }
}
