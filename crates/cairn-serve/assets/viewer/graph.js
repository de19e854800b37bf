// The graph view: filter chips, a search box, a node panel, and a canvas that draws at most CAP nodes
// (and EDGE_CAP edges between them, path edges first): the filtered set (best connected first), the
// neighbourhood of a selected node, or the path of a turn's graph inclusion. The whole export stays in the model; only what is drawn goes to Cytoscape.

Cairn.CAP = 500;
Cairn.EDGE_CAP = 2500;
Cairn.TAG_CHIPS = 200;

Cairn.GraphView = class {
  constructor(model) {
    this.model = model;
    this.filters = { project: new Set(), type: new Set(), edge: new Set(), tag: new Set() };
    this.text = "";
    this.hits = null;
    this.focus = null;
    this.path = null;
    this.selected = null;
    this.lastRenderMs = 0;
    this.cy = cytoscape({ container: document.getElementById("cy"), style: Cairn.cyStyle,
      wheelSensitivity: 0.3, textureOnViewport: true, hideEdgesOnViewport: true, maxZoom: 2.5 });
    this.cy.on("tap", "node", (ev) => this.select(ev.target.id()));
    this.cy.on("dbltap", "node", (ev) => this.showNeighbourhood(ev.target.id()));
    this.chips();
    const search = document.getElementById("search");
    let timer = null;
    search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => { this.text = search.value.trim().toLowerCase(); this.focus = null; this.path = null; this.render(); }, 150);
    });
    if (!Cairn.fileMode) {
      search.placeholder = "filter titles and tags; Enter: recall";
      search.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { clearTimeout(timer); this.recall(search.value.trim()); } });
    }
    document.getElementById("clear").addEventListener("click", () => this.clear());
  }

  chips() {
    for (const box of document.querySelectorAll("#view-graph .chips")) {
      const facet = box.dataset.facet;
      const entries = [...this.model.facets[facet].entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      const shown = facet === "tag" ? entries.slice(0, Cairn.TAG_CHIPS) : entries;
      box.replaceChildren(...shown.map(([value, count]) => {
        const chip = Cairn.el("button", { class: "chip", type: "button", "data-value": value }, value + " ", Cairn.el("small", {}, count));
        chip.addEventListener("click", () => this.toggle(facet, value));
        return chip;
      }));
      if (shown.length < entries.length) box.append(Cairn.el("span", { class: "hint" }, "… " + (entries.length - shown.length) + " more: use the search box"));
    }
  }

  /// Turns a filter value on or off and redraws.
  toggle(facet, value) {
    const set = this.filters[facet];
    if (set.has(value)) set.delete(value); else set.add(value);
    for (const chip of document.querySelectorAll('#view-graph .chips[data-facet="' + facet + '"] .chip')) {
      chip.classList.toggle("on", set.has(chip.dataset.value));
    }
    this.focus = null;
    this.path = null;
    this.render();
  }

  clear() {
    for (const set of Object.values(this.filters)) set.clear();
    for (const chip of document.querySelectorAll("#view-graph .chip.on")) chip.classList.remove("on");
    document.getElementById("search").value = "";
    document.getElementById("hits").replaceChildren();
    this.text = "";
    this.hits = null;
    this.focus = null;
    this.path = null;
    this.render();
  }

  /// Indexes of the nodes that pass every node filter.
  matches() {
    const f = this.filters, out = [];
    const text = this.text;
    this.model.nodes.forEach((n, i) => {
      if (f.project.size && !f.project.has(n.project)) return;
      if (f.type.size && !f.type.has(n.type)) return;
      if (f.tag.size && !(n.tags || []).some((t) => f.tag.has(t))) return;
      if (this.hits && !this.hits.has(i)) return;
      if (text && !(n.title.toLowerCase().includes(text) || n.id.toLowerCase().includes(text)
        || (n.tags || []).some((t) => t.toLowerCase().includes(text)))) return;
      out.push(i);
    });
    return out;
  }

  edgeShown(e) {
    return this.filters.edge.size === 0 || this.filters.edge.has(e.type);
  }

  /// The indexes to draw, best connected first, and how many matched.
  drawSet() {
    const m = this.model;
    const byDegree = (a, b) => m.degree(b) - m.degree(a) || a - b;
    if (this.path) {
      const ids = [...this.path.nodes].map((id) => m.index.get(id)).filter((i) => i !== undefined);
      return { drawn: ids, matched: ids.length };
    }
    if (this.focus !== null) {
      const around = new Set([this.focus]);
      for (const ei of m.adj[this.focus]) {
        const e = m.edges[ei];
        if (!this.edgeShown(e)) continue;
        const other = m.index.get(e.src === m.nodes[this.focus].id ? e.dst : e.src);
        if (other !== undefined) around.add(other);
      }
      const rest = [...around].filter((i) => i !== this.focus).sort(byDegree);
      return { drawn: [this.focus, ...rest.slice(0, Cairn.CAP - 1)], matched: around.size };
    }
    const matched = this.matches();
    if (matched.length <= Cairn.CAP) return { drawn: matched, matched: matched.length };
    return { drawn: matched.sort(byDegree).slice(0, Cairn.CAP), matched: matched.length };
  }

  render() {
    const started = performance.now();
    const m = this.model;
    const { drawn, matched } = this.drawSet();
    const on = new Set(drawn);
    const elements = drawn.map((i) => {
      const n = m.nodes[i];
      return { group: "nodes", data: { id: n.id, label: Cairn.label(n.title || n.id), colour: Cairn.colour(n.type) } };
    });
    const pathEdges = new Set();
    if (this.path) {
      for (const s of this.path.steps) pathEdges.add(s.from + "\u0000" + s.to + "\u0000" + s.type);
    }
    const seen = new Set();
    let skipped = 0;
    for (const i of drawn) {
      for (const ei of m.adj[i]) {
        if (seen.has(ei)) continue;
        seen.add(ei);
        const e = m.edges[ei];
        const s = m.index.get(e.src), d = m.index.get(e.dst);
        if (!on.has(s) || !on.has(d) || s === d || !this.edgeShown(e)) continue;
        const onPath = pathEdges.has(e.src + "\u0000" + e.dst + "\u0000" + e.type) || pathEdges.has(e.dst + "\u0000" + e.src + "\u0000" + e.type);
        if (this.path && !onPath) continue;
        if (elements.length - drawn.length >= Cairn.EDGE_CAP) { skipped++; continue; }
        const classes = [e.cross_project ? "cross" : "", onPath ? "path" : ""].join(" ").trim();
        elements.push({ group: "edges", data: { id: "e" + ei, source: e.src, target: e.dst, type: e.type }, classes });
      }
    }
    this.cy.batch(() => {
      this.cy.elements().remove();
      this.cy.add(elements);
      if (this.path) this.cy.nodes().addClass("path");
      if (this.hits) for (const i of this.hits) { const n = this.cy.getElementById(m.nodes[i].id); if (n.nonempty()) n.addClass("hit"); }
      if (this.selected) this.cy.getElementById(this.selected).addClass("selected");
    });
    this.cy.layout(Cairn.layout(this.cy)).run();
    const what = this.path ? "nodes on the inclusion path" : this.focus !== null ? "nodes in the neighbourhood" : "nodes match";
    const mc = document.getElementById("match-count");
    mc.textContent = matched + " " + what;
    mc.dataset.count = matched;
    const dc = document.getElementById("drawn-count");
    dc.textContent = "(" + drawn.length + " drawn, " + this.cy.edges().length + " edges)";
    dc.dataset.count = drawn.length;
    const notice = document.getElementById("notice");
    notice.hidden = drawn.length >= matched && skipped === 0;
    notice.textContent = (drawn.length < matched ? "Drawing the " + drawn.length + " best connected of " + matched + " nodes" : "")
      + (skipped ? (drawn.length < matched ? "; " : "Drawing ") + Cairn.EDGE_CAP + " of " + (Cairn.EDGE_CAP + skipped) + " edges" : "")
      + ": narrow the filters, or select a node and show its neighbourhood.";
    this.lastRenderMs = performance.now() - started;
  }

  /// Shows a node's details in the panel.
  select(id) {
    const m = this.model, n = m.node(id);
    this.selected = id;
    this.cy.nodes(".selected").removeClass("selected");
    this.cy.getElementById(id).addClass("selected");
    const panel = document.getElementById("panel");
    if (!n) {
      panel.replaceChildren(Cairn.el("p", { class: "hint" }, id + " is not in this export (outside the scope)."));
      return;
    }
    const i = m.index.get(id);
    const edges = m.adj[i].map((ei) => m.edges[ei]);
    const rows = edges.slice(0, 300).map((e) => {
      const out = e.src === id;
      const other = out ? e.dst : e.src;
      const on = m.node(other);
      return Cairn.el("div", { class: "edge" },
        Cairn.el("span", { class: "mono" }, (out ? "→ " : "← ") + e.type + " "),
        Cairn.el("a", { onclick: () => { this.showNeighbourhood(other); } }, on ? on.title || other : other),
        e.cross_project ? Cairn.el("span", { class: "cross" }, " cross-project") : null,
        Cairn.el("div", {}, e.reason),
        Cairn.el("div", { class: "hint mono" }, Cairn.provenanceText(e.provenance) + " · weight " + e.weight));
    });
    panel.replaceChildren(
      Cairn.el("h3", {}, "node"),
      Cairn.el("h2", { id: "node-title" }, n.title || n.id),
      Cairn.el("dl", {},
        Cairn.el("dt", {}, "id"), Cairn.el("dd", { class: "mono" }, n.id),
        Cairn.el("dt", {}, "type"), Cairn.el("dd", {}, n.type),
        Cairn.el("dt", {}, "project"), Cairn.el("dd", {}, n.project),
        Cairn.el("dt", {}, "audience"), Cairn.el("dd", {}, n.audience),
        Cairn.el("dt", {}, "tags"), Cairn.el("dd", {}, (n.tags || []).join(", ") || "—"),
        Cairn.el("dt", {}, "provenance"), Cairn.el("dd", { class: "mono", id: "node-provenance" }, Cairn.provenanceText(n.provenance)),
        n.l1_summary_ref ? [Cairn.el("dt", {}, "summary"), Cairn.el("dd", { class: "mono" }, n.l1_summary_ref)] : null),
      Cairn.el("h3", {}, "abstract"),
      Cairn.el("p", { id: "node-abstract" }, n.l0_abstract || "—"),
      Cairn.el("button", { type: "button", onclick: () => this.showNeighbourhood(id) }, "show neighbourhood"),
      Cairn.el("h3", {}, edges.length + " edges"),
      Cairn.el("div", { id: "node-edges" }, rows),
      edges.length > rows.length ? Cairn.el("p", { class: "hint" }, (edges.length - rows.length) + " more edges not listed") : null);
  }

  /// Draws a node and its neighbours (at most CAP) and selects it.
  showNeighbourhood(id) {
    const i = this.model.index.get(id);
    if (i === undefined) return this.select(id);
    this.focus = i;
    this.path = null;
    this.render();
    this.select(id);
  }

  /// Draws the path of a graph inclusion (steps of a receipt's `graph.candidates[].path`).
  showPath(steps, node) {
    const nodes = new Set();
    for (const s of steps) { nodes.add(s.from); nodes.add(s.to); }
    if (node) nodes.add(node);
    this.path = { steps, nodes };
    this.focus = null;
    this.render();
    if (node) this.select(node);
  }

  /// Daemon mode: recall for the query, and the hits highlighted and drawn.
  async recall(query) {
    if (!query) return;
    const box = document.getElementById("hits");
    try {
      const r = await Cairn.api("/v1/search", { query, k: 20, session_key: Cairn.viewAs() });
      const idx = new Set();
      const list = [];
      for (const h of r.hits) {
        const id = "item:" + h.id;
        const i = this.model.index.get(id);
        if (i !== undefined) idx.add(i);
        list.push(Cairn.el("button", { class: "hit", type: "button", onclick: () => this.select(id) },
          h.title + " ", Cairn.el("small", { class: "hint" }, h.score.toFixed(3))));
      }
      this.hits = idx;
      this.text = "";
      this.focus = null;
      this.path = null;
      box.replaceChildren(Cairn.el("h3", {}, r.hits.length + " recalled"), ...list);
      this.render();
    } catch (err) {
      box.replaceChildren(Cairn.el("p", { class: "excluded" }, String(err.message)));
    }
  }
};
