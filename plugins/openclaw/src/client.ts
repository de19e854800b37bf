/**
 * HTTP client for `cairn serve` (API v1, see docs/openclaw.md and docs/openapi.json).
 * Every call has a timeout; errors are thrown as `CairnError` and callers decide whether to fail open.
 */
import { readFileSync } from "node:fs";

/** Session facts the daemon derived from a session key. */
export interface SessionInfo {
  kind: string;
  audience: "public" | "private";
  project: string | null;
}

/** Routing decision attached to a turn. */
export interface IntentInfo {
  pack: string | null;
  packs: string[];
  sticky: boolean;
  reason: string;
}

/** `POST /v1/turn` response. */
export interface TurnResponse {
  prepend_context: string;
  fallback: boolean;
  session: SessionInfo;
  intent: IntentInfo;
  tokens: number;
  trace: unknown;
}

/** One chat message as the daemon accepts it. */
export interface CaptureMessage {
  role: string;
  content: string | { type: "text"; text: string }[];
}

/** `POST /v1/subagents` body. */
export interface SubagentSpawn {
  parent_session_key: string;
  child_session_key: string;
  run_id?: string;
  agent_id?: string;
  label?: string;
  mode?: string;
}

/** `POST /v1/subagents/ended` body. */
export interface SubagentEnded {
  child_session_key: string;
  run_id?: string;
  outcome?: string;
  reason?: string;
  error?: string;
  ended_at?: number;
}

/** `POST /v1/capture` body. */
export interface CaptureRequest {
  session_key: string;
  turn_id?: string;
  run_id?: string;
  success?: boolean;
  messages?: CaptureMessage[];
  audience?: "public" | "private";
}

/** `POST /v1/capture` response (202 accepted, or 200 with `accepted: false`). */
export interface CaptureResponse {
  accepted: boolean;
  turn_id?: string;
  duplicate?: boolean;
  reason?: string;
}

/** A bootstrap file, host shape in snake-free form shared with the daemon. */
export interface BootstrapFile {
  name: string;
  path: string;
  content?: string;
  missing?: boolean;
}

/** `POST /v1/bootstrap` response. */
export interface BootstrapResponse {
  files: BootstrapFile[];
  added: string[];
  removed: string[];
  session?: SessionInfo;
}

/** One search hit. */
export interface SearchHit {
  id: string;
  title: string;
  score: number;
  snippet: string;
  why?: unknown;
  provenance?: unknown;
  tags?: string[];
  project?: string | null;
}

/** One result of a remote source (`POST /v1/sources/query`). */
export interface RemoteResult {
  id: string;
  title: string;
  text: string;
  date?: string;
}

/** `POST /v1/sources/query` body: a remote source's tool and its arguments, as the MCP tools take them. */
export type SourceQuery =
  | { tool: "graphiti_search"; query: string; limit?: number; timeRange?: { start?: string; end?: string } }
  | { tool: "lightrag_query"; query: string; mode?: string; topK?: number; includeSources?: boolean }
  | { tool: "memory_service_query"; query: string; limit?: number };

/** One remote source as `GET /v1/sources` lists it (the fields the plugin reads). */
export interface SourceStatus {
  name: string;
  kind: string;
  state: string;
}

/** Failure talking to the daemon: unreachable, timeout, or an error response. */
export class CairnError extends Error {
  /** `unreachable`, `timeout`, `http_<status>` or `bad_response`. */
  readonly kind: string;
  /** The daemon's error code from `{"error": {"code"}}`, when it sent one. */
  readonly code?: string;

  constructor(message: string, kind: string, code?: string) {
    super(message);
    this.name = "CairnError";
    this.kind = kind;
    this.code = code;
  }
}

/** Options of one client. */
export interface ClientOptions {
  baseUrl: string;
  /** The daemon's bearer token, when configured. */
  token?: string;
  /** Where the daemon keeps the token it generated (`<data_dir>/serve.token`), read when no token is configured. */
  tokenFile?: string;
  timeoutMs: number;
}

/** A small typed client; `fetch` is Node's built-in one. */
export class CairnClient {
  readonly opts: ClientOptions;

  private fileToken?: string;

  constructor(opts: ClientOptions) {
    this.opts = opts;
  }

  /** The configured token, else the one the daemon wrote into its data dir (read once, again after a 401). */
  private token(): string | undefined {
    if (this.opts.token) return this.opts.token;
    if (this.fileToken === undefined && this.opts.tokenFile) {
      try {
        const t = readFileSync(this.opts.tokenFile, "utf8").trim();
        if (t !== "") this.fileToken = t;
      } catch {
        // No daemon has started yet: the request goes without one and gets a 401 until it has.
      }
    }
    return this.fileToken;
  }

  private async request<T>(method: "GET" | "POST", path: string, body?: unknown, timeoutMs?: number): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    const token = this.token();
    if (token) headers.authorization = `Bearer ${token}`;
    const limit = timeoutMs ?? this.opts.timeoutMs;
    let res: Response;
    try {
      res = await fetch(`${this.opts.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(limit),
      });
    } catch (err) {
      const e = err as { name?: string; cause?: { code?: string }; message?: string };
      if (e.name === "TimeoutError" || e.name === "AbortError") {
        throw new CairnError(`${method} ${path}: no answer within ${limit} ms`, "timeout");
      }
      const why = e.cause?.code ?? e.message ?? String(err);
      throw new CairnError(`${method} ${path}: cairn serve unreachable at ${this.opts.baseUrl} (${why})`, "unreachable");
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text === "" ? {} : JSON.parse(text);
    } catch {
      throw new CairnError(`${method} ${path}: HTTP ${res.status}, body is not JSON`, "bad_response");
    }
    if (res.status === 401) this.fileToken = undefined;
    if (!res.ok) {
      const err = (json as { error?: { code?: string; message?: string } }).error;
      throw new CairnError(
        `${method} ${path}: HTTP ${res.status}${err?.message ? `: ${err.message}` : ""}`,
        `http_${res.status}`,
        err?.code,
      );
    }
    return json as T;
  }

  /** `GET /v1/health`. */
  health(timeoutMs?: number): Promise<{ status: string; version?: string }> {
    return this.request("GET", "/v1/health", undefined, timeoutMs);
  }

  /** `GET /v1/status`: free-form counters. */
  status(): Promise<Record<string, unknown>> {
    return this.request("GET", "/v1/status");
  }

  /** `POST /v1/turn`: the context to prepend to this turn's prompt. */
  turn(body: { session_key: string; prompt: string; turn_id?: string; budget?: number; project?: string }) {
    return this.request<TurnResponse>("POST", "/v1/turn", body);
  }

  /** `POST /v1/capture`: queue a finished turn. */
  capture(body: CaptureRequest, timeoutMs?: number) {
    return this.request<CaptureResponse>("POST", "/v1/capture", body, timeoutMs);
  }

  /** `POST /v1/bootstrap`: the session's bootstrap file set. */
  bootstrap(body: { session_key: string; files: BootstrapFile[]; workspace_dir?: string }) {
    return this.request<BootstrapResponse>("POST", "/v1/bootstrap", body);
  }

  /** `POST /v1/search`. */
  search(body: { query: string; k?: number; project?: string; session_key: string }) {
    return this.request<{ hits: SearchHit[] }>("POST", "/v1/search", body);
  }

  /** `POST /v1/ingest`. */
  ingest(body: {
    text: string;
    title?: string;
    tags?: string[];
    project?: string;
    audience?: "public" | "private";
    session_key: string;
  }) {
    return this.request<{ id: string }>("POST", "/v1/ingest", body);
  }

  /** `POST /v1/subagents`: a sub-agent was spawned; its turns get their task's context from the parent. */
  subagentSpawned(body: SubagentSpawn) {
    return this.request<Record<string, unknown>>("POST", "/v1/subagents", body);
  }

  /** `POST /v1/subagents/ended`: a sub-agent ended; its turns are linked to the parent. */
  subagentEnded(body: SubagentEnded) {
    return this.request<{ known: boolean }>("POST", "/v1/subagents/ended", body);
  }

  /** `GET /v1/sources`: the remote sources as the daemon last saw them (no network call on its side). */
  sources() {
    return this.request<{ sources: SourceStatus[] }>("GET", "/v1/sources");
  }

  /**
   * `POST /v1/sources/query`: ask a remote source directly. The daemon checks its health first and may wait
   * for the source's own deadline, so this call gets at least 5 s.
   */
  sourceQuery(body: SourceQuery & { session_key: string; project?: string }) {
    return this.request<{ source: string; results: RemoteResult[] }>(
      "POST",
      "/v1/sources/query",
      body,
      Math.max(this.opts.timeoutMs, 5000),
    );
  }

  /** `POST /v1/intent`: routing dry run. */
  intent(body: { session_key: string; prompt: string }) {
    return this.request<Record<string, unknown>>("POST", "/v1/intent", body);
  }
}
