package io.idemworker.release;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/** One POM file as written (no inheritance, no interpolation), read with the JDK's XML parser. */
final class Pom {
  final Path file;
  private final Element project;

  private Pom(Path file, Element project) {
    this.file = file;
    this.project = project;
  }

  static Pom read(Path file) {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      return new Pom(file, factory.newDocumentBuilder().parse(file.toFile()).getDocumentElement());
    } catch (ParserConfigurationException | SAXException | IOException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
  }

  /** The text at a path of child elements from {@code <project>}, trimmed; "" when absent. */
  String text(String... path) {
    return text(project, path);
  }

  /** Every element at a path of child elements from {@code <project>}. */
  List<Element> all(String... path) {
    return all(project, path);
  }

  String artifactId() {
    return text("artifactId");
  }

  /** The version, its own or its parent's. */
  String version() {
    String own = text("version");
    return own.isEmpty() ? text("parent", "version") : own;
  }

  String packaging() {
    String packaging = text("packaging");
    return packaging.isEmpty() ? "jar" : packaging;
  }

  String property(String name) {
    return text("properties", name);
  }

  /** The profile of that id, or null. */
  Element profile(String id) {
    return all("profiles", "profile").stream()
        .filter(p -> text(p, "id").equals(id))
        .findFirst()
        .orElse(null);
  }

  static String text(Element from, String... path) {
    List<Element> found = all(from, path);
    return found.isEmpty() ? "" : found.get(0).getTextContent().strip();
  }

  static List<Element> all(Element from, String... path) {
    List<Element> level = List.of(from);
    for (String name : path) {
      List<Element> next = new ArrayList<>();
      for (Element e : level) {
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
          if (n instanceof Element child && child.getTagName().equals(name)) {
            next.add(child);
          }
        }
      }
      level = next;
    }
    return level;
  }

  @Override
  public String toString() {
    return file.toString();
  }
}
