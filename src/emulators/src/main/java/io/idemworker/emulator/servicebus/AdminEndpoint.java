package io.idemworker.emulator.servicebus;

import java.security.cert.X509Certificate;

/**
 * The emulator's administration API as a client sees it: the HTTPS port that serves the REST API
 * {@code ServiceBusAdministrationClient} uses, and the certificate it presents. From {@link
 * ServiceBusEmulator#admin()} once started with {@link ServiceBusEmulator.Builder#adminPort}.
 * Immutable and thread-safe.
 *
 * <p>Pointing the Java SDK at it: the administration client takes only the host from a connection
 * string and always dials port 443 over HTTPS, so a test keeps {@link
 * ServiceBusEmulator#connectionString()} (for the credential) and gives the client an HTTP client
 * that trusts {@link #certificate()} and a pipeline policy that sets the request's port to {@link
 * #port()}; {@code docs/servicebus-emulator.md} shows both.
 */
public final class AdminEndpoint {
  private final String host;
  private final int port;
  private final TlsIdentity identity;

  AdminEndpoint(String host, int port, TlsIdentity identity) {
    this.host = host;
    this.port = port;
    this.identity = identity;
  }

  /**
   * Returns the bound port.
   *
   * @return the port of the HTTPS listener
   */
  public int port() {
    return port;
  }

  /**
   * Returns the endpoint's URL, {@code https://localhost:PORT} when the emulator listens on a
   * loopback address (the certificate holds {@code localhost}), else {@code https://HOST:PORT}.
   *
   * @return the URL, without a path
   */
  public String endpoint() {
    String h =
        host.equals("127.0.0.1") || host.equals("::1") || host.equals("0.0.0.0")
            ? "localhost"
            : host.contains(":") ? "[" + host + "]" : host;
    return "https://" + h + ":" + port;
  }

  /**
   * Returns the certificate the port presents, the same as the TLS AMQP port's: made at start-up
   * unless a PKCS12 key store was given.
   *
   * @return the certificate
   */
  public X509Certificate certificate() {
    return identity.certificate();
  }

  /**
   * Returns {@link #certificate()} in PEM form.
   *
   * @return one {@code BEGIN CERTIFICATE} block
   */
  public String certificatePem() {
    return identity.certificatePem();
  }
}
