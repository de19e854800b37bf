/**
 * The three hooks: recall before every prompt, capture after every run, and the bootstrap file set.
 * Every handler fails open: a daemon that is down or slow never fails or blocks a turn.
 */
import { CairnError, type BootstrapFile, type CaptureMessage } from "./client.ts";
import type { Runtime } from "./runtime.ts";

/** The note prepended when the daemon cannot answer, so the model knows memory was not consulted. */
export function fallbackNote(reason: string): string {
  const why = reason.replace(/[<>]/g, "").slice(0, 200);
  return (
    `<cairn-fallback>Cairn memory was not available for this turn (${why}). ` +
    `Answer from the conversation; use a memory search tool if stored notes are needed.</cairn-fallback>`
  );
}

/** Inputs of `before_prompt_build` that the recall hook uses. */
export interface RecallInput {
  prompt: string;
  sessionKey?: string;
  runId?: string;
}

/** `before_prompt_build`: ask the daemon for this turn's context; a fallback note when it cannot answer. */
export async function recallForTurn(rt: Runtime, input: RecallInput): Promise<{ prependContext?: string }> {
  const { cfg, client, stats, log } = rt;
  const prompt = input.prompt ?? "";
  if (!cfg.recallEnabled || prompt.trim() === "") return {};
  const sessionKey = input.sessionKey ?? "";
  stats.turns += 1;
  const started = Date.now();
  try {
    const res = await client.turn({
      session_key: sessionKey,
      prompt,
      turn_id: input.runId,
      budget: cfg.budget,
      project: cfg.project,
    });
    const text = typeof res.prepend_context === "string" ? res.prepend_context : "";
    const pack = res.intent?.pack ?? null;
    if (res.fallback) stats.fallbacks += 1;
    if (text !== "" && !res.fallback) stats.injected += 1;
    if (pack) stats.packs += 1;
    stats.lastTurn = {
      sessionKey,
      tokens: res.tokens ?? 0,
      pack,
      fallback: Boolean(res.fallback),
      reason: res.intent?.reason ?? "",
    };
    log.debug(
      `turn ${sessionKey}: ${res.tokens ?? 0} tokens, pack=${pack ?? "-"}, fallback=${Boolean(res.fallback)}, ` +
        `${Date.now() - started} ms`,
    );
    return text === "" ? {} : { prependContext: text };
  } catch (err) {
    const reason = err instanceof CairnError ? err.kind : "error";
    stats.fallbacks += 1;
    stats.lastError = String((err as Error).message ?? err);
    stats.lastTurn = { sessionKey, tokens: 0, pack: null, fallback: true, reason };
    log.warn(`recall failed, turn goes on with a fallback note: ${stats.lastError}`);
    return { prependContext: fallbackNote(reason === "timeout" ? "timed out" : "daemon unreachable") };
  }
}

/** Text parts of one host message (strings, or `{type: "text", text}` parts); tool calls and images dropped. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => {
      const part = p as { type?: unknown; text?: unknown };
      return part && part.type === "text" && typeof part.text === "string" ? part.text : "";
    })
    .filter((s) => s !== "")
    .join("\n");
}

/** The last turn of a run: messages from the last user message on, as user/assistant text. */
export function lastTurnMessages(messages: unknown[]): CaptureMessage[] {
  const all = (Array.isArray(messages) ? messages : [])
    .map((m) => m as { role?: unknown; content?: unknown })
    .filter((m) => m && (m.role === "user" || m.role === "assistant"))
    .map((m) => ({ role: m.role as string, content: textOf(m.content) }));
  let start = 0;
  for (let i = all.length - 1; i >= 0; i -= 1) {
    if (all[i].role === "user") {
      start = i;
      break;
    }
  }
  return all.slice(start).filter((m) => m.content.trim() !== "");
}

/** Inputs of `agent_end` that the capture hook uses. */
export interface CaptureInput {
  messages: unknown[];
  success: boolean;
  runId?: string;
  sessionKey?: string;
}

/**
 * `agent_end`: queue the finished turn. Failed runs are not sent. The host runs this hook without waiting for
 * it; the request itself is bounded so a stuck daemon cannot hold the process open.
 */
export async function captureTurn(rt: Runtime, input: CaptureInput): Promise<void> {
  const { cfg, client, stats, log } = rt;
  if (!cfg.captureEnabled) return;
  if (!input.success) {
    stats.capturesSkipped += 1;
    log.debug(`capture skipped: run ${input.runId ?? "?"} failed`);
    return;
  }
  const messages = lastTurnMessages(input.messages);
  if (messages.length === 0 || !messages.some((m) => m.role === "assistant")) {
    stats.capturesSkipped += 1;
    return;
  }
  try {
    const res = await client.capture(
      {
        session_key: input.sessionKey ?? "",
        turn_id: input.runId,
        run_id: input.runId,
        success: true,
        messages,
      },
      Math.max(cfg.timeoutMs, 5000),
    );
    if (res.accepted) {
      stats.captures += 1;
      if (res.duplicate) stats.captureDuplicates += 1;
    } else {
      stats.capturesSkipped += 1;
    }
    log.debug(`capture ${input.sessionKey}: accepted=${res.accepted} turn=${res.turn_id ?? "-"}`);
  } catch (err) {
    stats.captureErrors += 1;
    stats.lastError = String((err as Error).message ?? err);
    log.warn(`capture failed (turn not stored): ${stats.lastError}`);
  }
}

/** A host bootstrap file (`WorkspaceBootstrapFile`), kept loose so extra host fields survive. */
export interface HostBootstrapFile {
  name: string;
  path: string;
  content?: string;
  missing: boolean;
  [extra: string]: unknown;
}

function isHostFile(v: unknown): v is HostBootstrapFile {
  const f = v as HostBootstrapFile;
  return Boolean(f) && typeof f.name === "string" && typeof f.path === "string";
}

/**
 * `agent:bootstrap`: send the host's file list, then rewrite `bootstrapFiles` in place with the daemon's list.
 * Files the daemon keeps are the host's own objects (their extra fields survive); added files carry content.
 * On any failure the list is left untouched.
 */
export async function applyBootstrap(
  rt: Runtime,
  files: unknown[],
  sessionKey: string,
  workspaceDir?: string,
): Promise<{ added: string[]; removed: string[] } | undefined> {
  const { cfg, client, stats, log } = rt;
  if (!cfg.bootstrapEnabled || !Array.isArray(files)) return undefined;
  const hostFiles = files.filter(isHostFile);
  const sent: BootstrapFile[] = hostFiles.map((f) => ({
    name: f.name,
    path: f.path,
    ...(typeof f.content === "string" ? { content: f.content } : {}),
    missing: Boolean(f.missing),
  }));
  try {
    const res = await client.bootstrap({ session_key: sessionKey, files: sent, workspace_dir: workspaceDir });
    if (!Array.isArray(res.files)) throw new CairnError("bootstrap response has no `files` array", "bad_response");
    const byPath = new Map(hostFiles.map((f) => [f.path, f]));
    const next: HostBootstrapFile[] = [];
    for (const f of res.files) {
      if (!f || typeof f.name !== "string" || typeof f.path !== "string") continue;
      const own = byPath.get(f.path);
      if (own) {
        if (typeof f.content === "string" && f.content !== own.content) own.content = f.content;
        next.push(own);
      } else {
        next.push({
          name: f.name,
          path: f.path,
          ...(typeof f.content === "string" ? { content: f.content } : {}),
          missing: Boolean(f.missing) && typeof f.content !== "string",
        });
      }
    }
    files.splice(0, files.length, ...next);
    stats.bootstraps += 1;
    log.debug(
      `bootstrap ${sessionKey}: ${next.length} files, added [${(res.added ?? []).join(", ")}], ` +
        `removed [${(res.removed ?? []).join(", ")}]`,
    );
    return { added: res.added ?? [], removed: res.removed ?? [] };
  } catch (err) {
    stats.bootstrapErrors += 1;
    stats.lastError = String((err as Error).message ?? err);
    log.warn(`bootstrap files left as the host chose them: ${stats.lastError}`);
    return undefined;
  }
}
