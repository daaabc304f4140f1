package io.idemworker.emulator.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.exception.ResourceExistsException;
import com.azure.core.exception.ResourceNotFoundException;
import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.netty.NettyAsyncHttpClientBuilder;
import com.azure.core.http.policy.HttpPipelineSyncPolicy;
import com.azure.core.util.UrlBuilder;
import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusMessage;
import com.azure.messaging.servicebus.ServiceBusSenderClient;
import com.azure.messaging.servicebus.administration.ServiceBusAdministrationClient;
import com.azure.messaging.servicebus.administration.ServiceBusAdministrationClientBuilder;
import com.azure.messaging.servicebus.administration.models.CreateQueueOptions;
import com.azure.messaging.servicebus.administration.models.QueueProperties;
import io.idemworker.emulator.junit.AzureEmulators;
import io.idemworker.emulator.junit.Emulators;
import io.idemworker.emulator.servicebus.AdminEndpoint;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.Test;

/**
 * The Service Bus administration API switched on by the annotation ({@code serviceBusAdmin =
 * true}), reached by the SDK's {@link ServiceBusAdministrationClient} built from what the kit
 * injects, through the public API only (this package is not the kit's): it lists the declared
 * queue, creates one that AMQP clients then use, counts its messages, and answers a taken name and
 * a missing queue as the service does.
 */
@AzureEmulators(cosmos = false, serviceBusAdmin = true, queues = "kit-admin-declared")
class KitAdminApiTest {

  @Test
  void adminClient_listsTheDeclaredQueue_createsOneThatAmqpClientsUse(Emulators azure)
      throws SSLException {
    ServiceBusAdministrationClient admin = adminClient(azure);
    String queue = azure.uniqueName("kit-admin");

    QueueProperties created =
        admin.createQueue(
            queue,
            new CreateQueueOptions()
                .setLockDuration(Duration.ofSeconds(20))
                .setMaxDeliveryCount(3));
    List<String> listed = admin.listQueues().stream().map(QueueProperties::getName).toList();
    try (ServiceBusSenderClient sender =
        new ServiceBusClientBuilder()
            .connectionString(azure.serviceBusConnectionString())
            .sender()
            .queueName(queue)
            .buildClient()) {
      sender.sendMessage(new ServiceBusMessage("sent over AMQP"));
    }

    assertThat(listed).contains("kit-admin-declared", queue);
    assertThat(created.getMaxDeliveryCount()).isEqualTo(3);
    assertThat(admin.getQueue(queue).getLockDuration()).isEqualTo(Duration.ofSeconds(20));
    assertThat(admin.getQueueRuntimeProperties(queue).getActiveMessageCount()).isEqualTo(1);
    assertThat(azure.serviceBus().messageCount(queue)).isEqualTo(1);
  }

  @Test
  void adminClient_aTakenNameIs409_aMissingQueue404(Emulators azure) throws SSLException {
    ServiceBusAdministrationClient admin = adminClient(azure);

    assertThatThrownBy(() -> admin.createQueue("kit-admin-declared"))
        .isInstanceOfSatisfying(
            ResourceExistsException.class,
            e -> assertThat(e.getResponse().getStatusCode()).isEqualTo(409));
    assertThatThrownBy(() -> admin.getQueue(azure.uniqueName("kit-missing")))
        .isInstanceOf(ResourceNotFoundException.class);
    assertThat(admin.getQueueExists("kit-admin-declared")).isTrue();
  }

  static ServiceBusAdministrationClient adminClient(Emulators azure) throws SSLException {
    return adminClient(azure.serviceBusAdmin(), azure.serviceBusConnectionString());
  }

  // BEGIN: kit-page-admin-client
  /**
   * The SDK's administration client for the kit's Service Bus emulator: {@code
   * adminClient(azure.serviceBusAdmin(), azure.serviceBusConnectionString())}.
   */
  static ServiceBusAdministrationClient adminClient(AdminEndpoint endpoint, String connectionString)
      throws SSLException {
    SslContext trustIt = SslContextBuilder.forClient().trustManager(endpoint.certificate()).build();
    return new ServiceBusAdministrationClientBuilder()
        .connectionString(connectionString) // the credential
        .httpClient(
            new NettyAsyncHttpClientBuilder(
                    reactor.netty.http.client.HttpClient.create()
                        .secure(tls -> tls.sslContext(trustIt)))
                .build())
        .addPolicy(
            new HttpPipelineSyncPolicy() { // the SDK dials port 443: send it to the emulator's
              @Override
              protected void beforeSendingRequest(HttpPipelineCallContext context) {
                String url = context.getHttpRequest().getUrl().toString();
                context
                    .getHttpRequest()
                    .setUrl(UrlBuilder.parse(url).setPort(endpoint.port()).toString());
              }
            })
        .buildClient();
  }
  // END: kit-page-admin-client
}
