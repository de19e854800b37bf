//! Values as both backends store them: JSON text for structured fields, little-endian f32 bytes for
//! vectors.

use crate::{Error, Result};

pub(crate) fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serialising plain data cannot fail")
}

/// Little-endian f32 bytes of a chunk's vector followed by its lines' vectors.
pub(crate) fn vector_to_blob(v: &[f32], lines: &[f32]) -> Vec<u8> {
    v.iter().chain(lines).flat_map(|x| x.to_le_bytes()).collect()
}

/// A chunk's vector and its lines' vectors from the bytes [`vector_to_blob`] made: `dim` floats,
/// then any whole number of `dim` floats more.
pub(crate) fn blob_to_vector(id: &str, blob: &[u8], dim: usize) -> Result<(Vec<f32>, Vec<f32>)> {
    if dim == 0 || blob.len() < dim * 4 || !blob.len().is_multiple_of(dim * 4) {
        return Err(Error::Corrupt {
            id: id.to_owned(),
            reason: format!("vector of {} bytes, expected a multiple of {} (dim {dim})", blob.len(), dim * 4),
        });
    }
    let mut all: Vec<f32> =
        blob.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    let lines = all.split_off(dim);
    Ok((all, lines))
}

/// Why `v` cannot be stored: an empty vector, or lines that are not whole vectors of its length.
pub(crate) fn check_vector(v: &crate::NewVector) -> Result<()> {
    if v.vector.is_empty() {
        return Err(Error::Corrupt { id: v.chunk_id.clone(), reason: "empty vector".into() });
    }
    if !v.lines.len().is_multiple_of(v.vector.len()) {
        return Err(Error::Corrupt {
            id: v.chunk_id.clone(),
            reason: format!("{} floats of line vectors for vectors of {}", v.lines.len(), v.vector.len()),
        });
    }
    Ok(())
}

/// The context (`metadata.context`) of an item from its metadata JSON; empty when absent or unreadable.
pub(crate) fn context_of_metadata(metadata: &str) -> String {
    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(metadata)
        .ok()
        .and_then(|m| m.get(cairn_core::CONTEXT_KEY).and_then(|v| v.as_str()).map(str::to_owned))
        .unwrap_or_default()
}
