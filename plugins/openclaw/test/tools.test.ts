// The agent tools against a real HTTP server on 127.0.0.1 speaking the daemon's API: a remote source's tool is
// offered once the daemon lists a source of its kind, asks as the calling session (never as one the model
// names), and turns a refusal into a message that names the source.
// Run: node --test plugins/openclaw/test/ (Node >= 24 strips the types).
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../src/config.ts";
import { createRuntime, refreshRemoteKinds, type Runtime } from "../src/runtime.ts";
import { createTools, TOOL_NAMES } from "../src/tools.ts";

let server: Server;
let port = 0;
let sources: { name: string; kind: string; state: string }[] = [];
let answer: { status: number; body: unknown } = { status: 200, body: {} };
const received: { path: string; body: any }[] = [];

before(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", body: raw === "" ? undefined : JSON.parse(raw) });
      const [status, body] = req.url === "/v1/sources" ? [200, { sources, problems: [] }] : [answer.status, answer.body];
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  port = (server.address() as AddressInfo).port;
});

after(() => new Promise<void>((r) => server.close(() => r())));

const quiet = { info() {}, warn() {}, error() {}, debug() {} };

function runtime(): Runtime {
  return createRuntime(parseConfig({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 300, project: "garden" }), quiet);
}

const names = (rt: Runtime, sessionKey = "agent:main:main") =>
  createTools(rt, { sessionKey } as never).map((t) => t.name);

describe("remote source tools", () => {
  it("are listed in the manifest's contracts", async () => {
    const { readFileSync } = await import("node:fs");
    const manifest = JSON.parse(readFileSync(new URL("../openclaw.plugin.json", import.meta.url), "utf8"));
    assert.deepEqual(manifest.contracts.tools, [...TOOL_NAMES]);
  });

  it("are offered only for the kinds of source the daemon has", async () => {
    sources = [{ name: "kg", kind: "graphiti", state: "up" }];
    const rt = runtime();
    assert.deepEqual(names(rt), ["cairn_search", "cairn_ingest"], "nothing known yet: no remote tool");
    await refreshRemoteKinds(rt);
    assert.deepEqual(names(rt), ["cairn_search", "cairn_ingest", "graphiti_search"]);
  });

  it("ask as the calling session and show the results with their ids and dates", async () => {
    sources = [{ name: "kg", kind: "graphiti", state: "up" }];
    answer = {
      status: 200,
      body: {
        source: "kg",
        results: [{ id: "remote:kg:fact:f1", title: "works at", text: "Alice works at Acme", date: "2026-01-05" }],
      },
    };
    const rt = runtime();
    await refreshRemoteKinds(rt);
    received.length = 0;
    const tool = createTools(rt, { sessionKey: "agent:main:telegram:group:7" } as never).find(
      (t) => t.name === "graphiti_search",
    )!;
    const out = (await tool.execute("call-1", {
      query: "where does Alice work",
      limit: 3,
      timeRange: { start: "2026-01-01" },
      session_key: "agent:main:main",
    } as never)) as { content: { text: string }[] };
    const sent = received.find((r) => r.path === "/v1/sources/query")!.body;
    assert.equal(sent.tool, "graphiti_search");
    assert.equal(sent.session_key, "agent:main:telegram:group:7", "the model cannot pick a wider session");
    assert.equal(sent.project, "garden");
    assert.deepEqual([sent.limit, sent.timeRange], [3, { start: "2026-01-01" }]);
    assert.match(out.content[0].text, /1\. \[2026-01-05\] works at\n {3}Alice works at Acme\n {3}\(remote:kg:fact:f1\)/);
  });

  it("name the source when it cannot answer", async () => {
    sources = [{ name: "kg", kind: "graphiti", state: "down" }];
    answer = {
      status: 503,
      body: {
        error: {
          code: "source_unavailable",
          message: "source `kg` (graphiti at http://127.0.0.1:9) is down: unreachable: connection refused",
        },
      },
    };
    const rt = runtime();
    await refreshRemoteKinds(rt);
    const tool = createTools(rt, { sessionKey: "agent:main:main" } as never).find((t) => t.name === "graphiti_search")!;
    const out = (await tool.execute("call-2", { query: "where does Alice work" } as never)) as {
      content: { text: string }[];
      details: { error?: string };
    };
    assert.match(out.content[0].text, /graphiti_search failed: .*HTTP 503: source `kg` .* is down/);
    assert.equal(out.details.error, "unavailable");
    const empty = (await tool.execute("call-3", { query: "  " } as never)) as { details: { error?: string } };
    assert.equal(empty.details.error, "empty_query");
  });
});
