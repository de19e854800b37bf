// The diff view: two exports merged, nodes and edges coloured by what `cairn graph diff` says of them
// (added, removed, changed). The counts are the diff's own: the daemon's `POST /v1/graph/diff`, or the
// diff `cairn graph view --diff` computed and inlined. Only changed elements and their endpoints are
// drawn (at most CAP nodes).

Cairn.DiffView = class {
  constructor(current) {
    this.current = current;
    this.cy = null;
    this.lastRenderMs = 0;
    this.shown = false;
    const old = Cairn.inlined("cairn-old"), diff = Cairn.inlined("cairn-diff");
    if (old && diff) {
      document.getElementById("diff-inputs").hidden = true;
      this.pending = { old, neu: current, diff };
    } else if (Cairn.fileMode) {
      document.getElementById("diff-inputs").replaceChildren(Cairn.el("p", { class: "hint" },
        "Write this file with `cairn graph view --out FILE --diff OLD.json`, or open the viewer from `cairn serve`, to compare two exports."));
    } else {
      const read = async () => {
        const oldFile = document.getElementById("diff-old").files[0];
        const newFile = document.getElementById("diff-new").files[0];
        if (!oldFile) return;
        try {
          const old = JSON.parse(await oldFile.text());
          const neu = newFile ? JSON.parse(await newFile.text()) : this.current;
          const d = await Cairn.api("/v1/graph/diff", { old, new: neu });
          this.load(old, neu, d);
        } catch (err) {
          Cairn.status(err.message, true);
        }
      };
      document.getElementById("diff-old").addEventListener("change", read);
      document.getElementById("diff-new").addEventListener("change", read);
    }
  }

  /// Draws a pending inlined diff once the view is visible (Cytoscape needs a sized container).
  shownNow() {
    this.shown = true;
    if (this.pending) {
      const p = this.pending;
      this.pending = null;
      this.load(p.old, p.neu, p.diff);
    }
  }

  load(old, neu, diff) {
    if (!this.shown) { this.pending = { old, neu, diff }; return; }
    const started = performance.now();
    this.diff = diff;
    const status = new Map();
    for (const id of diff.added_nodes) status.set(id, "added");
    for (const id of diff.removed_nodes) status.set(id, "removed");
    for (const c of diff.changed_nodes) status.set(c.key, "changed");
    const edgeStatus = new Map();
    for (const k of diff.added_edges) edgeStatus.set(k, "added");
    for (const k of diff.removed_edges) edgeStatus.set(k, "removed");
    for (const c of diff.changed_edges) edgeStatus.set(c.key, "changed");

    // The merged graph: every node and edge of either export, the newer one's version when in both.
    const nodes = new Map(), edges = new Map();
    for (const n of old.nodes) nodes.set(n.id, n);
    for (const n of neu.nodes) nodes.set(n.id, n);
    for (const e of old.edges) edges.set(Cairn.edgeKey(e), e);
    for (const e of neu.edges) edges.set(Cairn.edgeKey(e), e);

    const drawn = new Map();
    const addNode = (id, cls) => {
      if (drawn.has(id) || drawn.size >= Cairn.CAP) return drawn.has(id);
      drawn.set(id, cls);
      return true;
    };
    for (const [id, s] of status) addNode(id, s);
    const drawnEdges = [];
    for (const [k, s] of edgeStatus) {
      const e = edges.get(k);
      if (!e) continue;
      if (addNode(e.src, status.get(e.src) || "context") && addNode(e.dst, status.get(e.dst) || "context")) {
        drawnEdges.push({ k, e, s });
      }
    }
    const elements = [];
    for (const [id, cls] of drawn) {
      const n = nodes.get(id);
      elements.push({ group: "nodes", data: { id, label: Cairn.label(n ? n.title || id : id), colour: Cairn.colour(n ? n.type : "") }, classes: cls });
    }
    drawnEdges.forEach(({ e, s }, i) => {
      elements.push({ group: "edges", data: { id: "d" + i, source: e.src, target: e.dst }, classes: s + (e.cross_project ? " cross" : "") });
    });
    if (!this.cy) {
      this.cy = cytoscape({ container: document.getElementById("cy-diff"), style: Cairn.cyStyle, wheelSensitivity: 0.3, maxZoom: 2.5 });
    }
    this.cy.batch(() => { this.cy.elements().remove(); this.cy.add(elements); });
    this.cy.layout(Cairn.layout(this.cy)).run();

    const counts = [
      ["nodes", diff.added_nodes.length, diff.removed_nodes.length, diff.changed_nodes.length],
      ["edges", diff.added_edges.length, diff.removed_edges.length, diff.changed_edges.length],
    ];
    const table = document.getElementById("diff-counts");
    table.replaceChildren(
      Cairn.el("tr", {}, ["", "added", "removed", "changed"].map((h) => Cairn.el("th", {}, h))),
      ...counts.map(([what, a, r, c]) => Cairn.el("tr", { "data-what": what },
        Cairn.el("th", {}, what),
        Cairn.el("td", { class: "num added", "data-kind": "added" }, a),
        Cairn.el("td", { class: "num removed", "data-kind": "removed" }, r),
        Cairn.el("td", { class: "num changed", "data-kind": "changed" }, c))));
    const notice = document.getElementById("diff-notice");
    const changedTotal = status.size + edgeStatus.size;
    notice.hidden = drawn.size < Cairn.CAP;
    notice.textContent = "Drawing " + drawn.size + " nodes of " + changedTotal + " changes; the list below has them all.";
    const line = (cls, sign, text) => Cairn.el("div", { class: "mono " + cls }, sign + " " + text);
    const list = [];
    for (const id of diff.added_nodes) list.push(line("added", "+ node", id));
    for (const id of diff.removed_nodes) list.push(line("removed", "- node", id));
    for (const c of diff.changed_nodes) list.push(line("changed", "~ node", c.key + " (" + c.fields.join(", ") + ")"));
    for (const k of diff.added_edges) list.push(line("added", "+ edge", k));
    for (const k of diff.removed_edges) list.push(line("removed", "- edge", k));
    for (const c of diff.changed_edges) list.push(line("changed", "~ edge", c.key + " (" + c.fields.join(", ") + ")"));
    if (!list.length) list.push(Cairn.el("p", { class: "hint" }, "no differences"));
    document.getElementById("diff-list").replaceChildren(...list.slice(0, 2000));
    this.lastRenderMs = performance.now() - started;
  }
};
