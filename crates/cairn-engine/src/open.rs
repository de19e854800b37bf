//! The [`Engine`] and how its parts are opened.
//!
//! Every part (store connections, the full-text index and its reader, the embedder, the vector index,
//! the router, session states, the graph) sits behind a `OnceLock` and is opened by one function
//! here. [`Engine::open`] (a daemon) opens them all at once and reports what is degraded;
//! [`Engine::open_lazy`] (a CLI process) opens each on first use, so `cairn context` never loads the
//! router and `cairn harvest` never loads the vector index. Either way a part is opened once per
//! engine: the embedder of `cairn watch` is loaded once, not per save.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

use cairn_embed::Embedder;
use cairn_graph::Graph;
use cairn_recall::{RecallIndex, Recaller, VectorLane};
use cairn_route::{Router, SessionsConfig};
use cairn_store::{PgStore, SqliteStore, Store};
use cairn_tokens::Tokenizer;

use crate::config::EngineConfig;
use crate::session::SessionStates;
use crate::{Error, Result, SyncReport};
use cairn_core::Source;

/// A part that may have failed to open: the error is kept as text and reported in
/// [`Engine::problems`].
type Opened<T> = std::result::Result<T, String>;

/// The routing side: the router (or why it could not be loaded) and the session classification rules.
pub(crate) struct Routing {
    pub(crate) router: Option<Router>,
    pub(crate) error: Option<String>,
    pub(crate) sessions: SessionsConfig,
}

/// Cairn's engine: the one object every surface serves through. `Send + Sync`; every method takes
/// `&self`.
pub struct Engine {
    pub(crate) cfg: EngineConfig,
    /// Opened lazily (a one-shot process) rather than all at once (a daemon).
    lazy: bool,
    pub(crate) tokenizer: Tokenizer,
    /// Captures, ingests, harvests and index syncs (one writer at a time).
    writer: OnceLock<Opened<Mutex<SqliteStore>>>,
    /// Session state and queue bookkeeping (its own connection: never waits behind an index sync).
    side: OnceLock<Opened<Mutex<SqliteStore>>>,
    /// Embeds captured turns and refreshes the graph (its own connection: never blocks captures).
    deriver: OnceLock<Opened<Mutex<SqliteStore>>>,
    /// Read connections the graph step reads reached items with.
    readers: OnceLock<Opened<Vec<Mutex<SqliteStore>>>>,
    index: OnceLock<Opened<RecallIndex>>,
    recaller: OnceLock<RwLock<Opened<Arc<Recaller>>>>,
    embedder: OnceLock<Option<Arc<dyn Embedder>>>,
    vectors: OnceLock<Option<VectorLane>>,
    /// The routing side; replaced whole by [`Engine::reload_routing`] (readers hold their `Arc`).
    routing: RwLock<Option<Arc<Routing>>>,
    sessions: OnceLock<SessionStates>,
    /// The loaded graph (or why it could not be loaded).
    graph: OnceLock<RwLock<Opened<Arc<Graph>>>>,
    /// The store sequence [`Engine::refresh_derived`] last caught up with.
    pub(crate) derived_seq: AtomicU64,
    /// The graph tables' generation the loaded graph was read at.
    graph_generation: AtomicU64,
    /// Remote sources, consulted on every request (`remote.rs`).
    pub(crate) sources: Vec<Arc<dyn Source>>,
    /// Why configured sources could not be opened.
    pub(crate) source_problems: Vec<String>,
    /// Captured turns on their way to the sources that write through (`forward.rs`).
    pub(crate) forwarder: crate::forward::Forwarder,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("cfg", &self.cfg)
            .field("lazy", &self.lazy)
            .field("sources", &self.sources.len())
            .finish()
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn open_index(dir: &Path) -> Opened<RecallIndex> {
    match RecallIndex::open_or_create(dir) {
        Ok(i) => Ok(i),
        Err(first) => {
            tracing::warn!("rebuilding the index `{}`: {first}", dir.display());
            RecallIndex::recreate(dir).map_err(|e| {
                format!("index `{}` unusable ({first}) and could not be rebuilt: {e}", dir.display())
            })
        }
    }
}

impl Engine {
    /// Opens a long-lived engine: the store (created and migrated if needed), the index (rebuilt
    /// when missing or damaged, synced to the store), the embedder and vectors, the routing config,
    /// the saved session states and the graph, all at once.
    ///
    /// Only a store that cannot be opened is an error: a broken index, model or routing config leaves
    /// the engine serving fallback notes, lexical recall or memory without packs, with the reason in
    /// [`Engine::problems`].
    pub fn open(cfg: EngineConfig) -> Result<Engine> {
        let engine = Self::new(cfg, false);
        drop(engine.writer()?);
        drop(engine.side()?);
        drop(engine.deriver()?);
        engine.sessions();
        let _ = engine.routing();
        // A degraded recall side or graph is reported by `problems`, not an error.
        let _ = engine.recaller();
        if engine.graph_wanted() {
            engine.readers()?;
            let _ = engine.graph();
        }
        Ok(engine)
    }

    /// A one-shot engine: nothing is opened until a method needs it, and a read never creates a store
    /// (it reports [`Error::NoStore`] instead). For processes that serve one request and exit.
    pub fn open_lazy(cfg: EngineConfig) -> Engine {
        Self::new(cfg, true)
    }

    fn new(cfg: EngineConfig, lazy: bool) -> Engine {
        let (sources, source_problems) = crate::sources::open_configured(&cfg.remote);
        for p in &source_problems {
            tracing::warn!("remote source not used: {p}");
        }
        Engine {
            tokenizer: Tokenizer::new(cfg.context.encoding),
            cfg,
            lazy,
            writer: OnceLock::new(),
            side: OnceLock::new(),
            deriver: OnceLock::new(),
            readers: OnceLock::new(),
            index: OnceLock::new(),
            recaller: OnceLock::new(),
            embedder: OnceLock::new(),
            vectors: OnceLock::new(),
            routing: RwLock::new(None),
            sessions: OnceLock::new(),
            graph: OnceLock::new(),
            // Zero: the first refresh checks for work a previous run left (captures not yet embedded).
            derived_seq: AtomicU64::new(0),
            graph_generation: AtomicU64::new(0),
            sources,
            source_problems,
            forwarder: Default::default(),
        }
    }

    /// Adds a source of hits consulted on every turn and context request (after the configured
    /// ones): for hosts with a source of their own, and tests.
    pub fn with_source(mut self, source: Arc<dyn Source>) -> Self {
        self.sources.push(source);
        self
    }

    /// The configuration.
    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }

    /// Why parts of the engine are degraded (index, model, routing, graph), for the parts opened so
    /// far.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(r) = self.recaller.get()
            && let Err(e) = &*r.read().unwrap_or_else(|e| e.into_inner())
        {
            out.push(format!("recall unavailable: {e}"));
        }
        if let Some(routing) = &*self.routing.read().unwrap_or_else(|e| e.into_inner()) {
            out.extend(routing.error.clone());
        }
        if let Some(g) = self.graph.get()
            && let Err(e) = &*g.read().unwrap_or_else(|e| e.into_inner())
        {
            out.push(format!("graph step unavailable: {e}"));
        }
        out.extend(self.source_problems.iter().map(|p| format!("remote source not used: {p}")));
        out
    }

    /// Names of the recall lanes and sources available (`lexical`, `tags`, `recency`, `vector`,
    /// `graph`, then `remote:<name>` per source).
    pub fn lanes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.recaller().is_ok() {
            let w = &self.cfg.recall.weights;
            for (name, weight) in [("lexical", w.lexical), ("tags", w.tags), ("recency", w.recency)] {
                if weight > 0.0 {
                    out.push(name.to_owned());
                }
            }
        }
        if self.vectors().is_some() {
            out.push("vector".to_owned());
        }
        if self.graph_wanted() {
            out.push("graph".to_owned());
        }
        out.extend(self.sources.iter().map(|s| format!("{}{}", crate::remote::REMOTE_LANE, s.name())));
        out
    }

    /// Whether a routing config is loaded.
    pub fn has_router(&self) -> bool {
        self.routing().router.is_some()
    }

    pub(crate) fn store_exists(&self) -> Result<()> {
        let path = self.cfg.store_path();
        // With a shared store the memory is on the server: this host's file is made on first use.
        if self.lazy && !path.exists() && self.cfg.store.url.is_none() {
            return Err(Error::NoStore(path));
        }
        Ok(())
    }

    fn connect(&self, durable: bool) -> Result<SqliteStore> {
        let store = SqliteStore::open(&self.cfg.store_path())?;
        if durable {
            store.set_durable(true)?;
        }
        self.attach_shared(store)
    }

    /// `store` with the shared store of `[store] url` attached (one more connection, to the server),
    /// or unchanged when there is none.
    pub(crate) fn attach_shared(&self, store: SqliteStore) -> Result<SqliteStore> {
        match &self.cfg.store.url {
            Some(url) => Ok(store.with_shared(PgStore::open(url)?)?),
            None => Ok(store),
        }
    }

    /// A read-only connection to this host's file, with the shared store attached. With a shared
    /// store, a new host's file is made here (it holds only this host's parts; the memory is on the
    /// server).
    pub(crate) fn open_read_only(&self) -> Result<SqliteStore> {
        let path = self.cfg.store_path();
        let local = if self.cfg.store.url.is_some() && !path.exists() {
            SqliteStore::open(&path)?
        } else {
            SqliteStore::open_read_only(&path)?
        };
        self.attach_shared(local)
    }

    fn connection<'a>(
        &self,
        slot: &'a OnceLock<Opened<Mutex<SqliteStore>>>,
    ) -> Result<MutexGuard<'a, SqliteStore>> {
        let opened = slot.get_or_init(|| self.connect(!self.lazy).map(Mutex::new).map_err(|e| e.to_string()));
        match opened {
            Ok(m) => Ok(lock(m)),
            Err(e) => Err(Error::Unavailable(format!(
                "store `{}` could not be opened: {e}",
                self.cfg.store_path().display()
            ))),
        }
    }

    /// The write connection (opening the store, and creating it, on first use).
    pub(crate) fn writer(&self) -> Result<MutexGuard<'_, SqliteStore>> {
        self.connection(&self.writer)
    }

    /// The bookkeeping connection; a lazy engine never creates a store for it.
    pub(crate) fn side(&self) -> Result<MutexGuard<'_, SqliteStore>> {
        self.store_exists()?;
        self.connection(&self.side)
    }

    pub(crate) fn deriver(&self) -> Result<MutexGuard<'_, SqliteStore>> {
        self.connection(&self.deriver)
    }

    fn readers(&self) -> Result<&Vec<Mutex<SqliteStore>>> {
        let opened = self.readers.get_or_init(|| {
            let n = if self.lazy {
                1
            } else {
                std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 16)
            };
            (0..n)
                .map(|_| self.connect(false).map(Mutex::new))
                .collect::<Result<Vec<_>>>()
                .map_err(|e| e.to_string())
        });
        opened.as_ref().map_err(|e| Error::Unavailable(format!("store readers: {e}")))
    }

    /// A free read connection (or the calling thread's share of the pool when all are busy).
    pub(crate) fn reader(&self) -> Result<MutexGuard<'_, SqliteStore>> {
        let readers = self.readers()?;
        for r in readers {
            if let Ok(g) = r.try_lock() {
                return Ok(g);
            }
        }
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::thread::current().id().hash(&mut h);
        Ok(lock(&readers[h.finish() as usize % readers.len()]))
    }

    /// The full-text index (created, or rebuilt when damaged, on first use).
    pub(crate) fn index(&self) -> Result<&RecallIndex> {
        self.index
            .get_or_init(|| open_index(&self.cfg.index_dir()))
            .as_ref()
            .map_err(|e| Error::Unavailable(e.clone()))
    }

    /// The index, recreated empty when it was not opened yet (a rebuild follows); an index already
    /// open is cleared by the rebuild itself.
    pub(crate) fn fresh_index(&self) -> Result<&RecallIndex> {
        if self.index.get().is_none() {
            let dir = self.cfg.index_dir();
            let index = RecallIndex::recreate(&dir)
                .map_err(|e| Error::Unavailable(format!("recreating the index `{}`: {e}", dir.display())))?;
            let _ = self.index.set(Ok(index));
        }
        self.index()
    }

    /// The recall side, synced to the store (or why it could not be opened).
    pub(crate) fn recaller(&self) -> Opened<Arc<Recaller>> {
        let slot = self.recaller.get_or_init(|| RwLock::new(self.open_recaller()));
        slot.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Whether the recall side was opened (it opens synced to the store).
    pub(crate) fn recaller_opened(&self) -> bool {
        self.recaller.get().is_some()
    }

    fn open_recaller(&self) -> Opened<Arc<Recaller>> {
        let flat = |e: Error| format!("{e}");
        self.store_exists().map_err(flat)?;
        let index = self.index().map_err(flat)?;
        if self.index_is_stale(index).map_err(flat)? {
            let writer = self.writer().map_err(flat)?;
            self.sync_index_with(&writer, index).map_err(|e| format!("index sync: {e}"))?;
        }
        let recaller = Recaller::new(index, self.cfg.recall.clone()).map_err(|e| e.to_string())?;
        Ok(Arc::new(recaller.with_vectors(self.vectors().cloned())))
    }

    /// Whether the index lags the store (read through a read-only connection: a lazy engine opens the
    /// write connection only when there is something to sync).
    fn index_is_stale(&self, index: &RecallIndex) -> Result<bool> {
        let synced = index.synced_seq().ok().flatten();
        let last = match self.writer.get() {
            Some(Ok(w)) => lock(w).last_seq()?,
            _ => self.open_read_only()?.last_seq()?,
        };
        Ok(synced != Some(last))
    }

    /// Brings `index` up to the store through `writer`. An index whose writer lock another process
    /// holds (a watcher, a daemon) is left for that process to sync.
    pub(crate) fn sync_index_with(&self, writer: &SqliteStore, index: &RecallIndex) -> Result<SyncReport> {
        match crate::sync_index(writer, index) {
            Err(Error::Index(e)) if e.kind() == cairn_recall::ErrorKind::Unavailable => {
                tracing::warn!("index is busy, left for its writer to sync: {e}");
                Ok(SyncReport::default())
            }
            other => other,
        }
    }

    /// Makes the recall side see the index as it now is (after a sync or rebuild).
    pub(crate) fn reload_recaller(&self) -> Result<()> {
        let Some(slot) = self.recaller.get() else {
            return Ok(());
        };
        let mut slot = slot.write().unwrap_or_else(|e| e.into_inner());
        match &*slot {
            Ok(r) => r.reload()?,
            Err(_) => {
                let recaller = Recaller::new(self.index()?, self.cfg.recall.clone())?;
                *slot = Ok(Arc::new(recaller.with_vectors(self.vectors().cloned())))
            }
        }
        Ok(())
    }

    /// The embedder (opened once per engine); `None` without a usable model, with one warning.
    pub(crate) fn embedder(&self) -> Option<&Arc<dyn Embedder>> {
        self.embedder
            .get_or_init(|| {
                if let Some(e) = &self.cfg.embedder {
                    return Some(e.clone());
                }
                let opened = cairn_embed::open_configured(&self.cfg.embed, &self.cfg.data_dir);
                if let Some(note) = opened.note {
                    tracing::warn!("{note}");
                }
                opened.embedder
            })
            .as_ref()
    }

    /// The live vector index of the vector lane, when it is loaded (observability and tests).
    pub fn vector_index(&self) -> Option<Arc<RwLock<cairn_vector::VectorIndex>>> {
        self.loaded_vectors().map(|v| v.index.clone())
    }

    /// The vector lane if it is loaded already (a write never loads it just to update it).
    pub(crate) fn loaded_vectors(&self) -> Option<&VectorLane> {
        self.vectors.get().and_then(Option::as_ref)
    }

    /// The vector lane (embedder and the store's vectors), when a model is configured and usable. A
    /// failure to read vectors is a warning: recall goes on without the lane.
    pub(crate) fn vectors(&self) -> Option<&VectorLane> {
        self.vectors
            .get_or_init(|| {
                if !self.cfg.wants_vectors()
                    || (!self.cfg.store_path().exists() && self.cfg.store.url.is_none())
                {
                    return None;
                }
                let embedder = self.embedder()?.clone();
                let loaded = self
                    .open_read_only()
                    .and_then(|store| crate::load_vectors(&store, &*embedder, self.cfg.vector.clone()));
                match loaded {
                    Ok(index) => {
                        Some(VectorLane::new(embedder, index).keeping_general_in(&self.cfg.data_dir))
                    }
                    Err(e) => {
                        tracing::warn!("vector lane off: {e}");
                        None
                    }
                }
            })
            .as_ref()
    }

    /// The routing side (loaded on first use).
    pub(crate) fn routing(&self) -> Arc<Routing> {
        if let Some(r) = &*self.routing.read().unwrap_or_else(|e| e.into_inner()) {
            return r.clone();
        }
        let mut slot = self.routing.write().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| Arc::new(self.load_routing())).clone()
    }

    fn load_routing(&self) -> Routing {
        let (router, error) = match &self.cfg.route_dir {
            Some(dir) => match Router::load(dir) {
                Ok(r) => (Some(r), None),
                Err(e) => (None, Some(format!("routing config `{}`: {e}", dir.display()))),
            },
            None => (None, None),
        };
        let sessions = router.as_ref().map(|r| r.config().sessions().clone()).unwrap_or_default();
        Routing { router, error, sessions }
    }

    /// Loads the routing config again (a daemon does on SIGHUP). A config that loads replaces the one in
    /// use; one that does not is reported and the last good one keeps serving.
    pub fn reload_routing(&self) -> std::result::Result<(), String> {
        let fresh = self.load_routing();
        if let Some(e) = &fresh.error {
            let serving = self
                .routing
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .is_some_and(|r| r.router.is_some());
            if serving {
                return Err(format!("{e}; the previous routing config stays in use"));
            }
        }
        let error = fresh.error.clone();
        *self.routing.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(fresh));
        error.map_or(Ok(()), Err)
    }

    /// Every session's sticky state, loaded from the store on first use (a store that cannot be read
    /// gives fresh states, with a warning).
    pub(crate) fn sessions(&self) -> &SessionStates {
        self.sessions.get_or_init(|| {
            let states = SessionStates::default();
            let saved = match self.side() {
                Ok(side) => match side.shared() {
                    Some(shared) => shared.session_states().map_err(Error::from),
                    None => side.session_states().map(|s| (s, 0)).map_err(Error::from),
                },
                Err(e) => Err(e),
            };
            match saved {
                Ok((saved, upto)) => {
                    states.merge(saved, upto);
                }
                Err(Error::NoStore(_)) => {}
                Err(e) => tracing::warn!("session states not loaded: {e}"),
            }
            states
        })
    }

    /// The session states, if they were loaded.
    pub(crate) fn sessions_loaded(&self) -> Option<&SessionStates> {
        self.sessions.get()
    }

    /// Whether the graph step runs anywhere in this engine.
    pub(crate) fn graph_wanted(&self) -> bool {
        let g = &self.cfg.graph;
        g.enabled && (g.use_in_turns || g.use_in_context)
    }

    /// The graph, synced to the store and loaded on first use (or why it could not be).
    pub(crate) fn graph(&self) -> Opened<Arc<Graph>> {
        let slot = self.graph.get_or_init(|| RwLock::new(self.load_graph().map_err(|e| e.to_string())));
        slot.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn load_graph(&self) -> Result<Arc<Graph>> {
        self.store_exists()?;
        let mut writer = self.writer()?;
        self.graph_from(&mut writer)
    }

    /// The graph through `store` (synced first when it lags the ingest log), remembering the
    /// generation of the tables it was read at.
    fn graph_from(&self, store: &mut SqliteStore) -> Result<Arc<Graph>> {
        let (graph, generation) = crate::graph::load_synced(store)?;
        self.graph_generation.store(generation, Ordering::Release);
        Ok(Arc::new(graph))
    }

    /// Syncs and reloads the graph through `store` when it is stale or failed before; keeps the last
    /// good graph on failure. Returns whether it was reloaded.
    pub(crate) fn refresh_graph(&self, store: &mut SqliteStore) -> Result<bool> {
        let Some(slot) = self.graph.get() else {
            return Ok(false);
        };
        // Links other hosts of a shared store made (they move the graph's generation).
        store.pull_shared_links()?;
        let stale = cairn_graph::graph_is_stale(store).unwrap_or(true);
        let failed = slot.read().unwrap_or_else(|e| e.into_inner()).is_err();
        // Written by another process without a new ingest sequence (`cairn graph link`, `cairn graph
        // sync`) since it was loaded.
        let rewritten =
            store.graph_generation().map_or(true, |g| g != self.graph_generation.load(Ordering::Acquire));
        if !(stale || failed || rewritten) {
            return Ok(false);
        }
        let g = self.graph_from(store)?;
        *slot.write().unwrap_or_else(|e| e.into_inner()) = Ok(g);
        Ok(true)
    }
}
