// Drives the example shop server with the official TypeScript SDK client
// over stdio and checks what an agent's client receives. Run by
// e2e/node_test.go as: node sdk/shop.mjs /path/to/shop-server
// Exits non-zero, with the failed assertion, on any broken promise.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const bin = process.argv[2];
assert.ok(bin, "usage: node sdk/shop.mjs /path/to/shop-server");
const SECRET = "s3cr3t-db-pass";

// Further arguments select the server's front, e.g. "-sdk go-sdk".
const transport = new StdioClientTransport({ command: bin, args: ["-panic-tool", ...process.argv.slice(3)], stderr: "pipe" });
let stderr = "";
transport.stderr?.on("data", (d) => { stderr += d; });
const client = new Client({ name: "mcpguard-e2e-sdk", version: "1.0.0" });
await client.connect(transport);

const checks = [];
const ok = (name) => { checks.push(name); console.log("ok", name); };

// tools/list carries the constraints derived from struct tags.
const { tools } = await client.listTools();
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
const search = byName.shop_search.inputSchema.properties;
assert.deepEqual(search.category.enum, ["books", "electronics", "garden", "kitchen", "toys"]);
assert.equal(search.limit.minimum, 1);
assert.equal(search.limit.maximum, 50);
assert.equal(search.query.maxLength, 100);
assert.equal(byName.shop_get_product.inputSchema.properties.id.pattern, "^(?:p-[0-9]{4})$");
assert.equal(byName.shop_get_product.inputSchema.additionalProperties, false);
assert.equal(byName.shop_get_product.outputSchema.type, "object");
assert.equal(byName.shop_sales_report.outputSchema.type, "object");
// Output schemas derived by validate.OutputSchema from the same tags.
assert.deepEqual(byName.shop_get_product.outputSchema.required, ["id", "name", "category", "price_cents", "stock", "description"]);
assert.equal(byName.shop_get_product.outputSchema.properties.id.pattern, "^(?:p-[0-9]{4})$");
assert.equal(byName.shop_get_product.outputSchema.properties.stock.minimum, 0);
assert.deepEqual(byName.shop_sales_report.outputSchema.required, ["month", "orders", "units", "revenue_cents"]);
assert.equal(byName.shop_sales_report.outputSchema.additionalProperties, false);
// Optional arguments advertise their constraint with no anyOf wrapper.
assert.equal(search.limit.anyOf, undefined);
for (const t of tools) assert.match(t.name, /^shop_/);
ok("tools/list: enum, pattern, minimum/maximum, maxLength, output schemas");

// callTool never throws for a tool failure: the failure is a result.
async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  const text = JSON.stringify(res);
  assert.ok(!text.includes(SECRET), `secret leaked: ${text}`);
  assert.ok(!/goroutine \d+ \[|\.go:\d+/.test(text), `stack leaked: ${text}`);
  return res;
}
function envelopeOf(res) {
  assert.equal(res.isError, true, JSON.stringify(res));
  const env = JSON.parse(res.content[0].text);
  assert.equal(env.success, false);
  assert.ok(Array.isArray(env.next_steps) && env.next_steps.length > 0);
  return env;
}

let env = envelopeOf(await call("shop_search", { category: "Electronics", limit: 9999 }));
assert.equal(env.error_type, "validation_error");
assert.equal(env.fields.find((f) => f.field === "category").suggestion, "electronics");
assert.equal(env.fields.find((f) => f.field === "limit").param, "50");
// A tool without an output schema also carries the envelope as
// structuredContent, the same object as the text.
assert.deepEqual((await call("shop_search", { category: "Electronics", limit: 9999 })).structuredContent, env);
ok("validation_error with fields and a suggestion, as a result");

// A tool with an output schema: the SDK validates structuredContent
// against it, so error results must carry none.
let res = await call("shop_get_product", { id: "p-9999" });
env = envelopeOf(res);
assert.equal(env.error_type, "not_found");
assert.equal(res.structuredContent, undefined);
assert.ok(env.next_steps[0].startsWith("Call shop_search"));
ok("not_found on a tool with an output schema arrives as a result");

res = await call("shop_get_product", { id: "p-1001" });
assert.equal(res.isError ?? false, false);
assert.equal(res.structuredContent.id, "p-1001");
assert.ok(res.content.some((c) => c.type === "text" && c.text.includes("Call shop_search")));
assert.ok(res._meta["io.github.mcpguard/next_steps"].length > 0);
ok("success on a tool with an output schema: structuredContent valid, next steps in text and _meta");

env = envelopeOf(await call("shop_sales_report", { session_token: "sess_forged", month: "2025-03" }));
assert.equal(env.error_type, "authentication_failed");
assert.ok(env.next_steps[0].startsWith("Call shop_authenticate"));
ok("authentication_failed on a tool with an output schema names shop_authenticate");

const login = await call("shop_authenticate", { username: "bob", api_key: "demo-key-bob" });
const { session_token } = JSON.parse(login.content[0].text);
env = envelopeOf(await call("shop_sales_report", { session_token, month: "2025-03" }));
assert.equal(env.error_type, "access_denied");
ok("access_denied for a clerk's session");

// validate.StructuredHandler's success: the SDK checks structuredContent
// against the outputSchema and would throw on a mismatch.
const manager = await call("shop_authenticate", { username: "alice", api_key: "demo-key-alice" });
res = await call("shop_sales_report", { session_token: JSON.parse(manager.content[0].text).session_token, month: "2025-03" });
assert.equal(res.isError ?? false, false, JSON.stringify(res));
assert.equal(res.structuredContent.month, "2025-03");
assert.equal(res.structuredContent.revenue_cents, 35394);
assert.deepEqual(JSON.parse(res.content[0].text), res.structuredContent);
ok("a structured success from validate.StructuredHandler passes the SDK's outputSchema check");

// Optional members sent as null or zero mean "not set".
res = await call("shop_search", { query: null, category: "", limit: 0 });
assert.equal(res.isError ?? false, false, JSON.stringify(res));
assert.equal(JSON.parse(res.content[0].text).count, 10);
ok("optional members sent as null or zero are absent");

env = envelopeOf(await call("shop_query", { sql: "SELECT * FROM users" }));
assert.equal(env.error_type, "execution_failed");
assert.match(env.message, /no such table: users/);
env = envelopeOf(await call("shop_query", { sql: "DROP TABLE products" }));
assert.equal(env.error_type, "access_denied");
ok("execution_failed with the database's message; writes refused by the database");

res = await call("shop_query", { sql: "SELECT id FROM products ORDER BY id", page_size: 5 });
assert.equal(res.isError ?? false, false);
assert.ok(res._meta["io.github.mcpguard/next_steps"].some((s) => s.includes("page=2")));
assert.ok(res.content.at(-1).text.includes("page=2"));
res = await call("shop_query", { sql: "SELECT * FROM products WHERE stock < 0" });
assert.ok(res._meta["io.github.mcpguard/next_steps"].some((s) => s.includes("shop_get_schema")));
ok("success next_steps: more rows -> page+1, no rows -> schema");

env = envelopeOf(await call("shop_debug_panic", {}));
assert.equal(env.error_type, "internal_error");
assert.match(env.incident_id, /\S/);
ok("a panic is an internal_error with an incident_id and nothing else");

env = envelopeOf(await call("shop_store_hours", { day: "someday" }));
assert.equal(env.error_type, "validation_error");
assert.equal(env.fields[0].field, "day");
ok("the legacy tool's declared schema is enforced: an unknown day is a validation_error with fields");

// Protocol errors stay protocol errors.
await assert.rejects(client.callTool({ name: "shop_no_such_tool", arguments: {} }));
ok("an unknown tool is still a JSON-RPC error");

await client.close();
console.log(JSON.stringify({ passed: checks.length }));
