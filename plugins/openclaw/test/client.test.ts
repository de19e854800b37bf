// The client's token: configured, else the one `cairn serve` generated into its data dir (read again after
// a 401, so a daemon that starts later, or restarts with a new token, is still reached).
// Run: node --test plugins/openclaw/test/ (Node >= 24 strips the types).
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CairnClient } from "../src/client.ts";

let server: Server;
let port = 0;
let expected = "first-token";
const seen: (string | undefined)[] = [];

before(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    const ok = req.headers.authorization === `Bearer ${expected}`;
    res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
    res.end(JSON.stringify(ok ? { ok: true } : { error: { code: "unauthorized", message: "wrong token" } }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  port = (server.address() as AddressInfo).port;
});

after(() => new Promise<void>((r) => server.close(() => r())));

describe("the client's token", () => {
  it("reads the daemon's token file when none is configured, and again after a 401", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-token-"));
    const file = join(dir, "serve.token");
    const client = new CairnClient({ baseUrl: `http://127.0.0.1:${port}`, tokenFile: file, timeoutMs: 2000 });
    await assert.rejects(client.status(), /HTTP 401/, "no daemon has written a token yet");
    writeFileSync(file, "first-token\n");
    assert.deepEqual(await client.status(), { ok: true });
    // The daemon restarted with a new token: one 401, then the file is read again.
    expected = "second-token";
    writeFileSync(file, "second-token");
    await assert.rejects(client.status(), /HTTP 401/);
    assert.deepEqual(await client.status(), { ok: true });
    assert.equal(seen.at(-1), "Bearer second-token");
  });

  it("prefers the configured token", async () => {
    expected = "configured";
    const client = new CairnClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: "configured",
      tokenFile: "/nonexistent/serve.token",
      timeoutMs: 2000,
    });
    assert.deepEqual(await client.status(), { ok: true });
  });
});
