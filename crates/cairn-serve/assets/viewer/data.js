// Shared state: where the data comes from (inlined in a self-contained file, or the daemon's API with
// the token kept in sessionStorage), the graph model built from an export, and small DOM helpers.

const Cairn = {};

Cairn.OWNER_SESSION = "agent:main:main";

/// The JSON of an inlined script element, or null (served by the daemon).
Cairn.inlined = function (id) {
  const el = document.getElementById(id);
  return el ? JSON.parse(el.textContent) : null;
};

Cairn.fileMode = document.getElementById("cairn-export") !== null;

/// Reads `#token=...&as=...` once, keeps them in sessionStorage and removes them from the address bar.
Cairn.readFragment = function () {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  if (params.has("token")) sessionStorage.setItem("cairn.token", params.get("token"));
  if (params.has("as")) sessionStorage.setItem("cairn.as", params.get("as"));
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
};

Cairn.token = () => sessionStorage.getItem("cairn.token") || "";
Cairn.viewAs = () => sessionStorage.getItem("cairn.as") || Cairn.OWNER_SESSION;

/// One API call with the bearer token; throws an Error with the API's message.
Cairn.api = async function (path, body) {
  const headers = {};
  const token = Cairn.token();
  if (token) headers.Authorization = "Bearer " + token;
  const init = { headers };
  if (body !== undefined) {
    init.method = "POST";
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const r = await fetch(path, init);
  const text = await r.text();
  let value = null;
  try { value = JSON.parse(text); } catch (_) { /* not JSON: reported below */ }
  if (!r.ok) {
    const msg = value && value.error ? value.error.message : text.slice(0, 200);
    throw new Error(r.status + " " + path.split("?")[0] + ": " + msg);
  }
  return value;
};

/// Provenance as cairn prints it (`path:12-40`, `session#turn`, the source name): edge keys of a diff.
Cairn.provenanceKey = function (p) {
  if (!p) return "";
  if (p.type === "file") return p.path + ":" + p.line_start + "-" + p.line_end;
  if (p.type === "turn") return p.session_key + "#" + p.turn_id;
  return p.source || "";
};

/// Provenance for people: `path:line` (or `path:first-last`), `session #turn`, the source name.
Cairn.provenanceText = function (p) {
  if (!p) return "";
  if (p.type === "file") {
    return p.path + ":" + p.line_start + (p.line_end !== p.line_start ? "-" + p.line_end : "");
  }
  if (p.type === "turn") return p.session_key + " #" + p.turn_id;
  return p.source || "";
};

/// The key `cairn graph diff` gives an edge.
Cairn.edgeKey = (e) => e.src + " -> " + e.dst + " [" + e.type + "] @" + Cairn.provenanceKey(e.provenance);

/// A graph export with its indexes: nodes by id, each node's edges, and the facets with counts.
Cairn.Model = class {
  constructor(exp) {
    this.nodes = exp.nodes || [];
    this.edges = exp.edges || [];
    this.index = new Map();
    this.nodes.forEach((n, i) => this.index.set(n.id, i));
    this.adj = this.nodes.map(() => []);
    this.edges.forEach((e, i) => {
      const s = this.index.get(e.src), d = this.index.get(e.dst);
      if (s !== undefined) this.adj[s].push(i);
      if (d !== undefined && d !== s) this.adj[d].push(i);
    });
    this.facets = { project: new Map(), type: new Map(), edge: new Map(), tag: new Map() };
    const bump = (m, k) => m.set(k, (m.get(k) || 0) + 1);
    for (const n of this.nodes) {
      bump(this.facets.project, n.project);
      bump(this.facets.type, n.type);
      for (const t of n.tags || []) bump(this.facets.tag, t);
    }
    for (const e of this.edges) bump(this.facets.edge, e.type);
  }

  node(id) {
    const i = this.index.get(id);
    return i === undefined ? null : this.nodes[i];
  }

  degree(i) {
    return this.adj[i].length;
  }
};

/// Builds an element: `el("td", {class: "num"}, "3")`.
Cairn.el = function (tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "onclick") e.addEventListener("click", v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
};

/// A table from a header row and rows of cells (strings, numbers or nodes).
Cairn.table = function (head, rows, attrs) {
  const num = (v) => typeof v === "number";
  return Cairn.el("table", attrs || {},
    Cairn.el("thead", {}, Cairn.el("tr", {}, head.map((h) => Cairn.el("th", {}, h)))),
    Cairn.el("tbody", {}, rows.map((r) => Cairn.el("tr", {},
      r.map((c) => Cairn.el("td", num(c) ? { class: "num" } : {}, num(c) && !Number.isInteger(c) ? c.toFixed(4) : c))))));
};

Cairn.status = function (text, error) {
  const s = document.getElementById("status");
  s.textContent = text;
  s.classList.toggle("error", !!error);
};

/// Node colours by type; other types get a colour from their name.
Cairn.COLOURS = {
  file: "#2f6fde", doc: "#4f8fe0", fact: "#17a2b8", turn: "#7a5af8", session: "#9b59b6",
  tag: "#98a2b3", project: "#344054", person: "#e67e22", place: "#16a085", linked_file: "#b0b7c3",
};
Cairn.colour = function (type) {
  if (Cairn.COLOURS[type]) return Cairn.COLOURS[type];
  let h = 0;
  for (const c of type) h = (h * 31 + c.charCodeAt(0)) % 360;
  return "hsl(" + h + ",55%,50%)";
};

/// Cytoscape's style, shared by the graph and diff views.
Cairn.cyStyle = [
  { selector: "node", style: {
    "background-color": "data(colour)", label: "data(label)", "font-size": 9, color: "#1d2430",
    "text-valign": "bottom", "text-margin-y": 2, "min-zoomed-font-size": 7, width: 14, height: 14,
    "text-max-width": 120, "text-wrap": "ellipsis" } },
  { selector: "edge", style: {
    width: 1, "line-color": "#c3c9d2", "curve-style": "haystack", opacity: 0.8 } },
  { selector: "edge.cross", style: { "line-style": "dashed", "line-color": "#d99a1e", width: 2 } },
  { selector: "node:selected, node.selected", style: { "border-width": 3, "border-color": "#2f6fde" } },
  { selector: "node.hit", style: { "border-width": 3, "border-color": "#d64545" } },
  { selector: "node.path", style: { "border-width": 4, "border-color": "#8e44ad", width: 20, height: 20 } },
  { selector: "edge.path", style: { "line-color": "#8e44ad", width: 4, "curve-style": "bezier",
    "target-arrow-shape": "triangle", "target-arrow-color": "#8e44ad", opacity: 1 } },
  { selector: ".added", style: { "background-color": "#1f9d55", "line-color": "#1f9d55" } },
  { selector: ".removed", style: { "background-color": "#d64545", "line-color": "#d64545" } },
  { selector: ".changed", style: { "background-color": "#d99a1e", "line-color": "#d99a1e" } },
  { selector: "node.context", style: { "background-color": "#e4e7ec", color: "#98a2b3" } },
];

/// Rings by degree, the best connected in the middle: positions by node id.
Cairn.rings = function (nodes) {
  const order = nodes.toArray().sort((a, b) => b.degree() - a.degree() || (a.id() < b.id() ? -1 : 1));
  const positions = {};
  let ring = 0, placed = 0;
  while (placed < order.length) {
    const radius = ring * 40;
    const slots = ring === 0 ? 1 : Math.floor((2 * Math.PI * radius) / 26);
    for (let k = 0; k < slots && placed < order.length; k++, placed++) {
      const angle = (2 * Math.PI * k) / slots + ring * 0.37;
      positions[order[placed].id()] = { x: radius * Math.cos(angle), y: radius * Math.sin(angle) };
    }
    ring++;
  }
  return positions;
};

/// The layout of a drawing, deterministic: rings by degree computed here and handed to Cytoscape as
/// preset positions when large (which keeps a 500-node draw far under a second); when small, a
/// force-directed layout that starts from those rings.
Cairn.layout = function (cy) {
  const nodes = cy.nodes();
  const positions = Cairn.rings(nodes);
  if (nodes.length <= 150) {
    nodes.positions((n) => positions[n.id()]);
    return { name: "cose", animate: false, randomize: false, numIter: 400, nodeRepulsion: () => 6000,
      idealEdgeLength: () => 60, nodeOverlap: 20, fit: true, padding: 20 };
  }
  return { name: "preset", positions, animate: false, fit: true, padding: 20 };
};

/// Cuts a title for a node label.
Cairn.label = (t) => (t.length > 40 ? t.slice(0, 39) + "…" : t);
