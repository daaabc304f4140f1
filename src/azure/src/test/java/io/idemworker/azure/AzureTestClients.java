package io.idemworker.azure;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.models.DeadLetterOptions;
import io.idemworker.emulator.junit.Emulators;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The Azure SDK clients this module's tests take from the kit's emulators. */
final class AzureTestClients {
  private AzureTestClients() {}

  /** A gateway-mode client of the kit's Cosmos DB emulator; the caller closes it. */
  static CosmosClient cosmos(Emulators azure) {
    return new CosmosClientBuilder()
        .endpoint(azure.cosmosEndpoint())
        .key(azure.cosmosKey())
        .gatewayMode()
        .buildClient();
  }

  /**
   * Sends {@code message} to {@code queue} and dead-letters it at once with reason {@code
   * TargetMissing}, as a worker that gave up on it would.
   */
  static void sendAndDeadLetter(
      Emulators azure, String queue, ServiceBusMessage message, String description) {
    ServiceBusClientBuilder bus =
        new ServiceBusClientBuilder().connectionString(azure.serviceBusConnectionString());
    try (ServiceBusSenderClient sender = bus.sender().queueName(queue).buildClient();
        ServiceBusReceiverClient receiver =
            bus.receiver().queueName(queue).disableAutoComplete().buildClient()) {
      sender.sendMessage(message);
      List<ServiceBusReceivedMessage> got = new ArrayList<>();
      receiver.receiveMessages(1, Duration.ofSeconds(30)).forEach(got::add);
      assertThat(got)
          .singleElement()
          .satisfies(m -> assertThat(m.getMessageId()).isEqualTo(message.getMessageId()));
      receiver.deadLetter(
          got.get(0),
          new DeadLetterOptions()
              .setDeadLetterReason("TargetMissing")
              .setDeadLetterErrorDescription(description));
    }
  }
}
