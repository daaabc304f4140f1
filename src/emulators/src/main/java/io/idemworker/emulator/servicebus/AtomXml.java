package io.idemworker.emulator.servicebus;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.xml.XMLConstants;
import javax.xml.datatype.DatatypeConfigurationException;
import javax.xml.datatype.DatatypeFactory;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * The XML of the administration API: a small writer for the Atom entries and feeds the emulator
 * answers with, and a reader of the entity descriptions clients send. Elements are matched by local
 * name (the SDKs put the description's namespace on the element, with or without a prefix);
 * documents with a DOCTYPE are refused.
 */
final class AtomXml {
  static final String ATOM = "http://www.w3.org/2005/Atom";
  static final String CONNECT =
      "http://schemas.microsoft.com/netservices/2010/10/servicebus/connect";
  static final String COUNTS = "http://schemas.microsoft.com/netservices/2011/06/servicebus";
  static final String INSTANCE = "http://www.w3.org/2001/XMLSchema-instance";
  static final String SCHEMA = "http://www.w3.org/2001/XMLSchema";

  /** TimeSpan.MaxValue, the service's "never". */
  static final Duration MAX_DURATION = Duration.parse("P10675199DT2H48M5.4775807S");

  private AtomXml() {}

  /** Appends elements to a document; text and attribute values are escaped. Not thread-safe. */
  static final class Writer {
    private final StringBuilder out = new StringBuilder(1024);

    /** Opens {@code tag} with attributes given as name, value pairs. */
    Writer open(String tag, String... attributes) {
      out.append('<').append(tag);
      attributes(attributes);
      out.append('>');
      return this;
    }

    Writer close(String tag) {
      out.append("</").append(tag).append('>');
      return this;
    }

    /** An element with text; nothing when {@code value} is null. */
    Writer element(String tag, Object value) {
      if (value != null) {
        out.append('<').append(tag).append('>');
        out.append(escape(String.valueOf(value)));
        out.append("</").append(tag).append('>');
      }
      return this;
    }

    /** An element with attributes and text. */
    Writer element(String tag, Object value, String... attributes) {
      out.append('<').append(tag);
      attributes(attributes);
      out.append('>').append(escape(String.valueOf(value))).append("</").append(tag).append('>');
      return this;
    }

    /** An empty element with attributes. */
    Writer empty(String tag, String... attributes) {
      out.append('<').append(tag);
      attributes(attributes);
      out.append("/>");
      return this;
    }

    /** Appends XML made elsewhere, as it is. */
    Writer raw(String xml) {
      out.append(xml);
      return this;
    }

    private void attributes(String... attributes) {
      for (int i = 0; i + 1 < attributes.length; i += 2) {
        out.append(' ')
            .append(attributes[i])
            .append("=\"")
            .append(escape(attributes[i + 1]))
            .append('"');
      }
    }

    @Override
    public String toString() {
      return out.toString();
    }
  }

  static String escape(String text) {
    StringBuilder sb = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '<' -> sb.append("&lt;");
        case '>' -> sb.append("&gt;");
        case '&' -> sb.append("&amp;");
        case '"' -> sb.append("&quot;");
        case '\'' -> sb.append("&apos;");
        default -> sb.append(c);
      }
    }
    return sb.toString();
  }

  /**
   * A duration as the service writes it: {@code PnDTnHnMn.nS}, days apart ({@code P14D}, {@code
   * PT1M}, {@code P10675199DT2H48M5.4775807S}); Java's {@code Duration.parse} reads it back.
   */
  static String duration(Duration d) {
    long seconds = d.getSeconds();
    int nanos = d.getNano();
    long days = seconds / 86_400;
    long hours = seconds % 86_400 / 3_600;
    long minutes = seconds % 3_600 / 60;
    long secs = seconds % 60;
    StringBuilder sb = new StringBuilder("P");
    if (days > 0) {
      sb.append(days).append('D');
    }
    if (hours > 0 || minutes > 0 || secs > 0 || nanos > 0 || days == 0) {
      sb.append('T');
      if (hours > 0) {
        sb.append(hours).append('H');
      }
      if (minutes > 0) {
        sb.append(minutes).append('M');
      }
      if (secs > 0 || nanos > 0 || (hours == 0 && minutes == 0)) {
        sb.append(secs);
        if (nanos > 0) {
          String fraction = String.format("%09d", nanos);
          sb.append('.').append(fraction.replaceAll("0+$", ""));
        }
        sb.append('S');
      }
    }
    return sb.toString();
  }

  /**
   * Reads an xsd:duration; years and months (which Java's {@code Duration} does not take) are
   * counted from 1970-01-01.
   *
   * @throws IllegalArgumentException when it is not a duration
   */
  static Duration parseDuration(String text) {
    String t = text.trim();
    try {
      return Duration.parse(t);
    } catch (RuntimeException notJava) {
      try {
        return Duration.ofMillis(
            DatatypeFactory.newInstance().newDuration(t).getTimeInMillis(new java.util.Date(0)));
      } catch (DatatypeConfigurationException | RuntimeException e) {
        throw new IllegalArgumentException("'" + text + "' is not an ISO 8601 duration", e);
      }
    }
  }

  /** A timestamp as the service writes it (UTC, ISO 8601). */
  static String time(Instant t) {
    return t.toString();
  }

  /**
   * Parses a request body.
   *
   * @throws IllegalArgumentException when it is not well-formed XML or has a DOCTYPE
   */
  static Element parse(byte[] body) {
    try {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setNamespaceAware(true);
      f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      f.setExpandEntityReferences(false);
      DocumentBuilder b = f.newDocumentBuilder();
      b.setErrorHandler(null);
      return b.parse(new ByteArrayInputStream(body)).getDocumentElement();
    } catch (ParserConfigurationException e) {
      throw new IllegalStateException("no XML parser", e);
    } catch (SAXException | IOException e) {
      throw new IllegalArgumentException("the request body is not well-formed XML: " + e, e);
    }
  }

  /** The first element among the descendants of {@code from} with this local name. */
  static Optional<Element> find(Element from, String localName) {
    for (Node n = from.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e) {
        if (localName.equals(e.getLocalName())) {
          return Optional.of(e);
        }
        Optional<Element> deeper = find(e, localName);
        if (deeper.isPresent()) {
          return deeper;
        }
      }
    }
    return Optional.empty();
  }

  /** The child elements of {@code parent} with this local name, in order. */
  static List<Element> children(Element parent, String localName) {
    List<Element> out = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && localName.equals(e.getLocalName())) {
        out.add(e);
      }
    }
    return out;
  }

  /** The text of the child of {@code parent} with this local name; empty when absent or nil. */
  static Optional<String> text(Element parent, String localName) {
    List<Element> found = children(parent, localName);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    Element e = found.get(0);
    if ("true".equals(e.getAttributeNS(INSTANCE, "nil"))) {
      return Optional.empty();
    }
    return Optional.of(e.getTextContent().trim());
  }

  /** The {@code xsi:type} of an element, without a prefix; empty when it has none. */
  static String xsiType(Element e) {
    String type = e.getAttributeNS(INSTANCE, "type");
    int colon = type.indexOf(':');
    return colon < 0 ? type : type.substring(colon + 1);
  }
}
