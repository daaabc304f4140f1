package io.idemworker.proof.emulators;

import static io.idemworker.proof.emulators.EmulatorsRun.group;
import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import io.idemworker.orders.CaptureAnswer;
import io.idemworker.payments.HttpPaymentProvider;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class EmulatorsCommandTest {

  @Test
  void standAloneEmulators_printSettingsThatRealClientsCanUse() throws Exception {
    EmulatorsRun emulators =
        EmulatorsRun.startOnFreePorts(
            "--config", Path.of("local", "servicebus", "Config.json").toString());
    String output = emulators.awaitOutput("Running;");
    assertThat(output).contains("topic order-events (subscriptions [loyalty, customer-stats])");

    EmulatorsRun.Printed printed = EmulatorsRun.Printed.from(output);
    String connectionString = printed.connectionString();
    String endpoint = printed.cosmosEndpoint();
    String key = printed.cosmosKey();
    URI paymentsUrl = URI.create(group(output, "PAYMENTS_BASE_URL=(\\S+)"));
    String paymentsKey = group(output, "PAYMENTS_API_KEY=\"([^\"]+)\"");
    try (ServiceBusSenderClient sender =
            new ServiceBusClientBuilder()
                .connectionString(connectionString)
                .sender()
                .queueName("orders")
                .buildClient();
        ServiceBusReceiverClient receiver =
            new ServiceBusClientBuilder()
                .connectionString(connectionString)
                .receiver()
                .queueName("orders")
                .buildClient();
        CosmosClient cosmos =
            new CosmosClientBuilder().endpoint(endpoint).key(key).gatewayMode().buildClient()) {
      sender.sendMessage(new ServiceBusMessage("hello").setMessageId("m-1"));
      ServiceBusReceivedMessage received =
          receiver.receiveMessages(1, Duration.ofSeconds(30)).stream().findFirst().orElseThrow();
      assertThat(received.getMessageId()).isEqualTo("m-1");
      assertThat(cosmos.createDatabaseIfNotExists("stand-alone").getStatusCode()).isEqualTo(201);
    }
    assertThat(
            new HttpPaymentProvider(paymentsUrl, paymentsKey, Duration.ofSeconds(30))
                .capture("pay-1", "ord-1", BigDecimal.TEN, "EUR"))
        .isInstanceOf(CaptureAnswer.Captured.class);
    emulators.stop();

    assertThat(emulators.exitCode()).isZero();
  }

  @Test
  void onlyPayments_servesTheDoubleAloneOnAllInterfaces_withoutPrintingAGivenKey()
      throws Exception {
    EmulatorsRun emulators =
        EmulatorsRun.start(
            "--only",
            "payments",
            "--payments-port",
            "0",
            "--payments-bind",
            "0.0.0.0",
            "--payments-api-key",
            "sk_live_given_as_secret");
    String output = emulators.awaitOutput("Running;");
    int port = URI.create(group(output, "PAYMENTS_BASE_URL=(\\S+)")).getPort();

    // 127.0.0.2 is a local address other than the loopback one a laptop default binds to.
    CaptureAnswer answer =
        new HttpPaymentProvider(
                URI.create("http://127.0.0.2:" + port),
                "sk_live_given_as_secret",
                Duration.ofSeconds(30))
            .capture("pay-1", "ord-1", BigDecimal.TEN, "EUR");
    emulators.stop();

    assertThat(answer).isInstanceOf(CaptureAnswer.Captured.class);
    assertThat(output)
        .doesNotContain("Service Bus", "Cosmos", "sk_live_given_as_secret")
        .contains("PAYMENTS_API_KEY=(the key given, not printed)");
    assertThat(emulators.exitCode()).isZero();
  }

  @Test
  void webhookUrl_makesTheDoubleDeliverSignedEventsThere_withoutPrintingAGivenSecret()
      throws Exception {
    java.util.concurrent.BlockingQueue<String> signatures =
        new java.util.concurrent.LinkedBlockingQueue<>();
    com.sun.net.httpserver.HttpServer hooks =
        com.sun.net.httpserver.HttpServer.create(
            new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 8);
    hooks.createContext(
        "/webhooks/payments",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          signatures.add(
              exchange.getRequestHeaders().getFirst("Webhook-Signature")
                  + " "
                  + new String(body, StandardCharsets.UTF_8));
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    hooks.start();
    String url = "http://127.0.0.1:" + hooks.getAddress().getPort() + "/webhooks/payments";
    EmulatorsRun emulators =
        EmulatorsRun.start(
            "--only",
            "payments",
            "--payments-port",
            "0",
            "--payments-webhook-url",
            url,
            "--payments-webhook-secret",
            "whsec_given_as_secret_0123");
    try {
      String output = emulators.awaitOutput("Running;");
      URI paymentsUrl = URI.create(group(output, "PAYMENTS_BASE_URL=(\\S+)"));
      new HttpPaymentProvider(paymentsUrl, "sk_test_idemworker", Duration.ofSeconds(30))
          .capture("pay-1", "ord-1", BigDecimal.TEN, "EUR");
      String delivered = signatures.poll(30, TimeUnit.SECONDS);

      assertThat(delivered).isNotNull();
      String timestamp = group(delivered, "t=([0-9]+),");
      String body = delivered.substring(delivered.indexOf(' ') + 1);
      javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(
          new javax.crypto.spec.SecretKeySpec(
              "whsec_given_as_secret_0123".getBytes(StandardCharsets.US_ASCII), "HmacSHA256"));
      String expected =
          java.util.HexFormat.of()
              .formatHex(mac.doFinal((timestamp + "." + body).getBytes(StandardCharsets.UTF_8)));
      assertThat(delivered).contains("v1=" + expected).contains("capture.succeeded");
      assertThat(output)
          .contains("webhooks to " + url)
          .doesNotContain("whsec_given_as_secret_0123");
    } finally {
      emulators.stop();
      hooks.stop(0);
    }
    assertThat(emulators.exitCode()).isZero();
  }

  @Test
  void paymentsDoubleByDefault_listensOnLoopbackOnly() throws Exception {
    EmulatorsRun emulators = EmulatorsRun.start("--only", "payments", "--payments-port", "0");
    String output = emulators.awaitOutput("Running;");
    int port = URI.create(group(output, "PAYMENTS_BASE_URL=(\\S+)")).getPort();

    Throwable refused =
        org.assertj.core.api.Assertions.catchThrowable(
            () -> {
              try (java.net.Socket socket = new java.net.Socket()) {
                socket.connect(new java.net.InetSocketAddress("127.0.0.2", port), 10_000);
              }
            });
    emulators.stop();

    assertThat(refused).isInstanceOf(java.net.ConnectException.class);
    assertThat(output).contains("127.0.0.1:" + port);
    assertThat(emulators.exitCode()).isZero();
  }

  @Test
  void onlySomethingElse_orAHostNameToBind_exitsTwo() {
    CommandLine cli = EmulatorsRun.cli();

    assertThat(cli.execute("--only", "cosmos")).isEqualTo(2);
    assertThat(cli.execute("--only", "payments", "--payments-bind", "localhost")).isEqualTo(2);
  }

  @Test
  void windowUnderTheServicesMinimum_exitsTwo_unlessTheEmulatorOnlyRelaxationIsGiven(
      @TempDir Path dir) throws Exception {
    String shipped = Files.readString(Path.of("local", "servicebus", "Config.chaos.json"));
    Path config =
        Files.writeString(dir.resolve("Config.json"), shipped.replace("\"PT20S\"", "\"PT3S\""));

    int refused =
        EmulatorsRun.cli()
            .execute(
                "--servicebus-port",
                "0",
                "--cosmos-port",
                "0",
                "--payments-port",
                "0",
                "--config",
                config.toString());
    EmulatorsRun relaxed =
        EmulatorsRun.startOnFreePorts(
            "--config", config.toString(), "--servicebus-shortest-duplicate-window", "PT3S");
    String output = relaxed.awaitOutput("Running;");
    relaxed.stop();

    assertThat(refused).isEqualTo(2);
    assertThat(output).contains("duplicate detection PT3S");
    assertThat(relaxed.exitCode()).isZero();
  }

  @Test
  void tlsPort_servesAmqpOverTls_andWritesTheCertificateToTrust(@TempDir Path dir)
      throws Exception {
    Path pem = dir.resolve("sb.pem");
    EmulatorsRun emulators =
        EmulatorsRun.startOnFreePorts(
            "--servicebus-tls-port", "0", "--servicebus-tls-cert-out", pem.toString());
    try {
      String output = emulators.awaitOutput("Running;");
      int port =
          Integer.parseInt(
              group(output, "SERVICEBUS_TLS_CONNECTION_STRING=\"Endpoint=sb://[^:]+:(\\d+)/;"));
      java.security.cert.X509Certificate cert =
          (java.security.cert.X509Certificate)
              java.security.cert.CertificateFactory.getInstance("X.509")
                  .generateCertificate(Files.newInputStream(pem));
      java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("sb", cert);
      javax.net.ssl.TrustManagerFactory tmf =
          javax.net.ssl.TrustManagerFactory.getInstance(
              javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);

      byte[] header = {'A', 'M', 'Q', 'P', 3, 1, 0, 0};
      byte[] answer = new byte[8];
      try (javax.net.ssl.SSLSocket socket =
          (javax.net.ssl.SSLSocket) context.getSocketFactory().createSocket("localhost", port)) {
        socket.setSoTimeout(20_000);
        socket.getOutputStream().write(header);
        socket.getOutputStream().flush();
        new java.io.DataInputStream(socket.getInputStream()).readFully(answer);
      }

      assertThat(answer).isEqualTo(header);
      assertThat(output).contains("SERVICEBUS_TLS_CERT=" + pem.toAbsolutePath());
    } finally {
      emulators.stop();
    }
    assertThat(emulators.exitCode()).isZero();
  }

  @Test
  void badConfigFile_exitsTwoNamingTheProblem(@TempDir Path dir) throws Exception {
    Path config = Files.writeString(dir.resolve("Config.json"), "{\"UserConfig\":{}}");
    int exit =
        EmulatorsRun.cli()
            .execute("--servicebus-port", "0", "--cosmos-port", "0", "--config", config.toString());

    assertThat(exit).isEqualTo(2);
  }

  @Test
  void badPaymentsApiKey_exitsTwoBeforeStartingAnything() {
    int exit =
        EmulatorsRun.cli().execute("--payments-port", "0", "--payments-api-key", "two words");

    assertThat(exit).isEqualTo(2);
  }

  @Test
  void shortWebhookSecret_exitsTwoBeforeStartingAnything() {
    int exit =
        EmulatorsRun.cli()
            .execute(
                "--only",
                "payments",
                "--payments-port",
                "0",
                "--payments-webhook-url",
                "http://127.0.0.1:1/webhooks/payments",
                "--payments-webhook-secret",
                "short");

    assertThat(exit).isEqualTo(2);
  }
}
