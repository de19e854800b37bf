/** State shared by the hooks, tools, commands and the service of one plugin instance. */
import { homedir } from "node:os";
import { join } from "node:path";
import { CairnClient } from "./client.ts";
import type { CairnPluginConfig } from "./config.ts";
import { newStats, type Stats } from "./stats.ts";

/** The subset of the host logger the plugin uses. */
export interface HostLogger {
  info: (msg: string) => void;
  warn: (msg: string) => void;
  error: (msg: string) => void;
  debug?: (msg: string) => void;
}

/** A logger with a switchable debug level (`/cairn debug`). */
export interface Log {
  debug: (msg: string) => void;
  info: (msg: string) => void;
  warn: (msg: string) => void;
  error: (msg: string) => void;
}

/** Everything a handler needs. */
export interface Runtime {
  cfg: CairnPluginConfig;
  client: CairnClient;
  stats: Stats;
  log: Log;
  /** Debug logging on (toggled at runtime by `/cairn debug`). */
  debug: boolean;
}

/** Cairn's default data dir, as `cairn` resolves it: `$XDG_DATA_HOME/cairn`, else `~/.local/share/cairn`. */
export function defaultDataDir(): string {
  const base = process.env.XDG_DATA_HOME || join(homedir(), ".local", "share");
  return join(base, "cairn");
}

/** Build the runtime for one loaded plugin. */
export function createRuntime(cfg: CairnPluginConfig, host: HostLogger): Runtime {
  const rt: Runtime = {
    cfg,
    client: new CairnClient({
      baseUrl: cfg.baseUrl,
      token: cfg.token,
      tokenFile: join(cfg.dataDir ?? defaultDataDir(), "serve.token"),
      timeoutMs: cfg.timeoutMs,
    }),
    stats: newStats(),
    debug: cfg.debug,
    log: {
      debug: (m) => (rt.debug ? host.info(`[cairn] ${m}`) : host.debug?.(`[cairn] ${m}`)),
      info: (m) => host.info(`[cairn] ${m}`),
      warn: (m) => host.warn(`[cairn] ${m}`),
      error: (m) => host.error(`[cairn] ${m}`),
    },
  };
  return rt;
}
