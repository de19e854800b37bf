// Start-up: the data (inlined, or the export of the caller's scope from the daemon), the three views,
// the tabs. `window.cairnViewer` exposes the views to a driving browser test.

Cairn.views = {};

Cairn.showView = function (name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.view === name);
  for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== "view-" + name;
  const views = Cairn.views;
  if (name === "graph" && views.graph) views.graph.cy.resize();
  if (name === "diff" && views.diff) {
    views.diff.shownNow();
    if (views.diff.cy) { views.diff.cy.resize(); views.diff.cy.fit(undefined, 20); }
  }
};

Cairn.start = async function () {
  const started = performance.now();
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => Cairn.showView(tab.dataset.view));
  let exp;
  if (Cairn.fileMode) {
    exp = Cairn.inlined("cairn-export");
  } else {
    Cairn.readFragment();
    // A token pasted into the address bar of an open page arrives as a fragment change, not a load.
    window.addEventListener("hashchange", () => { if (location.hash.includes("token=")) location.reload(); });
    const as = document.getElementById("as");
    document.getElementById("as-label").hidden = false;
    as.value = Cairn.viewAs();
    as.addEventListener("change", () => { sessionStorage.setItem("cairn.as", as.value.trim()); location.reload(); });
    try {
      exp = await Cairn.api("/v1/graph/export?session_key=" + encodeURIComponent(Cairn.viewAs()));
    } catch (err) {
      const hint = Cairn.token() ? "" : " (open the viewer as /viewer#token=<the token in serve.token>)";
      Cairn.status(err.message + hint, true);
      document.body.dataset.ready = "error";
      return;
    }
  }
  const timings = { data: performance.now() - started };
  let t = performance.now();
  const model = new Cairn.Model(exp);
  timings.model = performance.now() - t;
  t = performance.now();
  const graph = new Cairn.GraphView(model);
  Cairn.views.graph = graph;
  Cairn.views.turns = new Cairn.TurnsView(graph);
  Cairn.views.diff = new Cairn.DiffView(exp);
  timings.views = performance.now() - t;
  graph.render();
  timings.render = graph.lastRenderMs;
  const trace = Cairn.inlined("cairn-trace");
  if (trace) Cairn.views.turns.showTrace(trace, "(inlined)");
  if (!Cairn.fileMode) Cairn.views.turns.loadSessions();
  const where = Cairn.fileMode ? "file" : "daemon, as " + Cairn.viewAs();
  Cairn.status(model.nodes.length + " nodes, " + model.edges.length + " edges (" + where + ")");
  window.cairnViewer = { model, graph, turns: Cairn.views.turns, diff: Cairn.views.diff, openMs: performance.now() - started, timings,
    readyAt: performance.now() };
  document.body.dataset.ready = "yes";
};

Cairn.start();
