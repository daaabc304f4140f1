package io.idemworker.operator;

import io.idemworker.servicebus.deadletter.DeadLetterReader;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The options the {@code dlq} commands share: which dead-letter queues to read and how many
 * messages at most. Without {@code --queue} or {@code --subscription}, the worker's queue ({@code
 * SERVICEBUS_QUEUE_NAME}) is read.
 */
final class DlqEntities {
  @Option(
      names = "--queue",
      paramLabel = "QUEUE",
      description =
          "Read this queue's dead-letter queue (repeatable; default SERVICEBUS_QUEUE_NAME).")
  List<String> queues = new ArrayList<>();

  @Option(
      names = "--subscription",
      paramLabel = "TOPIC/SUBSCRIPTION",
      description = "Read this subscription's dead-letter queue (repeatable).")
  List<String> subscriptions = new ArrayList<>();

  @Option(
      names = "--max",
      defaultValue = "10000",
      description =
          "The most messages to peek per dead-letter queue (1-100000; default ${DEFAULT-VALUE}).")
  int max;

  @Option(names = "--json", description = "Print one JSON document (for scripts).")
  boolean json;

  /**
   * A reader on the configured namespace and the dead-letter queues it reads.
   *
   * @param reader peeks dead-letter queues
   * @param sources the dead-letter queues, queues first
   */
  record Selection(DeadLetterReader reader, List<DeadLetterReader.Source> sources) {}

  /**
   * Reads the Service Bus variables of {@code run} and these options, or prints what is wrong.
   *
   * @param env the environment
   * @param err where problems go
   * @param command the command's name, for messages
   * @return the selection, or empty after printing the problem (exit code 2)
   */
  Optional<Selection> select(Map<String, String> env, PrintStream err, String command) {
    Optional<ServiceBusTarget> target = ServiceBusTarget.fromEnvironment(env);
    if (target.isEmpty()) {
      err.println("idemworker " + command + ": " + ServiceBusTarget.PROBLEM);
      return Optional.empty();
    }
    return sources(target.get(), err, command)
        .map(sources -> new Selection(new DeadLetterReader(target.get().connection()), sources));
  }

  /**
   * The dead-letter queues to read, or empty after printing what is wrong.
   *
   * @param target the worker's queue and namespace
   * @param err where problems go
   * @param command the command's name, for messages
   * @return the sources in the order given (queues first)
   */
  Optional<List<DeadLetterReader.Source>> sources(
      ServiceBusTarget target, PrintStream err, String command) {
    if (max < 1 || max > 100_000) {
      err.printf("idemworker %s: --max must be 1-100000%n", command);
      return Optional.empty();
    }
    List<DeadLetterReader.Source> sources = new ArrayList<>();
    try {
      for (String queue : queues) {
        if (queue.contains("/")) {
          throw new IllegalArgumentException(
              "--queue takes a queue name; use --subscription for topic/subscription, was '"
                  + queue
                  + "'");
        }
        sources.add(new DeadLetterReader.Queue(queue.strip()));
      }
      for (String subscription : subscriptions) {
        DeadLetterReader.Source source = DeadLetterReader.Source.parse(subscription);
        if (!(source instanceof DeadLetterReader.Subscription)) {
          throw new IllegalArgumentException(
              "--subscription takes topic/subscription, was '" + subscription + "'");
        }
        sources.add(source);
      }
    } catch (IllegalArgumentException e) {
      err.printf("idemworker %s: %s%n", command, e.getMessage());
      return Optional.empty();
    }
    if (sources.isEmpty()) {
      sources.add(new DeadLetterReader.Queue(target.queue()));
    }
    return Optional.of(sources);
  }

  /** The first line of an SDK exception's message: enough to say why, without a stack. */
  static String firstLine(RuntimeException e) {
    String message = Optional.ofNullable(e.getMessage()).orElse(e.getClass().getSimpleName());
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
