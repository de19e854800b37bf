//! Graph tables: rows derived from items by the graph sync, plus explicit links.
//!
//! The store only keeps rows; building, resolving and traversing the graph is `cairn-graph`'s job.

use cairn_core::{Audience, Provenance};
use rusqlite::{OptionalExtension, params};

use crate::sqlite::SqliteStore;
use crate::{Error, Result};

/// The owner of explicit links: rows that no rebuild removes.
pub const LINK_OWNER: &str = "link";

/// One stored graph node row; also the node of the built graph (`cairn_graph::Node`), where rows of one
/// id are merged (public when any of them is).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GraphNodeRow {
    /// Stable node id.
    pub id: String,
    /// Item kind or entity kind.
    pub kind: String,
    /// Title.
    pub title: String,
    /// Project.
    pub project: String,
    /// Audience of the owner that produced the row.
    pub audience: Audience,
    /// The stored item, for item nodes.
    pub item_id: Option<String>,
    /// L0 one-line abstract.
    pub l0: String,
    /// Where the node came from.
    pub provenance: Provenance,
    /// Tags.
    pub tags: Vec<String>,
}

impl GraphNodeRow {
    /// Whether this node is a stored item (not an entity).
    pub fn is_item(&self) -> bool {
        self.item_id.is_some()
    }
}

/// One stored graph edge row.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GraphEdgeRow {
    /// Source node id.
    pub src: String,
    /// Destination node id.
    pub dst: String,
    /// Edge type.
    pub kind: String,
    /// Weight in (0, 1].
    pub weight: f32,
    /// Why the edge exists.
    pub reason: String,
    /// Where the edge was read (file + line, session + turn).
    pub provenance: Provenance,
    /// Audience of the owner that produced it (an edge never outlives its visibility).
    pub audience: Audience,
}

/// Everything one owner contributes to the graph.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GraphRows {
    /// Nodes.
    pub nodes: Vec<GraphNodeRow>,
    /// Edges.
    pub edges: Vec<GraphEdgeRow>,
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serialising plain data cannot fail")
}

fn put_rows(tx: &rusqlite::Transaction<'_>, owner: &str, rows: &GraphRows) -> Result<()> {
    let mut ins_node = tx.prepare_cached(
        "INSERT OR REPLACE INTO graph_nodes (owner, id, kind, title, project, audience, item_id, abstract, \
         provenance, tags) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    for n in &rows.nodes {
        ins_node.execute(params![
            owner,
            n.id,
            n.kind,
            n.title,
            n.project,
            n.audience.as_str(),
            n.item_id,
            n.l0,
            to_json(&n.provenance),
            to_json(&n.tags)
        ])?;
    }
    let mut ins_edge = tx.prepare_cached(
        "INSERT OR REPLACE INTO graph_edges (owner, src, dst, kind, weight, reason, provenance, audience) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for e in &rows.edges {
        ins_edge.execute(params![
            owner,
            e.src,
            e.dst,
            e.kind,
            e.weight as f64,
            e.reason,
            to_json(&e.provenance),
            e.audience.as_str()
        ])?;
    }
    Ok(())
}

fn corrupt(table: &str, id: &str, reason: impl std::fmt::Display) -> Error {
    Error::Corrupt { id: format!("{table}:{id}"), reason: reason.to_string() }
}

impl SqliteStore {
    /// Replace the rows of each owner in `replace` (an empty [`GraphRows`] removes the owner), drop
    /// every derived row first when `clear` is set (explicit links are kept), and record `state`, all
    /// in one transaction.
    pub fn graph_apply(
        &mut self,
        clear: bool,
        replace: &[(String, GraphRows)],
        state: &[(&str, String)],
    ) -> Result<()> {
        let tx = self.conn_mut().transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        if clear {
            tx.execute("DELETE FROM graph_nodes WHERE owner <> ?1", [LINK_OWNER])?;
            tx.execute("DELETE FROM graph_edges WHERE owner <> ?1", [LINK_OWNER])?;
        }
        for (owner, rows) in replace {
            if !clear {
                tx.prepare_cached("DELETE FROM graph_nodes WHERE owner = ?1")?.execute([owner])?;
                tx.prepare_cached("DELETE FROM graph_edges WHERE owner = ?1")?.execute([owner])?;
            }
            put_rows(&tx, owner, rows)?;
        }
        for (k, v) in state {
            tx.execute(
                "INSERT INTO graph_state (key, value) VALUES (?1, ?2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![k, v],
            )?;
        }
        bump_generation(&tx)?;
        tx.commit()?;
        Ok(())
    }

    /// How many times the graph tables were written ([`graph_apply`](Self::graph_apply),
    /// [`graph_add_link`](Self::graph_add_link)), by any process: a graph loaded at another
    /// generation is out of date, even when the ingest log has not moved (an explicit link).
    pub fn graph_generation(&self) -> Result<u64> {
        let v: Option<String> = self
            .conn()
            .query_row("SELECT value FROM graph_state WHERE key = ?1", [GENERATION_KEY], |r| r.get(0))
            .optional()?;
        Ok(v.and_then(|v| v.parse().ok()).unwrap_or(0))
    }

    /// Add an explicit link (owner [`LINK_OWNER`]); an existing link with the same ends and type is
    /// replaced. With a shared store attached the link is written there first, for every host.
    pub fn graph_add_link(&mut self, edge: &GraphEdgeRow) -> Result<()> {
        if let Some(shared) = self.shared.as_mut() {
            shared.put_link(edge)?;
        }
        self.put_link_here(edge)
    }

    /// Adds the links other hosts wrote to the attached shared store since the last pull to this
    /// file's graph tables; how many. Nothing without a shared store, or on a read-only connection.
    pub fn pull_shared_links(&mut self) -> Result<usize> {
        const SEEN: &str = "shared_links_seen";
        if self.shared.is_none() || self.conn().is_readonly(rusqlite::MAIN_DB)? {
            return Ok(0);
        }
        let seen = self.graph_state(SEEN)?.and_then(|v| v.parse().ok()).unwrap_or(0u64);
        let (links, upto) = self.shared.as_ref().expect("checked above").links_since(seen)?;
        if upto == seen {
            return Ok(0);
        }
        let tx = self.conn_mut().transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        for edge in &links {
            replace_link(&tx, edge)?;
        }
        tx.execute(
            "INSERT INTO graph_state (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![SEEN, upto.to_string()],
        )?;
        bump_generation(&tx)?;
        tx.commit()?;
        Ok(links.len())
    }

    fn put_link_here(&mut self, edge: &GraphEdgeRow) -> Result<()> {
        let tx = self.conn_mut().transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        replace_link(&tx, edge)?;
        bump_generation(&tx)?;
        tx.commit()?;
        Ok(())
    }

    /// A graph sync state value.
    pub fn graph_state(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .conn()
            .query_row("SELECT value FROM graph_state WHERE key = ?1", [key], |r| r.get(0))
            .optional()?)
    }

    /// Every node row with its owner, ordered by (id, owner).
    pub fn graph_nodes(&self) -> Result<Vec<(String, GraphNodeRow)>> {
        let mut stmt = self.conn().prepare(
            "SELECT owner, id, kind, title, project, audience, item_id, abstract, provenance, tags \
             FROM graph_nodes ORDER BY id, owner",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, Option<String>>(6)?,
                r.get::<_, String>(7)?,
                r.get::<_, String>(8)?,
                r.get::<_, String>(9)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (owner, id, kind, title, project, audience, item_id, l0, prov, tags) = row?;
            let audience = audience.parse::<Audience>().map_err(|e| corrupt("graph_nodes", &id, e))?;
            let provenance = serde_json::from_str(&prov)
                .map_err(|e| corrupt("graph_nodes", &id, format!("provenance: {e}")))?;
            let tags =
                serde_json::from_str(&tags).map_err(|e| corrupt("graph_nodes", &id, format!("tags: {e}")))?;
            out.push((
                owner,
                GraphNodeRow { id, kind, title, project, audience, item_id, l0, provenance, tags },
            ));
        }
        Ok(out)
    }

    /// Every edge row with its owner, ordered by (src, dst, kind, owner, provenance).
    pub fn graph_edges(&self) -> Result<Vec<(String, GraphEdgeRow)>> {
        let mut stmt = self.conn().prepare(
            "SELECT owner, src, dst, kind, weight, reason, provenance, audience FROM graph_edges \
             ORDER BY src, dst, kind, owner, provenance",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, f64>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, String>(7)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (owner, src, dst, kind, weight, reason, prov, audience) = row?;
            let id = format!("{src}->{dst}");
            let audience = audience.parse::<Audience>().map_err(|e| corrupt("graph_edges", &id, e))?;
            let provenance = serde_json::from_str(&prov)
                .map_err(|e| corrupt("graph_edges", &id, format!("provenance: {e}")))?;
            if !(weight.is_finite() && weight > 0.0) {
                return Err(corrupt("graph_edges", &id, format!("weight {weight} is not positive")));
            }
            out.push((
                owner,
                GraphEdgeRow { src, dst, kind, weight: weight as f32, reason, provenance, audience },
            ));
        }
        Ok(out)
    }
}

/// A node row as stored, JSON columns unparsed: what [`SqliteStore::for_each_graph_node`] streams.
#[derive(Debug, Clone, Copy)]
pub struct RawGraphNode<'a> {
    /// The owner that produced the row.
    pub owner: &'a str,
    /// Stable node id.
    pub id: &'a str,
    /// Item kind or entity kind.
    pub kind: &'a str,
    /// Title.
    pub title: &'a str,
    /// Project.
    pub project: &'a str,
    /// Audience of the owner.
    pub audience: Audience,
    /// The stored item, for item nodes.
    pub item_id: Option<&'a str>,
    /// L0 abstract.
    pub l0: &'a str,
    /// Provenance, as JSON.
    pub provenance: &'a str,
    /// Tags, as a JSON array.
    pub tags: &'a str,
}

impl RawGraphNode<'_> {
    /// The full row (parses the JSON columns).
    pub fn parse(&self) -> Result<GraphNodeRow> {
        let provenance = serde_json::from_str(self.provenance)
            .map_err(|e| corrupt("graph_nodes", self.id, format!("provenance: {e}")))?;
        let tags = serde_json::from_str(self.tags)
            .map_err(|e| corrupt("graph_nodes", self.id, format!("tags: {e}")))?;
        Ok(GraphNodeRow {
            id: self.id.to_owned(),
            kind: self.kind.to_owned(),
            title: self.title.to_owned(),
            project: self.project.to_owned(),
            audience: self.audience,
            item_id: self.item_id.map(str::to_owned),
            l0: self.l0.to_owned(),
            provenance,
            tags,
        })
    }
}

/// An edge row as stored, provenance unparsed: what [`SqliteStore::for_each_graph_edge`] streams.
#[derive(Debug, Clone, Copy)]
pub struct RawGraphEdge<'a> {
    /// The owner that produced the row.
    pub owner: &'a str,
    /// Source node id.
    pub src: &'a str,
    /// Destination node id (or a `ref:` target to resolve).
    pub dst: &'a str,
    /// Edge type.
    pub kind: &'a str,
    /// Weight in (0, 1] (checked).
    pub weight: f32,
    /// Why the edge exists.
    pub reason: &'a str,
    /// Provenance, as JSON.
    pub provenance: &'a str,
    /// Audience of the owner.
    pub audience: Audience,
}

fn text<'a>(r: &'a rusqlite::Row<'_>, i: usize) -> rusqlite::Result<&'a str> {
    r.get_ref(i)?
        .as_str()
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e)))
}

impl SqliteStore {
    /// Streams every node row in (owner, id) order (the table's own order: no sort), JSON columns
    /// unparsed, so a loader parses only the rows it keeps. A bad audience is an error naming the row.
    pub fn for_each_graph_node(&self, f: &mut dyn FnMut(RawGraphNode<'_>) -> Result<()>) -> Result<()> {
        let mut stmt = self.conn().prepare(
            "SELECT owner, id, kind, title, project, audience, item_id, abstract, provenance, tags \
             FROM graph_nodes ORDER BY owner, id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id = text(r, 1)?;
            let audience = text(r, 5)?.parse::<Audience>().map_err(|e| corrupt("graph_nodes", id, e))?;
            let item_id = match r.get_ref(6)? {
                rusqlite::types::ValueRef::Null => None,
                _ => Some(text(r, 6)?),
            };
            f(RawGraphNode {
                owner: text(r, 0)?,
                id,
                kind: text(r, 2)?,
                title: text(r, 3)?,
                project: text(r, 4)?,
                audience,
                item_id,
                l0: text(r, 7)?,
                provenance: text(r, 8)?,
                tags: text(r, 9)?,
            })?;
        }
        Ok(())
    }

    /// Streams every edge row in (owner, src, dst, kind, provenance) order (the table's own order),
    /// provenance unparsed. A bad audience or weight is an error naming the row.
    pub fn for_each_graph_edge(&self, f: &mut dyn FnMut(RawGraphEdge<'_>) -> Result<()>) -> Result<()> {
        let mut stmt = self.conn().prepare(
            "SELECT owner, src, dst, kind, weight, reason, provenance, audience FROM graph_edges \
             ORDER BY owner, src, dst, kind, provenance",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (src, dst) = (text(r, 1)?, text(r, 2)?);
            let weight: f64 = r.get(4)?;
            let audience = text(r, 7)?
                .parse::<Audience>()
                .map_err(|e| corrupt("graph_edges", &format!("{src}->{dst}"), e))?;
            if !(weight.is_finite() && weight > 0.0) {
                return Err(corrupt(
                    "graph_edges",
                    &format!("{src}->{dst}"),
                    format!("weight {weight} is not positive"),
                ));
            }
            f(RawGraphEdge {
                owner: text(r, 0)?,
                src,
                dst,
                kind: text(r, 3)?,
                weight: weight as f32,
                reason: text(r, 5)?,
                provenance: text(r, 6)?,
                audience,
            })?;
        }
        Ok(())
    }
}

impl SqliteStore {
    /// The recorded turns of a session as `(turn id, item id, ts)`, in (ts, turn id) order.
    pub fn session_turns(&self, session_key: &str) -> Result<Vec<(String, String, i64)>> {
        if let Some(shared) = &self.shared {
            return shared.session_turns(session_key);
        }
        let mut stmt = self.conn().prepare_cached(
            "SELECT turn_id, item_id, ts FROM turns WHERE session_key = ?1 ORDER BY ts, turn_id",
        )?;
        let rows = stmt.query_map([session_key], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

/// The `graph_state` key counting writes to the graph tables.
const GENERATION_KEY: &str = "generation";

/// Writes `edge` as an explicit link, replacing one with the same ends and type.
fn replace_link(tx: &rusqlite::Transaction<'_>, edge: &GraphEdgeRow) -> Result<()> {
    tx.execute(
        "DELETE FROM graph_edges WHERE owner = ?1 AND src = ?2 AND dst = ?3 AND kind = ?4",
        params![LINK_OWNER, edge.src, edge.dst, edge.kind],
    )?;
    put_rows(tx, LINK_OWNER, &GraphRows { nodes: vec![], edges: vec![edge.clone()] })
}

fn bump_generation(tx: &rusqlite::Transaction<'_>) -> Result<()> {
    tx.execute(
        "INSERT INTO graph_state (key, value) VALUES (?1, '1') \
         ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
        [GENERATION_KEY],
    )?;
    Ok(())
}
