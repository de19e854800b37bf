/// The content hash Cairn stores for every item and chunk: BLAKE3, hex, first 32 chars.
///
/// 128 bits are plenty to detect a change; the short form keeps the store and traces compact.
pub fn content_hash(bytes: &[u8]) -> String {
    let full = blake3::hash(bytes).to_hex();
    full.as_str()[..32].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_and_sensitive() {
        assert_eq!(content_hash(b"abc"), content_hash(b"abc"));
        assert_ne!(content_hash(b"abc"), content_hash(b"abd"));
        assert_eq!(content_hash(b"").len(), 32);
    }
}
