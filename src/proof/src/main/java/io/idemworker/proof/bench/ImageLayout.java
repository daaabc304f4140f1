package io.idemworker.proof.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Enumeration;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * The worker jar and its {@code lib/} as the image holds them, with the dependencies' jar
 * signatures removed.
 *
 * <p><b>Why unsigned.</b> A class-data archive leaves out every class of a signed jar ({@code
 * -Xshare:dump} logs "Skipping … Signed JAR"), and the Azure SDK's jars are signed: with them
 * signed, the archive held none of the Cosmos DB, AMQP and azure-core classes that every message
 * runs through (about 800 of the 9,000 a replica loads), and the JVM also checks each entry's
 * digest as it reads a class from a signed jar. Nothing on the class path checks the signatures:
 * the application class loader only records them. So the image build removes the signature files
 * (and nothing else; every class and resource is byte for byte the same) before it trains the
 * archive.
 */
final class ImageLayout {
  private static final Pattern SIGNATURE_FILE =
      Pattern.compile("META-INF/(?:[^/]+\\.(?:SF|RSA|DSA|EC)|SIG-[^/]+)");

  private ImageLayout() {}

  /**
   * Copies a worker jar and the {@code lib/} beside it into {@code dir}, as the image's {@code
   * /app} holds them.
   *
   * @param workerJar the worker jar; its manifest's class path names {@code lib/*.jar}
   * @param dir an empty directory
   * @param unsign whether the copies lose their signatures, as in the image
   * @return the copied worker jar
   * @throws IOException when a file cannot be read or written
   */
  static Path copy(Path workerJar, Path dir, boolean unsign) throws IOException {
    Path lib = workerJar.toAbsolutePath().getParent().resolve("lib");
    Path target = dir.resolve(workerJar.getFileName());
    Files.copy(workerJar, target, StandardCopyOption.REPLACE_EXISTING);
    Files.createDirectories(dir.resolve("lib"));
    try (DirectoryStream<Path> jars = Files.newDirectoryStream(lib, "*.jar")) {
      for (Path jar : jars) {
        Files.copy(jar, dir.resolve("lib").resolve(jar.getFileName()));
      }
    }
    if (unsign) {
      unsign(dir.resolve("lib"));
    }
    return target;
  }

  /**
   * Removes the signature files of every signed jar in a directory, in place.
   *
   * @param lib a directory of jars
   * @return how many jars were signed
   * @throws IOException when a jar cannot be read or rewritten
   */
  static int unsign(Path lib) throws IOException {
    int unsigned = 0;
    try (DirectoryStream<Path> jars = Files.newDirectoryStream(lib, "*.jar")) {
      for (Path jar : jars) {
        if (isSigned(jar)) {
          rewriteWithoutSignature(jar);
          unsigned++;
        }
      }
    }
    return unsigned;
  }

  /** Whether a jar holds signature files. */
  static boolean isSigned(Path jar) throws IOException {
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      return zip.stream().anyMatch(entry -> SIGNATURE_FILE.matcher(entry.getName()).matches());
    }
  }

  private static void rewriteWithoutSignature(Path jar) throws IOException {
    Path rewritten = Files.createTempFile(jar.getParent(), "unsigned-", ".tmp");
    try (ZipFile zip = new ZipFile(jar.toFile());
        ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(rewritten))) {
      Enumeration<? extends ZipEntry> entries = zip.entries();
      while (entries.hasMoreElements()) {
        ZipEntry entry = entries.nextElement();
        if (SIGNATURE_FILE.matcher(entry.getName()).matches()) {
          continue;
        }
        ZipEntry copy = new ZipEntry(entry.getName());
        copy.setTime(entry.getTime());
        out.putNextEntry(copy);
        try (InputStream in = zip.getInputStream(entry)) {
          in.transferTo(out);
        }
        out.closeEntry();
      }
    } catch (IOException e) {
      Files.deleteIfExists(rewritten);
      throw e;
    }
    Files.move(rewritten, jar, StandardCopyOption.REPLACE_EXISTING);
  }
}
