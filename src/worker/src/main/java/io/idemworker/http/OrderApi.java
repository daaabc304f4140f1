package io.idemworker.http;

import com.azure.cosmos.CosmosContainer;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idemworker.core.EffectStore;
import io.idemworker.core.RequestRecords;
import io.idemworker.cosmos.CosmosEffectStore;
import io.idemworker.cosmos.StoreCallListener;
import io.idemworker.http.server.ServerLimits;
import io.idemworker.orders.OrderDocumentIds;
import io.idemworker.telemetry.HealthServer;
import io.idemworker.webhooks.PaymentWebhookHandler;
import io.idemworker.webhooks.WebhookSecret;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Assembles the api: the route table and the server around it.
 *
 * <p>The route table is {@link #routes}: orders behind {@code API_AUTH}, the health probes open and
 * answered without blocking, and the payment provider's signed webhooks ({@link
 * PaymentWebhookHandler}, {@code POST /webhooks/payments}), which authenticate by their signature,
 * not by the api key, and keep their own mapping of the core's outcomes to statuses, as {@link
 * IntakeAnswers} does for orders. Both intakes write into the same orders container.
 */
public final class OrderApi {
  /** The order records' partition key field, as in the orders container. */
  static final String PARTITION_KEY_FIELD = OrderDocumentIds.PARTITION_KEY_PATH.substring(1);

  /** The header the payment provider signs its webhooks in. */
  static final String SIGNATURE_HEADER = "Webhook-Signature";

  private OrderApi() {}

  /**
   * The route table.
   *
   * @param orders the order intake
   * @param readiness empty when ready, else why not
   * @return the routes, tried in order
   */
  static List<ApiServer.Route> routes(
      OrderIntake orders, Supplier<Optional<String>> readiness, PaymentWebhookHandler receiver) {
    return List.of(
        new ApiServer.Route("POST", "/orders", ApiServer.Access.CALLER, orders::post),
        new ApiServer.Route("GET", "/orders/*", ApiServer.Access.CALLER, orders::get),
        new ApiServer.Route(
            "GET", HealthServer.LIVE_PATH, ApiServer.Access.PROBE, r -> status(200, "UP")),
        new ApiServer.Route(
            "GET",
            HealthServer.READY_PATH,
            ApiServer.Access.PROBE,
            r -> {
              Optional<String> problem = readiness.get();
              if (problem.isEmpty()) {
                return status(200, "READY");
              }
              ObjectNode body = JsonNodeFactory.instance.objectNode();
              body.put("status", "NOT_READY");
              body.put("reason", problem.get());
              return HttpAnswer.json(503, body);
            }),
        new ApiServer.Route(
            "POST",
            PaymentWebhookHandler.PATH,
            ApiServer.Access.OPEN,
            PaymentWebhookHandler.MAX_BODY_BYTES,
            r -> receiver.refusal(r.single("Content-Type")).map(OrderApi::answer),
            r -> answer(receiver.receive(r.header(SIGNATURE_HEADER), r.body()))));
  }

  private static HttpAnswer answer(PaymentWebhookHandler.Reply reply) {
    return new HttpAnswer(reply.status(), reply.contentType(), reply.headers(), reply.body());
  }

  /**
   * Builds the api on a store.
   *
   * @param address where to listen
   * @param store the orders container's store
   * @param auth who may call it
   * @param lease how long a request in flight keeps its key
   * @param window how long an answer is replayed
   * @param maxBodyBytes the body limit
   * @param clock leases, windows and acceptance times
   * @param faults seams for tests and the demo
   * @param limits what one client may hold, and how many requests work at once
   * @param readiness empty when ready, else why not; may block (a store round trip): probes get its
   *     last result at once and refresh it in the background
   * @param webhooks the webhook receiver's secret and marker lifetime
   * @return the server, not yet started
   */
  public static ApiServer create(
      InetSocketAddress address,
      EffectStore store,
      ApiAuth auth,
      Duration lease,
      Duration window,
      int maxBodyBytes,
      Clock clock,
      IntakeFaults faults,
      ServerLimits limits,
      Supplier<Optional<String>> readiness,
      Webhooks webhooks) {
    RequestRecords records = new RequestRecords(store, PARTITION_KEY_FIELD, lease, window, clock);
    OrderIntake orders = new OrderIntake(store, records, clock, maxBodyBytes, faults);
    PaymentWebhookHandler receiver =
        new PaymentWebhookHandler(webhooks.secret(), store, clock, webhooks.markerTtl());
    CachedReadiness cached =
        new CachedReadiness(
            readiness, Duration.ofSeconds(5), Duration.ofSeconds(60), System::nanoTime);
    return new ApiServer(
        address, routes(orders, cached, receiver), auth, maxBodyBytes, limits, cached);
  }

  /**
   * The webhook receiver's settings.
   *
   * @param secret {@code PAYMENTS_WEBHOOK_SECRET}; empty = the route answers 503 naming it, so the
   *     provider keeps its events until it is set
   * @param markerTtl {@code PAYMENTS_WEBHOOK_MARKER_TTL}: how long a {@code webhook:{eventId}}
   *     marker lives; it must outlive the provider's redelivery window, or a late copy applies
   *     twice; empty = forever
   */
  public record Webhooks(Optional<WebhookSecret> secret, Optional<Duration> markerTtl) {
    /** Requires both values. */
    public Webhooks {
      java.util.Objects.requireNonNull(secret, "secret");
      java.util.Objects.requireNonNull(markerTtl, "markerTtl");
    }

    /**
     * No secret: the route answers 503.
     *
     * @return settings without a secret, markers kept for the default 14 days
     */
    public static Webhooks unconfigured() {
      return new Webhooks(Optional.empty(), Optional.of(Duration.ofDays(14)));
    }
  }

  /**
   * An api without authentication on a loopback address, for the demo and local tools against the
   * emulators.
   *
   * @param container the orders container
   * @param lease how long a request in flight keeps its key
   * @param window how long an answer is replayed
   * @param clock leases, windows and acceptance times
   * @param faults seams that make answers late or lost
   * @param maxInFlight requests that work at once (answers a fault holds back count)
   * @param webhooks the webhook receiver's secret and marker lifetime
   * @return the server, not yet started, on a free loopback port
   */
  public static ApiServer local(
      CosmosContainer container,
      Duration lease,
      Duration window,
      Clock clock,
      IntakeFaults faults,
      int maxInFlight,
      Webhooks webhooks) {
    EffectStore store =
        new CosmosEffectStore(
            container, StoreCallListener.none(), OrderDocumentIds.PARTITION_KEY_PATH);
    return create(
        new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0),
        store,
        ApiAuth.none(),
        lease,
        window,
        262_144,
        clock,
        faults,
        new ServerLimits(
            1024, 1024, maxInFlight, 1024, Duration.ofSeconds(10), Duration.ofSeconds(30), 8192),
        Optional::empty,
        webhooks);
  }

  private static HttpAnswer status(int code, String status) {
    return HttpAnswer.json(code, JsonNodeFactory.instance.objectNode().put("status", status));
  }
}
