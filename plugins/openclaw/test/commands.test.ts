// Slash-command handlers against a real HTTP server on 127.0.0.1.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { cairnCommand, createCommands, recallCommand } from "../src/commands.ts";
import { parseConfig } from "../src/config.ts";
import { createRuntime } from "../src/runtime.ts";

let server: Server;
let port = 0;
const seen: { path: string; body: any }[] = [];

before(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = raw ? JSON.parse(raw) : undefined;
      seen.push({ path: req.url ?? "", body });
      const send = (o: unknown) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(o));
      if (req.url === "/v1/search") {
        send({ hits: [{ id: "a", title: "Greenhouse", score: 0.5, snippet: "watered  every\nTuesday" }] });
      } else if (req.url === "/v1/intent") {
        send({ pack: "garden_care", reason: "keywords: orchid" });
      } else if (req.url === "/v1/status") {
        send({ items: 3 });
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((r) => server.close(() => r())));

const quiet = { info() {}, warn() {}, error() {} };
const rt = () => createRuntime(parseConfig({ baseUrl: `http://127.0.0.1:${port}`, project: "p1" }), quiet);

describe("slash commands", () => {
  it("/recall searches as the calling session and numbers the hits", async () => {
    seen.length = 0;
    const out = await recallCommand(rt(), "  orchid water ", "agent:main:telegram:group:5");
    assert.equal(out, "1. Greenhouse (score 0.500)\n   watered every Tuesday");
    assert.deepEqual(seen[0].body, { query: "orchid water", k: 5, project: "p1", session_key: "agent:main:telegram:group:5" });
    assert.equal(await recallCommand(rt(), "   "), "Usage: /recall <query>");
  });

  it("/cairn intent-test is a dry run on /v1/intent with the rest of the line", async () => {
    seen.length = 0;
    const out = await cairnCommand(rt(), "intent-test water the orchid", "k1");
    assert.equal(seen[0].path, "/v1/intent");
    assert.deepEqual(seen[0].body, { session_key: "k1", prompt: "water the orchid" });
    assert.match(out, /garden_care/);
  });

  it("/cairn debug toggles and /cairn status reports counters and the daemon", async () => {
    const r = rt();
    assert.equal(await cairnCommand(r, "debug on"), "Cairn debug logging on.");
    assert.equal(r.debug, true);
    assert.equal(await cairnCommand(r, "debug"), "Cairn debug logging off.");
    const status = await cairnCommand(r, "status");
    assert.match(status, /turns 0, injected 0/);
    assert.match(status, /Daemon status: \{"items":3\}/);
    assert.match(await cairnCommand(r, "frobnicate"), /Unknown subcommand `frobnicate`/);
  });

  it("/cairn status says DOWN when the daemon does not answer", async () => {
    const r = createRuntime(parseConfig({ baseUrl: "http://127.0.0.1:9", timeoutMs: 300 }), quiet);
    assert.match(await cairnCommand(r, "status"), /Daemon: DOWN/);
  });

  it("registers /recall and /cairn with arguments", () => {
    const cmds = createCommands(rt());
    assert.deepEqual(cmds.map((c) => [c.name, c.acceptsArgs]), [["recall", true], ["cairn", true]]);
  });
});
