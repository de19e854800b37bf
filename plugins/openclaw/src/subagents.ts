/**
 * Sub-agents: the host's `subagent_spawned` and `subagent_ended` events, told to the daemon. With the spawn
 * recorded, the child's turns get a `<cairn-task-context>` block from its parent (never seeing more than the
 * parent may); with the end recorded, the child's captured turns are linked to the parent. Both fail open: a
 * daemon that is down only means the child is served as an unlinked session.
 */
import type { Runtime } from "./runtime.ts";

/** What the recorder reads of a `subagent_spawned` event and its context. */
export interface SpawnInput {
  childSessionKey?: string;
  requesterSessionKey?: string;
  runId?: string;
  agentId?: string;
  label?: string;
  mode?: string;
}

/** What the recorder reads of a `subagent_ended` event. */
export interface EndInput {
  targetSessionKey?: string;
  targetKind?: string;
  runId?: string;
  outcome?: string;
  reason?: string;
  error?: string;
  endedAt?: number;
}

/** `subagent_spawned`: record the parent → child link. */
export async function recordSpawn(rt: Runtime, input: SpawnInput): Promise<void> {
  const { client, stats, log } = rt;
  const child = input.childSessionKey ?? "";
  const parent = input.requesterSessionKey ?? "";
  if (child === "" || parent === "") {
    log.debug(`sub-agent spawn without ${child === "" ? "a child" : "a requester"} session key: not recorded`);
    return;
  }
  try {
    await client.subagentSpawned({
      parent_session_key: parent,
      child_session_key: child,
      run_id: input.runId,
      agent_id: input.agentId,
      label: input.label,
      mode: input.mode,
    });
    stats.subagents += 1;
    log.debug(`sub-agent ${child} spawned by ${parent}`);
  } catch (err) {
    stats.subagentErrors += 1;
    stats.lastError = String((err as Error).message ?? err);
    log.warn(`sub-agent spawn not recorded (its turns get no task context): ${stats.lastError}`);
  }
}

/** `subagent_ended`: record how the child ended. ACP runs (`targetKind: "acp"`) are not Cairn's sessions. */
export async function recordEnd(rt: Runtime, input: EndInput): Promise<void> {
  const { client, stats, log } = rt;
  const child = input.targetSessionKey ?? "";
  if (child === "" || input.targetKind === "acp") return;
  try {
    const res = await client.subagentEnded({
      child_session_key: child,
      run_id: input.runId,
      outcome: input.outcome,
      reason: input.reason,
      error: input.error,
      ended_at: input.endedAt,
    });
    log.debug(`sub-agent ${child} ended (${input.outcome ?? "?"}), known: ${res.known}`);
  } catch (err) {
    stats.subagentErrors += 1;
    stats.lastError = String((err as Error).message ?? err);
    log.warn(`sub-agent end not recorded: ${stats.lastError}`);
  }
}
