//! A search hit as every surface shows it (HTTP `/v1/search`, MCP `search`): the chunk's first 300
//! characters as its snippet, why it matched and where it came from.

use cairn_core::Hit;
use schemars::JsonSchema;
use serde::Serialize;

/// A search hit.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HitOut {
    /// Item id (for `get` and `forget`).
    pub id: String,
    /// Chunk id.
    pub chunk_id: String,
    /// Title.
    pub title: String,
    /// Fused score.
    pub score: f32,
    /// The chunk's first 300 characters.
    pub snippet: String,
    /// Why it matched: lane scores and matched terms.
    pub why: serde_json::Value,
    /// Where it came from (file and lines, or session and turn).
    pub provenance: serde_json::Value,
    /// Tags.
    pub tags: Vec<String>,
    /// Project.
    pub project: String,
    /// Kind (`note`, `turn`, `fact`, …).
    pub kind: String,
}

impl From<&Hit> for HitOut {
    fn from(h: &Hit) -> HitOut {
        let mut snippet: String = h.text.chars().take(300).collect();
        if h.text.chars().count() > 300 {
            snippet.push('…');
        }
        HitOut {
            id: h.item_id.clone(),
            chunk_id: h.chunk_id.clone(),
            title: h.title.clone(),
            score: h.score,
            snippet,
            why: serde_json::to_value(&h.why).unwrap_or_default(),
            provenance: serde_json::to_value(&h.provenance).unwrap_or_default(),
            tags: h.tags.clone(),
            project: h.project.clone(),
            kind: h.kind.to_string(),
        }
    }
}
