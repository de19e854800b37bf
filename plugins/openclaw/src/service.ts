/**
 * Managed service: when no daemon answers `/v1/health` at `baseUrl`, start `cairn serve` there, and stop it
 * (gracefully: SIGTERM lets it finish queued captures) when the host stops. A daemon found running is left alone.
 * The daemon also holds a pipe from the host on its stdin (`--exit-with-stdin`): a host that dies without
 * stopping its services (killed, or stuck draining and then killed) still takes its daemon along.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { OpenClawPluginService } from "openclaw/plugin-sdk/plugin-entry";
import { refreshRemoteKinds, type Runtime } from "./runtime.ts";

/** `host:port` to bind, from the configured base URL. */
export function listenAddr(baseUrl: string): string {
  const u = new URL(baseUrl);
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  return `${u.hostname}:${port}`;
}

/** Arguments for the daemon: global flags, then `serve --addr host:port --exit-with-stdin`. */
export function serveArgs(rt: Runtime): string[] {
  const args: string[] = [];
  if (rt.cfg.configPath) args.push("--config", rt.cfg.configPath);
  if (rt.cfg.dataDir) args.push("--data-dir", rt.cfg.dataDir);
  args.push("serve", "--addr", listenAddr(rt.cfg.baseUrl), "--exit-with-stdin");
  return args;
}

async function waitHealthy(rt: Runtime, child: ChildProcess, deadlineMs: number): Promise<boolean> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    try {
      await rt.client.health(300);
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  return false;
}

/** The service registration. */
export function createService(rt: Runtime): OpenClawPluginService {
  let child: ChildProcess | undefined;
  return {
    id: "cairn-serve",
    async start() {
      // Which remote sources' tools to offer: asked as soon as a daemon answers.
      if (!rt.cfg.autoStart) {
        void refreshRemoteKinds(rt);
        return;
      }
      try {
        const h = await rt.client.health(500);
        rt.log.info(`using the running daemon at ${rt.cfg.baseUrl} (version ${h.version ?? "?"})`);
        void refreshRemoteKinds(rt);
        return;
      } catch {
        // nothing answers: start one
      }
      const args = serveArgs(rt);
      rt.log.info(`starting ${rt.cfg.cairnBin} ${args.join(" ")}`);
      // The token as `cairn serve` reads it (`serve.token` through the environment); without one the
      // daemon generates its own into the data dir, where the client reads it.
      const env = { ...process.env, ...(rt.cfg.token ? { CAIRN_SERVE__TOKEN: rt.cfg.token } : {}) };
      // stdin is a pipe nobody writes to: it closes when this process exits, however it exits.
      const proc = spawn(rt.cfg.cairnBin, args, { stdio: ["pipe", "ignore", "pipe"], env });
      child = proc;
      proc.stdin?.on("error", () => {});
      proc.on("error", (err) => rt.log.error(`cannot start ${rt.cfg.cairnBin}: ${err.message}`));
      proc.stderr?.setEncoding("utf8");
      proc.stderr?.on("data", (chunk: string) => {
        for (const line of chunk.split("\n")) if (line.trim() !== "") rt.log.debug(`serve: ${line}`);
      });
      proc.on("exit", (code, signal) => {
        if (child === proc) child = undefined;
        rt.log.info(`cairn serve exited (${signal ?? code})`);
      });
      if (await waitHealthy(rt, proc, 15000)) {
        rt.log.info(`cairn serve is up at ${rt.cfg.baseUrl} (pid ${proc.pid})`);
        void refreshRemoteKinds(rt);
      } else {
        rt.log.error(
          `cairn serve did not come up at ${rt.cfg.baseUrl}; turns get a fallback note until a daemon answers`,
        );
      }
    },
    async stop() {
      const proc = child;
      if (!proc || proc.exitCode !== null) return;
      const exited = new Promise<void>((r) => proc.once("exit", () => r()));
      proc.kill("SIGTERM");
      const timer = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 10000));
      if ((await Promise.race([exited, timer])) === "timeout") proc.kill("SIGKILL");
      child = undefined;
    },
  };
}
