package io.idemworker.operator;

import io.idemworker.servicebus.sessions.ParkedSessions;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code dlq release} and {@code dlq discard}: the operator's answers to an order parked behind a
 * dead-lettered message in session mode ({@code SERVICEBUS_SESSIONS=true}). Both accept the order's
 * session for the length of the call; while a worker holds it they answer "busy" with exit code 3,
 * and can be repeated.
 */
final class ParkedCommands {
  private ParkedCommands() {}

  /** Exit code when a worker holds the order's session. */
  static final int BUSY = 3;

  /** {@code dlq release ORDER_ID}. */
  @Command(
      name = "release",
      mixinStandardHelpOptions = true,
      description = {
        "Releases an order parked behind a dead-lettered message (session mode).",
        "",
        "Sends the dead-lettered message back to the queue (same MessageId and SessionId); when it goes through, the worker applies the messages parked behind it in their order. If it fails again, the order stays parked. Reads the same Service Bus variables as 'run'.",
        "",
        "Exit codes: 0 released, 1 not parked, 2 configuration problem, 3 a worker holds the order's session now (try again)."
      })
  static final class Release implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "ORDER_ID", description = "The parked order.")
    String orderId;

    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;

    Release() {
      this(System.getenv(), System.out, System.err);
    }

    Release(Map<String, String> env, PrintStream out, PrintStream err) {
      this.env = env;
      this.out = TerminalOut.of(out);
      this.err = TerminalOut.of(err);
    }

    @Override
    public Integer call() {
      return run(
          env,
          err,
          "release",
          orderId,
          parked -> {
            Optional<ParkedSessions.Released> released =
                parked.release(orderId, Duration.ofSeconds(5));
            if (released.isEmpty()) {
              out.println("order " + orderId + " is not parked");
              return 1;
            }
            ParkedSessions.Parking parking = released.get().parking();
            released
                .get()
                .resubmitted()
                .ifPresentOrElse(
                    m ->
                        out.printf(
                            "resubmitted %s (%s); %d parked message(s) apply after it, in order%n",
                            m.messageId(), parking.reason(), parking.behind().size()),
                    () ->
                        out.printf(
                            "message %s is not in the dead-letter queue (resubmitted or removed"
                                + " before?); the order stays parked until it comes back%n",
                            parking.messageId()));
            return 0;
          });
    }
  }

  /** {@code dlq discard ORDER_ID}. */
  @Command(
      name = "discard",
      mixinStandardHelpOptions = true,
      description = {
        "Drops the messages parked behind an order's dead-lettered message (session mode).",
        "",
        "Prints one line per dropped message (MessageId, Subject, sequence number) as the record, then ends the parking: the order's later messages apply again. The dead-lettered message stays in the dead-letter queue. Reads the same Service Bus variables as 'run'.",
        "",
        "Exit codes: 0 discarded, 1 not parked, 2 configuration problem, 3 a worker holds the order's session now (try again)."
      })
  static final class Discard implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "ORDER_ID", description = "The parked order.")
    String orderId;

    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;

    Discard() {
      this(System.getenv(), System.out, System.err);
    }

    Discard(Map<String, String> env, PrintStream out, PrintStream err) {
      this.env = env;
      this.out = TerminalOut.of(out);
      this.err = TerminalOut.of(err);
    }

    @Override
    public Integer call() {
      return run(
          env,
          err,
          "discard",
          orderId,
          parked -> {
            if (parked.look(orderId).isEmpty()) {
              out.println("order " + orderId + " is not parked");
              return 1;
            }
            List<ParkedSessions.Moved> dropped = parked.discard(orderId);
            for (ParkedSessions.Moved m : dropped) {
              out.printf(
                  "discarded %s %s sequence %d%n", m.messageId(), m.subject(), m.sequenceNumber());
            }
            out.printf(
                "order %s: %d message(s) discarded, parking ended%n", orderId, dropped.size());
            return 0;
          });
    }
  }

  private static int run(
      Map<String, String> env,
      PrintStream err,
      String command,
      String orderId,
      Function<ParkedSessions, Integer> action) {
    Optional<ServiceBusTarget> target = ServiceBusTarget.fromEnvironment(env);
    if (target.isEmpty()) {
      err.println("idemworker dlq " + command + ": " + ServiceBusTarget.PROBLEM);
      return 2;
    }
    try (ParkedSessions parked =
        new ParkedSessions(target.get().connection(), target.get().queue())) {
      return action.apply(parked);
    } catch (ParkedSessions.SessionBusy busy) {
      err.println(
          "idemworker dlq "
              + command
              + ": a worker holds the session of order "
              + orderId
              + " now; try again");
      return BUSY;
    } catch (RuntimeException e) {
      err.println(
          "idemworker dlq " + command + ": order " + orderId + ": " + DlqEntities.firstLine(e));
      return 2;
    }
  }
}
