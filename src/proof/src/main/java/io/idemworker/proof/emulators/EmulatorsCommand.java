package io.idemworker.proof.emulators;

import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.payments.WebhookSettings;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.emulator.servicebus.ServiceBusEmulatorConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code emulators}: the in-process emulators (and the payment provider double), stand-alone, for
 * any program on this machine.
 */
@Command(
    name = "emulators",
    mixinStandardHelpOptions = true,
    description = {
      "Starts the in-process emulators stand-alone.",
      "",
      "Starts the Service Bus (AMQP, plain TCP; also TLS with --servicebus-tls-port) and Cosmos DB (HTTPS gateway) emulators and the payment provider double (plain HTTP) on loopback, prints how to reach them, and runs until interrupted (Ctrl+C). Any Azure SDK can use them: Service Bus with the printed connection string, Cosmos DB in gateway mode with the printed endpoint and key and the SDK's emulator certificate setting. Data lives in memory only."
    })
public final class EmulatorsCommand implements Callable<Integer> {
  static final Path DEFAULT_CONFIG = Path.of("local", "servicebus", "Config.json");

  @Option(
      names = "--servicebus-port",
      defaultValue = "5672",
      description = "AMQP port; 0 picks a free one (default ${DEFAULT-VALUE}).")
  int serviceBusPort;

  @Option(
      names = "--servicebus-tls-port",
      description = {
        "Also serve AMQP over TLS on this port (off unless given; 0 picks a free one; the service",
        "and Microsoft's Python SDK use 5671). The certificate is made at start-up unless",
        "--servicebus-tls-pkcs12 gives one; its PEM is written to --servicebus-tls-cert-out."
      })
  Integer serviceBusTlsPort;

  @Option(
      names = "--servicebus-tls-pkcs12",
      description =
          "PKCS12 file whose key and certificate the TLS port presents (password from"
              + " SERVICEBUS_TLS_PKCS12_PASSWORD, default empty).")
  Path serviceBusTlsPkcs12;

  @Option(
      names = "--servicebus-tls-cert-out",
      description =
          "Where to write the TLS port's certificate (PEM) for clients to trust (default: a new"
              + " file in the temporary directory, printed at start).")
  Path serviceBusTlsCertOut;

  @Option(
      names = "--servicebus-shortest-duplicate-window",
      description = {
        "Emulator-only relaxation for test runs: accept duplicate-detection windows down to this",
        "(PT1S to PT20S) instead of the service's minimum PT20S. Unset, an entity the service",
        "would refuse is refused."
      })
  Duration serviceBusShortestWindow;

  @Option(
      names = "--cosmos-port",
      defaultValue = "8081",
      description = "HTTPS port; 0 picks a free one (default ${DEFAULT-VALUE}).")
  int cosmosPort;

  @Option(
      names = "--payments-port",
      defaultValue = "8082",
      description =
          "Payment provider double's HTTP port; 0 picks a free one (default ${DEFAULT-VALUE}).")
  int paymentsPort;

  // From the environment when set, so a container gets the key as a secret rather than on its
  // command line (which the platform shows and logs).
  @Option(
      names = "--payments-api-key",
      defaultValue = "${env:PAYMENTS_API_KEY:-" + PaymentProviderEmulator.DEFAULT_API_KEY + "}",
      description =
          "API key the payment provider double accepts (default: PAYMENTS_API_KEY when set, else "
              + PaymentProviderEmulator.DEFAULT_API_KEY
              + ").")
  String paymentsApiKey;

  // From the environment when set, so the Container App can leave it empty (no webhooks).
  @Option(
      names = "--payments-webhook-url",
      defaultValue = "${env:PAYMENTS_WEBHOOK_URL}",
      description =
          "Where the payment provider double delivers its signed webhooks (capture.succeeded,"
              + " capture.declined, capture.settled), e.g. http://127.0.0.1:8080/webhooks/payments"
              + " (default: PAYMENTS_WEBHOOK_URL when set, else none are sent).")
  java.net.URI paymentsWebhookUrl;

  @Option(
      names = "--payments-webhook-secret",
      defaultValue = "${env:PAYMENTS_WEBHOOK_SECRET:-" + WebhookSettings.DEFAULT_SECRET + "}",
      description =
          "Secret the double signs webhooks with (default: PAYMENTS_WEBHOOK_SECRET when set, else "
              + WebhookSettings.DEFAULT_SECRET
              + ").")
  String paymentsWebhookSecret;

  @Option(
      names = "--payments-bind",
      defaultValue = "127.0.0.1",
      description =
          "IP address the payment provider double listens on; 0.0.0.0 for every interface, as in a"
              + " container (default ${DEFAULT-VALUE}).")
  String paymentsBind;

  @Option(
      names = "--only",
      description =
          "Start only this one; 'payments' runs the payment provider double alone (its own"
              + " Container App on Azure).")
  String only;

  @Option(
      names = "--config",
      description = {
        "Service Bus queues, in the official emulator's Config.json format (default:",
        "local/servicebus/Config.json when present, else one queue 'orders' with duplicate",
        "detection on)."
      })
  Path config;

  @Option(
      names = "--cosmos-key",
      description =
          "Account key the Cosmos emulator accepts (default: the well-known emulator key).")
  String cosmosKey;

  @Option(
      names = "--cosmos-latency",
      defaultValue = "PT0S",
      description =
          "Response time of every Cosmos DB request, the emulator's own work included, as a"
              + " distant account's (ISO 8601, e.g. PT0.005S; default ${DEFAULT-VALUE}).")
  Duration cosmosLatency;

  @Option(
      names = "--servicebus-latency",
      defaultValue = "PT0S",
      description =
          "Latency added to every Service Bus delivery and to every settlement's answer (ISO 8601,"
              + " e.g. PT0.003S; default ${DEFAULT-VALUE}).")
  Duration serviceBusLatency;

  @Option(
      names = "--latency-spread",
      defaultValue = "0",
      description =
          "Draw each Cosmos DB and Service Bus latency uniformly between mean × (1 - spread) and"
              + " mean × (1 + spread); 0 keeps them constant, as this command always did (0-1;"
              + " default ${DEFAULT-VALUE}; bench bound uses 0.5).")
  double latencySpread;

  private final PrintStream out;
  private final CountDownLatch stop;

  /** The command as the command line mounts it: prints to standard output, runs until Ctrl+C. */
  public EmulatorsCommand() {
    this(System.out, new CountDownLatch(1));
  }

  EmulatorsCommand(PrintStream out, CountDownLatch stop) {
    this.out = out;
    this.stop = stop;
  }

  /**
   * Starts the emulators and runs until stopped.
   *
   * @return 0 once stopped; 2 for refused options
   */
  @Override
  public Integer call() throws InterruptedException {
    if (only != null && !only.equals("payments")) {
      System.err.println("idemworker emulators: --only accepts 'payments', got '" + only + "'");
      return 2;
    }
    if (cosmosLatency.isNegative() || serviceBusLatency.isNegative()) {
      System.err.println(
          "idemworker emulators: --cosmos-latency and --servicebus-latency must not"
              + " be negative");
      return 2;
    }
    if (!(latencySpread >= 0 && latencySpread <= 1)) {
      System.err.println(
          "idemworker emulators: --latency-spread must be between 0 and 1 but was "
              + latencySpread);
      return 2;
    }
    PaymentProviderEmulator.Builder paymentsBuilder;
    try {
      paymentsBuilder =
          PaymentProviderEmulator.builder()
              .port(paymentsPort)
              .apiKey(paymentsApiKey)
              .bindAddress(ipAddress(paymentsBind));
      if (webhooksOn()) {
        paymentsBuilder.webhooks(WebhookSettings.to(paymentsWebhookUrl, paymentsWebhookSecret));
      }
    } catch (IllegalArgumentException e) {
      System.err.println("idemworker emulators: " + e.getMessage());
      return 2;
    }
    if (only != null) {
      try (PaymentProviderEmulator payments = paymentsBuilder.start()) {
        Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "emulators-stop"));
        printPayments(payments);
        out.println("Running; Ctrl+C stops it.");
        out.flush();
        stop.await();
      }
      return 0;
    }
    ServiceBusEmulatorConfig.Entities entities;
    try {
      entities = entities();
    } catch (IllegalArgumentException e) {
      System.err.println("idemworker emulators: --config: " + e.getMessage());
      return 2;
    }
    List<QueueSettings> queues = entities.queues();
    ServiceBusEmulator serviceBus;
    try {
      serviceBus = serviceBus(entities).start();
    } catch (IllegalArgumentException e) {
      System.err.println("idemworker emulators: " + e.getMessage());
      return 2;
    }
    CosmosEmulator.Builder cosmosBuilder = CosmosEmulator.builder().port(cosmosPort);
    if (cosmosKey != null) {
      cosmosBuilder.key(cosmosKey);
    }
    try (serviceBus;
        CosmosEmulator cosmos = cosmosBuilder.start();
        PaymentProviderEmulator payments = paymentsBuilder.start()) {
      Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "emulators-stop"));
      serviceBus.faults().delayDeliveries(serviceBusLatency, latencySpread);
      serviceBus.faults().delayDispositions(serviceBusLatency, latencySpread);
      cosmos.faults().injectLatency(cosmosLatency, latencySpread);
      out.println("Service Bus emulator (AMQP on 127.0.0.1:" + serviceBus.port() + ")");
      out.println("  SERVICEBUS_CONNECTION_STRING=\"" + serviceBus.connectionString() + "\"");
      if (serviceBusTlsPort != null) {
        printTls(serviceBus);
      }
      queues.forEach(q -> out.println("  queue " + q.name() + describe(q)));
      entities
          .topics()
          .forEach(
              t ->
                  out.println(
                      "  topic "
                          + t.name()
                          + " (subscriptions "
                          + t.subscriptions().stream().map(s -> s.name()).toList()
                          + ")"));
      if (!serviceBusLatency.isZero()) {
        out.println(
            "  " + serviceBusLatency + spread() + " added to every delivery and settlement");
      }
      out.println("Cosmos DB emulator (HTTPS gateway on 127.0.0.1:" + cosmos.port() + ")");
      if (!cosmosLatency.isZero()) {
        out.println("  " + cosmosLatency + spread() + " response time of every request");
      }
      out.println("  COSMOS_ENDPOINT=" + cosmos.endpoint());
      out.println("  COSMOS_KEY=\"" + cosmos.key() + "\"");
      out.println("  Java clients: -DCOSMOS.EMULATOR_SERVER_CERTIFICATE_VALIDATION_DISABLED=true,");
      out.println(
          "  gateway mode; other SDKs: trust the self-signed certificate or disable checks.");
      printPayments(payments);
      out.println("Running; Ctrl+C stops all three.");
      out.flush();
      stop.await();
    }
    return 0;
  }

  private ServiceBusEmulator.Builder serviceBus(ServiceBusEmulatorConfig.Entities entities) {
    ServiceBusEmulator.Builder b = ServiceBusEmulator.builder().port(serviceBusPort);
    if (serviceBusShortestWindow != null) {
      b.shortestDuplicateWindow(serviceBusShortestWindow);
    }
    if (serviceBusTlsPort != null) {
      b.tlsPort(serviceBusTlsPort);
      if (serviceBusTlsPkcs12 != null) {
        String password = System.getenv("SERVICEBUS_TLS_PKCS12_PASSWORD");
        b.tlsKeyStore(serviceBusTlsPkcs12, (password == null ? "" : password).toCharArray());
      }
    } else if (serviceBusTlsPkcs12 != null || serviceBusTlsCertOut != null) {
      throw new IllegalArgumentException(
          "--servicebus-tls-pkcs12 and --servicebus-tls-cert-out need --servicebus-tls-port");
    }
    entities.queues().forEach(b::queue);
    entities.topics().forEach(b::topic);
    return b;
  }

  private void printTls(ServiceBusEmulator serviceBus) {
    out.println("  AMQP over TLS on 127.0.0.1:" + serviceBus.tls().port());
    out.println(
        "  SERVICEBUS_TLS_CONNECTION_STRING=\"" + serviceBus.tls().connectionString() + "\"");
    try {
      Path pem =
          serviceBusTlsCertOut != null
              ? serviceBusTlsCertOut
              : Files.createTempFile("servicebus-emulator-", ".pem");
      Files.writeString(pem, serviceBus.tls().certificatePem(), StandardCharsets.US_ASCII);
      out.println("  SERVICEBUS_TLS_CERT=" + pem.toAbsolutePath());
    } catch (IOException e) {
      out.println("  (the certificate could not be written: " + e + ")");
    }
  }

  private void printPayments(PaymentProviderEmulator payments) {
    out.println("Payment provider double (HTTP on " + paymentsBind + ":" + payments.port() + ")");
    out.println("  PAYMENTS_BASE_URL=" + payments.baseUrl());
    // The sandbox key is public; any other key came in as a secret and stays out of the logs.
    out.println(
        "  PAYMENTS_API_KEY="
            + (payments.apiKey().equals(PaymentProviderEmulator.DEFAULT_API_KEY)
                ? "\"" + payments.apiKey() + "\""
                : "(the key given, not printed)"));
    if (webhooksOn()) {
      out.println(
          "  webhooks to "
              + paymentsWebhookUrl
              + ", PAYMENTS_WEBHOOK_SECRET="
              + (paymentsWebhookSecret.equals(WebhookSettings.DEFAULT_SECRET)
                  ? "\"" + paymentsWebhookSecret + "\""
                  : "(the secret given, not printed)"));
    }
  }

  private boolean webhooksOn() {
    return paymentsWebhookUrl != null && !paymentsWebhookUrl.toString().isBlank();
  }

  /** An IP literal only: a host name would need a DNS lookup and could mean several addresses. */
  private static InetAddress ipAddress(String text) {
    if (!text.matches("[0-9.]+|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*")) {
      throw new IllegalArgumentException(
          "--payments-bind must be an IP address, got '" + text + "'");
    }
    try {
      return InetAddress.getByName(text);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("--payments-bind is not an IP address: '" + text + "'");
    }
  }

  private ServiceBusEmulatorConfig.Entities entities() {
    if (config != null) {
      return ServiceBusEmulatorConfig.load(config);
    }
    if (Files.isRegularFile(DEFAULT_CONFIG)) {
      return ServiceBusEmulatorConfig.load(DEFAULT_CONFIG);
    }
    return new ServiceBusEmulatorConfig.Entities(
        List.of(
            QueueSettings.defaults("orders")
                .withRequiresDuplicateDetection(true)
                .withDuplicateDetectionHistoryTimeWindow(Duration.ofMinutes(10))),
        List.of());
  }

  private static String describe(QueueSettings q) {
    return " (lock "
        + q.lockDuration()
        + ", max deliveries "
        + q.maxDeliveryCount()
        + (q.requiresDuplicateDetection()
            ? ", duplicate detection " + q.duplicateDetectionHistoryTimeWindow()
            : ", no duplicate detection")
        + ")";
  }

  private String spread() {
    return latencySpread == 0
        ? ""
        : String.format(Locale.ROOT, " (mean; ±%.0f %%)", latencySpread * 100);
  }
}
