package io.idemworker.payments;

import static org.assertj.core.api.Assertions.assertThat;

import io.idemworker.orders.CaptureAnswer;
import io.idemworker.orders.CaptureAnswer.Ambiguous;
import io.idemworker.orders.CaptureAnswer.Captured;
import io.idemworker.orders.CaptureAnswer.Rejected;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Answers a real provider can give but the double does not (a 503 page, a 429, a 201 whose body is
 * cut), fed to the adapter's classification directly.
 */
class HttpPaymentProviderClassifyTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "201 | {\"id\":\"cap_1\",\"status\":\"captured\"} | Captured",
        "200 | {\"id\":\"cap_1\",\"status\":\"captured\"} | Captured",
        "201 | {\"id\":\"cap_1\",\"status\":\"pending\"}  | Ambiguous",
        "201 | {\"id\":\"cap_1\",\"sta                   | Ambiguous",
        "201 | ''                                       | Ambiguous",
        "402 | <html>declined</html>                    | Ambiguous",
        "409 | ''                                       | InFlight",
        "408 | ''                                       | Ambiguous",
        "429 | {\"error\":{\"message\":\"slow down\"}}  | Ambiguous",
        "500 | ''                                       | Ambiguous",
        "502 | <html>bad gateway</html>                 | Ambiguous",
        "503 | ''                                       | Ambiguous",
        "400 | {\"error\":{\"message\":\"amount bad\"}} | Rejected",
        "401 | ''                                       | Rejected",
        "403 | ''                                       | Rejected",
        "404 | <html>not found</html>                   | Rejected",
        "405 | ''                                       | Rejected",
        "301 | ''                                       | Rejected",
      })
  void everyStatusAndBodyShape_mapsToOneAnswer(int status, String body, String expected) {
    CaptureAnswer answer = HttpPaymentProvider.classify(new Response(status, body, Map.of()));

    assertThat(answer.getClass().getSimpleName()).isEqualTo(expected);
    if (answer instanceof Rejected rejected) {
      assertThat(rejected.status()).isEqualTo(status);
      assertThat(rejected.description()).startsWith("HTTP " + status);
    }
    if (answer instanceof Ambiguous ambiguous) {
      assertThat(ambiguous.description()).startsWith("HTTP " + status);
    }
  }

  @ParameterizedTest
  @CsvSource({"true, true", "TRUE, true", "false, false"})
  void replayedHeader_isReported(String header, boolean replayed) {
    CaptureAnswer answer =
        HttpPaymentProvider.classify(
            new Response(
                201,
                "{\"id\":\"cap_1\",\"status\":\"captured\"}",
                Map.of("Idempotent-Replayed", List.of(header))));

    assertThat(answer).isEqualTo(new Captured("cap_1", replayed));
  }

  private record Response(int statusCode, String text, Map<String, List<String>> headerMap)
      implements HttpResponse<byte[]> {
    @Override
    public HttpRequest request() {
      return HttpRequest.newBuilder(URI.create("http://127.0.0.1/v1/captures")).build();
    }

    @Override
    public Optional<HttpResponse<byte[]>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public HttpHeaders headers() {
      return HttpHeaders.of(headerMap, (name, value) -> true);
    }

    @Override
    public byte[] body() {
      return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return Optional.empty();
    }

    @Override
    public URI uri() {
      return request().uri();
    }

    @Override
    public HttpClient.Version version() {
      return HttpClient.Version.HTTP_1_1;
    }
  }
}
