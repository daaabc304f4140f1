package io.idemworker.emulator.servicebus;

import java.security.cert.X509Certificate;

/**
 * The emulator's AMQP-over-TLS port as a client sees it: where to dial and what to trust. From
 * {@link ServiceBusEmulator#tls()} once started with {@link ServiceBusEmulator.Builder#tlsPort}.
 * Immutable and thread-safe.
 *
 * <p>Trusting it: Java clients add {@link #certificate()} to their trust (the Service Bus SDK takes
 * its trust from {@code SSLContext.getDefault()}, so a JVM-wide trust store such as {@code
 * -Djavax.net.ssl.trustStore} with this certificate and the usual CAs); OpenSSL-based clients
 * (Microsoft's Python SDK: {@code connection_verify}) take {@link #certificatePem()} as a CA file.
 */
public final class TlsEndpoint {
  private final String host;
  private final int port;
  private final TlsIdentity identity;
  private final String keyName;
  private final String key;

  TlsEndpoint(String host, int port, TlsIdentity identity, String keyName, String key) {
    this.host = host;
    this.port = port;
    this.identity = identity;
    this.keyName = keyName;
    this.key = key;
  }

  /**
   * Returns the bound port.
   *
   * @return the port clients dial for AMQP over TLS
   */
  public int port() {
    return port;
  }

  /**
   * Returns the certificate the port presents: made at start-up (self-signed, for {@code
   * localhost}, {@code 127.0.0.1}, {@code ::1} and the listening host) unless a PKCS12 key store
   * was given.
   *
   * @return the certificate
   */
  public X509Certificate certificate() {
    return identity.certificate();
  }

  /**
   * Returns {@link #certificate()} in PEM form, the CA bundle OpenSSL-based clients take.
   *
   * @return one {@code BEGIN CERTIFICATE} block
   */
  public String certificatePem() {
    return identity.certificatePem();
  }

  /**
   * Returns a connection string without {@code UseDevelopmentEmulator}, shaped as the service's:
   * {@code Endpoint=sb://HOST/} when the port is 5671, which every SDK dials for AMQP over TLS
   * (Microsoft's Python SDK dials nothing else, and compares the addresses it attached to with an
   * endpoint that carries no port); {@code sb://HOST:PORT/} otherwise, for clients that honour the
   * port or are given it apart (the Java SDK's {@code customEndpointAddress}).
   *
   * @return the connection string
   */
  public String connectionString() {
    return "Endpoint=sb://"
        + (host.contains(":") ? "[" + host + "]" : host)
        + (port == 5671 ? "" : ":" + port)
        + "/;SharedAccessKeyName="
        + keyName
        + ";SharedAccessKey="
        + key
        + ";";
  }
}
