package io.idemworker.app;

import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code relay}: the outbox relay alone, configured like {@code run}. */
@Command(
    name = "relay",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the outbox relay alone: publishes pending outbox events to a Service Bus topic.",
      "",
      "Reads new outbox documents from the Cosmos DB change feed and publishes each to RELAY_TOPIC_NAME (MessageId = the event id, so a re-publish is dropped as a duplicate), then marks it published. One replica at a time publishes (a lease document); the others stand by. Configured by the same environment variables as 'run' (the queue and worker variables are checked but not used); RELAY_ENABLED applies to 'run' only. Serves GET /health/live and /health/ready on HEALTH_PORT. Stops cleanly on SIGTERM: finishes the cycle in progress, gives the lease up, exits 0."
    })
final class RelayCommand implements Callable<Integer> {
  private final Map<String, String> env;

  RelayCommand() {
    this(System.getenv());
  }

  RelayCommand(Map<String, String> env) {
    this.env = env;
  }

  @Override
  public Integer call() throws InterruptedException {
    return new RunCommand(env).run(RunCommand.Parts.RELAY_ONLY);
  }
}
