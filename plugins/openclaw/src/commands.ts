/** Slash commands: `/recall <query>`, `/cairn status`, `/cairn debug`, `/cairn intent-test <prompt>`. */
import type { OpenClawPluginCommandDefinition, PluginCommandContext } from "openclaw/plugin-sdk/plugin-entry";
import { formatHits } from "./tools.ts";
import type { Runtime } from "./runtime.ts";

const CAIRN_USAGE = "Usage: /cairn status | /cairn debug [on|off] | /cairn intent-test <prompt>";

/** `/recall <query>`: search memory as the current session may see it. */
export async function recallCommand(rt: Runtime, args: string, sessionKey?: string): Promise<string> {
  const query = args.trim();
  if (query === "") return "Usage: /recall <query>";
  if (!sessionKey) return "Cairn answers only a named session, and this command has none.";
  try {
    const res = await rt.client.search({ query, k: 5, project: rt.cfg.project, session_key: sessionKey });
    return formatHits(res.hits ?? []);
  } catch (err) {
    return `Cairn is unavailable: ${(err as Error).message}`;
  }
}

/** `/cairn status`: daemon health and counters, plus this plugin's own counters. */
export async function statusCommand(rt: Runtime): Promise<string> {
  const s = rt.stats;
  const lines = [
    `Cairn daemon: ${rt.cfg.baseUrl}`,
    `Plugin: turns ${s.turns}, injected ${s.injected}, packs ${s.packs}, fallbacks ${s.fallbacks}, ` +
      `captures ${s.captures} (duplicates ${s.captureDuplicates}, skipped ${s.capturesSkipped}, errors ${s.captureErrors}), ` +
      `bootstraps ${s.bootstraps} (errors ${s.bootstrapErrors}), sub-agents ${s.subagents} (errors ${s.subagentErrors}), ` +
      `debug ${rt.debug ? "on" : "off"}`,
  ];
  if (s.lastTurn) {
    const t = s.lastTurn;
    lines.push(
      `Last turn: ${t.sessionKey || "(no session key)"}: ${t.tokens} tokens, pack ${t.pack ?? "none"}, ` +
        `fallback ${t.fallback}${t.reason ? `, ${t.reason}` : ""}`,
    );
  }
  if (s.lastError) lines.push(`Last error: ${s.lastError}`);
  try {
    const status = await rt.client.status();
    lines.push(`Daemon status: ${JSON.stringify(status)}`);
  } catch (err) {
    lines.push(`Daemon: DOWN (${(err as Error).message}); turns get a fallback note.`);
  }
  return lines.join("\n");
}

/** `/cairn debug [on|off]`: toggle debug logging of every request and decision. */
export function debugCommand(rt: Runtime, arg: string): string {
  const a = arg.trim().toLowerCase();
  rt.debug = a === "on" ? true : a === "off" ? false : !rt.debug;
  return `Cairn debug logging ${rt.debug ? "on" : "off"}.`;
}

/** `/cairn intent-test <prompt>`: the routing decision for a prompt, without injecting anything. */
export async function intentTestCommand(rt: Runtime, prompt: string, sessionKey?: string): Promise<string> {
  if (prompt.trim() === "") return "Usage: /cairn intent-test <prompt>";
  try {
    const res = await rt.client.intent({ session_key: sessionKey ?? "", prompt });
    return `Intent dry run (nothing injected):\n${JSON.stringify(res, null, 2)}`;
  } catch (err) {
    return `Cairn is unavailable: ${(err as Error).message}`;
  }
}

/** Dispatch `/cairn <sub> [args]`. */
export async function cairnCommand(rt: Runtime, args: string, sessionKey?: string): Promise<string> {
  const trimmed = args.trim();
  const space = trimmed.search(/\s/);
  const sub = (space < 0 ? trimmed : trimmed.slice(0, space)).toLowerCase();
  const rest = space < 0 ? "" : trimmed.slice(space + 1);
  switch (sub) {
    case "status":
    case "":
      return statusCommand(rt);
    case "debug":
      return debugCommand(rt, rest);
    case "intent-test":
      return intentTestCommand(rt, rest, sessionKey);
    default:
      return `Unknown subcommand \`${sub}\`. ${CAIRN_USAGE}`;
  }
}

/** The two command registrations. */
export function createCommands(rt: Runtime): OpenClawPluginCommandDefinition[] {
  return [
    {
      name: "recall",
      description: "Search Cairn memory: /recall <query>",
      acceptsArgs: true,
      handler: async (ctx: PluginCommandContext) => ({ text: await recallCommand(rt, ctx.args ?? "", ctx.sessionKey) }),
    },
    {
      name: "cairn",
      description: "Cairn: /cairn status | /cairn debug | /cairn intent-test <prompt>",
      acceptsArgs: true,
      handler: async (ctx: PluginCommandContext) => ({ text: await cairnCommand(rt, ctx.args ?? "", ctx.sessionKey) }),
    },
  ];
}
