package io.idemworker.emulator;

import java.io.IOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
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
 * The emulators' self-signed server certificates (Cosmos DB's HTTPS port, Service Bus's TLS AMQP
 * port), made in memory: EC P-256, SHA-256 with ECDSA, valid from a day before {@code now} (against
 * clock skew) for ten years, for server authentication only. Shared by the emulators, not part of
 * the test kit's API. Stateless and thread-safe.
 */
public final class SelfSignedTls {
  private static final char[] KEY_PASSWORD = "emulator".toCharArray();

  private SelfSignedTls() {}

  /**
   * A certificate and the server context that presents it.
   *
   * @param certificate what clients must trust
   * @param serverContext presents the certificate with its private key
   */
  public record Identity(X509Certificate certificate, SSLContext serverContext) {}

  /**
   * Makes a certificate for {@code CN=localhost} and the given names.
   *
   * @param organisation the subject's {@code O}, e.g. which emulator presents it
   * @param dnsNames subject alternative DNS names
   * @param ipAddresses subject alternative IP addresses (literals)
   * @param now the start of the validity, less a day
   * @return the certificate and its server context
   * @throws IllegalStateException when the JDK cannot make one (no EC support)
   */
  public static Identity generate(
      String organisation, List<String> dnsNames, List<String> ipAddresses, Instant now) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"));
      KeyPair pair = generator.generateKeyPair();
      X500Name name = new X500Name("CN=localhost, O=" + organisation);
      JcaX509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              name,
              new BigInteger(64, new SecureRandom()),
              Date.from(now.minus(Duration.ofDays(1))),
              Date.from(now.plus(Duration.ofDays(3650))),
              name,
              pair.getPublic());
      List<GeneralName> names = new ArrayList<>();
      dnsNames.forEach(d -> names.add(new GeneralName(GeneralName.dNSName, d)));
      ipAddresses.forEach(i -> names.add(new GeneralName(GeneralName.iPAddress, i)));
      builder.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(names.toArray(GeneralName[]::new)));
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
          "emulator", pair.getPrivate(), KEY_PASSWORD, new X509Certificate[] {cert});
      return new Identity(cert, serverContext(keyStore, KEY_PASSWORD));
    } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
      throw new IllegalStateException(
          "cannot make the TLS certificate of the " + organisation + ": " + e, e);
    }
  }

  /**
   * The server context that presents the key entries of {@code keyStore}.
   *
   * @throws GeneralSecurityException when the store or its password does not fit
   */
  public static SSLContext serverContext(KeyStore keyStore, char[] password)
      throws GeneralSecurityException {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keyStore, password);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf.getKeyManagers(), null, null);
    return context;
  }
}
