package io.idemworker.emulator.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyStore;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The administration API's wire answers where the SDK cannot show them: the empty feed for a
 * missing queue, the error body, a refused change of RequiresSession, malformed and hostile XML,
 * and a request without a token while tokens are checked. A JDK HTTP client trusting only the
 * emulator's certificate, with host-name checking, talks to it.
 */
class ServiceBusEmulatorAdminHttpTest {
  private static final String QUEUE_BODY =
      "<entry xmlns=\"http://www.w3.org/2005/Atom\"><content type=\"application/xml\">"
          + "<QueueDescription xmlns=\"http://schemas.microsoft.com/netservices/2010/10/servicebus/connect\">"
          + "%s</QueueDescription></content></entry>";

  private static ServiceBusEmulator emulator;
  private static HttpClient http;

  @BeforeAll
  static void start() throws Exception {
    emulator =
        ServiceBusEmulator.builder()
            .adminPort(0)
            .queue(QueueSettings.defaults("plain"))
            .queue(QueueSettings.defaults("sessions").withRequiresSession(true))
            .start();
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("emulator", emulator.admin().certificate());
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, tmf.getTrustManagers(), null);
    http = HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(20)).build();
  }

  @AfterAll
  static void stop() {
    emulator.close();
  }

  @Test
  void missingQueue_is200WithAnEmptyFeed_asTheServiceAnswers() throws Exception {
    HttpResponse<String> r = get("/nowhere?enrich=true&api-version=2021-05");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).contains("atom+xml");
    assertThat(r.body())
        .startsWith("<feed xmlns=\"http://www.w3.org/2005/Atom\">")
        .contains("Publicly Listed Services")
        .doesNotContain("<entry");
  }

  @Test
  void queueEntry_isAnAtomEntryWithTheDescriptionAndCounts() throws Exception {
    HttpResponse<String> r = get("/plain?enrich=true&api-version=2021-05");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body())
        .startsWith("<entry xmlns=\"http://www.w3.org/2005/Atom\">")
        .contains("<title type=\"text\">plain</title>")
        .contains("<LockDuration>PT1M</LockDuration>")
        .contains("<DefaultMessageTimeToLive>P14D</DefaultMessageTimeToLive>")
        .contains("<d2p1:ActiveMessageCount>0</d2p1:ActiveMessageCount>");
  }

  @Test
  void conflict_is409WithTheServicesErrorBody() throws Exception {
    HttpResponse<String> r = put("/plain", String.format(QUEUE_BODY, ""), false);

    assertThat(r.statusCode()).isEqualTo(409);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).contains("application/xml");
    assertThat(r.body()).startsWith("<Error><Code>409</Code><Detail>").contains("already exists");
  }

  @Test
  void changingRequiresSession_ofAnExistingQueue_is400() throws Exception {
    HttpResponse<String> on =
        put("/plain", String.format(QUEUE_BODY, "<RequiresSession>true</RequiresSession>"), true);
    HttpResponse<String> off =
        put(
            "/sessions",
            String.format(QUEUE_BODY, "<RequiresSession>false</RequiresSession>"),
            true);

    assertThat(on.statusCode()).isEqualTo(400);
    assertThat(on.body()).contains("RequiresSession");
    assertThat(off.statusCode()).isEqualTo(400);
    assertThat(emulator.broker().queue("plain").orElseThrow().main().requiresSession()).isFalse();
  }

  @Test
  void malformedOrHostileXml_is400_andCreatesNothing() throws Exception {
    HttpResponse<String> malformed = put("/bad-xml", "<entry><content>", false);
    HttpResponse<String> doctype =
        put(
            "/bad-doctype",
            "<?xml version=\"1.0\"?><!DOCTYPE e [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                + String.format(QUEUE_BODY, "<UserMetadata>&x;</UserMetadata>"),
            false);
    HttpResponse<String> notAQueue = put("/bad-body", "<entry xmlns=\"x\"/>", false);
    HttpResponse<String> badDuration =
        put("/bad-duration", String.format(QUEUE_BODY, "<LockDuration>soon</LockDuration>"), false);

    assertThat(malformed.statusCode()).isEqualTo(400);
    assertThat(doctype.statusCode()).isEqualTo(400);
    assertThat(doctype.body()).doesNotContain("root:");
    assertThat(notAQueue.statusCode()).isEqualTo(400);
    assertThat(badDuration.statusCode()).isEqualTo(400);
    assertThat(badDuration.body()).contains("LockDuration");
    assertThat(emulator.broker().queues()).hasSize(2);
  }

  @Test
  void withTokenChecking_aRequestWithoutAuthorization_is401() throws Exception {
    try (ServiceBusEmulator checked =
        ServiceBusEmulator.builder()
            .adminPort(0)
            .sharedAccessKey("RootManageSharedAccessKey", "k")
            .start()) {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("emulator", checked.admin().certificate());
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(null, tmf.getTrustManagers(), null);
      HttpResponse<String> r =
          HttpClient.newBuilder()
              .sslContext(tls)
              .build()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(checked.admin().endpoint() + "/$Resources/queues"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());

      assertThat(r.statusCode()).isEqualTo(401);
      assertThat(r.body()).contains("<Code>401</Code>").contains("MissingToken");
    }
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(emulator.admin().endpoint() + path))
            .timeout(Duration.ofSeconds(20))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> put(String path, String body, boolean update)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(
                URI.create(emulator.admin().endpoint() + path + "?api-version=2021-05"))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/atom+xml")
            .PUT(HttpRequest.BodyPublishers.ofString(body));
    if (update) {
      b.header("If-Match", "*");
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
