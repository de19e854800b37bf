/**
 * Plugin configuration: `plugins.entries.cairn.config` in openclaw.json, validated by the host against the
 * `configSchema` in openclaw.plugin.json, then normalised here (defaults, types, bounds).
 */

/** Normalised plugin settings. */
export interface CairnPluginConfig {
  /** Base URL of `cairn serve`, without a trailing slash. */
  baseUrl: string;
  /** Bearer token sent to the daemon, if any. */
  token?: string;
  /** Token budget of the context prepended to every turn (the daemon's default when absent). */
  budget?: number;
  /** Per-request timeout for the turn and bootstrap calls, in milliseconds. */
  timeoutMs: number;
  /** Start `cairn serve` when none answers `/v1/health`. */
  autoStart: boolean;
  /** Path of the `cairn` binary (default: `cairn` on PATH). */
  cairnBin: string;
  /** `--data-dir` passed to a started daemon. */
  dataDir?: string;
  /** `--config` passed to a started daemon (a cairn.toml). */
  configPath?: string;
  /** Project sent with turns, searches and ingests. */
  project?: string;
  /** Send finished turns to `/v1/capture`. */
  captureEnabled: boolean;
  /** Inject context before every prompt. */
  recallEnabled: boolean;
  /** Let the daemon filter and extend the bootstrap files (`agent:bootstrap`). */
  bootstrapEnabled: boolean;
  /** Log every request and decision at info level. */
  debug: boolean;
}

/** Defaults, also documented in openclaw.plugin.json and docs/openclaw.md. */
export const DEFAULTS = {
  baseUrl: "http://127.0.0.1:7411",
  timeoutMs: 1500,
  autoStart: true,
  cairnBin: "cairn",
  captureEnabled: true,
  recallEnabled: true,
  bootstrapEnabled: true,
  debug: false,
} as const;

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}

function bool(v: unknown, d: boolean): boolean {
  return typeof v === "boolean" ? v : d;
}

function posInt(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined;
}

/** Normalise the raw plugin config (unknown shape) into settings with defaults applied. */
export function parseConfig(raw: Record<string, unknown> | undefined): CairnPluginConfig {
  const r = raw ?? {};
  const baseUrl = (str(r.baseUrl) ?? DEFAULTS.baseUrl).replace(/\/+$/, "");
  return {
    baseUrl,
    token: str(r.token),
    budget: posInt(r.budget),
    timeoutMs: posInt(r.timeoutMs) ?? DEFAULTS.timeoutMs,
    autoStart: bool(r.autoStart, DEFAULTS.autoStart),
    cairnBin: str(r.cairnBin) ?? DEFAULTS.cairnBin,
    dataDir: str(r.dataDir),
    configPath: str(r.configPath),
    project: str(r.project),
    captureEnabled: bool(r.captureEnabled, DEFAULTS.captureEnabled),
    recallEnabled: bool(r.recallEnabled, DEFAULTS.recallEnabled),
    bootstrapEnabled: bool(r.bootstrapEnabled, DEFAULTS.bootstrapEnabled),
    debug: bool(r.debug, DEFAULTS.debug),
  };
}
