// The managed service with the real `cairn` binary ($CAIRN_BIN; tests/e2e/openclaw/run.sh builds it and sets
// it): a host process starts `cairn serve` through the service; stopping the service stops the daemon, and so
// does the host dying without stopping it (SIGKILL), through the pipe on the daemon's stdin.
// Run: CAIRN_BIN=/path/to/cairn node --test plugins/openclaw/test/ (Node >= 24 strips the types).
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const cairnBin = process.env.CAIRN_BIN;
const src = fileURLToPath(new URL("../src/", import.meta.url));

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function answers(baseUrl: string): Promise<boolean> {
  try {
    return (await fetch(`${baseUrl}/v1/health`, { signal: AbortSignal.timeout(500) })).ok;
  } catch {
    return false;
  }
}

async function until(what: string, ok: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A host process: loads the service, starts it, prints `up`, then waits for a line on stdin (`stop`: stop the
 * service and exit). Returns the process and the daemon's base URL.
 */
async function host(): Promise<{ proc: ChildProcess; baseUrl: string }> {
  const dir = mkdtempSync(join(tmpdir(), "cairn-service-"));
  mkdirSync(join(dir, "workspace"));
  const config = join(dir, "cairn.toml");
  writeFileSync(config, `workspace = ${JSON.stringify(join(dir, "workspace"))}\n`);
  const baseUrl = `http://127.0.0.1:${await freePort()}`;
  const cfg = { baseUrl, cairnBin, dataDir: join(dir, "data"), configPath: config, autoStart: true };
  const script = join(dir, "host.ts");
  writeFileSync(
    script,
    `import { parseConfig } from ${JSON.stringify(join(src, "config.ts"))};
import { createRuntime } from ${JSON.stringify(join(src, "runtime.ts"))};
import { createService } from ${JSON.stringify(join(src, "service.ts"))};
import { createInterface } from "node:readline";
const quiet = () => {};
const rt = createRuntime(parseConfig(${JSON.stringify(cfg)}), { info: quiet, warn: quiet, error: console.error });
const service = createService(rt);
await service.start({});
console.log("up");
for await (const line of createInterface({ input: process.stdin })) {
  if (line === "stop") { await service.stop({}); process.exit(0); }
}
`,
  );
  const proc = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: proc.stdout! });
  const up = await new Promise<boolean>((r) => {
    lines.on("line", (l) => l === "up" && r(true));
    proc.once("exit", () => r(false));
  });
  assert.ok(up, "the host process exited before its service started");
  return { proc, baseUrl };
}

describe("the managed service with the real daemon", { skip: cairnBin ? false : "CAIRN_BIN is not set" }, () => {
  it("stopping the service stops the daemon it started", async () => {
    const { proc, baseUrl } = await host();
    assert.ok(await answers(baseUrl), "the started daemon answers /v1/health");
    const exited = new Promise((r) => proc.once("exit", r));
    proc.stdin!.write("stop\n");
    await exited;
    assert.equal(await answers(baseUrl), false, "the daemon still answers after the service stopped");
  });

  it("a host killed outright (no service stop) still takes its daemon along", async () => {
    const { proc, baseUrl } = await host();
    assert.ok(await answers(baseUrl), "the started daemon answers /v1/health");
    proc.kill("SIGKILL");
    await until("the daemon to stop after its host was killed", async () => !(await answers(baseUrl)), 10_000);
  });
});
