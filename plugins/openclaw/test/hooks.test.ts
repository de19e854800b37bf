// Unit tests of the hook logic against a real HTTP server on 127.0.0.1 speaking the daemon's API.
// Run: node --test plugins/openclaw/test/ (Node >= 24 strips the types).
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../src/config.ts";
import { applyBootstrap, captureTurn, fallbackNote, lastTurnMessages, recallForTurn } from "../src/hooks.ts";
import { checkHookPolicy } from "../src/policy.ts";
import { createRuntime, type Runtime } from "../src/runtime.ts";

type Handler = (path: string, body: any, res: ServerResponse) => void;

let server: Server;
let port = 0;
let handler: Handler = (_p, _b, res) => res.writeHead(404).end();
const received: { path: string; body: any }[] = [];

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

before(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = raw === "" ? undefined : JSON.parse(raw);
      received.push({ path: req.url ?? "", body });
      handler(req.url ?? "", body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  port = (server.address() as AddressInfo).port;
});

after(() => new Promise<void>((r) => server.close(() => r())));

const quiet = { info() {}, warn() {}, error() {}, debug() {} };

function runtime(extra: Record<string, unknown> = {}, base?: string): Runtime {
  return createRuntime(parseConfig({ baseUrl: base ?? `http://127.0.0.1:${port}`, timeoutMs: 300, ...extra }), quiet);
}

describe("recall hook", () => {
  it("returns the daemon's prepend_context and sends the session key and prompt", async () => {
    received.length = 0;
    handler = (_p, _b, res) =>
      json(res, 200, {
        prepend_context: "<cairn-context>x</cairn-context>",
        fallback: false,
        session: { kind: "main_session", audience: "private", project: null },
        intent: { pack: "p", packs: ["p"], sticky: false, reason: "keywords" },
        tokens: 3,
        trace: {},
      });
    const rt = runtime({ budget: 900, project: "apollo" });
    const out = await recallForTurn(rt, { prompt: "hello", sessionKey: "agent:main:main", runId: "r1" });
    assert.deepEqual(out, { prependContext: "<cairn-context>x</cairn-context>" });
    assert.equal(received[0].path, "/v1/turn");
    assert.deepEqual(received[0].body, {
      session_key: "agent:main:main",
      prompt: "hello",
      turn_id: "r1",
      budget: 900,
      project: "apollo",
    });
    assert.equal(rt.stats.packs, 1);
  });

  it("injects nothing for an empty context", async () => {
    handler = (_p, _b, res) =>
      json(res, 200, { prepend_context: "", fallback: false, intent: { pack: null }, tokens: 0 });
    assert.deepEqual(await recallForTurn(runtime(), { prompt: "hi", sessionKey: "k" }), {});
  });

  it("falls back with a note when the daemon is unreachable", async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()));
    const dead = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const rt = runtime({}, `http://127.0.0.1:${dead}`);
    const out = await recallForTurn(rt, { prompt: "hello", sessionKey: "k" });
    assert.match(out.prependContext ?? "", /^<cairn-fallback>.*unreachable.*<\/cairn-fallback>$/s);
    assert.equal(rt.stats.fallbacks, 1);
  });

  it("falls back within the timeout when the daemon hangs", async () => {
    handler = () => {}; // never answers
    const started = Date.now();
    const out = await recallForTurn(runtime({ timeoutMs: 200 }), { prompt: "hello", sessionKey: "k" });
    assert.ok(Date.now() - started < 2000, "the turn was held past the timeout");
    assert.match(out.prependContext ?? "", /<cairn-fallback>.*timed out/s);
  });

  it("falls back on an error response", async () => {
    handler = (_p, _b, res) => json(res, 500, { error: { code: "internal", message: "boom" } });
    const out = await recallForTurn(runtime(), { prompt: "hello", sessionKey: "k" });
    assert.ok(out.prependContext?.startsWith("<cairn-fallback>"));
  });

  it("the fallback note cannot be closed early by the reason", () => {
    const note = fallbackNote("</cairn-fallback><x>");
    const inner = note.slice("<cairn-fallback>".length, -"</cairn-fallback>".length);
    assert.ok(!inner.includes("<") && !inner.includes(">"), note);
  });
});

describe("capture hook", () => {
  it("sends the last turn's text and skips failed runs", async () => {
    received.length = 0;
    handler = (_p, _b, res) => json(res, 202, { accepted: true, turn_id: "t", duplicate: false });
    const rt = runtime();
    const messages = [
      { role: "user", content: "old question" },
      { role: "assistant", content: [{ type: "text", text: "old answer" }] },
      { role: "user", content: [{ type: "text", text: "<cairn-context>c</cairn-context>\n\nnew question" }] },
      { role: "assistant", content: [{ type: "toolCall", id: "1" }, { type: "text", text: "new answer" }] },
    ];
    await captureTurn(rt, { messages, success: false, runId: "r0", sessionKey: "k" });
    assert.equal(received.length, 0, "a failed run was sent");
    assert.equal(rt.stats.capturesSkipped, 1);
    await captureTurn(rt, { messages, success: true, runId: "r1", sessionKey: "k" });
    assert.equal(received.length, 1);
    assert.equal(received[0].path, "/v1/capture");
    assert.deepEqual(received[0].body.messages, [
      { role: "user", content: "<cairn-context>c</cairn-context>\n\nnew question" },
      { role: "assistant", content: "new answer" },
    ]);
    assert.equal(received[0].body.session_key, "k");
    assert.equal(received[0].body.turn_id, "r1");
    assert.equal(rt.stats.captures, 1);
  });

  it("never throws when the daemon is down", async () => {
    const rt = runtime({}, "http://127.0.0.1:9");
    await captureTurn(rt, {
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: "a" },
      ],
      success: true,
      sessionKey: "k",
    });
    assert.equal(rt.stats.captureErrors, 1);
  });

  it("lastTurnMessages keeps only user/assistant text from the last user message on", () => {
    assert.deepEqual(
      lastTurnMessages([
        { role: "system", content: "s" },
        { role: "user", content: "a" },
        { role: "toolResult", content: "r" },
        { role: "assistant", content: "b" },
      ]),
      [
        { role: "user", content: "a" },
        { role: "assistant", content: "b" },
      ],
    );
  });
});

describe("bootstrap hook", () => {
  it("rewrites the host's array in place and keeps the host's own objects", async () => {
    received.length = 0;
    handler = (_p, body, res) =>
      json(res, 200, {
        files: [
          body.files[1],
          { name: "CAIRN_CONTEXT.md", path: "/ws/CAIRN_CONTEXT.md", content: "# ctx" },
        ],
        added: ["/ws/CAIRN_CONTEXT.md"],
        removed: ["/ws/AGENTS.md"],
      });
    const soul = { name: "SOUL.md", path: "/ws/SOUL.md", content: "soul", missing: false, personalUser: true };
    const files: unknown[] = [{ name: "AGENTS.md", path: "/ws/AGENTS.md", content: "a", missing: false }, soul];
    const same = files;
    const out = await applyBootstrap(runtime(), files, "agent:main:subagent:1", "/ws");
    assert.equal(files, same);
    assert.equal(files.length, 2);
    assert.equal(files[0], soul, "the kept file is not the host's object");
    assert.deepEqual(files[1], { name: "CAIRN_CONTEXT.md", path: "/ws/CAIRN_CONTEXT.md", content: "# ctx", missing: false });
    assert.deepEqual(out, { added: ["/ws/CAIRN_CONTEXT.md"], removed: ["/ws/AGENTS.md"] });
    assert.equal(received[0].body.session_key, "agent:main:subagent:1");
    assert.equal(received[0].body.workspace_dir, "/ws");
  });

  it("leaves the list alone when the daemon fails", async () => {
    handler = (_p, _b, res) => json(res, 503, { error: { code: "unavailable", message: "x" } });
    const files: unknown[] = [{ name: "AGENTS.md", path: "/ws/AGENTS.md", missing: false }];
    const copy = structuredClone(files);
    assert.equal(await applyBootstrap(runtime(), files, "k"), undefined);
    assert.deepEqual(files, copy);
  });
});

describe("hook policy", () => {
  it("names the missing conversation-access setting", () => {
    const r = checkHookPolicy({ plugins: { entries: { cairn: { enabled: true } } } }, "cairn");
    assert.equal(r.ok, false);
    assert.ok(!r.ok && r.message.includes("plugins.entries.cairn.hooks.allowConversationAccess"));
  });
  it("rejects a prompt-injection ban", () => {
    const r = checkHookPolicy(
      { plugins: { entries: { cairn: { hooks: { allowConversationAccess: true, allowPromptInjection: false } } } } },
      "cairn",
    );
    assert.ok(!r.ok && r.missing === "plugins.entries.cairn.hooks.allowPromptInjection");
  });
  it("accepts the grant", () => {
    assert.deepEqual(
      checkHookPolicy({ plugins: { entries: { cairn: { hooks: { allowConversationAccess: true } } } } }, "cairn"),
      { ok: true },
    );
  });
});
