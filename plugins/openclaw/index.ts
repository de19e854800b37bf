/**
 * Cairn for OpenClaw. Every turn gets Cairn's context prepended (`before_prompt_build`), every finished turn is
 * captured (`agent_end`), bootstrap files follow the session (`agent:bootstrap`), sub-agents inherit their task's
 * context (`subagent_spawned`, `subagent_ended`); plus the `cairn_search` and
 * `cairn_ingest` tools, `/recall` and `/cairn` commands, and a service that starts `cairn serve` when none runs.
 */
import { definePluginEntry, type OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { createCommands } from "./src/commands.ts";
import { parseConfig } from "./src/config.ts";
import { applyBootstrap, captureTurn, recallForTurn } from "./src/hooks.ts";
import { checkHookPolicy } from "./src/policy.ts";
import { createRuntime } from "./src/runtime.ts";
import { createService } from "./src/service.ts";
import { recordEnd, recordSpawn } from "./src/subagents.ts";
import { createTools, TOOL_NAMES } from "./src/tools.ts";

export const PLUGIN_ID = "cairn";

export default definePluginEntry({
  id: PLUGIN_ID,
  name: "Cairn",
  description: "Memory and workflow packs injected on every turn; finished turns captured.",
  register(api: OpenClawPluginApi) {
    const cfg = parseConfig(api.pluginConfig);
    const rt = createRuntime(cfg, api.logger);
    const mode = api.registrationMode;

    // No runtime in these modes: nothing to register.
    if (mode === "cli-metadata" || mode === "setup-only") return;
    api.registerTool((ctx) => createTools(rt, ctx), { names: [...TOOL_NAMES] });
    if (mode === "tool-discovery") return;

    // The host drops conversation hooks of non-bundled plugins unless allowed, with only a warning:
    // refuse to load half-working instead.
    const policy = checkHookPolicy(api.config, api.id ?? PLUGIN_ID);
    if (!policy.ok) {
      api.logger.error(`[cairn] ${policy.message}`);
      throw new Error(policy.message);
    }

    const hookTimeout = cfg.timeoutMs + 1000;
    api.on(
      "before_prompt_build",
      (event, ctx) => recallForTurn(rt, { prompt: event.prompt, sessionKey: ctx.sessionKey ?? ctx.sessionId, runId: ctx.runId }),
      { timeoutMs: hookTimeout },
    );
    api.on("agent_end", (event, ctx) =>
      captureTurn(rt, {
        messages: event.messages,
        success: event.success,
        runId: event.runId ?? ctx.runId,
        sessionKey: ctx.sessionKey ?? ctx.sessionId,
      }),
    );
    api.on("subagent_spawned", (event, ctx) =>
      recordSpawn(rt, {
        childSessionKey: event.childSessionKey ?? ctx.childSessionKey,
        requesterSessionKey: ctx.requesterSessionKey,
        runId: event.runId ?? ctx.runId,
        agentId: event.agentId,
        label: event.label,
        mode: event.mode,
      }),
    );
    api.on("subagent_ended", (event, ctx) =>
      recordEnd(rt, {
        targetSessionKey: event.targetSessionKey ?? ctx.childSessionKey,
        targetKind: event.targetKind,
        runId: event.runId ?? ctx.runId,
        outcome: event.outcome,
        reason: event.reason,
        error: event.error,
        endedAt: event.endedAt,
      }),
    );
    api.registerHook(
      "agent:bootstrap",
      async (event) => {
        if (event.type !== "agent" || event.action !== "bootstrap") return;
        const context = event.context as { bootstrapFiles?: unknown; workspaceDir?: unknown; sessionKey?: unknown };
        if (!Array.isArray(context.bootstrapFiles)) return;
        const sessionKey =
          typeof context.sessionKey === "string" && context.sessionKey !== "" ? context.sessionKey : event.sessionKey;
        await applyBootstrap(
          rt,
          context.bootstrapFiles,
          sessionKey,
          typeof context.workspaceDir === "string" ? context.workspaceDir : undefined,
        );
      },
      { name: "cairn-bootstrap", description: "Cairn: bootstrap files for the session, plus CAIRN_CONTEXT.md" },
    );
    for (const command of createCommands(rt)) api.registerCommand(command);
    api.registerService(createService(rt));
    rt.log.debug(`registered (daemon ${cfg.baseUrl}, timeout ${cfg.timeoutMs} ms)`);
  },
});
