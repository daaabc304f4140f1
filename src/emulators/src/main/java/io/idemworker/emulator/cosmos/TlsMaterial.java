package io.idemworker.emulator.cosmos;

import io.idemworker.emulator.SelfSignedTls;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * A self-signed EC P-256 certificate for {@code localhost}, {@code 127.0.0.1} and {@code ::1}, made
 * in memory, and the server {@link SSLContext} that presents it.
 */
final class TlsMaterial {
  private static final char[] KEY_PASSWORD = "emulator".toCharArray();

  private final X509Certificate certificate;
  private final SSLContext sslContext;

  private TlsMaterial(X509Certificate certificate, SSLContext sslContext) {
    this.certificate = certificate;
    this.sslContext = sslContext;
  }

  static TlsMaterial generate(Instant now) {
    SelfSignedTls.Identity made =
        SelfSignedTls.generate(
            "idemworker Cosmos DB emulator",
            List.of("localhost"),
            List.of("127.0.0.1", "::1"),
            now);
    return new TlsMaterial(made.certificate(), made.serverContext());
  }

  X509Certificate certificate() {
    return certificate;
  }

  SSLContext sslContext() {
    return sslContext;
  }

  /** Writes a PKCS12 trust store holding only this certificate. */
  void writeTrustStore(Path file, char[] password) throws IOException {
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("cosmos-emulator", certificate);
      try (OutputStream out = Files.newOutputStream(file)) {
        trust.store(out, password);
      }
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot write trust store " + file, e);
    }
  }
}
