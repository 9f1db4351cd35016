// Calls the hints e2e server with the official TypeScript SDK client over
// stdio and prints what the client returned, as JSON, for the Go test to
// check. The client validates every result against its schema and, after
// tools/list, structuredContent against each tool's outputSchema; a result
// it rejects is reported as "thrown".
const sdk = process.env.MCP_SDK_DIR;
const { Client } = require(sdk + "/dist/cjs/client/index.js");
const { StdioClientTransport } = require(sdk + "/dist/cjs/client/stdio.js");

const calls = [
  ["query_page", "execute_query", { total: 25, page: 2 }],
  ["query_empty", "execute_query", { total: 0 }],
  ["query_error", "execute_query", { total: 5, page: 0 }],
  ["report", "report", {}],
  ["order_error", "shop_order", { id: "ord_42", mode: "expired" }],
];

(async () => {
  const transport = new StdioClientTransport({
    command: process.env.SERVER_CMD,
    args: JSON.parse(process.env.SERVER_ARGS),
    env: { ...process.env },
    stderr: "inherit",
  });
  const client = new Client({ name: "hints-e2e", version: "0.0.0" });
  await client.connect(transport);
  await client.listTools(); // caches the output schemas, turning validation on
  const out = {};
  for (const [key, name, args] of calls) {
    try {
      const r = await client.callTool({ name, arguments: args });
      out[key] = {
        isError: r.isError === true,
        meta: r._meta ?? null,
        content: r.content,
        structuredContent: r.structuredContent ?? null,
      };
    } catch (e) {
      out[key] = { thrown: String(e && e.message ? e.message : e) };
    }
  }
  process.stdout.write(JSON.stringify(out));
  await client.close();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
