package io.idemworker.emulator.junit;

import io.idemworker.emulator.FaultOwner;
import io.idemworker.emulator.cosmos.ContainerSettings;
import io.idemworker.emulator.cosmos.CosmosEmulator;
import io.idemworker.emulator.payments.PaymentProviderEmulator;
import io.idemworker.emulator.servicebus.QueueSettings;
import io.idemworker.emulator.servicebus.ServiceBusEmulator;
import io.idemworker.emulator.servicebus.ServiceBusEmulatorConfig;
import io.idemworker.emulator.servicebus.SubscriptionSettings;
import io.idemworker.emulator.servicebus.TopicSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit 5 extension behind {@link AzureEmulators}. Registered by the annotation; use the
 * annotation rather than {@code @ExtendWith} directly, since the configuration lives on it.
 *
 * <p>Emulators live in a JUnit store: the root store for {@link AzureEmulators.Sharing#PER_RUN}
 * (closed when the test run ends), the class's store for {@link AzureEmulators.Sharing#PER_CLASS}.
 * Each emulator starts on first need; a run-wide set started for one class gains the emulators a
 * later class asks for. Safe under JUnit's parallel execution: a set starts its emulators under its
 * own lock.
 */
public final class EmulatorsExtension
    implements BeforeAllCallback,
        BeforeEachCallback,
        AfterEachCallback,
        TestInstancePostProcessor,
        ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(EmulatorsExtension.class);
  private static final String OWNER = "fault-owner";

  /** Creates the extension; JUnit does, through {@link AzureEmulators}. */
  public EmulatorsExtension() {}

  @Override
  public void beforeAll(ExtensionContext context) {
    AzureEmulators config = config(context);
    EmulatorSet set = set(context, config);
    Emulators emulators = set.ensure(wanted(config));
    declare(config, emulators);
    injectFields(context.getRequiredTestClass(), null, emulators, true);
  }

  @Override
  public void postProcessTestInstance(Object testInstance, ExtensionContext context) {
    injectFields(testInstance.getClass(), testInstance, emulators(context), false);
  }

  /**
   * Opens the test's {@link FaultOwner} on its thread: the faults it arms from here to {@link
   * #afterEach} are its own.
   */
  @Override
  public void beforeEach(ExtensionContext context) {
    AzureEmulators config = config(context);
    set(context, config).testStarted();
    context.getStore(NAMESPACE).put(OWNER, FaultOwner.open(context.getUniqueId()));
  }

  /**
   * Disarms the faults the test armed, and no others (tests running in parallel keep theirs); when
   * no test of these emulators is running any more, clears every fault.
   */
  @Override
  public void afterEach(ExtensionContext context) {
    AzureEmulators config = config(context);
    FaultOwner owner = context.getStore(NAMESPACE).remove(OWNER, FaultOwner.class);
    try {
      if (owner != null) {
        owner.close();
      }
    } finally {
      set(context, config).testEnded();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == Emulators.class
        || type == ServiceBusEmulator.class
        || type == CosmosEmulator.class
        || type == PaymentProviderEmulator.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Emulators emulators = emulators(context);
    Class<?> type = parameter.getParameter().getType();
    if (type == ServiceBusEmulator.class) {
      return emulators.serviceBus();
    }
    if (type == CosmosEmulator.class) {
      return emulators.cosmos();
    }
    if (type == PaymentProviderEmulator.class) {
      return emulators.payments();
    }
    return emulators;
  }

  private static Emulators emulators(ExtensionContext context) {
    AzureEmulators config = config(context);
    return set(context, config).ensure(wanted(config));
  }

  /** What the annotation asks for; a malformed Service Bus key fails the class, naming it. */
  static EmulatorSet.Wanted wanted(AzureEmulators config) {
    String key = config.serviceBusSharedAccessKey();
    String keyName = config.serviceBusSharedAccessKeyName();
    if (key.contains(";")) {
      throw new ExtensionConfigurationException(
          "@AzureEmulators(serviceBusSharedAccessKey = ...): must not contain ';' (it ends a"
              + " connection-string field); use the key as the portal shows it, e.g. base64");
    }
    if (!keyName.matches("[A-Za-z0-9._-]{1,256}")) {
      throw new ExtensionConfigurationException(
          "@AzureEmulators(serviceBusSharedAccessKeyName = \""
              + keyName
              + "\"): must be 1-256 letters, digits, periods, hyphens or underscores");
    }
    if (key.isEmpty() && !keyName.equals("RootManageSharedAccessKey")) {
      throw new ExtensionConfigurationException(
          "@AzureEmulators(serviceBusSharedAccessKeyName = \""
              + keyName
              + "\") names a key but serviceBusSharedAccessKey is empty: set the key too, or leave"
              + " the name at its default (tokens then go unchecked)");
    }
    EmulatorSet.ServiceBusOptions options =
        new EmulatorSet.ServiceBusOptions(
            config.serviceBusAdmin(), key.isEmpty() ? "" : keyName, key);
    return new EmulatorSet.Wanted(config.serviceBus(), options, config.cosmos(), config.payments());
  }

  private static EmulatorSet set(ExtensionContext context, AzureEmulators config) {
    boolean perRun = config.sharing() == AzureEmulators.Sharing.PER_RUN;
    ExtensionContext owner = perRun ? context.getRoot() : classContext(context);
    // A store lookup falls back to the parents' stores: a key of the class's own keeps a per-class
    // set from finding the run's.
    String key = perRun ? "run" : "class:" + owner.getRequiredTestClass().getName();
    return owner
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(key, k -> new EmulatorSet(), EmulatorSet.class);
  }

  private static ExtensionContext classContext(ExtensionContext context) {
    ExtensionContext current = context;
    while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
      current = current.getParent().get();
    }
    return current;
  }

  private static AzureEmulators config(ExtensionContext context) {
    for (Class<?> type = context.getRequiredTestClass();
        type != null;
        type = type.getEnclosingClass()) {
      Optional<AzureEmulators> found = AnnotationSupport.findAnnotation(type, AzureEmulators.class);
      if (found.isPresent()) {
        return found.get();
      }
    }
    throw new ExtensionConfigurationException(
        "EmulatorsExtension is configured by @AzureEmulators on the test class; "
            + context.getRequiredTestClass().getName()
            + " has none");
  }

  private static void declare(AzureEmulators config, Emulators emulators) {
    if (!config.serviceBusConfig().isEmpty()) {
      Path file = configFile(config.serviceBusConfig());
      ServiceBusEmulatorConfig.Entities entities;
      try {
        entities = ServiceBusEmulatorConfig.load(file);
      } catch (IllegalArgumentException e) {
        throw new ExtensionConfigurationException(
            "@AzureEmulators(serviceBusConfig = \""
                + config.serviceBusConfig()
                + "\"): "
                + e.getMessage(),
            e);
      }
      entities.queues().forEach(emulators.serviceBus()::createQueue);
      entities.topics().forEach(emulators.serviceBus()::createTopic);
    }
    for (String queue : config.queues()) {
      QueueSettings settings = Declarations.queue(queue);
      create(queue, () -> emulators.serviceBus().createQueue(settings));
    }
    for (String declaration : config.topics()) {
      String[] parts = declaration.split("/", 2);
      TopicSettings topic = TopicSettings.defaults(Declarations.entityName("topics", parts[0]));
      if (parts.length == 2) {
        for (String subscription : parts[1].split(",")) {
          topic =
              topic.withSubscription(
                  SubscriptionSettings.defaults(
                      Declarations.entityName("topics", subscription.trim())));
        }
      }
      emulators.serviceBus().createTopic(topic);
    }
    for (String declaration : config.containers()) {
      ContainerSettings settings = Declarations.container(declaration);
      create(declaration, () -> emulators.cosmos().createContainer(settings));
    }
  }

  /** Creates a declared entity; one the emulator refuses fails the class, naming it. */
  private static void create(String declaration, Runnable create) {
    try {
      create.run();
    } catch (IllegalArgumentException e) {
      throw new ExtensionConfigurationException(
          "@AzureEmulators entry '" + declaration + "': " + e.getMessage(), e);
    }
  }

  private static Path configFile(String location) {
    URL resource = Thread.currentThread().getContextClassLoader().getResource(location);
    if (resource != null) {
      try {
        if ("file".equals(resource.getProtocol())) {
          return Path.of(resource.toURI());
        }
        Path copy = Files.createTempFile("servicebus-config", ".json");
        copy.toFile().deleteOnExit();
        try (InputStream in = resource.openStream()) {
          Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        }
        return copy;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (URISyntaxException e) {
        throw new ExtensionConfigurationException("cannot read " + resource, e);
      }
    }
    Path file = Path.of(location);
    if (!Files.isRegularFile(file)) {
      throw new ExtensionConfigurationException(
          "@AzureEmulators(serviceBusConfig = \""
              + location
              + "\"): no such class-path resource or file (working directory "
              + Path.of("").toAbsolutePath()
              + ")");
    }
    return file;
  }

  private static void injectFields(
      Class<?> type, Object instance, Emulators emulators, boolean statics) {
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field field : c.getDeclaredFields()) {
        if (field.getType() != Emulators.class
            || Modifier.isStatic(field.getModifiers()) != statics
            || Modifier.isFinal(field.getModifiers())) {
          continue;
        }
        try {
          field.setAccessible(true);
          field.set(instance, emulators);
        } catch (IllegalAccessException | RuntimeException e) {
          throw new ExtensionConfigurationException(
              "cannot inject Emulators into " + c.getName() + "." + field.getName(), e);
        }
      }
    }
  }
}
