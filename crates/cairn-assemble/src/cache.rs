use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_128;

use cairn_tokens::{Encoding, Tokenizer};

/// Memoised token counts of rendered pieces (entry headers, L0/L1/L2 texts, block headers),
/// reusable across assemblies.
///
/// Counting with a real BPE dominates assembly time, and the same chunks recur from query to
/// query. A count is a pure function of the string and the encoding; the cache keys it by the
/// string's 128-bit XXH3 hash, so an entry is 32 bytes in the table and needs no allocation, and
/// starting over frees nothing. Two strings sharing a 128-bit hash would share a count: by chance that needs
/// about 2^64 strings, and even then the assembler's final recount of the whole block (on unless
/// `verify` is turned off) keeps the budget. So the cache never changes output:
/// [`assemble_with`](crate::assemble_with) gives byte-identical results with a cold, warm or
/// shared cache. It holds at most `capacity` strings per encoding and starts over when full.
/// Keep one per process (behind a mutex when shared between threads).
#[derive(Debug, Clone)]
pub struct CountCache {
    maps: [FxHashMap<u128, u32>; 2],
    capacity: usize,
}

impl Default for CountCache {
    fn default() -> Self {
        Self::new(Self::DEFAULT_CAPACITY)
    }
}

impl CountCache {
    /// Strings kept per encoding by [`CountCache::default`] (a 4 MB table each when full).
    pub const DEFAULT_CAPACITY: usize = 65_536;

    /// A cache holding at most `capacity` strings per encoding (0 disables it).
    pub fn new(capacity: usize) -> Self {
        Self { maps: [FxHashMap::default(), FxHashMap::default()], capacity }
    }

    /// Number of cached strings, all encodings.
    pub fn len(&self) -> usize {
        self.maps.iter().map(FxHashMap::len).sum()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.maps.iter_mut().for_each(FxHashMap::clear);
    }

    /// Tokens of `s` under `tok`, from the cache when seen before.
    pub(crate) fn count(&mut self, tok: Tokenizer, s: &str) -> usize {
        if self.capacity == 0 || s.len() > 16 * 1024 {
            return tok.count(s);
        }
        let map = &mut self.maps[match tok.encoding() {
            Encoding::O200k => 0,
            Encoding::Cl100k => 1,
        }];
        let key = xxh3_128(s.as_bytes());
        if let Some(&n) = map.get(&key) {
            return n as usize;
        }
        let n = tok.count(s);
        // A count that does not fit the entry is not cached (no string under 16 KiB comes near).
        let Ok(small) = u32::try_from(n) else { return n };
        if map.len() >= self.capacity {
            map.clear();
        }
        map.insert(key, small);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_the_tokenizers_per_encoding_across_start_overs() {
        let o200k = Tokenizer::new(Encoding::O200k);
        let cl100k = Tokenizer::new(Encoding::Cl100k);
        // Strings whose counts differ between the two encodings, so a shared entry would show.
        let texts: Vec<String> = (0..40)
            .map(|i| format!("{}{i} 東京の天気 — naïve café ", "    indented\tcode();\n".repeat(i % 5)))
            .collect();
        assert!(texts.iter().any(|t| o200k.count(t) != cl100k.count(t)));
        let mut cache = CountCache::new(7);
        for round in 0..3 {
            for t in &texts {
                for tok in [o200k, cl100k] {
                    assert_eq!(cache.count(tok, t), tok.count(t), "round {round}: {t:?}");
                }
                assert!(cache.maps.iter().all(|m| m.len() <= 7), "a map outgrew its capacity");
            }
        }
        assert!(!cache.is_empty());
        cache.clear();
        assert!(cache.is_empty());
    }

    #[test]
    fn long_strings_and_a_disabled_cache_are_counted_but_not_kept() {
        let tok = Tokenizer::new(Encoding::Cl100k);
        let long = "word ".repeat(4 * 1024);
        let mut cache = CountCache::default();
        assert_eq!(cache.count(tok, &long), tok.count(&long));
        assert!(cache.is_empty());
        let mut off = CountCache::new(0);
        assert_eq!(off.count(tok, "hello world"), 2);
        assert!(off.is_empty());
    }
}
