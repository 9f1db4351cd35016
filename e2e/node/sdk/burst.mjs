// A burst of tool calls at once from the official TypeScript SDK client
// (its latest protocol is 2025-11-25: it negotiates no multi round-trip
// requests and acts on no input_required by itself), over stdio, against
// a server command, usually mcpguard-proxy with a rate limit in front of
// the shop. Run by e2e/proxy_test.go as:
//   node sdk/burst.mjs N command [args...]
// Prints one JSON line: how many calls succeeded, were refused with
// retry_after_ms, were answered input_required, or otherwise (a thrown
// error, a result of another shape).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [n, command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, stderr: "pipe" });
transport.stderr?.on("data", () => {});
const client = new Client({ name: "mcpguard-e2e-burst", version: "1.0.0" });
await client.connect(transport);

const counts = { ok: 0, refused: 0, inputRequired: 0, other: [] };
await Promise.all(Array.from({ length: Number(n) }, async () => {
  try {
    const res = await client.callTool({ name: "shop_get_product", arguments: { id: "p-1001" } });
    if (res.resultType === "input_required" || res.inputRequests !== undefined || res.requestState !== undefined) {
      counts.inputRequired++;
    } else if (res.isError) {
      const env = JSON.parse(res.content[0].text);
      if (env.retryable === true && env.retry_after_ms > 0) counts.refused++;
      else counts.other.push(res);
    } else {
      counts.ok++;
    }
  } catch (e) {
    counts.other.push(String(e));
  }
}));
await client.close();
console.log(JSON.stringify(counts));
