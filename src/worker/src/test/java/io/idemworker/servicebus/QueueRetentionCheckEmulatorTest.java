package io.idemworker.servicebus;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.core.http.HttpClient;
import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.netty.NettyAsyncHttpClientBuilder;
import com.azure.core.http.policy.HttpPipelineSyncPolicy;
import com.azure.core.util.UrlBuilder;
import com.azure.messaging.servicebus.administration.ServiceBusAdministrationClientBuilder;
import io.idemworker.core.MarkerRetention;
import io.idemworker.emulator.servicebus.AdminEndpoint;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.netty.handler.ssl.SslContextBuilder;
import java.time.Duration;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The worker's start-up cross-check of its retention settings against the queue's real properties
 * ({@link QueueRetentionCheck}), run on a connection string against the Service Bus emulator's
 * administration API: the same code the {@code run} command calls, given an HTTP client that trusts
 * the emulator's certificate and the port the SDK drops.
 */
class QueueRetentionCheckEmulatorTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static ServiceBusEmulator emulator;

  @BeforeAll
  static void start() {
    emulator =
        ServiceBusEmulator.builder()
            .adminPort(0)
            .queue(
                QueueSettings.defaults("orders")
                    .withLockDuration(Duration.ofSeconds(30))
                    .withMaxDeliveryCount(5)
                    .withDefaultMessageTimeToLive(Duration.ofDays(7)))
            .start();
  }

  @AfterAll
  static void stop() {
    emulator.close();
  }

  /** The check on the emulator's connection string, reading the queue through its admin API. */
  private QueueRetentionCheck.Result checkOnTheEmulator(String queue, MarkerRetention retention) {
    return QueueRetentionCheck.check(
        new ServiceBusConnection.ConnectionString(emulator.connectionString()),
        queue,
        retention,
        TIMEOUT,
        toEmulator(emulator.admin()));
  }

  @Test
  void onAConnectionString_readsTheQueueFromTheEmulator_andAgreesWithMatchingValues() {
    QueueRetentionCheck.Result result =
        checkOnTheEmulator(
            "orders",
            new MarkerRetention(Duration.ofSeconds(30), 5, Duration.ofDays(7), Duration.ofDays(1)));

    assertThat(result).isInstanceOf(QueueRetentionCheck.Agrees.class);
  }

  @Test
  void onAConnectionString_namesEveryDifference() {
    QueueRetentionCheck.Result result =
        checkOnTheEmulator(
            "orders",
            new MarkerRetention(Duration.ofMinutes(1), 10, Duration.ofDays(1), Duration.ofDays(1)));

    assertThat(result)
        .isInstanceOfSatisfying(
            QueueRetentionCheck.Differs.class,
            d ->
                assertThat(d.differences())
                    .hasSize(3)
                    .anySatisfy(
                        s -> assertThat(s).startsWith("MarkerRetention.lockDuration is PT1M"))
                    .anySatisfy(
                        s -> assertThat(s).startsWith("MarkerRetention.maxDeliveryCount is 10"))
                    .anySatisfy(
                        s ->
                            assertThat(s)
                                .startsWith("MarkerRetention.messageTimeToLive is PT24H")));
  }

  @Test
  void aMissingQueue_isNotChecked_namingTheCause() {
    QueueRetentionCheck.Result result =
        checkOnTheEmulator(
            "no-such-queue",
            new MarkerRetention(Duration.ofSeconds(30), 5, Duration.ofDays(7), Duration.ofDays(1)));

    assertThat(result)
        .isInstanceOfSatisfying(
            QueueRetentionCheck.NotChecked.class,
            n -> assertThat(n.why()).contains("ResourceNotFoundException"));
  }

  @Test
  void whereTheSdkSendsIt_withoutAnAdministrationEndpoint_itSaysItCouldNotLook() {
    // What the run command does on an emulator's connection string: the SDK asks port 443 of
    // localhost, where nothing answers.
    QueueRetentionCheck.Result result =
        QueueRetentionCheck.check(
            new ServiceBusConnection.ConnectionString(emulator.connectionString()),
            "orders",
            new MarkerRetention(Duration.ofSeconds(30), 5, Duration.ofDays(7), Duration.ofDays(1)),
            TIMEOUT);

    assertThat(result)
        .isInstanceOfSatisfying(
            QueueRetentionCheck.NotChecked.class, n -> assertThat(n.why()).contains("port 443"));
  }

  /** The SDK's Netty client trusting the emulator's certificate, sent to its port. */
  private static UnaryOperator<ServiceBusAdministrationClientBuilder> toEmulator(
      AdminEndpoint admin) {
    HttpClient trusting =
        new NettyAsyncHttpClientBuilder(
                reactor.netty.http.client.HttpClient.create()
                    .secure(spec -> spec.sslContext(sslContext(admin))))
            .build();
    HttpPipelineSyncPolicy toPort =
        new HttpPipelineSyncPolicy() {
          @Override
          protected void beforeSendingRequest(HttpPipelineCallContext context) {
            context
                .getHttpRequest()
                .setUrl(
                    UrlBuilder.parse(context.getHttpRequest().getUrl())
                        .setPort(admin.port())
                        .toString());
          }
        };
    return builder -> builder.httpClient(trusting).addPolicy(toPort);
  }

  private static io.netty.handler.ssl.SslContext sslContext(AdminEndpoint admin) {
    try {
      return SslContextBuilder.forClient().trustManager(admin.certificate()).build();
    } catch (SSLException e) {
      throw new IllegalStateException(e);
    }
  }
}
