/**
 * Agent tools: `cairn_search` (scoped by the calling session) and `cairn_ingest`; and, for each kind of remote
 * source the daemon has, `graphiti_search`, `lightrag_query` or `memory_service_query`, which ask that source
 * through the daemon (`POST /v1/sources/query`) after a health check.
 */
import { Type } from "typebox";
import type { AnyAgentTool, OpenClawPluginToolContext } from "openclaw/plugin-sdk/plugin-entry";
import type { RemoteResult, SearchHit, SourceQuery } from "./client.ts";
import { refreshRemoteKinds, type Runtime } from "./runtime.ts";

/** The remote sources' tools, with the kind of source each needs. */
export const REMOTE_TOOLS = [
  ["graphiti_search", "graphiti"],
  ["lightrag_query", "lightrag"],
  ["memory_service_query", "mem0"],
] as const;

/** Names listed in `contracts.tools` of openclaw.plugin.json. */
export const TOOL_NAMES = ["cairn_search", "cairn_ingest", ...REMOTE_TOOLS.map(([name]) => name)] as const;

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

/** A remote source's results as short numbered text for the model. */
export function formatRemote(source: string, results: RemoteResult[]): string {
  if (results.length === 0) return `${source} has nothing for this query.`;
  return results
    .map((r, i) => {
      const date = r.date ? ` [${r.date}]` : "";
      return `${i + 1}.${date} ${r.title || r.id}\n   ${r.text.replace(/\s+/g, " ").trim()}\n   (${r.id})`;
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

const count = (what: string) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: what }));

const remoteParams = {
  graphiti_search: Type.Object({
    query: Type.String({ description: "Natural-language query" }),
    limit: count("Most facts (default 10)"),
    timeRange: Type.Optional(
      Type.Object(
        {
          start: Type.Optional(Type.String({ description: "First day, YYYY-MM-DD (inclusive)" })),
          end: Type.Optional(Type.String({ description: "Last day, YYYY-MM-DD (inclusive)" })),
        },
        { description: "Only facts valid within these days" },
      ),
    ),
  }),
  lightrag_query: Type.Object({
    query: Type.String({ description: "Natural-language query" }),
    mode: Type.Optional(
      Type.Union(["naive", "local", "global", "hybrid", "mix"].map((m) => Type.Literal(m)), {
        description: "Retrieval mode (default hybrid)",
      }),
    ),
    topK: count("Most results (default 5)"),
    includeSources: Type.Optional(Type.Boolean({ description: "Include document chunks (default true)" })),
  }),
  memory_service_query: Type.Object({
    query: Type.String({ description: "Natural-language query" }),
    limit: count("Most memories (default 10)"),
  }),
};

const remoteDescriptions = {
  graphiti_search:
    "Search the temporal knowledge graph (Graphiti) for facts about people, projects and their relations, each with when it held.",
  lightrag_query:
    "Query the long-term document knowledge base (LightRAG): entities, relations and the document passages they come from.",
  memory_service_query: "Query the memory service (mem0) for stored memories about the user.",
};

/** One remote source's tool, asked through the daemon as the calling session. */
function remoteTool(rt: Runtime, name: (typeof REMOTE_TOOLS)[number][0], sessionKey?: string): AnyAgentTool {
  return {
    name,
    label: `Cairn ${name}`,
    description: `${remoteDescriptions[name]} Results are limited to what this conversation may see.`,
    parameters: remoteParams[name],
    async execute(_id, raw) {
      const params = { ...(raw as Record<string, unknown>) };
      const query = String(params.query ?? "").trim();
      if (query === "") return text(`${name} needs a non-empty \`query\`.`, { error: "empty_query" });
      if (!sessionKey) return text(`${name} is unavailable here: this context names no session.`, { error: "no_session" });
      try {
        const body = { ...params, query, tool: name } as SourceQuery;
        const res = await rt.client.sourceQuery({ ...body, session_key: sessionKey, project: rt.cfg.project });
        return text(formatRemote(res.source, res.results ?? []), { source: res.source, results: res.results ?? [] });
      } catch (err) {
        return text(`${name} failed: ${(err as Error).message}`, { error: "unavailable" });
      }
    },
  };
}

/**
 * The tools, bound to the calling session (results follow the session's audience). A remote source's tool is
 * offered once the daemon has said it has a source of that kind; each call refreshes that answer when stale.
 */
export function createTools(rt: Runtime, ctx: OpenClawPluginToolContext): AnyAgentTool[] {
  void refreshRemoteKinds(rt);
  const kinds = rt.remote.kinds ?? [];
  const remote = REMOTE_TOOLS.filter(([, kind]) => kinds.includes(kind)).map(([name]) =>
    remoteTool(rt, name, ctx.sessionKey),
  );
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
  return [search, ingest, ...remote];
}
