//! Values as both backends store them: JSON text for structured fields, little-endian f32 bytes for
//! vectors.

use crate::{Error, Result};

pub(crate) fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serialising plain data cannot fail")
}

/// Little-endian f32 bytes of a vector.
pub(crate) fn vector_to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub(crate) fn blob_to_vector(id: &str, blob: &[u8], dim: usize) -> Result<Vec<f32>> {
    if blob.len() != dim * 4 {
        return Err(Error::Corrupt {
            id: id.to_owned(),
            reason: format!("vector of {} bytes, expected {} (dim {dim})", blob.len(), dim * 4),
        });
    }
    Ok(blob.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
}

/// The context (`metadata.context`) of an item from its metadata JSON; empty when absent or unreadable.
pub(crate) fn context_of_metadata(metadata: &str) -> String {
    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(metadata)
        .ok()
        .and_then(|m| m.get(cairn_core::CONTEXT_KEY).and_then(|v| v.as_str()).map(str::to_owned))
        .unwrap_or_default()
}
