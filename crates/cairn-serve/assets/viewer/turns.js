// The turn inspector: the daemon's sessions and each one's last turns in order (classification,
// routing, lanes, the receipt's included and excluded candidates and why, the graph step's candidates
// with the path that reached each), or a `cairn context --trace` receipt from the file or inlined.

Cairn.TurnsView = class {
  constructor(graphView) {
    this.graph = graphView;
    this.box = document.getElementById("turns");
    document.getElementById("trace-file").addEventListener("change", async (ev) => {
      const f = ev.target.files[0];
      if (!f) return;
      try {
        this.showTrace(JSON.parse(await f.text()), f.name);
      } catch (err) {
        this.box.replaceChildren(Cairn.el("p", { class: "excluded" }, f.name + ": " + err.message));
      }
    });
    document.getElementById("session-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const key = document.getElementById("session-key").value.trim();
      if (key) this.loadTurns(key);
    });
    if (Cairn.fileMode) {
      document.getElementById("sessions").replaceChildren(
        Cairn.el("p", { class: "hint" }, "Sessions and their turns are served by `cairn serve` at /viewer."));
      document.getElementById("session-form").hidden = true;
    }
  }

  /// Daemon mode: the session list.
  async loadSessions() {
    const box = document.getElementById("sessions");
    try {
      const r = await Cairn.api("/v1/sessions");
      box.replaceChildren(...r.sessions.map((s) => Cairn.el("button",
        { class: "session", type: "button", "data-key": s.key, onclick: () => this.loadTurns(s.key) },
        s.key, " ", Cairn.el("small", { class: "hint" }, s.kind + ", " + s.turns + " turns"))));
      if (!r.sessions.length) box.replaceChildren(Cairn.el("p", { class: "hint" }, "no sessions yet"));
    } catch (err) {
      box.replaceChildren(Cairn.el("p", { class: "excluded" }, err.message));
    }
  }

  async loadTurns(key) {
    try {
      const q = "?session_key=" + encodeURIComponent(Cairn.viewAs());
      const r = await Cairn.api("/v1/sessions/" + encodeURIComponent(key) + "/turns" + q);
      const head = Cairn.el("h2", {}, key);
      if (!r.turns.length) {
        this.box.replaceChildren(head, Cairn.el("p", { class: "hint" },
          "The daemon has served no turn of this session since it started (it keeps the last " + r.kept + ")."));
        return;
      }
      this.box.replaceChildren(head, ...r.turns.map((t) => this.turn(t)));
    } catch (err) {
      this.box.replaceChildren(Cairn.el("p", { class: "excluded" }, err.message));
    }
  }

  /// A trace receipt on its own (`cairn context --trace FILE`).
  showTrace(receipt, name) {
    this.box.replaceChildren(Cairn.el("h2", {}, "trace " + (name || "")),
      Cairn.el("div", { class: "turn" }, this.receipt(receipt)));
  }

  turn(t) {
    const tr = t.trace || {};
    const s = t.session || {}, i = t.intent || {};
    const route = tr.route || {};
    return Cairn.el("div", { class: "turn", "data-turn": tr.turn },
      Cairn.el("h3", {}, "turn " + tr.turn + (tr.turn_id ? " (" + tr.turn_id + ")" : "") + " · " + new Date(t.at_ms).toISOString()),
      Cairn.el("dl", {},
        Cairn.el("dt", {}, "session"), Cairn.el("dd", {}, s.kind + ", " + s.audience + (s.project ? ", project " + s.project : "") + " (" + tr.session_reason + ")"),
        Cairn.el("dt", {}, "pack"), Cairn.el("dd", {}, (i.pack || "none") + (i.sticky ? " (sticky)" : "") + (i.packs && i.packs.length ? " · composed: " + i.packs.join(", ") : "")),
        Cairn.el("dt", {}, "routing"), Cairn.el("dd", {}, (route.outcome ? JSON.stringify(route.outcome) + " " : "") + (i.reason || "")),
        Cairn.el("dt", {}, "tokens"), Cairn.el("dd", {}, t.tokens + " of " + tr.budget + " (memory " + tr.memory_tokens + ", pack " + tr.pack_tokens + ")"),
        t.fallback ? [Cairn.el("dt", {}, "fallback"), Cairn.el("dd", { class: "excluded" }, tr.fallback_reason || "yes")] : null,
        (tr.warnings || []).length ? [Cairn.el("dt", {}, "warnings"), Cairn.el("dd", {}, tr.warnings.join("; "))] : null),
      (route.trace || []).length ? [Cairn.el("h4", {}, "intent scores and routing trace"),
        Cairn.el("pre", { class: "mono" }, route.trace.join("\n"))] : null,
      tr.receipt ? this.receipt(tr.receipt, tr.lanes) : Cairn.el("p", { class: "hint" }, "no receipt (no memory block was assembled)"),
      // The injected block, when the daemon keeps it (`serve.trace_blocks`).
      typeof t.block === "string" ? [Cairn.el("h4", {}, "injected block"), Cairn.el("pre", { class: "mono injected-block" }, t.block || "(empty)")] : null);
  }

  receipt(r, turnLanes) {
    const lanes = (r.lanes && r.lanes.length ? r.lanes : turnLanes) || [];
    const parts = [
      Cairn.el("h4", {}, "recall lanes"),
      Cairn.table(["lane", "status", "candidates", "error"], lanes.map((l) => [l.name, l.status, l.candidates, l.error || ""])),
    ];
    if (r.relevance) {
      const rel = r.relevance;
      parts.push(Cairn.el("p", {}, "relevance: best " + rel.best.toFixed(4) + " against floor " + rel.floor.toFixed(4)
        + (rel.parts ? " · " + Object.entries(rel.parts).map(([k, v]) => k + " " + Number(v).toFixed(4)).join(", ") : "")));
    }
    const c = r.candidates || {};
    parts.push(Cairn.el("h4", {}, "candidates: " + c.total + " (topic " + c.topic + ", recent " + c.recent + ")"));
    // Each candidate's lane parts, before weighting ("lexical 1.0000, vector 0.3871").
    const laneParts = (x) => Object.entries(x.parts || {}).map(([k, v]) => k + " " + Number(v).toFixed(4)).join(", ");
    parts.push(Cairn.table(["", "chunk", "item", "layer", "level", "tokens", "score", "lanes"],
      (r.included || []).map((x) => [Cairn.el("span", { class: "included" }, "included"), x.title || x.chunk_id, x.item_id, x.layer, x.level, x.tokens, x.score, laneParts(x)]),
      { class: "receipt-included" }));
    parts.push(Cairn.table(["", "chunk", "layer", "why", "score", "lanes"],
      (r.excluded || []).map((x) => [Cairn.el("span", { class: "excluded" }, "excluded"), x.title || x.chunk_id, x.layer,
        x.reason + (x.duplicate_of ? " of " + x.duplicate_of : ""), x.score, laneParts(x)]),
      { class: "receipt-excluded" }));
    if (r.tokens) {
      const t = r.tokens;
      parts.push(Cairn.el("p", { class: "hint" }, "tokens: " + t.total + " of " + t.budget + " (header " + t.header
        + ", topic " + t.topic.used + "/" + t.topic.allotted + ", recent " + t.recent.used + "/" + t.recent.allotted + ")"));
    }
    if (r.graph) parts.push(this.graphStep(r.graph));
    if ((r.warnings || []).length) parts.push(Cairn.el("p", { class: "excluded" }, r.warnings.join("; ")));
    return parts;
  }

  graphStep(g) {
    const rows = g.candidates.map((c) => {
      const path = c.path.map((s) => s.from + " -[" + s.type + (s.cross_project ? ", cross-project" : "") + "]-> " + s.to
        + " @" + s.provenance + (s.reason ? " (" + s.reason + ")" : "")).join("\n");
      const show = Cairn.el("a", { class: "link show-path", "data-node": c.node,
        onclick: () => { Cairn.showView("graph"); this.graph.showPath(c.path, c.node); } }, "show in graph");
      const decision = Cairn.el("span", { class: c.decision === "included" ? "included" : "excluded" }, c.decision);
      return [decision, c.node, c.depth, c.score, Cairn.el("pre", { class: "mono" }, path), show];
    });
    return [
      Cairn.el("h4", {}, "graph step: " + g.candidates.length + " candidates from " + g.seeds.length + " seeds, depth " + g.depth
        + (g.over_cap ? ", " + g.over_cap + " more over the cap" : "")),
      Cairn.el("p", { class: "hint mono" }, "seeds: " + g.seeds.join(", ")),
      Cairn.table(["decision", "node", "depth", "score", "path", ""], rows, { class: "graph-candidates" }),
      (g.hubs || []).length ? Cairn.el("p", { class: "hint" }, "hubs not expanded: " + g.hubs.join(", ")) : null,
    ];
  }
};
