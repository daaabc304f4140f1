package io.idemworker.proof.producer;

import io.idemworker.operator.ServiceBusTarget;
import io.idemworker.servicebus.ServiceBusConnection;
import io.idemworker.servicebus.sending.Outgoing;
import io.idemworker.servicebus.sending.ProducerKit;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code send}: sample OrderPlaced messages, to try {@code run} locally or on Azure. */
@Command(
    name = "send",
    mixinStandardHelpOptions = true,
    description = {
      "Sends sample OrderPlaced messages to the queue 'run' reads.",
      "",
      "Reads the same Service Bus variables as 'run' (SERVICEBUS_CONNECTION_STRING or SERVICEBUS_FULLY_QUALIFIED_NAMESPACE, and SERVICEBUS_QUEUE_NAME). Messages follow the contract in the README: MessageId = orderId, JSON, subject OrderPlaced. Sent through the producer kit: MessageId checked, each send stamped with its attempt (idemworker-send-attempt). With --twice every message is sent a second time as the producer's attempt 2, as a retry would; inside the queue's duplicate-detection window the broker drops the second copy, outside it the worker completes it as a duplicate."
    })
public final class SendCommand implements Callable<Integer> {

  @Option(
      names = "--orders",
      defaultValue = "10",
      description = "How many orders (1-10000; default ${DEFAULT-VALUE}).")
  int orders;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description =
          "Seed of the generated orders; the same seed gives the same order ids (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--twice", description = "Send every message two times.")
  boolean twice;

  @Option(
      names = "--sessions",
      description =
          "Set SessionId = orderId (session mode; also when SERVICEBUS_SESSIONS is true).")
  boolean sessions;

  private final Map<String, String> env;
  private final PrintStream out;

  /** The command as the command line mounts it: the process's environment, standard output. */
  public SendCommand() {
    this(System.getenv(), System.out);
  }

  SendCommand(Map<String, String> env, PrintStream out) {
    this.env = env;
    this.out = out;
  }

  /**
   * Sends the messages.
   *
   * @return 0 once they are sent; 2 when the Service Bus variables or the options are wrong
   */
  @Override
  public Integer call() {
    Optional<ServiceBusTarget> target = ServiceBusTarget.fromEnvironment(env);
    if (target.isEmpty()) {
      System.err.println("idemworker send: " + ServiceBusTarget.PROBLEM);
      return 2;
    }
    if (orders < 1 || orders > 10_000) {
      System.err.println("idemworker send: --orders must be 1-10000");
      return 2;
    }
    String queue = target.get().queue();
    ServiceBusConnection connection = target.get().connection();
    DemoScenario scenario = DemoScenario.generate(Math.max(orders, 10), seed, 1024);
    List<String> orderIds = scenario.firstWave.subList(0, orders);
    try (ProducerKit kit =
        new ProducerKit(connection.builder().sender().queueName(queue).buildClient())) {
      boolean inSessions =
          sessions
              || "true".equalsIgnoreCase(env.getOrDefault("SERVICEBUS_SESSIONS", "false").strip());
      sendAll(kit, orderIds, scenario, 1, inSessions);
      if (twice) {
        sendAll(kit, orderIds, scenario, 2, inSessions);
      }
    }
    out.printf(
        "sent %d OrderPlaced message(s) to %s: %s … %s%n",
        orderIds.size() * (twice ? 2 : 1),
        queue,
        orderIds.get(0),
        orderIds.get(orderIds.size() - 1));
    return 0;
  }

  /** Sends every order once, as the producer's attempt {@code attempt}, 100 to a batch. */
  private static void sendAll(
      ProducerKit kit,
      List<String> orderIds,
      DemoScenario scenario,
      int attempt,
      boolean inSessions) {
    List<Outgoing> batch = new ArrayList<>();
    for (String orderId : orderIds) {
      Outgoing message = scenario.outgoing(orderId);
      batch.add(inSessions ? message.withSessionId(orderId) : message);
      if (batch.size() >= 100) {
        kit.sendAll(batch, attempt);
        batch.clear();
      }
    }
    kit.sendAll(batch, attempt);
  }
}
