package io.idemworker.emulator.servicebus;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

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
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"));
      KeyPair pair = generator.generateKeyPair();
      X500Name name = new X500Name("CN=localhost, O=idemworker Service Bus emulator");
      JcaX509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              name,
              new BigInteger(64, new SecureRandom()),
              Date.from(now.minus(Duration.ofDays(1))),
              Date.from(now.plus(Duration.ofDays(3650))),
              name,
              pair.getPublic());
      builder.addExtension(
          Extension.subjectAlternativeName, false, new GeneralNames(alternativeNames(host)));
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(
          Extension.keyUsage,
          true,
          new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
      builder.addExtension(
          Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
      X509Certificate cert =
          new JcaX509CertificateConverter()
              .getCertificate(
                  builder.build(
                      new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
      KeyStore keyStore = KeyStore.getInstance("PKCS12");
      keyStore.load(null, null);
      keyStore.setKeyEntry(
          "emulator", pair.getPrivate(), GENERATED_PASSWORD, new X509Certificate[] {cert});
      return new TlsIdentity(cert, serverContext(keyStore, GENERATED_PASSWORD));
    } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
      throw new IllegalStateException("cannot make the Service Bus emulator's TLS certificate", e);
    }
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
          return new TlsIdentity(cert, serverContext(keyStore, password));
        }
      }
      throw new IllegalArgumentException("TLS key store " + pkcs12 + " holds no private key entry");
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "TLS key store " + pkcs12 + " cannot be read as PKCS12 with the given password: " + e, e);
    }
  }

  private static SSLContext serverContext(KeyStore keyStore, char[] password)
      throws GeneralSecurityException {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keyStore, password);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf.getKeyManagers(), null, null);
    return context;
  }

  private static GeneralName[] alternativeNames(String host) {
    Set<String> ips = new LinkedHashSet<>(List.of("127.0.0.1", "::1"));
    Set<String> dns = new LinkedHashSet<>(List.of("localhost"));
    if (isIpLiteral(host)) {
      if (!host.equals("0.0.0.0") && !host.equals("::")) {
        ips.add(host);
      }
    } else {
      dns.add(host);
    }
    List<GeneralName> names = new ArrayList<>();
    dns.forEach(d -> names.add(new GeneralName(GeneralName.dNSName, d)));
    ips.forEach(i -> names.add(new GeneralName(GeneralName.iPAddress, i)));
    return names.toArray(GeneralName[]::new);
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
