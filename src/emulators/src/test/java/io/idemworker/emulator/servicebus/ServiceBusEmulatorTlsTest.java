package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The optional TLS AMQP port: the Java SDK over TLS trusting the generated certificate, a JDK TLS
 * client checking the certificate's names, a supplied PKCS12 certificate, and what TLS refuses.
 */
class ServiceBusEmulatorTlsTest {
  private static final byte[] AMQP_SASL_HEADER = {'A', 'M', 'Q', 'P', 3, 1, 0, 0};

  @TempDir Path dir;

  @Test
  void javaSdkOverTls_sendsAndReceives_trustingOnlyTheGeneratedCertificateBesideTheJdks()
      throws Exception {
    try (ServiceBusEmulator emulator =
        ServiceBusEmulator.builder().tlsPort(0).queue(QueueSettings.defaults("orders")).start()) {
      // The SDK takes its TLS trust from SSLContext.getDefault() (azure-core-amqp
      // ConnectionHandler);
      // a default that also trusts the emulator's certificate is set for this test and restored.
      SSLContext previous = SSLContext.getDefault();
      SSLContext.setDefault(trustingAlso(emulator.tls().certificate()));
      try {
        ServiceBusClientBuilder builder =
            new ServiceBusClientBuilder()
                .connectionString(emulator.tls().connectionString())
                .customEndpointAddress("https://localhost:" + emulator.tls().port())
                .retryOptions(Clients.retry());
        try (ServiceBusSenderClient sender = builder.sender().queueName("orders").buildClient();
            ServiceBusReceiverClient receiver =
                builder.receiver().queueName("orders").disableAutoComplete().buildClient()) {
          sender.sendMessage(new ServiceBusMessage("over tls").setMessageId("tls-1"));

          List<ServiceBusReceivedMessage> got = EmulatorFixture.receive(receiver, 1);
          receiver.complete(got.get(0));

          assertThat(got.get(0).getBody().toString()).isEqualTo("over tls");
        }
      } finally {
        SSLContext.setDefault(previous);
      }
      assertThat(emulator.messageCount("orders")).isZero();
    }
  }

  @Test
  void jdkTlsClient_verifiesTheGeneratedCertificateForLocalhost_andGetsAnAmqpSaslHeader()
      throws Exception {
    try (ServiceBusEmulator emulator = ServiceBusEmulator.builder().tlsPort(0).start()) {
      X509Certificate cert = emulator.tls().certificate();

      byte[] answer = amqpHeaderOverTls(emulator.tls().port(), "localhost", trusting(cert));

      assertThat(answer).isEqualTo(AMQP_SASL_HEADER);
      assertThat(cert.getSubjectAlternativeNames())
          .extracting(n -> (Object) n.get(1))
          .contains("localhost", "127.0.0.1");
      assertThat(emulator.tls().certificatePem())
          .startsWith("-----BEGIN CERTIFICATE-----\n")
          .endsWith("-----END CERTIFICATE-----\n");
      X509Certificate fromPem =
          (X509Certificate)
              CertificateFactory.getInstance("X.509")
                  .generateCertificate(
                      new java.io.ByteArrayInputStream(
                          emulator.tls().certificatePem().getBytes(StandardCharsets.US_ASCII)));
      assertThat(fromPem).isEqualTo(cert);
    }
  }

  @Test
  void tlsClientThatDoesNotTrustTheCertificate_failsTheHandshake() throws Exception {
    try (ServiceBusEmulator emulator = ServiceBusEmulator.builder().tlsPort(0).start()) {
      SSLContext jdkDefaultsOnly = SSLContext.getInstance("TLS");
      jdkDefaultsOnly.init(null, null, null);

      assertThatThrownBy(
              () -> amqpHeaderOverTls(emulator.tls().port(), "localhost", jdkDefaultsOnly))
          .isInstanceOf(SSLHandshakeException.class);
    }
  }

  @Test
  void suppliedPkcs12_isPresentedInsteadOfAGeneratedCertificate() throws Exception {
    char[] password = "s3cret".toCharArray();
    X509Certificate supplied = writePkcs12(dir.resolve("sb.p12"), password);

    try (ServiceBusEmulator emulator =
        ServiceBusEmulator.builder()
            .tlsPort(0)
            .tlsKeyStore(dir.resolve("sb.p12"), password)
            .start()) {
      byte[] answer = amqpHeaderOverTls(emulator.tls().port(), "localhost", trusting(supplied));

      assertThat(emulator.tls().certificate()).isEqualTo(supplied);
      assertThat(answer).isEqualTo(AMQP_SASL_HEADER);
    }
  }

  @Test
  void badKeyStoreOrNoTlsPort_isRefusedNamingTheCause() throws Exception {
    Path p12 = dir.resolve("sb.p12");
    writePkcs12(p12, "right".toCharArray());

    assertThatThrownBy(
            () ->
                ServiceBusEmulator.builder()
                    .tlsPort(0)
                    .tlsKeyStore(p12, "wrong".toCharArray())
                    .start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(p12.toString());
    assertThatThrownBy(
            () -> ServiceBusEmulator.builder().tlsKeyStore(p12, "right".toCharArray()).build())
        .hasMessageContaining("tlsKeyStore needs tlsPort");
    try (ServiceBusEmulator plainOnly = ServiceBusEmulator.builder().start()) {
      assertThatThrownBy(plainOnly::tls).hasMessageContaining("Builder.tlsPort");
    }
    assertThatThrownBy(() -> ServiceBusEmulator.builder().tlsPort(65536))
        .hasMessageContaining("tlsPort must be between 0 and 65535");
  }

  @Test
  void plainAmqpOnTheTlsPort_isNotServed_andThePlainPortStaysPlain() throws Exception {
    try (ServiceBusEmulator emulator = ServiceBusEmulator.builder().tlsPort(0).start()) {
      byte[] onTlsPort = plainAmqpHeader(emulator.tls().port());
      byte[] onPlainPort = plainAmqpHeader(emulator.port());

      assertThat(onTlsPort).isNotEqualTo(AMQP_SASL_HEADER);
      assertThat(onPlainPort).isEqualTo(AMQP_SASL_HEADER);
    }
  }

  /** Sends the AMQP SASL protocol header over TLS and returns the 8 bytes the server answers. */
  private static byte[] amqpHeaderOverTls(int port, String host, SSLContext context)
      throws IOException {
    try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 20_000);
      socket.setSoTimeout(20_000);
      SSLParameters params = socket.getSSLParameters();
      params.setEndpointIdentificationAlgorithm("HTTPS");
      params.setServerNames(List.of(new SNIHostName(host)));
      socket.setSSLParameters(params);
      socket.startHandshake();
      return exchangeHeader(socket);
    }
  }

  /** Sends the SASL header in the clear; returns what comes back before the server closes. */
  private static byte[] plainAmqpHeader(int port) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 20_000);
      socket.setSoTimeout(20_000);
      return exchangeHeader(socket);
    }
  }

  private static byte[] exchangeHeader(Socket socket) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(AMQP_SASL_HEADER);
    out.flush();
    InputStream in = socket.getInputStream();
    byte[] answer = new byte[8];
    int read = 0;
    while (read < answer.length) {
      int n = in.read(answer, read, answer.length - read);
      if (n < 0) {
        break;
      }
      read += n;
    }
    return Arrays.copyOf(answer, read);
  }

  private static SSLContext trusting(X509Certificate cert) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("emulator", cert);
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context;
  }

  /** The JDK's trusted certificates plus {@code cert}. */
  private static SSLContext trustingAlso(X509Certificate cert) throws Exception {
    TrustManagerFactory jdk =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    jdk.init((KeyStore) null);
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("emulator", cert);
    for (X509Certificate ca : ((X509TrustManager) jdk.getTrustManagers()[0]).getAcceptedIssuers()) {
      trust.setCertificateEntry("jdk-" + ca.getSerialNumber() + "-" + ca.hashCode(), ca);
    }
    TrustManagerFactory both =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    both.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, both.getTrustManagers(), null);
    return context;
  }

  /** Writes a PKCS12 file with a self-signed RSA certificate for localhost; returns it. */
  private static X509Certificate writePkcs12(Path file, char[] password) throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    KeyPair pair = generator.generateKeyPair();
    X500Name name = new X500Name("CN=localhost");
    Instant now = Instant.now();
    X509Certificate cert =
        new JcaX509CertificateConverter()
            .getCertificate(
                new JcaX509v3CertificateBuilder(
                        name,
                        BigInteger.valueOf(now.toEpochMilli()),
                        Date.from(now.minus(Duration.ofDays(1))),
                        Date.from(now.plus(Duration.ofDays(1))),
                        name,
                        pair.getPublic())
                    .addExtension(
                        org.bouncycastle.asn1.x509.Extension.subjectAlternativeName,
                        false,
                        new org.bouncycastle.asn1.x509.GeneralNames(
                            new org.bouncycastle.asn1.x509.GeneralName(
                                org.bouncycastle.asn1.x509.GeneralName.dNSName, "localhost")))
                    .build(new JcaContentSignerBuilder("SHA256withRSA").build(pair.getPrivate())));
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry("sb", pair.getPrivate(), password, new X509Certificate[] {cert});
    try (OutputStream out = Files.newOutputStream(file)) {
      store.store(out, password);
    }
    return cert;
  }
}
