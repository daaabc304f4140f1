// Cross-partition queries through the JavaScript Cosmos DB SDK against the in-process emulator.
//
// Run by JavaScriptSdkCrossPartitionTest (mvn -B -pl src/emulators -am test -Pjs-sdk), which starts an
// emulator with four partition key ranges and passes ENDPOINT, KEY and NODE_EXTRA_CA_CERTS (the
// emulator's certificate, so TLS is verified). Every expectation is computed here from the items this
// script writes, never from what the emulator answered. Prints one "ok"/"not ok" line per check, then
// "checks: P passed, F failed"; exits 1 when any check fails, 2 when it cannot run at all.
import { CosmosClient } from "@azure/cosmos";

const endpoint = process.env.ENDPOINT;
const key = process.env.KEY;
if (!endpoint || !key) {
  console.error("cross-partition.mjs: set ENDPOINT and KEY");
  process.exit(2);
}

const client = new CosmosClient({ endpoint, key, connectionPolicy: { enableEndpointDiscovery: false } });
let passed = 0;
let failed = 0;

async function check(name, body) {
  try {
    await body();
    passed++;
    console.log(`ok ${passed + failed} - ${name}`);
  } catch (e) {
    failed++;
    console.log(`not ok ${passed + failed} - ${name}: ${e && e.message ? e.message : e}`);
  }
}

function same(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) {
    throw new Error(`${what}: expected ${e}, got ${a}`);
  }
}

async function allPages(iterator) {
  const pages = [];
  while (iterator.hasMoreResults()) {
    const page = await iterator.fetchNext();
    if (page.resources.length > 0) {
      pages.push(page.resources);
    }
  }
  return pages;
}

const suffix = `${process.pid}-${Date.now()}`;
const { database } = await client.databases.createIfNotExists({ id: `js-sdk-${suffix}` });
const { container } = await database.containers.createIfNotExists({
  id: "orders",
  partitionKey: { paths: ["/orderId"] },
});

// 48 documents in 16 partitions: every order has three documents, as the worker writes them.
const docs = [];
for (let o = 0; o < 16; o++) {
  const orderId = `ord-${String(o).padStart(2, "0")}`;
  docs.push({ id: orderId, orderId, type: "order", amount: 100 + ((o * 37) % 50), region: o % 3 === 0 ? "north" : "south" });
  docs.push({ id: `inbox:orders:cr-${o}`, orderId, type: "marker", key: `cr-${o}`, amount: o });
  docs.push({ id: `${orderId}:status:${o % 4}`, orderId, type: "status", messageId: `${orderId}:status:${o % 4}`, amount: 0 });
}
for (const doc of docs) {
  await container.items.create(doc);
}
const orders = docs.filter((d) => d.type === "order");
const byAmountThenId = (a, b) => a.amount - b.amount || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

await check("the container has four partition key ranges", async () => {
  const { resources } = await container.readPartitionKeyRanges().fetchAll();
  same(resources.length, 4, "ranges");
});

await check("SELECT * without a partition key returns every document once", async () => {
  const { resources } = await container.items.query("SELECT * FROM c").fetchAll();
  same(resources.map((d) => d.id).sort(), docs.map((d) => d.id).sort(), "ids");
});

await check("a filter and a projection run across partitions", async () => {
  const { resources } = await container.items
    .query({ query: "SELECT c.id, c.amount FROM c WHERE c.type = @t AND c.region = @r", parameters: [
      { name: "@t", value: "order" }, { name: "@r", value: "north" }] })
    .fetchAll();
  const expected = orders.filter((d) => d.region === "north").map((d) => ({ id: d.id, amount: d.amount }));
  same(resources.sort((a, b) => (a.id < b.id ? -1 : 1)), expected, "rows");
});

await check("ORDER BY ASC is merged across ranges, page by page", async () => {
  const iterator = container.items.query("SELECT c.id, c.amount FROM c WHERE c.type = 'order' ORDER BY c.amount ASC", { maxItemCount: 3 });
  const pages = await allPages(iterator);
  const amounts = pages.flat().map((r) => r.amount);
  same(amounts, orders.map((d) => d.amount).sort((a, b) => a - b), "amounts");
  if (pages.length < 2) throw new Error(`expected several pages, got ${pages.length}`);
});

await check("ORDER BY DESC on two keys is merged across ranges", async () => {
  const { resources } = await container.items
    .query("SELECT c.id FROM c WHERE c.type = 'order' ORDER BY c.amount DESC, c.id DESC", { maxItemCount: 5 })
    .fetchAll();
  same(resources.map((r) => r.id), [...orders].sort(byAmountThenId).reverse().map((d) => d.id), "ids");
});

await check("TOP with ORDER BY keeps the smallest", async () => {
  const { resources } = await container.items
    .query("SELECT TOP 4 VALUE c.amount FROM c WHERE c.type = 'order' ORDER BY c.amount")
    .fetchAll();
  same(resources, orders.map((d) => d.amount).sort((a, b) => a - b).slice(0, 4), "values");
});

await check("OFFSET and LIMIT with ORDER BY skip across ranges", async () => {
  const { resources } = await container.items
    .query("SELECT VALUE c.id FROM c WHERE c.type = 'order' ORDER BY c.id OFFSET 5 LIMIT 4")
    .fetchAll();
  same(resources, orders.map((d) => d.id).sort().slice(5, 9), "ids");
});

await check("DISTINCT VALUE de-duplicates across ranges", async () => {
  const { resources } = await container.items.query("SELECT DISTINCT VALUE c.type FROM c").fetchAll();
  same(resources.sort(), ["marker", "order", "status"], "types");
});

await check("VALUE COUNT, SUM, MAX and AVG combine the ranges' partials", async () => {
  const value = async (q) => (await container.items.query(q).fetchAll()).resources;
  const amounts = orders.map((d) => d.amount);
  same(await value("SELECT VALUE COUNT(1) FROM c"), [docs.length], "COUNT");
  same(await value("SELECT VALUE SUM(c.amount) FROM c WHERE c.type = 'order'"), [amounts.reduce((s, a) => s + a, 0)], "SUM");
  same(await value("SELECT VALUE MAX(c.amount) FROM c WHERE c.type = 'order'"), [Math.max(...amounts)], "MAX");
  same(await value("SELECT VALUE AVG(c.amount) FROM c WHERE c.type = 'order'"),
    [amounts.reduce((s, a) => s + a, 0) / amounts.length], "AVG");
});

await check("an operator's look-up by message key finds the order (explain's query)", async () => {
  const spec = {
    query: "SELECT DISTINCT VALUE c.orderId FROM c WHERE c.key = @id OR c.messageId = @id",
    parameters: [{ name: "@id", value: "cr-11" }],
  };
  const { resources, requestCharge } = await container.items.query(spec).fetchAll();
  same(resources, ["ord-11"], "orderIds");
  if (!(requestCharge > 0)) throw new Error(`expected a request charge, got ${requestCharge}`);
});

await check("an ORDER BY continuation token resumes where the last page ended", async () => {
  const query = "SELECT c.id FROM c WHERE c.type = 'order' ORDER BY c.id";
  const first = await container.items.query(query, { maxItemCount: 5, enableQueryControl: true }).fetchNext();
  if (!first.continuationToken) throw new Error("no continuation token after the first page");
  const rest = await allPages(container.items.query(query, {
    maxItemCount: 5, enableQueryControl: true, continuationToken: first.continuationToken }));
  same([...first.resources, ...rest.flat()].map((r) => r.id), orders.map((d) => d.id).sort(), "ids");
});

await check("a database query with STARTSWITH finds this run's database", async () => {
  const { resources } = await client.databases
    .query({ query: "SELECT * FROM c WHERE STARTSWITH(c.id, @p)", parameters: [{ name: "@p", value: `js-sdk-${suffix}` }] })
    .fetchAll();
  same(resources.map((d) => d.id), [`js-sdk-${suffix}`], "databases");
});

await check("a point read finds a document written through the same client", async () => {
  const { resource } = await container.item("ord-07", "ord-07").read();
  same(resource && resource.amount, orders[7].amount, "amount");
});

await database.delete();
console.log(`checks: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
