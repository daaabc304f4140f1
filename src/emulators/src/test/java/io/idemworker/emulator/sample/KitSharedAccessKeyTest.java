package io.idemworker.emulator.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.amqp.AmqpRetryMode;
import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.core.exception.ClientAuthenticationException;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusException;
import com.azure.messaging.servicebus.ServiceBusFailureReason;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.administration.ServiceBusAdministrationClient;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.Test;

/**
 * SAS checking switched on by the annotation ({@code serviceBusSharedAccessKey}): the connection
 * string the kit injects carries the key, and the real SDK with it sends, receives and administers;
 * the same connection string with a wrong key is refused as the service refuses it ({@code
 * UNAUTHORIZED}, the put-token answered 401 {@code InvalidSignature}; the administration API 401),
 * and nothing it sent arrives.
 */
@AzureEmulators(
    cosmos = false,
    serviceBusAdmin = true,
    serviceBusSharedAccessKey = KitSharedAccessKeyTest.KEY)
class KitSharedAccessKeyTest {
  static final String KEY = "a2l0LXNhcy1rZXktb2YtdGhlLXRlc3QtY2xhc3M=";
  private static final String WRONG_KEY = "d3Jvbmcta2V5LW9mLXRoZS10ZXN0LWNsYXNz";

  private static AmqpRetryOptions retry() {
    return new AmqpRetryOptions()
        .setMode(AmqpRetryMode.FIXED)
        .setMaxRetries(1)
        .setDelay(Duration.ofMillis(200))
        .setTryTimeout(Duration.ofSeconds(15));
  }

  @Test
  void theInjectedKey_sendsReceivesAndAdministers(Emulators azure) throws SSLException {
    String queue = azure.newQueue("kit-sas");
    ServiceBusClientBuilder clients =
        new ServiceBusClientBuilder()
            .connectionString(azure.serviceBusConnectionString())
            .retryOptions(retry());
    List<ServiceBusReceivedMessage> got;
    try (ServiceBusSenderClient sender = clients.sender().queueName(queue).buildClient();
        ServiceBusReceiverClient receiver = clients.receiver().queueName(queue).buildClient()) {
      sender.sendMessage(new ServiceBusMessage("signed").setMessageId("m-1"));
      got = receiver.receiveMessages(1, Duration.ofSeconds(10)).stream().toList();
      got.forEach(receiver::complete);
    }

    assertThat(azure.serviceBusConnectionString())
        .contains("SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=" + KEY + ";");
    assertThat(got).singleElement().satisfies(m -> assertThat(m.getMessageId()).isEqualTo("m-1"));
    assertThat(KitAdminApiTest.adminClient(azure).getQueue(queue).getName()).isEqualTo(queue);
  }

  @Test
  void aWrongKey_isRefusedUnauthorized_andNothingArrives(Emulators azure) {
    String queue = azure.newQueue("kit-sas");
    String wrong = azure.serviceBusConnectionString().replace(KEY, WRONG_KEY);

    try (ServiceBusSenderClient sender =
        new ServiceBusClientBuilder()
            .connectionString(wrong)
            .retryOptions(retry())
            .sender()
            .queueName(queue)
            .buildClient()) {
      assertThatThrownBy(() -> sender.sendMessage(new ServiceBusMessage("forged")))
          .satisfies(e -> assertThat(reason(e)).isEqualTo(ServiceBusFailureReason.UNAUTHORIZED))
          .hasStackTraceContaining("InvalidSignature");
    }
    assertThat(azure.serviceBus().messageCount(queue)).isZero();
  }

  @Test
  void aWrongKey_isRefused401ByTheAdministrationApi(Emulators azure) throws SSLException {
    String queue = azure.newQueue("kit-sas");
    String wrong = azure.serviceBusConnectionString().replace(KEY, WRONG_KEY);
    ServiceBusAdministrationClient forged =
        KitAdminApiTest.adminClient(azure.serviceBusAdmin(), wrong);

    assertThatThrownBy(() -> forged.getQueue(queue))
        .isInstanceOfSatisfying(
            ClientAuthenticationException.class,
            e -> assertThat(e.getResponse().getStatusCode()).isEqualTo(401))
        .hasMessageContaining("InvalidSignature");
  }

  private static ServiceBusFailureReason reason(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ServiceBusException e) {
        return e.getReason();
      }
    }
    return null;
  }
}
