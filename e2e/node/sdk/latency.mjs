// Times tools/call round trips with the official TypeScript SDK client
// against several targets in one run, interleaved call by call, so that
// whatever else loads the machine loads every target alike. Run by
// e2e/proxy_latency_test.go as: node sdk/latency.mjs CONFIG.json
//
// CONFIG: {"calls": N, "warmup": W, "targets": [T...]}, each T either
// {"name", "command", "args", "env"} (stdio: the client starts the command)
// or {"name", "url"} (streamable HTTP). Every target must serve
// server-everything's echo tool. Prints one JSON line on stdout,
// {"name": [microseconds per call...], ...}, and exits non-zero if any
// call is not answered with its own echo.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const file = process.argv[2];
assert.ok(file, "usage: node sdk/latency.mjs CONFIG.json");
const config = JSON.parse(readFileSync(file, "utf8"));

const clients = [];
for (const t of config.targets) {
  const transport = t.url
    ? new StreamableHTTPClientTransport(new URL(t.url))
    : new StdioClientTransport({ command: t.command, args: t.args ?? [], env: t.env, stderr: "inherit" });
  const client = new Client({ name: "mcpguard-e2e-latency", version: "1.0.0" });
  await client.connect(transport);
  clients.push({ name: t.name, client, micros: [] });
}

let seq = 0;
async function echo(c) {
  const message = `latency ${c.name} ${seq++}`;
  const start = process.hrtime.bigint();
  const res = await c.client.callTool({ name: "echo", arguments: { message } });
  const micros = Number(process.hrtime.bigint() - start) / 1000;
  assert.notEqual(res.isError, true, `${c.name}: ${JSON.stringify(res)}`);
  assert.equal(res.content?.[0]?.text, `Echo: ${message}`, `${c.name}: ${JSON.stringify(res)}`);
  return micros;
}

// One round calls every target once, in a fresh random order, so that no
// target always comes first, or always after the same one (what a call
// leaves behind, such as its server's garbage collection, falls on the
// next call).
for (let round = 0; round < config.warmup + config.calls; round++) {
  const order = clients.slice();
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  for (const c of order) {
    const micros = await echo(c);
    if (round >= config.warmup) c.micros.push(micros);
  }
}
for (const c of clients) await c.client.close();
console.log(JSON.stringify(Object.fromEntries(clients.map((c) => [c.name, c.micros]))));
