package io.idemworker.servicebus;

import com.azure.core.amqp.AmqpRetryMode;
import com.azure.core.amqp.AmqpRetryOptions;
import com.azure.core.credential.TokenCredential;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How to reach a Service Bus namespace: a connection string (emulators, local development) or a
 * fully qualified namespace with a token credential (Azure, managed identity).
 */
public sealed interface ServiceBusConnection {

  /**
   * A client builder for this connection, with the worker's retry policy.
   *
   * @return a new builder
   */
  ServiceBusClientBuilder builder();

  /**
   * A connection string when there is one, else the namespace with Entra ID; the credential is
   * built only in that second case.
   *
   * @param connectionString a namespace's connection string (a SAS key, or an emulator's)
   * @param namespace the fully qualified namespace, such as {@code sb-x.servicebus.windows.net};
   *     required without a connection string
   * @param credential builds the token credential for a namespace
   * @return the connection
   * @throws java.util.NoSuchElementException when neither is present
   */
  static ServiceBusConnection of(
      Optional<String> connectionString,
      Optional<String> namespace,
      Supplier<TokenCredential> credential) {
    return connectionString
        .<ServiceBusConnection>map(ConnectionString::new)
        .orElseGet(() -> new Namespace(namespace.orElseThrow(), credential.get()));
  }

  /**
   * A connection string, e.g. the emulator's.
   *
   * @param connectionString the connection string
   */
  record ConnectionString(String connectionString) implements ServiceBusConnection {
    /** Requires a non-blank connection string. */
    public ConnectionString {
      if (connectionString == null || connectionString.isBlank()) {
        throw new IllegalArgumentException("connection string must not be blank");
      }
    }

    @Override
    public ServiceBusClientBuilder builder() {
      return new ServiceBusClientBuilder()
          .connectionString(connectionString)
          .retryOptions(retryOptions());
    }

    @Override
    public String toString() {
      return "ConnectionString[redacted]";
    }
  }

  /**
   * A namespace reached with Microsoft Entra ID.
   *
   * @param fullyQualifiedNamespace e.g. {@code sb-example.servicebus.windows.net}
   * @param credential e.g. {@code DefaultAzureCredential}
   */
  record Namespace(String fullyQualifiedNamespace, TokenCredential credential)
      implements ServiceBusConnection {
    /** Requires both values. */
    public Namespace {
      Objects.requireNonNull(credential, "credential");
      if (fullyQualifiedNamespace == null || fullyQualifiedNamespace.isBlank()) {
        throw new IllegalArgumentException("fully qualified namespace must not be blank");
      }
    }

    @Override
    public ServiceBusClientBuilder builder() {
      return new ServiceBusClientBuilder()
          .credential(fullyQualifiedNamespace, credential)
          .retryOptions(retryOptions());
    }
  }

  private static AmqpRetryOptions retryOptions() {
    return new AmqpRetryOptions()
        .setMode(AmqpRetryMode.EXPONENTIAL)
        .setMaxRetries(5)
        .setDelay(Duration.ofMillis(200))
        .setMaxDelay(Duration.ofSeconds(10))
        .setTryTimeout(Duration.ofSeconds(30));
  }
}
