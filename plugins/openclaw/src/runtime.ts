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
  /** The kinds of remote source the daemon has (`graphiti`, `lightrag`, `mem0`), once asked. */
  remote: RemoteKinds;
}

/** What the plugin knows of the daemon's remote sources: their kinds, and when it last asked. */
export interface RemoteKinds {
  kinds?: string[];
  askedAt: number;
  pending?: Promise<void>;
}

/** How long a known list of remote source kinds is kept before it is asked again. */
export const REMOTE_KINDS_TTL_MS = 60_000;

/**
 * Ask the daemon which kinds of remote source it has (`GET /v1/sources`), unless a fresh answer is known or a
 * request is under way. Never throws: an unreachable daemon leaves the last answer in place.
 */
export function refreshRemoteKinds(rt: Runtime, now: number = Date.now()): Promise<void> {
  const r = rt.remote;
  if (r.pending) return r.pending;
  if (r.kinds !== undefined && now - r.askedAt < REMOTE_KINDS_TTL_MS) return Promise.resolve();
  r.pending = rt.client
    .sources()
    .then((res) => {
      r.kinds = [...new Set((res.sources ?? []).map((s) => s.kind))];
      r.askedAt = Date.now();
    })
    .catch((err: Error) => rt.log.debug(`remote sources unknown: ${err.message}`))
    .finally(() => {
      r.pending = undefined;
    });
  return r.pending;
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
    remote: { askedAt: 0 },
    log: {
      debug: (m) => (rt.debug ? host.info(`[cairn] ${m}`) : host.debug?.(`[cairn] ${m}`)),
      info: (m) => host.info(`[cairn] ${m}`),
      warn: (m) => host.warn(`[cairn] ${m}`),
      error: (m) => host.error(`[cairn] ${m}`),
    },
  };
  return rt;
}
