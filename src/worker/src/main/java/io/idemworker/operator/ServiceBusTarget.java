package io.idemworker.operator;

import com.azure.identity.DefaultAzureCredentialBuilder;
import io.idemworker.servicebus.ServiceBusConnection;
import java.util.Map;
import java.util.Optional;

/**
 * The queue that the tool commands ({@code send}, {@code resubmit}) talk to, read from the same
 * Service Bus variables as {@code run}.
 *
 * @param connection the namespace
 * @param queue the queue
 */
public record ServiceBusTarget(ServiceBusConnection connection, String queue) {

  /** What is wrong when {@link #fromEnvironment} finds nothing usable. */
  public static final String PROBLEM =
      "SERVICEBUS_CONNECTION_STRING or SERVICEBUS_FULLY_QUALIFIED_NAMESPACE: set exactly one";

  /**
   * Reads the target; the Entra ID credential is built only for a namespace.
   *
   * @param env the environment
   * @return the target, or empty when not exactly one of the two connection variables is set
   */
  public static Optional<ServiceBusTarget> fromEnvironment(Map<String, String> env) {
    Optional<String> connectionString = value(env, "SERVICEBUS_CONNECTION_STRING");
    Optional<String> namespace = value(env, "SERVICEBUS_FULLY_QUALIFIED_NAMESPACE");
    if (connectionString.isPresent() == namespace.isPresent()) {
      return Optional.empty();
    }
    return Optional.of(
        new ServiceBusTarget(
            ServiceBusConnection.of(
                connectionString, namespace, () -> new DefaultAzureCredentialBuilder().build()),
            value(env, "SERVICEBUS_QUEUE_NAME").orElse("orders")));
  }

  private static Optional<String> value(Map<String, String> env, String name) {
    return Optional.ofNullable(env.get(name)).map(String::trim).filter(v -> !v.isEmpty());
  }
}
