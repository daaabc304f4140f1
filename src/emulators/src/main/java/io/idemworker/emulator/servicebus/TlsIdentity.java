package io.idemworker.emulator.servicebus;

import io.idemworker.emulator.SelfSignedTls;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLContext;

/**
 * The certificate the TLS AMQP port presents and the server {@link SSLContext} that presents it:
 * either made at start-up (self-signed EC P-256, valid for {@code localhost}, {@code 127.0.0.1},
 * {@code ::1} and the listening host) or read from a PKCS12 file. Immutable and thread-safe.
 */
final class TlsIdentity {
  private static final char[] GENERATED_PASSWORD = "emulator".toCharArray();

  private final X509Certificate certificate;
  private final SSLContext sslContext;

  private TlsIdentity(X509Certificate certificate, SSLContext sslContext) {
    this.certificate = certificate;
    this.sslContext = sslContext;
  }

  /**
   * Makes a self-signed certificate for the loopback names and {@code host}.
   *
   * @param host the address the listener binds; added to the subject alternative names
   * @param now start of validity (a day earlier, against clock skew); valid ten years
   */
  static TlsIdentity generate(String host, Instant now) {
    Set<String> ips = new LinkedHashSet<>(List.of("127.0.0.1", "::1"));
    Set<String> dns = new LinkedHashSet<>(List.of("localhost"));
    if (isIpLiteral(host)) {
      if (!host.equals("0.0.0.0") && !host.equals("::")) {
        ips.add(host);
      }
    } else {
      dns.add(host);
    }
    SelfSignedTls.Identity made =
        SelfSignedTls.generate(
            "idemworker Service Bus emulator", List.copyOf(dns), List.copyOf(ips), now);
    return new TlsIdentity(made.certificate(), made.serverContext());
  }

  /**
   * Reads the key and certificate of a PKCS12 file: its first key entry is presented.
   *
   * @throws IllegalArgumentException naming the file when it cannot be read, the password is wrong
   *     or it holds no key entry
   */
  static TlsIdentity load(Path pkcs12, char[] password) {
    try (InputStream in = Files.newInputStream(pkcs12)) {
      KeyStore keyStore = KeyStore.getInstance("PKCS12");
      keyStore.load(in, password);
      for (String alias : Collections.list(keyStore.aliases())) {
        if (keyStore.isKeyEntry(alias)
            && keyStore.getCertificate(alias) instanceof X509Certificate cert) {
          return new TlsIdentity(cert, SelfSignedTls.serverContext(keyStore, password));
        }
      }
      throw new IllegalArgumentException("TLS key store " + pkcs12 + " holds no private key entry");
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "TLS key store " + pkcs12 + " cannot be read as PKCS12 with the given password: " + e, e);
    }
  }

  private static boolean isIpLiteral(String host) {
    if (!host.matches("[0-9.]+|.*:.*")) {
      return false;
    }
    try {
      InetAddress.getByName(host);
      return true;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  X509Certificate certificate() {
    return certificate;
  }

  SSLContext sslContext() {
    return sslContext;
  }

  /** The certificate in PEM form, as OpenSSL-based clients take a CA bundle. */
  String certificatePem() {
    try {
      return pem(certificate);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot encode the TLS certificate", e);
    }
  }

  private static String pem(Certificate cert) throws GeneralSecurityException {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(cert.getEncoded());
    return "-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n";
  }
}
