package io.idemworker.operator;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.servicebus.deadletter.DeadLetterReader;
import java.io.PrintStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code explain}: what the system holds about one message or order, as a short timeline. */
@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = {
      "Prints what Cosmos DB and the dead-letter queue hold about one message or order: the order (accepted when, by which message, its fingerprint), its status as stored, inbox markers with their TTL left, payment records, outbox events and whether the relay published them, and dead-lettered copies with reason and description. Never payloads.",
      "",
      "Reads the same variables as 'run' (the whole configuration is checked). The order id is found from --order, else from the body of a dead-lettered copy with this MessageId, else from a status-change id ({orderId}:status:{v}), else from partition ID when it holds documents, else by one cross-partition query for the documents keyed by ID (a credit's inbox marker, a payment record), whose RU cost is printed. --order saves that query.",
      "",
      "Exit codes: 0 found, 1 nothing found, 2 configuration or access problem."
    })
final class ExplainCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "ID", description = "A MessageId or an orderId.")
  String id;

  @Option(
      names = "--order",
      paramLabel = "ORDER_ID",
      description = "The order the message belongs to, when its id is not the orderId.")
  Optional<String> order = Optional.empty();

  @Option(names = "--json", description = "Print one JSON document (for scripts).")
  boolean json;

  @Option(
      names = "--subscription",
      paramLabel = "TOPIC/SUBSCRIPTION",
      description = "Also look in this subscription's dead-letter queue (repeatable).")
  List<String> subscriptions = new ArrayList<>();

  @Option(
      names = "--dlq-max",
      defaultValue = "1000",
      description =
          "The most dead-lettered messages to peek per queue (1-100000; default ${DEFAULT-VALUE}).")
  int dlqMax;

  private final Map<String, String> env;
  private final PrintStream out;
  private final PrintStream err;
  private final Clock clock;
  private final Function<Map<String, String>, WorkerTarget> worker;

  ExplainCommand(Function<Map<String, String>, WorkerTarget> worker) {
    this(System.getenv(), System.out, System.err, Clock.systemUTC(), worker);
  }

  /**
   * Creates the command.
   *
   * @param env the environment
   * @param out where the explanation goes
   * @param err where problems go
   * @param clock measures the TTL left
   * @param worker reads the worker deployment from {@code env}; throws {@link
   *     IllegalArgumentException} naming every bad variable when it cannot
   */
  ExplainCommand(
      Map<String, String> env,
      PrintStream out,
      PrintStream err,
      Clock clock,
      Function<Map<String, String>, WorkerTarget> worker) {
    this.env = env;
    this.out = TerminalOut.of(out);
    this.err = TerminalOut.of(err);
    this.clock = clock;
    this.worker = worker;
  }

  @Override
  public Integer call() {
    WorkerTarget target;
    try {
      target = worker.apply(env);
    } catch (IllegalArgumentException e) {
      err.println("idemworker explain: " + e.getMessage());
      return 2;
    }
    if (id == null || id.isBlank() || order.filter(String::isBlank).isPresent()) {
      err.println("idemworker explain: the id and --order must not be blank");
      return 2;
    }
    if (dlqMax < 1 || dlqMax > 100_000) {
      err.println("idemworker explain: --dlq-max must be 1-100000");
      return 2;
    }
    List<DeadLetterReader.Source> sources = new ArrayList<>();
    sources.add(new DeadLetterReader.Queue(target.queueName()));
    try {
      subscriptions.forEach(s -> sources.add(DeadLetterReader.Source.parse(s)));
    } catch (IllegalArgumentException e) {
      err.println("idemworker explain: --subscription: " + e.getMessage());
      return 2;
    }
    Explanation explanation;
    try (CosmosClient client = target.cosmos().get()) {
      OrderExplainer explainer =
          new OrderExplainer(
              client.getDatabase(target.cosmosDatabase()).getContainer(target.cosmosContainer()),
              target.relayTopic(),
              new DeadLetterReader(target.serviceBus().get()),
              sources,
              dlqMax);
      explanation = explainer.explain(id.strip(), order.map(String::strip));
    } catch (CosmosException e) {
      err.printf(
          "idemworker explain: Cosmos DB answered %d reading %s/%s: %s%n",
          e.getStatusCode(),
          target.cosmosDatabase(),
          target.cosmosContainer(),
          firstLine(e.getShortMessage()));
      return 2;
    } catch (RuntimeException e) {
      // Anything else (no credential, an unreachable endpoint) is a setup problem, not "nothing
      // found": exit 2 with one line instead of a stack trace and picocli's exit 1.
      err.printf(
          "idemworker explain: %s%n",
          firstLine(Optional.ofNullable(e.getMessage()).orElse(e.toString())));
      return 2;
    }
    Optional<ObjectNode> parking = ParkingView.look(env, target, explanation.orderId());
    if (json) {
      try {
        ObjectNode document = explanation.toJson(clock);
        parking.ifPresent(p -> document.set("parking", p));
        out.println(
            new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(document));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("a tree of JSON nodes always serialises", e);
      }
    } else if (explanation.found()) {
      explanation.print(out, clock);
      parking.ifPresent(p -> out.println(ParkingView.describe(p)));
    } else {
      explanation.problems().forEach(p -> out.printf("note: %s%n", p));
    }
    if (!explanation.found()) {
      err.printf(
          "idemworker explain: nothing found for %s (read partition %s and %d dead-letter"
              + " queue(s))%n",
          id, explanation.orderId(), sources.size());
      return 1;
    }
    return 0;
  }

  private static String firstLine(String message) {
    String text = Optional.ofNullable(message).orElse("");
    int newline = text.indexOf('\n');
    return newline < 0 ? text : text.substring(0, newline);
  }
}
