/**
 * Load-time check of the host's hook policy. OpenClaw registers `before_prompt_build` and `agent_end` of a
 * non-bundled plugin only when `plugins.entries.<id>.hooks.allowConversationAccess` is `true`, and
 * `before_prompt_build` only when `allowPromptInjection` is not `false`; otherwise it drops them with a
 * warning and the plugin would silently do nothing.
 */

/** Outcome of the check. */
export type HookPolicy = { ok: true } | { ok: false; missing: string; message: string };

/** Check the loaded host config for the settings the plugin's hooks need. */
export function checkHookPolicy(config: unknown, id: string): HookPolicy {
  const entries = (config as { plugins?: { entries?: Record<string, unknown> } } | undefined)?.plugins?.entries;
  const entry = entries?.[id] as { hooks?: { allowConversationAccess?: unknown; allowPromptInjection?: unknown } } | undefined;
  const hooks = entry?.hooks;
  if (hooks?.allowConversationAccess !== true) {
    const missing = `plugins.entries.${id}.hooks.allowConversationAccess`;
    return {
      ok: false,
      missing,
      message:
        `Cairn cannot run: the host will not register its before_prompt_build and agent_end hooks. ` +
        `Set ${missing}: true in openclaw.json (currently ${JSON.stringify(hooks?.allowConversationAccess ?? null)}).`,
    };
  }
  if (hooks.allowPromptInjection === false) {
    const missing = `plugins.entries.${id}.hooks.allowPromptInjection`;
    return {
      ok: false,
      missing,
      message:
        `Cairn cannot run: ${missing} is false, so the host drops its before_prompt_build hook. ` +
        `Remove the setting or set it to true.`,
    };
  }
  return { ok: true };
}
