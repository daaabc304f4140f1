package io.idemworker.emulator.servicebus;

import com.azure.core.http.HttpClient;
import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.netty.NettyAsyncHttpClientBuilder;
import com.azure.core.http.policy.ExponentialBackoffOptions;
import com.azure.core.http.policy.HttpPipelineSyncPolicy;
import com.azure.core.http.policy.RetryOptions;
import com.azure.core.util.UrlBuilder;
import com.azure.messaging.servicebus.administration.ServiceBusAdministrationClientBuilder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.time.Duration;
import javax.net.ssl.SSLException;

/**
 * Points the SDK's administration client at an emulator's administration port: the credential comes
 * from the emulator's connection string, as for the service; the SDK's Netty HTTP client trusts the
 * emulator's certificate; and a pipeline policy sets the port the SDK drops (it always dials 443 of
 * the connection string's host).
 */
final class AdminClients {
  private AdminClients() {}

  static ServiceBusAdministrationClientBuilder builder(ServiceBusEmulator emulator) {
    return builder(emulator.admin(), emulator.connectionString());
  }

  static ServiceBusAdministrationClientBuilder builder(
      AdminEndpoint admin, String connectionString) {
    return new ServiceBusAdministrationClientBuilder()
        .connectionString(connectionString)
        .httpClient(trusting(admin))
        .addPolicy(toPort(admin.port()))
        .retryOptions(
            new RetryOptions(
                new ExponentialBackoffOptions()
                    .setMaxRetries(2)
                    .setBaseDelay(Duration.ofMillis(100))
                    .setMaxDelay(Duration.ofMillis(500))));
  }

  /** The SDK's default HTTP client (Netty) trusting the emulator's certificate. */
  static HttpClient trusting(AdminEndpoint admin) {
    SslContext tls;
    try {
      tls = SslContextBuilder.forClient().trustManager(admin.certificate()).build();
    } catch (SSLException e) {
      throw new IllegalStateException(e);
    }
    return new NettyAsyncHttpClientBuilder(
            reactor.netty.http.client.HttpClient.create().secure(spec -> spec.sslContext(tls)))
        .build();
  }

  /** Sends every request to {@code port} of the host the SDK chose. */
  static HttpPipelineSyncPolicy toPort(int port) {
    return new HttpPipelineSyncPolicy() {
      @Override
      protected void beforeSendingRequest(HttpPipelineCallContext context) {
        context
            .getHttpRequest()
            .setUrl(UrlBuilder.parse(context.getHttpRequest().getUrl()).setPort(port).toString());
      }
    };
  }
}
