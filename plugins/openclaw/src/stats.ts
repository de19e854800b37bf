/** In-process counters shown by `/cairn status` (reset when the host restarts). */
export interface Stats {
  turns: number;
  injected: number;
  packs: number;
  fallbacks: number;
  captures: number;
  captureDuplicates: number;
  captureErrors: number;
  capturesSkipped: number;
  bootstraps: number;
  bootstrapErrors: number;
  subagents: number;
  subagentErrors: number;
  lastError?: string;
  lastTurn?: { sessionKey: string; tokens: number; pack: string | null; fallback: boolean; reason: string };
}

/** Fresh counters. */
export function newStats(): Stats {
  return {
    turns: 0,
    injected: 0,
    packs: 0,
    fallbacks: 0,
    captures: 0,
    captureDuplicates: 0,
    captureErrors: 0,
    capturesSkipped: 0,
    bootstraps: 0,
    bootstrapErrors: 0,
    subagents: 0,
    subagentErrors: 0,
  };
}
