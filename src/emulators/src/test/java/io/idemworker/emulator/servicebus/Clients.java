package io.idemworker.emulator.servicebus;

import com.azure.core.amqp.AmqpRetryMode;
import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import java.time.Duration;

/** Builds SDK clients against an emulator with retry settings that keep tests short. */
final class Clients {
  private Clients() {}

  static AmqpRetryOptions retry() {
    return new AmqpRetryOptions()
        .setMode(AmqpRetryMode.FIXED)
        .setMaxRetries(2)
        .setDelay(Duration.ofMillis(200))
        .setTryTimeout(Duration.ofSeconds(15));
  }

  static ServiceBusClientBuilder builder(ServiceBusEmulator emulator) {
    return new ServiceBusClientBuilder()
        .connectionString(emulator.connectionString())
        .retryOptions(retry());
  }
}
