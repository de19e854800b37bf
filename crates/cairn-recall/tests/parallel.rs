//! Recall split between two threads gives exactly the hits of recall on one thread.
//!
//! In a file of its own, so that no other test's recall runs in this process at the same time (the
//! helper thread is used only by a recall that runs alone): block-max WAND over half the segments and
//! hits read ahead on the helper, against everything on the calling thread.

use cairn_core::{Audience, Chunk, Item, ItemKind, Scope};
use cairn_recall::{RecallIndex, RecallQuery, RecallSettings, Recaller};

const NOW: i64 = 1_700_000_000_000;
const DAY: i64 = 86_400_000;

/// A small linear congruential generator: the corpus is the same on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }

    /// Word `i` of a 400-word vocabulary, skewed towards the first words (long posting lists, many ties).
    fn word(&mut self) -> String {
        let (a, b) = (self.next(400), self.next(400));
        format!("w{}", a * b / 400)
    }
}

/// Document `i` and its one chunk.
fn item(i: usize, rng: &mut Lcg) -> (Item, Vec<Chunk>) {
    let words: Vec<String> = (0..12).map(|_| rng.word()).collect();
    cairn_test::item(format!("doc-{i}"))
        .project(if i.is_multiple_of(3) { "alpha" } else { "beta" })
        .kind(ItemKind::File)
        .title(words[..2].join(" "))
        .text(words.join(" "))
        .tags([format!("t{}", rng.next(20))])
        .audience(if i.is_multiple_of(5) { Audience::Private } else { Audience::Public })
        .file(format!("memory/{i}.md"), 1, 1)
        .created_at(NOW - (i as i64 % 400) * DAY)
        .observed_at(NOW)
        .with_chunk()
}

#[test]
fn recall_with_the_helper_thread_equals_recall_on_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    let index = RecallIndex::open_or_create(dir.path()).unwrap();
    let mut rng = Lcg(7);
    // 24,000 chunks (over the 20,000 from which the helper takes part) in four segments of unequal
    // sizes, so the two groups of segments differ.
    let bounds = [0, 9_000, 15_000, 20_000, 24_000];
    for part in 0..4 {
        let mut w = index.writer().unwrap();
        for i in bounds[part]..bounds[part + 1] {
            let (it, chunks) = item(i, &mut rng);
            w.upsert(&it, &chunks).unwrap();
        }
        w.commit(part as u64 + 1).unwrap();
    }
    let two = Recaller::new(&index, RecallSettings::default()).unwrap();
    let one = Recaller::new(&index, RecallSettings { parallel: false, ..RecallSettings::default() }).unwrap();
    let scopes = [Scope::owner(None), Scope::public_only(None), Scope::owner(Some("alpha".into()))];
    let jobs_before = cairn_core::helper::Helper::shared().jobs();
    for q in 0..90 {
        let words: Vec<String> = (0..2 + q % 4).map(|_| rng.word()).collect();
        let text = format!("{} t{}", words.join(" "), q % 20);
        let mut query = RecallQuery::new(text.clone(), scopes[q % 3].clone(), 25, NOW);
        query.recent_k = 5;
        let (a, b) = (two.recall(&query), one.recall(&query));
        assert!(!b.hits.is_empty(), "query {text:?} finds something");
        assert_eq!(a.hits, b.hits, "query {text:?} in {:?}", scopes[q % 3]);
        assert_eq!(a.recent, b.recent);
        assert_eq!(a.query_tags, b.query_tags);
    }
    // The helper did run: the comparison was not between two single-thread recalls.
    assert!(cairn_core::helper::Helper::shared().jobs() > jobs_before, "the helper ran no job");
}
