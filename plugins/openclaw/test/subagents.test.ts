import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";

import { parseConfig } from "../src/config.ts";
import { createRuntime, type Runtime } from "../src/runtime.ts";
import { recordEnd, recordSpawn } from "../src/subagents.ts";

let server: Server;
let port = 0;
let status = 201;
const received: { path: string; body: any }[] = [];

before(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", body: raw === "" ? undefined : JSON.parse(raw) });
      const body = req.url === "/v1/subagents/ended" ? { known: true } : { child: "c" };
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  port = (server.address() as AddressInfo).port;
});

after(() => new Promise<void>((r) => server.close(() => r())));

const quiet = { info() {}, warn() {}, error() {}, debug() {} };

function runtime(base?: string): Runtime {
  return createRuntime(parseConfig({ baseUrl: base ?? `http://127.0.0.1:${port}`, timeoutMs: 300 }), quiet);
}

describe("sub-agent events", () => {
  it("sends the spawn with the requester as the parent", async () => {
    received.length = 0;
    status = 201;
    const rt = runtime();
    await recordSpawn(rt, {
      childSessionKey: "agent:main:subagent:1",
      requesterSessionKey: "agent:main:main",
      runId: "r1",
      agentId: "main",
      label: "research",
      mode: "run",
    });
    assert.equal(received.length, 1);
    assert.equal(received[0].path, "/v1/subagents");
    assert.deepEqual(received[0].body, {
      parent_session_key: "agent:main:main",
      child_session_key: "agent:main:subagent:1",
      run_id: "r1",
      agent_id: "main",
      label: "research",
      mode: "run",
    });
    assert.equal(rt.stats.subagents, 1);
  });

  it("sends nothing without both session keys", async () => {
    received.length = 0;
    const rt = runtime();
    await recordSpawn(rt, { childSessionKey: "agent:main:subagent:1" });
    await recordSpawn(rt, { requesterSessionKey: "agent:main:main" });
    assert.equal(received.length, 0);
  });

  it("sends the end, but not for ACP runs", async () => {
    received.length = 0;
    status = 200;
    const rt = runtime();
    await recordEnd(rt, { targetSessionKey: "agent:main:subagent:1", targetKind: "subagent", outcome: "ok", runId: "r1" });
    await recordEnd(rt, { targetSessionKey: "agent:codex:acp:2", targetKind: "acp", outcome: "ok" });
    assert.equal(received.length, 1);
    assert.equal(received[0].path, "/v1/subagents/ended");
    assert.equal(received[0].body.child_session_key, "agent:main:subagent:1");
    assert.equal(received[0].body.outcome, "ok");
  });

  it("never throws when the daemon is down or refuses", async () => {
    const down = runtime("http://127.0.0.1:9");
    await recordSpawn(down, { childSessionKey: "agent:main:subagent:1", requesterSessionKey: "agent:main:main" });
    await recordEnd(down, { targetSessionKey: "agent:main:subagent:1" });
    assert.equal(down.stats.subagentErrors, 2);
    status = 400;
    const refused = runtime();
    await recordSpawn(refused, { childSessionKey: "agent:main:main", requesterSessionKey: "agent:main:x" });
    assert.equal(refused.stats.subagentErrors, 1);
    assert.equal(refused.stats.subagents, 0);
  });
});
