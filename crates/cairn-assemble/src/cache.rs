use rustc_hash::FxHashMap;

use cairn_tokens::{Encoding, Tokenizer};

/// Memoised token counts of rendered pieces (entry headers, L0/L1/L2 texts, block headers),
/// reusable across assemblies.
///
/// Counting with a real BPE dominates assembly time, and the same chunks recur from query to
/// query. A count is a pure function of the string and the encoding, so the cache never changes
/// output: [`assemble_with`](crate::assemble_with) gives byte-identical results with a cold,
/// warm or shared cache. It holds at most `capacity` strings per encoding and starts over when
/// full. Keep one per process (behind a mutex when shared between threads).
#[derive(Debug, Clone)]
pub struct CountCache {
    maps: [FxHashMap<String, usize>; 2],
    capacity: usize,
}

impl Default for CountCache {
    fn default() -> Self {
        Self::new(Self::DEFAULT_CAPACITY)
    }
}

impl CountCache {
    /// Strings kept per encoding by [`CountCache::default`].
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
        if let Some(&n) = map.get(s) {
            return n;
        }
        let n = tok.count(s);
        if map.len() >= self.capacity {
            map.clear();
        }
        map.insert(s.to_owned(), n);
        n
    }
}
