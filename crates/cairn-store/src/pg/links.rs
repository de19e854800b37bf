//! Explicit typed links (`cairn link`) on the shared store. The graph is derived per host, in each
//! host's file, but a link is memory a person added: every host should follow it. A link is written
//! here and in the writing host's graph; the other hosts pull the links numbered after the last one
//! they saw ([`PgStore::links_since`], numbered from the `link` counter, gap-safe like the ingest log)
//! into their graph tables as they follow the store.

use cairn_core::Audience;

use super::PgStore;
use super::listen::notify_text;
use super::seq::{self, Log};
use crate::codec::to_json;
use crate::{Error, GraphEdgeRow, Result};

/// The payload of the notification sent when a link is written.
const LINK_NOTICE: &str = "link";

impl PgStore {
    /// Saves `edge` (replacing a link with the same ends and type) under a new number, and wakes the
    /// listening hosts when it commits.
    pub fn put_link(&mut self, edge: &GraphEdgeRow) -> Result<()> {
        let provenance = to_json(&edge.provenance);
        for value in [&edge.src, &edge.dst, &edge.kind, &edge.reason, &provenance] {
            super::check_text(&edge.src, "the link", value)?;
        }
        let mut client = self.client()?;
        let mut tx = client.transaction()?;
        seq::claim(&mut tx, &[Log::Link])?;
        let n = seq::next(&mut tx, Log::Link)? as i64;
        tx.execute(
            "INSERT INTO links (src, dst, kind, weight, reason, provenance, audience, lseq) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (src, dst, kind) DO UPDATE SET \
             weight = excluded.weight, reason = excluded.reason, provenance = excluded.provenance, \
             audience = excluded.audience, lseq = excluded.lseq",
            &[
                &edge.src,
                &edge.dst,
                &edge.kind,
                &f64::from(edge.weight),
                &edge.reason,
                &provenance,
                &edge.audience.as_str(),
                &n,
            ],
        )?;
        notify_text(&mut tx, LINK_NOTICE)?;
        tx.commit()?;
        Ok(())
    }

    /// The links written after number `after`, in write order, and the highest number seen (`after`
    /// when none).
    pub fn links_since(&self, after: u64) -> Result<(Vec<GraphEdgeRow>, u64)> {
        let rows = self.client()?.query(
            "SELECT src, dst, kind, weight, reason, provenance, audience, lseq FROM links WHERE lseq > $1 \
             ORDER BY lseq",
            &[&(after.min(i64::MAX as u64) as i64)],
        )?;
        let mut out = Vec::with_capacity(rows.len());
        let mut last = after;
        for r in &rows {
            let src: String = r.try_get(0)?;
            let corrupt = |reason: String| Error::Corrupt { id: format!("link {src}"), reason };
            let provenance: String = r.try_get(5)?;
            let audience: String = r.try_get(6)?;
            out.push(GraphEdgeRow {
                src: src.clone(),
                dst: r.try_get(1)?,
                kind: r.try_get(2)?,
                weight: r.try_get::<_, f64>(3)? as f32,
                reason: r.try_get(4)?,
                provenance: serde_json::from_str(&provenance)
                    .map_err(|e| corrupt(format!("provenance: {e}")))?,
                audience: audience.parse::<Audience>().map_err(corrupt)?,
            });
            last = r.try_get::<_, i64>(7)? as u64;
        }
        Ok((out, last))
    }
}
