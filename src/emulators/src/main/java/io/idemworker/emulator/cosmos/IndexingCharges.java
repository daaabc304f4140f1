package io.idemworker.emulator.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The write charge under a container's indexing policy: a write costs less when fewer of the
 * document's terms (its scalar values, each at its path) are indexed.
 *
 * <p>A container with the default policy (everything included, at most {@code _etag} excluded) is
 * charged as {@link RequestCharges#write} always charged, whatever its documents hold: the
 * published figures it follows (1 KB written for 4.95 RU, more per KB) are for that policy. Under
 * any other policy each term the policy leaves out makes the write {@value #PER_TERM_NOT_INDEXED}
 * RU cheaper, down to {@value #FLOOR_SHARE} of the default-policy charge at most (storing and
 * replicating the document is not indexing). {@code indexingMode: none} leaves out every term.
 * Microsoft publishes that writes cost more as more properties are indexed, but not a figure per
 * property: the two constants are this emulator's assumption, to recalibrate against a real
 * account's {@code x-ms-request-charge} (docs/cosmos-emulator.md).
 *
 * <p>Matching follows the service's rules: {@code /a/b/?} is the scalar at {@code /a/b}, {@code
 * /a/*} everything under {@code /a}, {@code /*} everything, {@code []} any array element; the most
 * precise matching path decides (a longer one; at equal length {@code ?} before {@code *}, excluded
 * before included). The {@code id} is always indexed; system properties ({@code _rid}, {@code
 * _ts}…) are not counted.
 *
 * <p>Immutable and thread-safe.
 */
final class IndexingCharges {
  static final double PER_TERM_NOT_INDEXED = 0.1;
  static final double FLOOR_SHARE = 0.5;

  private static final IndexingCharges DEFAULT = new IndexingCharges(true, false, List.of());

  private final boolean defaultPolicy;
  private final boolean none;
  private final List<Rule> rules;

  private IndexingCharges(boolean defaultPolicy, boolean none, List<Rule> rules) {
    this.defaultPolicy = defaultPolicy;
    this.none = none;
    this.rules = rules;
  }

  /** One included or excluded path. */
  private record Rule(List<String> segments, boolean subtree, boolean included) {
    boolean matches(List<String> path) {
      if (subtree) {
        return path.size() >= segments.size() && path.subList(0, segments.size()).equals(segments);
      }
      return path.equals(segments);
    }

    /** Higher is more precise. */
    int precision() {
      return segments.size() * 4 + (subtree ? 0 : 2) + (included ? 0 : 1);
    }
  }

  /**
   * The charges under a container's {@code indexingPolicy}.
   *
   * @param policy the policy as stored, or null/missing for the default one
   * @return the charges
   */
  static IndexingCharges of(JsonNode policy) {
    if (policy == null || !policy.isObject()) {
      return DEFAULT;
    }
    if ("none".equalsIgnoreCase(policy.path("indexingMode").asText("consistent"))
        || !policy.path("automatic").asBoolean(true)) {
      return new IndexingCharges(false, true, List.of());
    }
    List<Rule> rules = new ArrayList<>();
    policy.path("includedPaths").forEach(p -> rule(p.path("path").asText(), true, rules));
    policy.path("excludedPaths").forEach(p -> rule(p.path("path").asText(), false, rules));
    boolean everything =
        rules.stream().anyMatch(r -> r.included() && r.subtree() && r.segments().isEmpty());
    boolean onlyEtagExcluded =
        rules.stream()
            .filter(r -> !r.included())
            .allMatch(r -> r.segments().equals(List.of("_etag")));
    boolean defaultPolicy = everything && onlyEtagExcluded;
    return defaultPolicy ? DEFAULT : new IndexingCharges(false, false, List.copyOf(rules));
  }

  private static void rule(String path, boolean included, List<Rule> rules) {
    if (!path.startsWith("/")) {
      return;
    }
    boolean subtree = path.endsWith("/*");
    boolean scalar = path.endsWith("/?");
    if (!subtree && !scalar) {
      return;
    }
    String body = path.substring(0, path.length() - 2);
    body = body.startsWith("/") ? body.substring(1) : body;
    List<String> segments = new ArrayList<>();
    if (!body.isEmpty()) {
      for (String segment : body.split("/")) {
        segments.add(
            segment.length() >= 2 && segment.startsWith("\"") && segment.endsWith("\"")
                ? segment.substring(1, segment.length() - 1)
                : segment);
      }
    }
    rules.add(new Rule(List.copyOf(segments), subtree, included));
  }

  /**
   * What writing a document costs.
   *
   * @param bytes the stored document's size
   * @param document the document as written (system properties are ignored)
   * @return the request charge, rounded to 2 decimals
   */
  double write(int bytes, JsonNode document) {
    double full = RequestCharges.write(bytes);
    if (defaultPolicy) {
      return full;
    }
    int[] terms = new int[2]; // [indexed, not indexed]
    walk(document, new ArrayList<>(), terms, true);
    double saved = PER_TERM_NOT_INDEXED * terms[1];
    return RequestCharges.round(Math.max(full * FLOOR_SHARE, full - saved));
  }

  /**
   * The document's terms as {@code [indexed, not indexed]}, for tests and the docs' calibration.
   */
  int[] terms(JsonNode document) {
    int[] terms = new int[2];
    if (defaultPolicy) {
      walk(document, new ArrayList<>(), terms, true);
      terms[0] += terms[1];
      terms[1] = 0;
      return terms;
    }
    walk(document, new ArrayList<>(), terms, true);
    return terms;
  }

  private void walk(JsonNode node, List<String> path, int[] terms, boolean root) {
    if (node.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        if (root && field.getKey().startsWith("_")) {
          continue;
        }
        path.add(field.getKey());
        walk(field.getValue(), path, terms, false);
        path.remove(path.size() - 1);
      }
    } else if (node.isArray()) {
      path.add("[]");
      for (JsonNode element : node) {
        walk(element, path, terms, false);
      }
      path.remove(path.size() - 1);
    } else {
      terms[indexed(path) ? 0 : 1]++;
    }
  }

  private boolean indexed(List<String> path) {
    if (path.size() == 1 && path.get(0).equals("id")) {
      return true;
    }
    if (none) {
      return false;
    }
    Rule best = null;
    for (Rule rule : rules) {
      if (rule.matches(path) && (best == null || rule.precision() > best.precision())) {
        best = rule;
      }
    }
    return best != null && best.included();
  }
}
