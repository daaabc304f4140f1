package io.idemworker.emulator.servicebus;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Element;

/**
 * The Service Bus administration API (the REST API {@code ServiceBusAdministrationClient} uses):
 * Atom entries and feeds of queue, topic, subscription and rule descriptions, over the emulator's
 * namespace.
 *
 * <ul>
 *   <li>{@code GET|PUT|DELETE /{queue or topic}}, {@code GET /$Resources/queues|topics} ({@code
 *       $skip}, {@code $top}), {@code GET /$namespaceinfo};
 *   <li>{@code GET|PUT|DELETE /{topic}/subscriptions/{name}}, {@code GET /{topic}/subscriptions};
 *   <li>{@code GET|PUT|DELETE /{topic}/subscriptions/{name}/rules/{rule}}, {@code GET .../rules}.
 * </ul>
 *
 * <p>A {@code PUT} without {@code If-Match} creates (201; 409 when the name is taken), with it
 * updates (200; 404 when missing). A missing queue or topic is answered as the service answers it:
 * 200 with an empty feed; a missing subscription or rule, or any missing entity on {@code DELETE},
 * 404. Invalid settings are 400. Errors carry the service's {@code <Error><Code/><Detail/></Error>}
 * body. Properties the emulator does not act on (size quota, auto-delete on idle, batching,
 * partitioning, express, user metadata) are kept and returned; what it cannot do faithfully
 * (auto-forwarding, rule actions, a status other than Active) is refused with 400 naming it.
 *
 * <p>Thread-safe: writes are serialised on this object; reads see the broker's current state.
 */
final class AdminApi {
  private static final Logger LOG = LoggerFactory.getLogger(AdminApi.class);
  private static final String API_VERSION = "2021-05";
  private static final String ENTRY_TYPE = "application/atom+xml;type=entry;charset=utf-8";
  private static final String FEED_TYPE = "application/atom+xml;type=feed;charset=utf-8";
  private static final String ERROR_TYPE = "application/xml;charset=utf-8";
  private static final Pattern ENTITY_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/\\-]*");
  private static final Pattern CHILD_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._\\-]*");
  private static final Duration MIN_LOCK = Duration.ofSeconds(5);
  private static final Duration MAX_LOCK = Duration.ofMinutes(5);
  private static final Duration MAX_DUPLICATE_WINDOW = Duration.ofDays(7);
  private static final Duration MIN_AUTO_DELETE = Duration.ofMinutes(5);
  private static final Instant NEVER = Instant.parse("0001-01-01T00:00:00Z");
  private static final int PAGE = 100;

  /** A request as the HTTP listener read it. */
  record Request(String method, URI uri, Map<String, List<String>> headers, byte[] body) {
    Optional<String> header(String name) {
      for (Map.Entry<String, List<String>> e : headers.entrySet()) {
        if (e.getKey() != null && e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
          return Optional.of(e.getValue().get(0));
        }
      }
      return Optional.empty();
    }
  }

  /** An answer: status, content type and body (empty for none). */
  record Response(int status, String contentType, String body) {
    static Response error(int status, String detail) {
      return new Response(
          status,
          ERROR_TYPE,
          new AtomXml.Writer()
              .open("Error")
              .element("Code", status)
              .element("Detail", detail)
              .close("Error")
              .toString());
    }
  }

  /** A refusal with the status and detail the service would answer. */
  private static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;

    Refused(int status, String detail) {
      super(detail, null, false, false);
      this.status = status;
    }
  }

  /**
   * What an entity's description holds that the broker does not act on: kept as set and returned.
   */
  private record Extras(
      long maxSizeInMegabytes,
      boolean enableBatchedOperations,
      Duration autoDeleteOnIdle,
      boolean enablePartitioning,
      boolean supportOrdering,
      boolean enableExpress,
      long maxMessageSizeInKilobytes,
      String userMetadata,
      boolean deadLetteringOnFilterEvaluationExceptions,
      Instant updatedAt) {
    static Extras defaults(Instant createdAt) {
      return new Extras(
          1024, true, AtomXml.MAX_DURATION, false, true, false, 256, null, true, createdAt);
    }
  }

  private final Broker broker;
  private final Optional<SharedAccessKeys> keys;
  private final Duration shortestDuplicateWindow;
  private final Instant started;
  private final Map<String, Extras> extras = new ConcurrentHashMap<>();
  private final Consumer<Set<EntityStore>> deleted;

  /**
   * Serves the administration API over {@code broker}.
   *
   * @param keys the key tokens are checked against; empty accepts every request
   * @param shortestDuplicateWindow the shortest duplicate-detection window accepted
   * @param deleted told the stores of every entity deleted, to detach their receivers
   */
  AdminApi(
      Broker broker,
      Optional<SharedAccessKeys> keys,
      Duration shortestDuplicateWindow,
      Consumer<Set<EntityStore>> deleted) {
    this.deleted = deleted;
    this.broker = broker;
    this.keys = keys;
    this.shortestDuplicateWindow = shortestDuplicateWindow;
    this.started = broker.clock().instant();
  }

  /** Answers one request; never throws for a bad request. */
  Response handle(Request request) {
    String method = request.method().toUpperCase(Locale.ROOT);
    String path = trimSlashes(Optional.ofNullable(request.uri().getPath()).orElse(""));
    try {
      if (keys.isPresent()) {
        Optional<String> refusal =
            keys.get().refusal(request.header("Authorization").orElse(null), path);
        if (refusal.isPresent()) {
          LOG.info("administration request {} /{} refused: {}", method, path, refusal.get());
          return Response.error(401, refusal.get() + trackingSuffix(request, path));
        }
      }
      Response response = route(method, path, request);
      LOG.debug("administration {} /{}: {}", method, path, response.status());
      return response;
    } catch (Refused e) {
      LOG.info("administration {} /{}: {} {}", method, path, e.status, e.getMessage());
      return Response.error(e.status, e.getMessage() + trackingSuffix(request, path));
    }
  }

  private Response route(String method, String path, Request request) {
    String lower = path.toLowerCase(Locale.ROOT);
    if (lower.equals("$namespaceinfo")) {
      requireMethod(method, "GET");
      return namespaceInfo(request);
    }
    if (lower.startsWith("$resources/")) {
      requireMethod(method, "GET");
      return switch (lower.substring("$resources/".length())) {
        case "queues" -> queueFeed(request);
        case "topics" -> topicFeed(request);
        default -> throw new Refused(400, "Unknown resource collection '" + path + "'.");
      };
    }
    if (path.isEmpty()) {
      throw new Refused(400, "The request names no entity.");
    }
    String[] segments = path.split("/");
    for (int i = 1; i < segments.length; i++) {
      if (segments[i].equalsIgnoreCase("subscriptions")) {
        String topic = String.join("/", java.util.Arrays.copyOfRange(segments, 0, i));
        int rest = segments.length - i - 1;
        if (rest == 0) {
          requireMethod(method, "GET");
          return subscriptionFeed(request, requireTopic(topic));
        }
        String subscription = segments[i + 1];
        if (rest == 1) {
          return subscription(method, request, topic, subscription);
        }
        if (!segments[i + 2].equalsIgnoreCase("rules") || rest > 3) {
          throw new Refused(400, "Unknown resource '" + path + "'.");
        }
        if (rest == 2) {
          requireMethod(method, "GET");
          return ruleFeed(request, topic, requireSubscription(requireTopic(topic), subscription));
        }
        return rule(method, request, topic, subscription, segments[i + 3]);
      }
    }
    return entity(method, request, path);
  }

  // ---------------------------------------------------------------- queues and topics

  private Response entity(String method, Request request, String name) {
    switch (method) {
      case "GET" -> {
        Optional<Broker.Queue> queue = broker.queue(name);
        if (queue.isPresent()) {
          return new Response(200, ENTRY_TYPE, queueEntry(request, queue.get(), true));
        }
        Optional<Topic> topic = broker.resolveTopic(name);
        if (topic.isPresent()) {
          return new Response(200, ENTRY_TYPE, topicEntry(request, topic.get(), true));
        }
        // As the service answers: 200 with a feed that has no entry.
        return new Response(200, FEED_TYPE, emptyFeed(request, name));
      }
      case "PUT" -> {
        Element description = description(request, "QueueDescription", "TopicDescription");
        boolean update = request.header("If-Match").isPresent();
        synchronized (this) {
          return description.getLocalName().equals("QueueDescription")
              ? putQueue(request, name, description, update)
              : putTopic(request, name, description, update);
        }
      }
      case "DELETE" -> {
        synchronized (this) {
          Optional<Broker.Queue> queue = broker.deleteQueue(name);
          Optional<Topic> topic = queue.isPresent() ? Optional.empty() : broker.deleteTopic(name);
          if (queue.isPresent() || topic.isPresent()) {
            Set<EntityStore> stores = new HashSet<>();
            queue.ifPresent(q -> stores.addAll(stores(q)));
            topic.ifPresent(
                t ->
                    t.subscriptions()
                        .forEach(s -> stores.addAll(List.of(s.main(), s.deadLetter()))));
            deleted.accept(stores);
            forget(name);
            LOG.info("{} deleted (administration API)", name);
            return new Response(200, ENTRY_TYPE, "");
          }
        }
        throw notFound(name, "Queue");
      }
      default -> throw new Refused(405, "Method " + method + " is not allowed here.");
    }
  }

  /**
   * Checks a new queue's or topic's name: well formed, and neither a queue nor a topic has it (the
   * service's 409 names which one does).
   */
  private void requireNewName(Request request, String name) {
    requireEntityName(name);
    if (broker.queue(name).isPresent()) {
      throw alreadyExists(request, "Queue", name);
    }
    if (broker.resolveTopic(name).isPresent()) {
      throw alreadyExists(request, "Topic", name);
    }
  }

  /** Creates an entity; a refusal by the broker (a clash it found) is the service's 409. */
  private static void create(Runnable creation) {
    try {
      creation.run();
    } catch (IllegalArgumentException e) {
      throw new Refused(409, e.getMessage());
    }
  }

  /** The service's 409 for a create whose name a queue or topic already has. */
  private Refused alreadyExists(Request request, String kind, String name) {
    return new Refused(
        409,
        "The messaging entity '"
            + namespace(request)
            + ":"
            + kind
            + ":"
            + name
            + "' already exists.");
  }

  private Response putQueue(Request request, String name, Element d, boolean update) {
    Optional<Broker.Queue> existing = broker.queue(name);
    if (!update) {
      requireNewName(request, name);
      QueueSettings settings = queueSettings(name, d, QueueSettings.defaults(name), false);
      Extras x = extras(d, Extras.defaults(broker.clock().instant()), true);
      create(() -> broker.createQueue(settings));
      extras.put(key(name), x);
      LOG.info("queue {} created (administration API)", name);
      return new Response(
          201, ENTRY_TYPE, queueEntry(request, broker.queue(name).orElseThrow(), true));
    }
    Broker.Queue queue = existing.orElseThrow(() -> notFound(name, "Queue"));
    QueueSettings current = queue.main().settings();
    QueueSettings settings = queueSettings(current.name(), d, current, true);
    requireUnchanged(
        current.requiresSession(), settings.requiresSession(), "RequiresSession", "Queue");
    requireUnchanged(
        current.requiresDuplicateDetection(),
        settings.requiresDuplicateDetection(),
        "RequiresDuplicateDetection",
        "Queue");
    Extras before = extrasOf(current.name(), queue.main().createdAt());
    Extras x = extras(d, before, false);
    requireUnchanged(
        before.enablePartitioning(), x.enablePartitioning(), "EnablePartitioning", "Queue");
    broker.updateQueue(queue, settings);
    extras.put(key(name), withUpdatedAt(x));
    LOG.info("queue {} updated (administration API)", name);
    return new Response(200, ENTRY_TYPE, queueEntry(request, queue, true));
  }

  private Response putTopic(Request request, String name, Element d, boolean update) {
    Optional<Topic> existing = broker.resolveTopic(name);
    if (!update) {
      requireNewName(request, name);
      TopicSettings settings = topicSettings(name, d, TopicSettings.defaults(name), false);
      Extras x = extras(d, Extras.defaults(broker.clock().instant()), true);
      create(() -> broker.createTopic(settings));
      extras.put(key(name), x);
      LOG.info("topic {} created (administration API)", name);
      return new Response(
          201, ENTRY_TYPE, topicEntry(request, broker.resolveTopic(name).orElseThrow(), true));
    }
    Topic topic = existing.orElseThrow(() -> notFound(name, "Topic"));
    TopicSettings current = topic.settings();
    TopicSettings settings = topicSettings(current.name(), d, current, true);
    requireUnchanged(
        current.requiresDuplicateDetection(),
        settings.requiresDuplicateDetection(),
        "RequiresDuplicateDetection",
        "Topic");
    Extras before = extrasOf(current.name(), topic.createdAt());
    Extras x = extras(d, before, false);
    requireUnchanged(
        before.enablePartitioning(), x.enablePartitioning(), "EnablePartitioning", "Topic");
    topic.updateSettings(settings);
    extras.put(key(name), withUpdatedAt(x));
    LOG.info("topic {} updated (administration API)", name);
    return new Response(200, ENTRY_TYPE, topicEntry(request, topic, true));
  }

  private QueueSettings queueSettings(String name, Element d, QueueSettings base, boolean update) {
    refuseUnsupported(d);
    Duration lock = duration(d, "LockDuration").orElse(base.lockDuration());
    if (!update || !lock.equals(base.lockDuration())) {
      requireLockDuration(lock);
    }
    int maxDelivery = integer(d, "MaxDeliveryCount").orElse(base.maxDeliveryCount());
    requireMaxDeliveryCount(maxDelivery);
    Duration window =
        duration(d, "DuplicateDetectionHistoryTimeWindow")
            .orElse(base.duplicateDetectionHistoryTimeWindow());
    requireDuplicateWindow(window);
    Duration ttl =
        duration(d, "DefaultMessageTimeToLive")
            .orElse(update ? base.defaultMessageTimeToLive() : AtomXml.MAX_DURATION);
    requirePositive("DefaultMessageTimeToLive", ttl);
    try {
      return new QueueSettings(
          name,
          lock,
          maxDelivery,
          bool(d, "RequiresDuplicateDetection").orElse(base.requiresDuplicateDetection()),
          window,
          ttl,
          bool(d, "DeadLetteringOnMessageExpiration")
              .orElse(base.deadLetteringOnMessageExpiration()),
          bool(d, "RequiresSession").orElse(base.requiresSession()));
    } catch (IllegalArgumentException e) {
      throw new Refused(400, e.getMessage());
    }
  }

  private TopicSettings topicSettings(String name, Element d, TopicSettings base, boolean update) {
    refuseUnsupported(d);
    Duration window =
        duration(d, "DuplicateDetectionHistoryTimeWindow")
            .orElse(base.duplicateDetectionHistoryTimeWindow());
    requireDuplicateWindow(window);
    Duration ttl =
        duration(d, "DefaultMessageTimeToLive")
            .orElse(update ? base.defaultMessageTimeToLive() : AtomXml.MAX_DURATION);
    requirePositive("DefaultMessageTimeToLive", ttl);
    try {
      return new TopicSettings(
          name,
          bool(d, "RequiresDuplicateDetection").orElse(base.requiresDuplicateDetection()),
          window,
          ttl,
          List.of());
    } catch (IllegalArgumentException e) {
      throw new Refused(400, e.getMessage());
    }
  }

  // ---------------------------------------------------------------- subscriptions

  private Response subscription(String method, Request request, String topicName, String name) {
    Topic topic = requireTopic(topicName);
    switch (method) {
      case "GET" -> {
        Topic.Subscription s = requireSubscription(topic, name);
        return new Response(200, ENTRY_TYPE, subscriptionEntry(request, topic, s, true));
      }
      case "PUT" -> {
        Element d = description(request, "SubscriptionDescription");
        boolean update = request.header("If-Match").isPresent();
        synchronized (this) {
          return update
              ? updateSubscription(request, topic, requireSubscription(topic, name), d)
              : createSubscription(request, topic, name, d);
        }
      }
      case "DELETE" -> {
        synchronized (this) {
          Topic.Subscription s = requireSubscription(topic, name);
          Optional<Broker.Queue> stores = broker.subscriptionStores(s.main().path());
          broker.deleteSubscription(topic, s.settings().name());
          Set<EntityStore> gone = new HashSet<>(List.of(s.main(), s.deadLetter()));
          stores.ifPresent(q -> gone.addAll(stores(q)));
          deleted.accept(gone);
          forget(s.main().path());
        }
        LOG.info("subscription {}/{} deleted (administration API)", topicName, name);
        return new Response(200, ENTRY_TYPE, "");
      }
      default -> throw new Refused(405, "Method " + method + " is not allowed here.");
    }
  }

  private Response createSubscription(Request request, Topic topic, String name, Element d) {
    requireChildName(name, "subscription");
    if (topic.subscription(name).isPresent()) {
      throw new Refused(
          409,
          "The messaging entity '"
              + namespace(request)
              + ":Topic:"
              + topic.path()
              + "|"
              + name
              + "' already exists.");
    }
    SubscriptionSettings settings =
        subscriptionSettings(name, d, SubscriptionSettings.defaults(name), false);
    Optional<Element> defaultRule =
        AtomXml.children(d, "DefaultRuleDescription").stream().findFirst();
    if (defaultRule.isPresent()) {
      SubscriptionRule rule = rule(defaultRule.get(), "$Default");
      settings = settings.withRule(rule);
    }
    Extras x = extras(d, Extras.defaults(broker.clock().instant()), true);
    SubscriptionSettings created = settings;
    create(() -> broker.createSubscription(topic, created));
    Topic.Subscription s = topic.subscription(name).orElseThrow();
    extras.put(key(s.main().path()), x);
    LOG.info("subscription {}/{} created (administration API)", topic.path(), name);
    return new Response(201, ENTRY_TYPE, subscriptionEntry(request, topic, s, true));
  }

  private Response updateSubscription(
      Request request, Topic topic, Topic.Subscription s, Element d) {
    SubscriptionSettings current = s.settings();
    SubscriptionSettings settings = subscriptionSettings(current.name(), d, current, true);
    if (settings.requiresSession() != current.requiresSession()) {
      throw new Refused(
          400,
          "The value for the RequiresSession property of an existing Subscription cannot be"
              + " changed.");
    }
    Extras x = extras(d, extrasOf(s.main().path(), s.createdAt()), false);
    topic.updateSubscription(s, settings);
    extras.put(key(s.main().path()), withUpdatedAt(x));
    LOG.info("subscription {} updated (administration API)", s.main().path());
    return new Response(200, ENTRY_TYPE, subscriptionEntry(request, topic, s, true));
  }

  private SubscriptionSettings subscriptionSettings(
      String name, Element d, SubscriptionSettings base, boolean update) {
    refuseUnsupported(d);
    Duration lock = duration(d, "LockDuration").orElse(base.lockDuration());
    if (!update || !lock.equals(base.lockDuration())) {
      requireLockDuration(lock);
    }
    int maxDelivery = integer(d, "MaxDeliveryCount").orElse(base.maxDeliveryCount());
    requireMaxDeliveryCount(maxDelivery);
    Duration ttl =
        duration(d, "DefaultMessageTimeToLive")
            .orElse(update ? base.defaultMessageTimeToLive() : AtomXml.MAX_DURATION);
    requirePositive("DefaultMessageTimeToLive", ttl);
    try {
      return new SubscriptionSettings(
          name,
          lock,
          maxDelivery,
          ttl,
          bool(d, "DeadLetteringOnMessageExpiration")
              .orElse(base.deadLetteringOnMessageExpiration()),
          base.rules(),
          bool(d, "RequiresSession").orElse(base.requiresSession()));
    } catch (IllegalArgumentException e) {
      throw new Refused(400, e.getMessage());
    }
  }

  // ---------------------------------------------------------------- rules

  private Response rule(
      String method, Request request, String topicName, String subscriptionName, String name) {
    Topic topic = requireTopic(topicName);
    Topic.Subscription s = requireSubscription(topic, subscriptionName);
    switch (method) {
      case "GET" -> {
        Topic.Rule rule = requireRule(topic, s, name);
        return new Response(200, ENTRY_TYPE, ruleEntry(request, s, rule, true));
      }
      case "PUT" -> {
        Element d = description(request, "RuleDescription");
        boolean update = request.header("If-Match").isPresent();
        synchronized (this) {
          List<Topic.Rule> rules = new ArrayList<>(s.rules());
          int at = indexOf(rules, name);
          if (update && at < 0) {
            throw notFoundRule(topic, s, name);
          }
          if (!update && at >= 0) {
            throw new Refused(
                409,
                "The messaging entity '"
                    + namespace(request)
                    + ":Topic:"
                    + topic.path()
                    + "|"
                    + s.settings().name()
                    + "|"
                    + name
                    + "' already exists.");
          }
          if (!update) {
            requireRuleName(name);
          }
          // The rule is named by its address (an update keeps the name's spelling).
          SubscriptionRule parsed =
              named(rule(d, name), update ? rules.get(at).rule().name() : name);
          Topic.Rule made =
              new Topic.Rule(parsed, update ? rules.get(at).createdAt() : broker.clock().instant());
          if (update) {
            rules.set(at, made);
          } else {
            rules.add(made);
          }
          topic.setRules(s, rules);
          LOG.info(
              "rule {} of {} {} (administration API)",
              name,
              s.main().path(),
              update ? "updated" : "created");
          return new Response(update ? 200 : 201, ENTRY_TYPE, ruleEntry(request, s, made, true));
        }
      }
      case "DELETE" -> {
        synchronized (this) {
          List<Topic.Rule> rules = new ArrayList<>(s.rules());
          int at = indexOf(rules, name);
          if (at < 0) {
            throw notFoundRule(topic, s, name);
          }
          rules.remove(at);
          topic.setRules(s, rules);
        }
        LOG.info("rule {} of {} deleted (administration API)", name, s.main().path());
        return new Response(200, ENTRY_TYPE, "");
      }
      default -> throw new Refused(405, "Method " + method + " is not allowed here.");
    }
  }

  private static List<EntityStore> stores(Broker.Queue q) {
    return List.of(q.main(), q.deadLetter(), q.transferDeadLetter());
  }

  private static int indexOf(List<Topic.Rule> rules, String name) {
    for (int i = 0; i < rules.size(); i++) {
      if (rules.get(i).rule().name().equalsIgnoreCase(name)) {
        return i;
      }
    }
    return -1;
  }

  private static SubscriptionRule named(SubscriptionRule rule, String name) {
    return new SubscriptionRule(name, rule.filter());
  }

  /** Reads a rule description's filter and action. */
  private static SubscriptionRule rule(Element d, String defaultName) {
    String name = AtomXml.text(d, "Name").filter(n -> !n.isEmpty()).orElse(defaultName);
    Optional<Element> action = AtomXml.children(d, "Action").stream().findFirst();
    if (action.isPresent()) {
      String type = AtomXml.xsiType(action.get());
      Optional<String> expression = AtomXml.text(action.get(), "SqlExpression");
      if (type.equals("SqlRuleAction") && expression.filter(e -> !e.isBlank()).isPresent()) {
        throw new Refused(
            400,
            "Rule '"
                + name
                + "': rule actions (SqlRuleAction '"
                + expression.get()
                + "') are not supported by this emulator.");
      }
    }
    Optional<Element> filterElement = AtomXml.children(d, "Filter").stream().findFirst();
    RuleFilter filter = filterElement.map(AdminApi::filter).orElse(new SqlFilter("1=1"));
    return new SubscriptionRule(name, filter);
  }

  private static RuleFilter filter(Element f) {
    String type = AtomXml.xsiType(f);
    try {
      switch (type) {
        case "TrueFilter" -> {
          return new SqlFilter("1=1");
        }
        case "FalseFilter" -> {
          return new SqlFilter("1=0");
        }
        case "SqlFilter", "" -> {
          String expression =
              AtomXml.text(f, "SqlExpression")
                  .orElseThrow(() -> new Refused(400, "A SqlFilter needs a SqlExpression."));
          return new SqlFilter(expression);
        }
        case "CorrelationFilter" -> {
          Map<String, String> system = new LinkedHashMap<>();
          for (String p : CorrelationFilter.SYSTEM_PROPERTIES) {
            AtomXml.text(f, p).ifPresent(v -> system.put(p, v));
          }
          Map<String, Object> application = new LinkedHashMap<>();
          for (Element props : AtomXml.children(f, "Properties")) {
            for (Element kv : AtomXml.children(props, "KeyValueOfstringanyType")) {
              String key = AtomXml.text(kv, "Key").orElse("");
              Element value = AtomXml.children(kv, "Value").stream().findFirst().orElse(null);
              application.put(key, value == null ? "" : typedValue(value));
            }
          }
          return new CorrelationFilter(system, application);
        }
        default -> throw new Refused(400, "Unknown filter type '" + type + "'.");
      }
    } catch (IllegalArgumentException e) {
      throw new Refused(400, "The filter is not valid: " + e.getMessage());
    }
  }

  private static Object typedValue(Element value) {
    String text = value.getTextContent();
    return switch (AtomXml.xsiType(value)) {
      case "int", "short", "byte" -> Integer.valueOf(text.trim());
      case "long" -> Long.valueOf(text.trim());
      case "double", "float", "decimal" -> Double.valueOf(text.trim());
      case "boolean" -> Boolean.valueOf(text.trim());
      default -> text;
    };
  }

  // ---------------------------------------------------------------- feeds

  private Response queueFeed(Request request) {
    List<Broker.Queue> all = new ArrayList<>(broker.queues());
    all.sort(Comparator.comparing(q -> q.main().path().toLowerCase(Locale.ROOT)));
    return feed(request, "Queues", all, q -> queueEntry(request, q, false));
  }

  private Response topicFeed(Request request) {
    List<Topic> all = new ArrayList<>(broker.topics());
    all.sort(Comparator.comparing(t -> t.path().toLowerCase(Locale.ROOT)));
    return feed(request, "Topics", all, t -> topicEntry(request, t, false));
  }

  private Response subscriptionFeed(Request request, Topic topic) {
    List<Topic.Subscription> all = new ArrayList<>(topic.subscriptions());
    all.sort(Comparator.comparing(s -> s.settings().name().toLowerCase(Locale.ROOT)));
    return feed(request, "Subscriptions", all, s -> subscriptionEntry(request, topic, s, false));
  }

  private Response ruleFeed(Request request, String topic, Topic.Subscription s) {
    List<Topic.Rule> all = new ArrayList<>(s.rules());
    all.sort(Comparator.comparing(r -> r.rule().name().toLowerCase(Locale.ROOT)));
    return feed(request, "Rules", all, r -> ruleEntry(request, s, r, false));
  }

  private <T> Response feed(Request request, String title, List<T> all, Function<T, String> entry) {
    Map<String, String> query = query(request.uri());
    int skip = Math.max(0, intParameter(query, "$skip", 0));
    int top = Math.max(1, Math.min(PAGE, intParameter(query, "$top", PAGE)));
    String self = base(request) + request.uri().getRawPath();
    AtomXml.Writer w =
        new AtomXml.Writer()
            .open("feed", "xmlns", AtomXml.ATOM)
            .element("title", title, "type", "text")
            .element("id", self + "?" + Optional.ofNullable(request.uri().getRawQuery()).orElse(""))
            .element("updated", AtomXml.time(broker.clock().instant()))
            .empty("link", "rel", "self", "href", self + "?" + rawQuery(skip, top));
    if (skip + top < all.size()) {
      w.empty("link", "rel", "next", "href", self + "?" + rawQuery(skip + top, top));
    }
    for (int i = skip; i < Math.min(all.size(), skip + top); i++) {
      w.raw(entry.apply(all.get(i)));
    }
    return new Response(200, FEED_TYPE, w.close("feed").toString());
  }

  private static String rawQuery(int skip, int top) {
    return "%24skip=" + skip + "&%24top=" + top + "&api-version=" + API_VERSION;
  }

  private String emptyFeed(Request request, String name) {
    return new AtomXml.Writer()
        .open("feed", "xmlns", AtomXml.ATOM)
        .element("title", "Publicly Listed Services", "type", "text")
        .element(
            "subtitle",
            "This is the list of publicly-listed services currently available.",
            "type",
            "text")
        .element("id", "uuid:" + UUID.randomUUID() + ";id=1")
        .element("updated", AtomXml.time(broker.clock().instant()))
        .element("generator", "Microsoft Azure Service Bus")
        .close("feed")
        .toString();
  }

  private Response namespaceInfo(Request request) {
    String ns = namespace(request);
    String content =
        new AtomXml.Writer()
            .open("NamespaceInfo", "xmlns", AtomXml.CONNECT, "xmlns:i", AtomXml.INSTANCE)
            .element("CreatedTime", AtomXml.time(started))
            .element("MessagingSKU", "Standard")
            .element("MessagingUnits", 1)
            .element("ModifiedTime", AtomXml.time(started))
            .element("Name", ns)
            .element("NamespaceType", "Messaging")
            .close("NamespaceInfo")
            .toString();
    return new Response(
        200, ENTRY_TYPE, entry(request, "$namespaceinfo", ns, started, started, content, true));
  }

  // ---------------------------------------------------------------- entries

  private String queueEntry(Request request, Broker.Queue q, boolean root) {
    QueueSettings s = q.main().settings();
    EntityStore.Counts main = q.main().counts();
    int dead = q.deadLetter().messageCount();
    int transferDead = q.transferDeadLetter().messageCount();
    long size =
        main.sizeInBytes()
            + q.deadLetter().counts().sizeInBytes()
            + q.transferDeadLetter().counts().sizeInBytes();
    Extras x = extrasOf(s.name(), q.main().createdAt());
    AtomXml.Writer w =
        new AtomXml.Writer()
            .open("QueueDescription", "xmlns", AtomXml.CONNECT, "xmlns:i", AtomXml.INSTANCE)
            .element("LockDuration", AtomXml.duration(s.lockDuration()))
            .element("MaxSizeInMegabytes", x.maxSizeInMegabytes())
            .element("RequiresDuplicateDetection", s.requiresDuplicateDetection())
            .element("RequiresSession", s.requiresSession())
            .element("DefaultMessageTimeToLive", AtomXml.duration(s.defaultMessageTimeToLive()))
            .element("DeadLetteringOnMessageExpiration", s.deadLetteringOnMessageExpiration())
            .element(
                "DuplicateDetectionHistoryTimeWindow",
                AtomXml.duration(s.duplicateDetectionHistoryTimeWindow()))
            .element("MaxDeliveryCount", s.maxDeliveryCount())
            .element("EnableBatchedOperations", x.enableBatchedOperations())
            .element("SizeInBytes", size)
            .element("MessageCount", main.active() + main.scheduled() + dead + transferDead)
            .element("IsAnonymousAccessible", false)
            .empty("AuthorizationRules")
            .element("Status", "Active")
            .element("UserMetadata", x.userMetadata())
            .element("CreatedAt", AtomXml.time(q.main().createdAt()))
            .element("UpdatedAt", AtomXml.time(x.updatedAt()))
            .element("AccessedAt", AtomXml.time(NEVER))
            .element("SupportOrdering", x.supportOrdering());
    counts(w, main.active(), dead, main.scheduled(), transferDead);
    w.element("AutoDeleteOnIdle", AtomXml.duration(x.autoDeleteOnIdle()))
        .element("EnablePartitioning", x.enablePartitioning())
        .element("EntityAvailabilityStatus", "Available")
        .element("EnableExpress", x.enableExpress())
        .element("MaxMessageSizeInKilobytes", x.maxMessageSizeInKilobytes())
        .close("QueueDescription");
    return entry(
        request, s.name(), s.name(), q.main().createdAt(), x.updatedAt(), w.toString(), root);
  }

  private String topicEntry(Request request, Topic t, boolean root) {
    TopicSettings s = t.settings();
    List<Topic.Subscription> subscriptions = t.subscriptions();
    long size = 0;
    java.util.Set<Long> scheduled = new java.util.HashSet<>();
    for (Topic.Subscription sub : subscriptions) {
      EntityStore.Counts c = sub.main().counts();
      size += c.sizeInBytes() + sub.deadLetter().counts().sizeInBytes();
      for (long n : c.scheduledSequenceNumbers()) {
        scheduled.add(n);
      }
    }
    Extras x = extrasOf(s.name(), t.createdAt());
    AtomXml.Writer w =
        new AtomXml.Writer()
            .open("TopicDescription", "xmlns", AtomXml.CONNECT, "xmlns:i", AtomXml.INSTANCE)
            .element("DefaultMessageTimeToLive", AtomXml.duration(s.defaultMessageTimeToLive()))
            .element("MaxSizeInMegabytes", x.maxSizeInMegabytes())
            .element("RequiresDuplicateDetection", s.requiresDuplicateDetection())
            .element(
                "DuplicateDetectionHistoryTimeWindow",
                AtomXml.duration(s.duplicateDetectionHistoryTimeWindow()))
            .element("EnableBatchedOperations", x.enableBatchedOperations())
            .element("SizeInBytes", size)
            .element("FilteringMessagesBeforePublishing", false)
            .element("IsAnonymousAccessible", false)
            .empty("AuthorizationRules")
            .element("Status", "Active")
            .element("UserMetadata", x.userMetadata())
            .element("CreatedAt", AtomXml.time(t.createdAt()))
            .element("UpdatedAt", AtomXml.time(x.updatedAt()))
            .element("AccessedAt", AtomXml.time(NEVER))
            .element("SupportOrdering", x.supportOrdering());
    counts(w, 0, 0, scheduled.size(), 0);
    w.element("SubscriptionCount", subscriptions.size())
        .element("AutoDeleteOnIdle", AtomXml.duration(x.autoDeleteOnIdle()))
        .element("EnablePartitioning", x.enablePartitioning())
        .element("EntityAvailabilityStatus", "Available")
        .element("EnableSubscriptionPartitioning", false)
        .element("EnableExpress", x.enableExpress())
        .element("MaxMessageSizeInKilobytes", x.maxMessageSizeInKilobytes())
        .close("TopicDescription");
    return entry(request, s.name(), s.name(), t.createdAt(), x.updatedAt(), w.toString(), root);
  }

  private String subscriptionEntry(
      Request request, Topic topic, Topic.Subscription sub, boolean root) {
    SubscriptionSettings s = sub.settings();
    EntityStore.Counts main = sub.main().counts();
    int dead = sub.deadLetter().messageCount();
    Optional<Broker.Queue> stores = broker.subscriptionStores(sub.main().path());
    int transferDead = stores.map(q -> q.transferDeadLetter().messageCount()).orElse(0);
    Extras x = extrasOf(sub.main().path(), sub.createdAt());
    // A message scheduled on the topic waits there on the service, not in the subscription.
    AtomXml.Writer w =
        new AtomXml.Writer()
            .open("SubscriptionDescription", "xmlns", AtomXml.CONNECT, "xmlns:i", AtomXml.INSTANCE)
            .element("LockDuration", AtomXml.duration(s.lockDuration()))
            .element("RequiresSession", s.requiresSession())
            .element("DefaultMessageTimeToLive", AtomXml.duration(s.defaultMessageTimeToLive()))
            .element("DeadLetteringOnMessageExpiration", s.deadLetteringOnMessageExpiration())
            .element(
                "DeadLetteringOnFilterEvaluationExceptions",
                x.deadLetteringOnFilterEvaluationExceptions())
            .element("MessageCount", main.active() + dead + transferDead)
            .element("MaxDeliveryCount", s.maxDeliveryCount())
            .element("EnableBatchedOperations", x.enableBatchedOperations())
            .element("Status", "Active")
            .element("UserMetadata", x.userMetadata())
            .element("CreatedAt", AtomXml.time(sub.createdAt()))
            .element("UpdatedAt", AtomXml.time(x.updatedAt()))
            .element("AccessedAt", AtomXml.time(NEVER));
    counts(w, main.active(), dead, 0, transferDead);
    w.element("AutoDeleteOnIdle", AtomXml.duration(x.autoDeleteOnIdle()))
        .element("EntityAvailabilityStatus", "Available")
        .close("SubscriptionDescription");
    return entry(
        request,
        topic.path() + "/subscriptions/" + s.name(),
        s.name(),
        sub.createdAt(),
        x.updatedAt(),
        w.toString(),
        root);
  }

  private String ruleEntry(Request request, Topic.Subscription sub, Topic.Rule r, boolean root) {
    AtomXml.Writer w =
        new AtomXml.Writer()
            .open("RuleDescription", "xmlns", AtomXml.CONNECT, "xmlns:i", AtomXml.INSTANCE);
    RuleFilter f = r.rule().filter();
    if (f instanceof SqlFilter sql) {
      String type =
          switch (sql.expression().replace(" ", "")) {
            case "1=1" -> "TrueFilter";
            case "1=0" -> "FalseFilter";
            default -> "SqlFilter";
          };
      w.open("Filter", "i:type", type)
          .element("SqlExpression", sql.expression())
          .element("CompatibilityLevel", 20)
          .close("Filter");
    } else {
      CorrelationFilter c = (CorrelationFilter) f;
      w.open("Filter", "i:type", "CorrelationFilter");
      for (String p :
          List.of(
              "CorrelationId",
              "MessageId",
              "To",
              "ReplyTo",
              "Label",
              "SessionId",
              "ReplyToSessionId",
              "ContentType")) {
        w.element(p, c.systemProperties().get(p));
      }
      w.open("Properties");
      c.applicationProperties()
          .forEach(
              (k, v) ->
                  w.open("KeyValueOfstringanyType")
                      .element("Key", k)
                      .element(
                          "Value", v, "xmlns:d6p1", AtomXml.SCHEMA, "i:type", "d6p1:" + xsdType(v))
                      .close("KeyValueOfstringanyType"));
      w.close("Properties").close("Filter");
    }
    w.empty("Action", "i:type", "EmptyRuleAction")
        .element("CreatedAt", AtomXml.time(r.createdAt()))
        .element("Name", r.rule().name())
        .close("RuleDescription");
    return entry(
        request,
        sub.main().path().replace(Broker.SUBSCRIPTIONS_SEGMENT, "/subscriptions/")
            + "/rules/"
            + r.rule().name(),
        r.rule().name(),
        r.createdAt(),
        r.createdAt(),
        w.toString(),
        root);
  }

  private static String xsdType(Object v) {
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return "int";
    }
    if (v instanceof Long) {
      return "long";
    }
    if (v instanceof Number) {
      return "double";
    }
    if (v instanceof Boolean) {
      return "boolean";
    }
    return "string";
  }

  private static void counts(
      AtomXml.Writer w, long active, long deadLetter, long scheduled, long transferDeadLetter) {
    w.open("CountDetails", "xmlns:d2p1", AtomXml.COUNTS)
        .element("d2p1:ActiveMessageCount", active)
        .element("d2p1:DeadLetterMessageCount", deadLetter)
        .element("d2p1:ScheduledMessageCount", scheduled)
        .element("d2p1:TransferMessageCount", 0)
        .element("d2p1:TransferDeadLetterMessageCount", transferDeadLetter)
        .close("CountDetails");
  }

  private String entry(
      Request request,
      String path,
      String title,
      Instant published,
      Instant updated,
      String content,
      boolean root) {
    String self = base(request) + "/" + path + "?api-version=" + API_VERSION;
    AtomXml.Writer w =
        root
            ? new AtomXml.Writer().open("entry", "xmlns", AtomXml.ATOM)
            : new AtomXml.Writer().open("entry");
    w.element("id", self)
        .element("title", title, "type", "text")
        .element("published", AtomXml.time(published))
        .element("updated", AtomXml.time(updated))
        .open("author")
        .element("name", namespace(request))
        .close("author")
        .empty("link", "rel", "self", "href", self)
        .open("content", "type", "application/xml");
    return w + content + "</content></entry>";
  }

  // ---------------------------------------------------------------- request reading

  /** The description element of the request's Atom entry: one of {@code names}. */
  private static Element description(Request request, String... names) {
    Element root;
    try {
      root = AtomXml.parse(request.body());
    } catch (IllegalArgumentException e) {
      throw new Refused(400, e.getMessage());
    }
    for (String name : names) {
      Optional<Element> found =
          name.equals(root.getLocalName()) ? Optional.of(root) : AtomXml.find(root, name);
      if (found.isPresent()) {
        return found.get();
      }
    }
    throw new Refused(
        400, "The request body holds no " + String.join(" or ", names) + " in an Atom entry.");
  }

  private static void refuseUnsupported(Element d) {
    for (String forward : List.of("ForwardTo", "ForwardDeadLetteredMessagesTo")) {
      Optional<String> to = AtomXml.text(d, forward);
      if (to.isPresent() && !to.get().isEmpty()) {
        throw new Refused(
            400,
            forward + " '" + to.get() + "': auto-forwarding is not supported by this emulator.");
      }
    }
    Optional<String> status = AtomXml.text(d, "Status");
    if (status.isPresent() && !status.get().isEmpty() && !status.get().equals("Active")) {
      throw new Refused(
          400,
          "Status '"
              + status.get()
              + "': only Active entities are supported by this emulator (sends and receives"
              + " would not be refused).");
    }
  }

  private Extras extras(Element d, Extras base, boolean creating) {
    long maxSize = longValue(d, "MaxSizeInMegabytes").orElse(base.maxSizeInMegabytes());
    if (maxSize < 1) {
      throw new Refused(400, "MaxSizeInMegabytes must be positive but was " + maxSize + ".");
    }
    Duration autoDelete = duration(d, "AutoDeleteOnIdle").orElse(base.autoDeleteOnIdle());
    if (autoDelete.compareTo(MIN_AUTO_DELETE) < 0) {
      throw new Refused(
          400,
          "The supplied AutoDeleteOnIdle "
              + autoDelete
              + " is below the allowed minimum of 5 minutes.");
    }
    String metadata = AtomXml.text(d, "UserMetadata").orElse(creating ? null : base.userMetadata());
    if (metadata != null && metadata.length() > 1024) {
      throw new Refused(400, "UserMetadata must not exceed 1024 characters.");
    }
    long maxMessageSize =
        longValue(d, "MaxMessageSizeInKilobytes").orElse(base.maxMessageSizeInKilobytes());
    return new Extras(
        maxSize,
        bool(d, "EnableBatchedOperations").orElse(base.enableBatchedOperations()),
        autoDelete,
        bool(d, "EnablePartitioning").orElse(base.enablePartitioning()),
        bool(d, "SupportOrdering").orElse(base.supportOrdering()),
        bool(d, "EnableExpress").orElse(base.enableExpress()),
        maxMessageSize,
        metadata,
        bool(d, "DeadLetteringOnFilterEvaluationExceptions")
            .orElse(base.deadLetteringOnFilterEvaluationExceptions()),
        base.updatedAt());
  }

  /** The service's 400 for an update that changes a property fixed at creation. */
  private static void requireUnchanged(
      boolean current, boolean updated, String property, String kind) {
    if (updated != current) {
      throw new Refused(
          400,
          "The value for the "
              + property
              + " property of an existing "
              + kind
              + " cannot be changed.");
    }
  }

  private Extras withUpdatedAt(Extras x) {
    Instant now = broker.clock().instant();
    return new Extras(
        x.maxSizeInMegabytes(),
        x.enableBatchedOperations(),
        x.autoDeleteOnIdle(),
        x.enablePartitioning(),
        x.supportOrdering(),
        x.enableExpress(),
        x.maxMessageSizeInKilobytes(),
        x.userMetadata(),
        x.deadLetteringOnFilterEvaluationExceptions(),
        now);
  }

  private Extras extrasOf(String path, Instant createdAt) {
    return extras.getOrDefault(key(path), Extras.defaults(createdAt));
  }

  private void forget(String path) {
    String prefix = key(path);
    extras.keySet().removeIf(k -> k.equals(prefix) || k.startsWith(prefix + "/"));
  }

  private static String key(String path) {
    return Broker.normalise(path);
  }

  private static Optional<Duration> duration(Element d, String name) {
    Optional<String> text = AtomXml.text(d, name).filter(t -> !t.isEmpty());
    try {
      // The SDK writes TimeSpan.MaxValue with milliseconds only; the service keeps MaxValue.
      return text.map(AtomXml::parseDuration)
          .map(v -> v.getSeconds() >= AtomXml.MAX_DURATION.getSeconds() ? AtomXml.MAX_DURATION : v);
    } catch (IllegalArgumentException e) {
      throw new Refused(400, name + ": " + e.getMessage() + ".");
    }
  }

  private static Optional<Integer> integer(Element d, String name) {
    Optional<String> text = AtomXml.text(d, name).filter(t -> !t.isEmpty());
    try {
      return text.map(Integer::valueOf);
    } catch (NumberFormatException e) {
      throw new Refused(400, name + ": '" + text.get() + "' is not an integer.");
    }
  }

  private static Optional<Long> longValue(Element d, String name) {
    Optional<String> text = AtomXml.text(d, name).filter(t -> !t.isEmpty());
    try {
      return text.map(Long::valueOf);
    } catch (NumberFormatException e) {
      throw new Refused(400, name + ": '" + text.get() + "' is not an integer.");
    }
  }

  private static Optional<Boolean> bool(Element d, String name) {
    Optional<String> text = AtomXml.text(d, name).filter(t -> !t.isEmpty());
    if (text.isPresent() && !text.get().equals("true") && !text.get().equals("false")) {
      throw new Refused(400, name + ": '" + text.get() + "' is not true or false.");
    }
    return text.map(Boolean::valueOf);
  }

  private static void requireLockDuration(Duration lock) {
    if (lock.compareTo(MIN_LOCK) < 0) {
      throw new Refused(
          400,
          "The supplied lock time "
              + lock
              + " is below the allowed minimum of '5' seconds (LockDuration).");
    }
    if (lock.compareTo(MAX_LOCK) > 0) {
      throw new Refused(
          400,
          "The supplied lock time "
              + lock
              + " exceeds the allowed maximum of '5' minutes (LockDuration).");
    }
  }

  private static void requireMaxDeliveryCount(int value) {
    if (value < 1) {
      throw new Refused(400, "MaxDeliveryCount must be at least 1 but was " + value + ".");
    }
  }

  private void requireDuplicateWindow(Duration window) {
    if (window.compareTo(shortestDuplicateWindow) < 0
        || window.compareTo(MAX_DUPLICATE_WINDOW) > 0) {
      throw new Refused(
          400,
          "The supplied DuplicateDetectionHistoryTimeWindow "
              + window
              + " is outside the allowed range of "
              + shortestDuplicateWindow
              + " to 7 days.");
    }
  }

  private static void requirePositive(String name, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new Refused(400, name + " must be positive but was " + value + ".");
    }
  }

  private static void requireEntityName(String name) {
    if (name.length() > 260
        || !ENTITY_NAME.matcher(name).matches()
        || name.endsWith("/")
        || name.endsWith(".")
        || name.contains("//")) {
      throw new Refused(
          400,
          "The entity name '"
              + name
              + "' is invalid: up to 260 letters, digits, periods, hyphens, underscores and"
              + " slashes, starting with a letter or digit.");
    }
  }

  private static void requireChildName(String name, String kind) {
    if (name.length() > 50 || !CHILD_NAME.matcher(name).matches()) {
      throw new Refused(
          400,
          "The "
              + kind
              + " name '"
              + name
              + "' is invalid: up to 50 letters, digits, periods, hyphens and underscores,"
              + " starting with a letter or digit.");
    }
  }

  private static void requireRuleName(String name) {
    if (!name.equals("$Default")) {
      requireChildName(name, "rule");
    }
  }

  private static void requireMethod(String method, String allowed) {
    if (!method.equals(allowed)) {
      throw new Refused(405, "Method " + method + " is not allowed here.");
    }
  }

  private Topic requireTopic(String name) {
    return broker.resolveTopic(name).orElseThrow(() -> notFound(name, "Topic"));
  }

  private Topic.Subscription requireSubscription(Topic topic, String name) {
    return topic
        .subscription(name)
        .orElseThrow(
            () ->
                new Refused(
                    404, "Entity 'Topic:" + topic.path() + "|" + name + "' was not found."));
  }

  private Topic.Rule requireRule(Topic topic, Topic.Subscription s, String name) {
    for (Topic.Rule r : s.rules()) {
      if (r.rule().name().equalsIgnoreCase(name)) {
        return r;
      }
    }
    throw notFoundRule(topic, s, name);
  }

  private static Refused notFoundRule(Topic topic, Topic.Subscription s, String name) {
    return new Refused(
        404,
        "Entity 'Topic:"
            + topic.path()
            + "|"
            + s.settings().name()
            + "|"
            + name
            + "' was not found.");
  }

  private static Refused notFound(String name, String kind) {
    return new Refused(404, "Entity '" + kind + ":" + name + "' was not found.");
  }

  private static String base(Request request) {
    return "https://" + request.header("Host").orElse("localhost");
  }

  private static String namespace(Request request) {
    String host = request.header("Host").orElse("localhost");
    int colon = host.lastIndexOf(':');
    return colon > 0 && !host.endsWith("]") ? host.substring(0, colon) : host;
  }

  private String trackingSuffix(Request request, String path) {
    return " TrackingId:"
        + UUID.randomUUID()
        + ", SystemTracker:"
        + namespace(request)
        + ":"
        + path
        + ", Timestamp:"
        + broker.clock().instant();
  }

  private static Map<String, String> query(URI uri) {
    Map<String, String> out = new LinkedHashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null) {
      return out;
    }
    for (String part : raw.split("&")) {
      int eq = part.indexOf('=');
      String k = eq < 0 ? part : part.substring(0, eq);
      String v = eq < 0 ? "" : part.substring(eq + 1);
      out.put(
          java.net.URLDecoder.decode(k, java.nio.charset.StandardCharsets.UTF_8),
          java.net.URLDecoder.decode(v, java.nio.charset.StandardCharsets.UTF_8));
    }
    return out;
  }

  private static int intParameter(Map<String, String> query, String name, int fallback) {
    try {
      return Integer.parseInt(query.getOrDefault(name, String.valueOf(fallback)));
    } catch (NumberFormatException e) {
      throw new Refused(400, "The query parameter " + name + " is not an integer.");
    }
  }

  private static String trimSlashes(String path) {
    String p = path;
    while (p.startsWith("/")) {
      p = p.substring(1);
    }
    while (p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p;
  }
}
