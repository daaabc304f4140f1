package io.idemworker.emulator.cosmos;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.cosmos.CosmosClient;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inputs the SDK never sends (malformed JSON, a missing partition-key header, unknown paths, bad
 * signatures), sent with the JDK's HTTP client over hostname-verified TLS that trusts the
 * emulator's certificate through {@link CosmosEmulator#writeTrustStore}. The real client keeps
 * working after.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosEmulatorRawHttpTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path tmp;
  private CosmosEmulator emulator;
  private CosmosClient client;
  private HttpClient http;

  @BeforeAll
  void start() throws Exception {
    emulator = CosmosEmulator.builder().start();
    client = Clients.sync(emulator);
    client.createDatabaseIfNotExists("db");
    client.getDatabase("db").createContainerIfNotExists(Clients.containerProps("c", null));

    Path store = emulator.writeTrustStore(tmp.resolve("trust.p12"), "changeit");
    KeyStore trust = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      trust.load(in, "changeit".toCharArray());
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(null, tmf.getTrustManagers(), null);
    http = HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(30)).build();
  }

  @AfterAll
  void stop() {
    client.close();
    emulator.close();
  }

  private HttpResponse<String> sendWithKey(
      String method,
      String path,
      String type,
      String link,
      String key,
      Object body,
      String... headers)
      throws Exception {
    String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
    String payload =
        method.toLowerCase(Locale.ROOT)
            + "\n"
            + type
            + "\n"
            + link
            + "\n"
            + date.toLowerCase(Locale.ROOT)
            + "\n\n";
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(Base64.getDecoder().decode(key), "HmacSHA256"));
    String sig =
        Base64.getEncoder().encodeToString(mac.doFinal(payload.getBytes(StandardCharsets.UTF_8)));
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(emulator.endpoint() + path))
            .timeout(Duration.ofSeconds(30))
            .header("x-ms-date", date)
            .header("x-ms-version", "2020-07-15")
            .header(
                "Authorization",
                URLEncoder.encode("type=master&ver=1.0&sig=" + sig, StandardCharsets.UTF_8))
            .method(method, publisher(body));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> send(
      String method, String path, String type, String link, String body, String... headers)
      throws Exception {
    return sendWithKey(method, path, type, link, emulator.key(), body, headers);
  }

  private static HttpRequest.BodyPublisher publisher(Object body) {
    if (body instanceof HttpRequest.BodyPublisher p) {
      return p;
    }
    return body == null
        ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofString((String) body);
  }

  private HttpResponse<String> sendBody(
      String method,
      String path,
      String type,
      String link,
      HttpRequest.BodyPublisher body,
      String... headers)
      throws Exception {
    return sendWithKey(method, path, type, link, emulator.key(), body, headers);
  }

  private static JsonNode json(HttpResponse<String> r) throws Exception {
    return JSON.readTree(r.body());
  }

  @Test
  void account_isServedOverHostnameVerifiedTls() throws Exception {
    HttpResponse<String> r = send("GET", "", "", "", null);

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(json(r).get("writableLocations").get(0).get("databaseAccountEndpoint").asText())
        .isEqualTo(emulator.endpoint());
  }

  @Test
  void malformedJson_is400WithServiceErrorBody() throws Exception {
    HttpResponse<String> r =
        send(
            "POST",
            "dbs/db/colls/c/docs",
            "docs",
            "dbs/db/colls/c",
            "{\"id\": \"x\", ",
            "x-ms-documentdb-partitionkey",
            "[\"x\"]");

    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(json(r).get("code").asText()).isEqualTo("BadRequest");
    assertThat(json(r).get("message").asText()).isNotBlank();
  }

  @Test
  void queryWithoutPartitionKeyOrRange_isServedWhenSimple_and400WhenItNeedsMerging()
      throws Exception {
    String[] headers = {
      "x-ms-documentdb-isquery", "true",
      "x-ms-documentdb-query-enablecrosspartition", "true",
      "Content-Type", "application/query+json"
    };

    HttpResponse<String> simple =
        send(
            "POST",
            "dbs/db/colls/c/docs",
            "docs",
            "dbs/db/colls/c",
            "{\"query\": \"SELECT * FROM c\"}",
            headers);
    HttpResponse<String> ordered =
        send(
            "POST",
            "dbs/db/colls/c/docs",
            "docs",
            "dbs/db/colls/c",
            "{\"query\": \"SELECT * FROM c ORDER BY c.id\"}",
            headers);

    assertThat(simple.statusCode()).isEqualTo(200);
    assertThat(json(simple).has("Documents")).isTrue();
    assertThat(ordered.statusCode()).isEqualTo(400);
    assertThat(json(ordered).get("message").asText())
        .startsWith("Cross partition query only supports")
        .contains("query plan");
  }

  @Test
  void queryPlanForAValueAggregate_rewritesToPartials_inTheShapeTheClientReads() throws Exception {
    String body = "{\"query\": \"SELECT VALUE COUNT(1) FROM c\"}";
    String[] java = {
      "x-ms-documentdb-isquery", "true",
      "x-ms-cosmos-is-query-plan-request", "True",
      "x-ms-cosmos-supported-query-features", "Aggregate, NonValueAggregate, DCount",
      "Content-Type", "application/query+json"
    };
    String[] javascript = {
      "x-ms-documentdb-isquery", "true",
      "x-ms-cosmos-is-query-plan-request", "True",
      "x-ms-cosmos-supported-query-features", "NonValueAggregate,Aggregate,ListAndSetAggregate",
      "Content-Type", "application/query+json"
    };

    JsonNode forJava =
        json(send("POST", "dbs/db/colls/c/docs", "docs", "dbs/db/colls/c", body, java));
    JsonNode forJavaScript =
        json(send("POST", "dbs/db/colls/c/docs", "docs", "dbs/db/colls/c", body, javascript));

    assertThat(forJava.at("/queryInfo/aggregates/0").asText()).isEqualTo("Count");
    assertThat(forJava.at("/queryInfo/rewrittenQuery").asText())
        .isEqualTo("SELECT VALUE {\"item\": COUNT(1)} FROM c");
    assertThat(forJavaScript.at("/queryInfo/rewrittenQuery").asText())
        .isEqualTo("SELECT VALUE [{\"item\": COUNT(1)}] FROM c");
  }

  @Test
  void nonObjectDocument_is400() throws Exception {
    HttpResponse<String> r =
        send(
            "POST",
            "dbs/db/colls/c/docs",
            "docs",
            "dbs/db/colls/c",
            "[1,2]",
            "x-ms-documentdb-partitionkey",
            "[\"x\"]");

    assertThat(r.statusCode()).isEqualTo(400);
  }

  @Test
  void missingOrMalformedPartitionKeyHeader_is400() throws Exception {
    String doc = "{\"id\":\"a\",\"orderId\":\"a\"}";
    HttpResponse<String> missing =
        send("POST", "dbs/db/colls/c/docs", "docs", "dbs/db/colls/c", doc);
    HttpResponse<String> malformed =
        send(
            "POST",
            "dbs/db/colls/c/docs",
            "docs",
            "dbs/db/colls/c",
            doc,
            "x-ms-documentdb-partitionkey",
            "not-json");

    assertThat(missing.statusCode()).isEqualTo(400);
    assertThat(json(missing).get("code").asText()).isEqualTo("BadRequest");
    assertThat(malformed.statusCode()).isEqualTo(400);
  }

  @Test
  void unknownPath_is404WithServiceErrorBody() throws Exception {
    HttpResponse<String> r = send("GET", "nothing/here", "nothing", "nothing/here", null);

    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(json(r).get("code").asText()).isEqualTo("NotFound");
  }

  @Test
  void unimplementedResources_are501_whileScriptFeedsAreEmpty() throws Exception {
    HttpResponse<String> sprocs =
        send(
            "POST",
            "dbs/db/colls/c/sprocs",
            "sprocs",
            "dbs/db/colls/c",
            "{\"id\": \"sp\", \"body\": \"function () {}\"}");
    HttpResponse<String> sprocFeed =
        send("GET", "dbs/db/colls/c/sprocs", "sprocs", "dbs/db/colls/c", null);
    HttpResponse<String> changeFeed =
        send(
            "GET",
            "dbs/db/colls/c/docs",
            "docs",
            "dbs/db/colls/c",
            null,
            "A-IM",
            "Full-Fidelity Feed",
            "x-ms-documentdb-partitionkeyrangeid",
            "0");

    assertThat(sprocs.statusCode()).isEqualTo(501);
    assertThat(sprocFeed.statusCode()).isEqualTo(200);
    assertThat(json(sprocFeed).get("StoredProcedures")).isEmpty();
    assertThat(changeFeed.statusCode()).isEqualTo(501);
    assertThat(json(changeFeed).get("message").asText()).contains("change feed mode");
  }

  @Test
  void wrongSignature_is401WithServiceErrorBody() throws Exception {
    String otherKey = Base64.getEncoder().encodeToString(new byte[64]);
    HttpResponse<String> r = sendWithKey("GET", "dbs/db", "dbs", "dbs/db", otherKey, null);
    HttpResponse<String> unsigned =
        http.send(
            HttpRequest.newBuilder(URI.create(emulator.endpoint() + "dbs/db")).build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(json(r).get("code").asText()).isEqualTo("Unauthorized");
    assertThat(unsigned.statusCode()).isEqualTo(401);
  }

  @Test
  void resourcesResolveByRid_asTheClientAddressesThem() throws Exception {
    JsonNode container = json(send("GET", "dbs/db/colls/c", "colls", "dbs/db/colls/c", null));
    String dbRid = json(send("GET", "dbs/db", "dbs", "dbs/db", null)).get("_rid").asText();
    String collRid = container.get("_rid").asText();

    HttpResponse<String> byRid =
        send(
            "GET",
            "dbs/" + dbRid + "/colls/" + collRid,
            "colls",
            collRid.toLowerCase(Locale.ROOT),
            null);
    HttpResponse<String> ranges =
        send(
            "GET",
            "dbs/" + dbRid + "/colls/" + collRid + "/pkranges",
            "pkranges",
            collRid.toLowerCase(Locale.ROOT),
            null,
            "A-IM",
            "Incremental feed");
    HttpResponse<String> unchanged =
        send(
            "GET",
            "dbs/" + dbRid + "/colls/" + collRid + "/pkranges",
            "pkranges",
            collRid.toLowerCase(Locale.ROOT),
            null,
            "A-IM",
            "Full-Fidelity Feed",
            "If-None-Match",
            ranges.headers().firstValue("etag").orElseThrow());

    assertThat(byRid.statusCode()).isEqualTo(200);
    assertThat(json(byRid).get("id").asText()).isEqualTo("c");
    assertThat(ranges.statusCode()).isEqualTo(200);
    assertThat(json(ranges).get("PartitionKeyRanges").get(0).get("maxExclusive").asText())
        .isEqualTo("FF");
    assertThat(unchanged.statusCode()).isEqualTo(304);
  }

  @Test
  void itemsResolveByRid() throws Exception {
    var created =
        client
            .getDatabase("db")
            .getContainer("c")
            .createItem(CosmosEmulatorSyncClientTest.order("by-rid", "p"))
            .getItem();
    String self = created.get("_self").asText();
    String docRid = created.get("_rid").asText();

    HttpResponse<String> r = send("GET", self, "docs", docRid.toLowerCase(Locale.ROOT), null);

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(json(r).get("id").asText()).isEqualTo("by-rid");
    assertThat(r.headers().firstValue("etag")).contains(created.get("_etag").asText());
  }

  @Test
  void chunkedRequestBody_isAccepted() throws Exception {
    HttpRequest.BodyPublisher chunked =
        HttpRequest.BodyPublishers.fromPublisher(
            HttpRequest.BodyPublishers.ofString("{\"id\":\"chunky\",\"orderId\":\"p\"}"));

    HttpResponse<String> r =
        sendBody(
            "POST",
            "dbs/db/colls/c/docs",
            "docs",
            "dbs/db/colls/c",
            chunked,
            "x-ms-documentdb-partitionkey",
            "[\"p\"]");

    assertThat(r.statusCode()).isEqualTo(201);
  }

  @Test
  void serverKeepsServingTheClientAfterBadInput() throws Exception {
    send("POST", "dbs/db/colls/c/docs", "docs", "dbs/db/colls/c", "\u0000garbage");
    send("PUT", "dbs/db/colls/c/docs/x/y/z", "z", "dbs/db/colls/c/docs/x/y", "{");

    var created =
        client
            .getDatabase("db")
            .getContainer("c")
            .createItem(CosmosEmulatorSyncClientTest.order("after-garbage", "p"));

    assertThat(created.getStatusCode()).isEqualTo(201);
  }

  @Test
  void patchWithABareArrayBody_asTheJavaScriptSdkSendsIt_isApplied() throws Exception {
    client
        .getDatabase("db")
        .getContainer("c")
        .createItem(CosmosEmulatorSyncClientTest.order("js-patch", "js-patch"));

    HttpResponse<String> r =
        send(
            "PATCH",
            "dbs/db/colls/c/docs/js-patch",
            "docs",
            "dbs/db/colls/c/docs/js-patch",
            "[{\"op\":\"incr\",\"path\":\"/qty\",\"value\":4}]",
            "x-ms-documentdb-partitionkey",
            "[\"js-patch\"]",
            "Content-Type",
            "application/json");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(json(r).get("qty").intValue()).isEqualTo(5);
  }

  @Test
  void patchWithMoreThanTenOperations_is400() throws Exception {
    StringBuilder ops = new StringBuilder("{\"operations\":[");
    for (int i = 0; i < 11; i++) {
      ops.append(i == 0 ? "" : ",").append("{\"op\":\"set\",\"path\":\"/f").append(i);
      ops.append("\",\"value\":1}");
    }
    ops.append("]}");

    HttpResponse<String> r =
        send(
            "PATCH",
            "dbs/db/colls/c/docs/anything",
            "docs",
            "dbs/db/colls/c/docs/anything",
            ops.toString(),
            "x-ms-documentdb-partitionkey",
            "[\"anything\"]");

    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(json(r).get("message").asText()).contains("at most 10");
  }

  @Test
  void changeFeed_answers304WithTheSameEtagWhenNothingIsNew_and400ForAForeignPositionOrEmptyRange()
      throws Exception {
    String[] feed = {"A-IM", "Incremental feed", "x-ms-documentdb-partitionkeyrangeid", "0"};
    HttpResponse<String> now =
        send("GET", "dbs/db/colls/c/docs", "docs", "dbs/db/colls/c", null, with(feed, "*"));
    String etag = now.headers().firstValue("etag").orElseThrow();

    HttpResponse<String> again =
        send("GET", "dbs/db/colls/c/docs", "docs", "dbs/db/colls/c", null, with(feed, etag));
    HttpResponse<String> foreign =
        send("GET", "dbs/db/colls/c/docs", "docs", "dbs/db/colls/c", null, with(feed, "\"x1\""));
    HttpResponse<String> subRange =
        send(
            "GET",
            "dbs/db/colls/c/docs",
            "docs",
            "dbs/db/colls/c",
            null,
            "A-IM",
            "Incremental feed",
            "x-ms-start-epk",
            "7F",
            "x-ms-end-epk",
            "10");

    assertThat(now.statusCode()).isEqualTo(304);
    assertThat(etag).matches("\"\\d+\"");
    assertThat(again.statusCode()).isEqualTo(304);
    assertThat(again.headers().firstValue("etag")).contains(etag);
    assertThat(foreign.statusCode()).isEqualTo(400);
    assertThat(subRange.statusCode()).isEqualTo(400);
    assertThat(json(subRange).get("message").asText()).contains("x-ms-start-epk");
  }

  private static String[] with(String[] headers, String ifNoneMatch) {
    String[] all = java.util.Arrays.copyOf(headers, headers.length + 2);
    all[headers.length] = "If-None-Match";
    all[headers.length + 1] = ifNoneMatch;
    return all;
  }
}
