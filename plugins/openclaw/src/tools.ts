/** Agent tools: `cairn_search` (scoped by the calling session) and `cairn_ingest`. */
import { Type } from "typebox";
import type { AnyAgentTool, OpenClawPluginToolContext } from "openclaw/plugin-sdk/plugin-entry";
import type { SearchHit } from "./client.ts";
import type { Runtime } from "./runtime.ts";

/** Names listed in `contracts.tools` of openclaw.plugin.json. */
export const TOOL_NAMES = ["cairn_search", "cairn_ingest"] as const;

/** Hits as short numbered text for the model. */
export function formatHits(hits: SearchHit[]): string {
  if (hits.length === 0) return "No matching memory.";
  return hits
    .map((h, i) => {
      const title = h.title || h.id;
      const snippet = (h.snippet ?? "").replace(/\s+/g, " ").trim();
      return `${i + 1}. ${title} (score ${Number(h.score ?? 0).toFixed(3)})\n   ${snippet}`;
    })
    .join("\n");
}

function text(t: string, details: unknown) {
  return { content: [{ type: "text" as const, text: t }], details };
}

const searchParams = Type.Object({
  query: Type.String({ description: "What to look for in memory" }),
  k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: "Number of hits (default 5)" })),
});

const ingestParams = Type.Object({
  text: Type.String({ description: "The note to remember" }),
  title: Type.Optional(Type.String()),
  tags: Type.Optional(Type.Array(Type.String())),
  audience: Type.Optional(
    Type.Union([Type.Literal("public"), Type.Literal("private")], {
      description: "private (default for the owner) or public (visible in group chats)",
    }),
  ),
});

/** The two tools, bound to the calling session (search results follow the session's audience). */
export function createTools(rt: Runtime, ctx: OpenClawPluginToolContext): AnyAgentTool[] {
  const sessionKey = ctx.sessionKey;
  const search: AnyAgentTool = {
    name: "cairn_search",
    label: "Cairn search",
    description:
      "Search Cairn memory (notes, past conversations). Results are limited to what this conversation may see.",
    parameters: searchParams,
    async execute(_id, raw) {
      const params = raw as { query?: string; k?: number };
      const query = String(params.query ?? "").trim();
      if (query === "") return text("cairn_search needs a non-empty `query`.", { error: "empty_query" });
      // Cairn answers only a named session (its audience decides what it sees).
      if (!sessionKey) return text("cairn_search is unavailable here: this context names no session.", { error: "no_session" });
      try {
        const res = await rt.client.search({ query, k: params.k ?? 5, project: rt.cfg.project, session_key: sessionKey });
        return text(formatHits(res.hits ?? []), { hits: res.hits ?? [] });
      } catch (err) {
        return text(`Cairn search is unavailable: ${(err as Error).message}`, { error: "unavailable" });
      }
    },
  };
  const ingest: AnyAgentTool = {
    name: "cairn_ingest",
    label: "Cairn ingest",
    description: "Store a note in Cairn memory so later turns can recall it.",
    parameters: ingestParams,
    async execute(_id, raw) {
      const params = raw as { text?: string; title?: string; tags?: string[]; audience?: "public" | "private" };
      const body = String(params.text ?? "");
      if (body.trim() === "") return text("cairn_ingest needs a non-empty `text`.", { error: "empty_text" });
      if (!sessionKey) return text("cairn_ingest is unavailable here: this context names no session.", { error: "no_session" });
      try {
        const res = await rt.client.ingest({
          text: body,
          title: params.title,
          tags: params.tags,
          audience: params.audience,
          project: rt.cfg.project,
          session_key: sessionKey,
        });
        return text(`Stored as ${res.id}.`, { id: res.id });
      } catch (err) {
        return text(`Cairn ingest failed: ${(err as Error).message}`, { error: "unavailable" });
      }
    },
  };
  return [search, ingest];
}
