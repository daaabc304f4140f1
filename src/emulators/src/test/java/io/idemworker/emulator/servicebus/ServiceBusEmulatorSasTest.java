package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.amqp.exception.AmqpErrorCondition;
import com.azure.core.amqp.exception.AmqpException;
import com.azure.core.exception.ClientAuthenticationException;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.administration.ServiceBusAdministrationClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.message.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Optional checking of shared access signatures ({@code Builder.sharedAccessKey}): the Java SDK
 * with the right key works, with a wrong key or key name is refused as the service refuses it (the
 * {@code $cbs} put-token answered 401, the SDK failing with {@code UNAUTHORIZED}); a link no
 * accepted token covers is refused with {@code amqp:unauthorized-access}; the administration API
 * answers 401. Off by default: then any key works.
 */
class ServiceBusEmulatorSasTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String KEY_NAME = "RootManageSharedAccessKey";
  private static final String KEY = "c2VjcmV0LWtleS1vZi10aGUtdGVzdA==";

  private ServiceBusEmulator emulator;

  @BeforeEach
  void start() {
    emulator =
        ServiceBusEmulator.builder()
            .sharedAccessKey(KEY_NAME, KEY)
            .adminPort(0)
            .queue(QueueSettings.defaults("orders"))
            .queue(QueueSettings.defaults("other"))
            .start();
  }

  @AfterEach
  void stop() {
    emulator.close();
  }

  @Test
  void javaSdk_withTheRightKey_sendsAndReceives() {
    assertThat(emulator.connectionString()).contains("SharedAccessKey=" + KEY + ";");
    ServiceBusClientBuilder builder = Clients.builder(emulator);
    try (ServiceBusSenderClient sender = builder.sender().queueName("orders").buildClient();
        ServiceBusReceiverClient receiver =
            builder.receiver().queueName("orders").disableAutoComplete().buildClient()) {
      sender.sendMessage(new ServiceBusMessage("signed"));

      var got = EmulatorFixture.receive(receiver, 1);
      receiver.complete(got.get(0));

      assertThat(got).hasSize(1);
    }
  }

  @Test
  void javaSdk_withAWrongKey_isRefusedUnauthorized_sendAndReceive() {
    String wrong = emulator.connectionString().replace(KEY, "d3Jvbmcta2V5");
    ServiceBusClientBuilder builder =
        new ServiceBusClientBuilder().connectionString(wrong).retryOptions(Clients.retry());

    try (ServiceBusSenderClient sender = builder.sender().queueName("orders").buildClient()) {
      assertThatThrownBy(() -> sender.sendMessage(new ServiceBusMessage("forged")))
          .satisfies(e -> assertThat(EmulatorFixture.reason(e)).isEqualTo(unauthorized()))
          .hasStackTraceContaining("InvalidSignature");
    }
    try (ServiceBusReceiverClient receiver = builder.receiver().queueName("orders").buildClient()) {
      // The receiver surfaces the AMQP error itself, not wrapped in a ServiceBusException.
      assertThatThrownBy(() -> receiver.receiveMessages(1, Duration.ofSeconds(5)).stream().count())
          .satisfies(
              e -> assertThat(amqpCondition(e)).isEqualTo(AmqpErrorCondition.UNAUTHORIZED_ACCESS))
          .hasStackTraceContaining("status-code: 401");
    }
    assertThat(emulator.messageCount("orders")).isZero();
  }

  @Test
  void javaSdk_withAnUnknownKeyName_isRefusedUnauthorized() {
    String wrong =
        emulator
            .connectionString()
            .replace("SharedAccessKeyName=" + KEY_NAME, "SharedAccessKeyName=Send");
    try (ServiceBusSenderClient sender =
        new ServiceBusClientBuilder()
            .connectionString(wrong)
            .retryOptions(Clients.retry())
            .sender()
            .queueName("orders")
            .buildClient()) {
      assertThatThrownBy(() -> sender.sendMessage(new ServiceBusMessage("forged")))
          .satisfies(e -> assertThat(EmulatorFixture.reason(e)).isEqualTo(unauthorized()))
          .hasStackTraceContaining("no shared access key named 'Send'");
    }
  }

  @Test
  void checkingOff_byDefault_anyKeyWorks() {
    try (ServiceBusEmulator open =
        ServiceBusEmulator.builder().queue(QueueSettings.defaults("orders")).start()) {
      String anyKey = open.connectionString().replace("SAS_KEY_VALUE", "whatever");
      try (ServiceBusSenderClient sender =
          new ServiceBusClientBuilder()
              .connectionString(anyKey)
              .retryOptions(Clients.retry())
              .sender()
              .queueName("orders")
              .buildClient()) {
        sender.sendMessage(new ServiceBusMessage("unchecked"));
      }
      assertThat(open.messageCount("orders")).isEqualTo(1);
    }
  }

  @Test
  void putToken_expiredWrongKeyOrOtherAudience_is401_andOnlyCoveredLinksAttach() throws Exception {
    try (RawAmqpClient client = new RawAmqpClient(emulator.port())) {
      Sender cbs = client.openSender("cbs-requests", "$cbs");
      Receiver replies = client.openReceiver("cbs-replies", "$cbs", "cbs-replies");
      replies.flow(10);
      client.pumpUntil(
          () -> cbs.getCredit() > 0 && replies.getRemoteState() == EndpointState.ACTIVE, WAIT);
      long inAnHour = Instant.now().plusSeconds(3600).getEpochSecond();
      long anHourAgo = Instant.now().minusSeconds(3600).getEpochSecond();

      Message expired =
          putToken(
              client, cbs, replies, "orders", token("amqp://localhost/orders", KEY, anHourAgo));
      Message wrongKey =
          putToken(
              client, cbs, replies, "orders", token("amqp://localhost/orders", "nope", inAnHour));
      Message otherAudience =
          putToken(client, cbs, replies, "orders", token("amqp://localhost/other", KEY, inAnHour));
      Sender beforeAnyToken = client.openSender("early-orders", "orders");
      client.pumpUntil(() -> beforeAnyToken.getRemoteState() == EndpointState.CLOSED, WAIT);
      Message accepted =
          putToken(client, cbs, replies, "orders", token("amqp://localhost/orders", KEY, inAnHour));
      Sender toOrders = client.openSender("s-orders", "orders");
      Sender toOther = client.openSender("s-other", "other");
      client.pumpUntil(
          () ->
              toOrders.getRemoteState() == EndpointState.ACTIVE
                  && toOther.getRemoteState() == EndpointState.CLOSED,
          WAIT);

      assertThat(status(expired)).isEqualTo(401);
      assertThat(description(expired)).startsWith("ExpiredToken:");
      assertThat(status(wrongKey)).isEqualTo(401);
      assertThat(description(wrongKey)).startsWith("InvalidSignature:");
      assertThat(status(otherAudience)).isEqualTo(401);
      assertThat(status(accepted)).isEqualTo(200);
      assertThat(beforeAnyToken.getRemoteCondition().getCondition().toString())
          .isEqualTo("amqp:unauthorized-access");
      assertThat(toOther.getRemoteCondition().getCondition().toString())
          .isEqualTo("amqp:unauthorized-access");
      assertThat(toOther.getRemoteCondition().getDescription())
          .contains("'Send' claim(s) are required");
      assertThat((Object) toOrders.getRemoteCondition().getCondition()).isNull();
    }
  }

  @Test
  void administrationApi_withAWrongKey_is401_andWithTheRightKeyAnswers() {
    ServiceBusAdministrationClient right = AdminClients.builder(emulator).buildClient();
    ServiceBusAdministrationClient wrong =
        AdminClients.builder(
                emulator.admin(), emulator.connectionString().replace(KEY, "d3Jvbmcta2V5"))
            .buildClient();

    assertThat(right.getQueue("orders").getName()).isEqualTo("orders");
    assertThatThrownBy(() -> wrong.getQueue("orders"))
        .isInstanceOfSatisfying(
            ClientAuthenticationException.class,
            e -> assertThat(e.getResponse().getStatusCode()).isEqualTo(401))
        .hasMessageContaining("InvalidSignature");
    assertThatThrownBy(() -> wrong.createQueue("forged"))
        .isInstanceOf(ClientAuthenticationException.class);
    assertThat(right.getQueueExists("forged")).isFalse();
  }

  @Test
  void sharedAccessKey_refusesABlankNameOrKey() {
    assertThatThrownBy(() -> ServiceBusEmulator.builder().sharedAccessKey(" ", KEY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key name");
    assertThatThrownBy(() -> ServiceBusEmulator.builder().sharedAccessKey(KEY_NAME, ""))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static AmqpErrorCondition amqpCondition(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof AmqpException e) {
        return e.getErrorCondition();
      }
    }
    return null;
  }

  private static ServiceBusFailureReason unauthorized() {
    return ServiceBusFailureReason.UNAUTHORIZED;
  }

  /** A shared access signature as the SDKs make it. */
  static String token(String resource, String key, long expiry) throws Exception {
    String sr = URLEncoder.encode(resource, StandardCharsets.UTF_8);
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    String sig =
        Base64.getEncoder()
            .encodeToString(mac.doFinal((sr + "\n" + expiry).getBytes(StandardCharsets.UTF_8)));
    return "SharedAccessSignature sr="
        + sr
        + "&sig="
        + URLEncoder.encode(sig, StandardCharsets.UTF_8)
        + "&se="
        + expiry
        + "&skn="
        + KEY_NAME;
  }

  private static Message putToken(
      RawAmqpClient client, Sender cbs, Receiver replies, String entity, String token)
      throws Exception {
    Message request = Message.Factory.create();
    request.setMessageId("put-" + System.nanoTime());
    request.setReplyTo("cbs-replies");
    request.setApplicationProperties(
        new ApplicationProperties(
            Map.of(
                "operation", "put-token",
                "type", "servicebus.windows.net:sastoken",
                "name", "amqp://localhost/" + entity)));
    request.setBody(new AmqpValue(token));
    byte[] bytes = MessageCodec.encode(request);
    Delivery d = cbs.delivery(request.getMessageId().toString().getBytes(StandardCharsets.UTF_8));
    cbs.send(bytes, 0, bytes.length);
    cbs.advance();
    client.pumpUntil(() -> replies.current() != null && !replies.current().isPartial(), WAIT);
    Delivery r = replies.current();
    byte[] buffer = new byte[r.pending()];
    int n = replies.recv(buffer, 0, buffer.length);
    replies.advance();
    r.settle();
    d.settle();
    Message reply = Message.Factory.create();
    reply.decode(buffer, 0, n);
    return reply;
  }

  private static int status(Message reply) {
    return (Integer) reply.getApplicationProperties().getValue().get("status-code");
  }

  private static String description(Message reply) {
    return (String) reply.getApplicationProperties().getValue().get("status-description");
  }
}
