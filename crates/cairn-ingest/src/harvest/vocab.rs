//! The tag vocabulary a run infers tags with, and keeping inferred tags independent of harvest order.
//!
//! An item's tags are its explicit tags (frontmatter) plus the vocabulary's tags found in its title and
//! text, where the vocabulary is every explicit tag in the store (for a public item: every explicit tag
//! of a public item, so a private note's tag never reaches a shared audience). For the same files to
//! give the same store whatever the order or batching of the runs that harvested them, every run leaves
//! the store in that state for the vocabulary the store has *after* it:
//!
//! - the run predicts that vocabulary before writing anything ([`Vocabulary::before_and_after`]: the store's
//!   explicit tag counts, less the explicit tags of the items it replaces or deletes, plus those of the
//!   files it writes) and infers the tags of the files it writes against it;
//! - when it differs from the store's current one, the stored files the run does not write (unchanged,
//!   failed, outside the run's paths) are re-inferred against it ([`retag`]) *before* the run's own
//!   writes: re-tagging changes no explicit tag, so a run killed half-way is re-inferred in full by the
//!   next, whose vocabulary still differs;
//! - once written, the store's vocabulary is read again; should it differ from the prediction (a file
//!   changed or became unreadable between the two reads of a big run), every stored file is re-inferred.
//!
//! Re-inferred items are written again (same item, same chunks, new tags), so the ingest log carries
//! them and the full-text index and the graph catch up like for any other write.

use std::collections::{BTreeMap, BTreeSet};

use cairn_core::{Audience, Item};
use cairn_store::{Store, Write};

use crate::Result;
use crate::tags::TagMatcher;

/// The explicit tags of every item, and those of public items (what a public item may be tagged with).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Vocabulary {
    pub(super) all: BTreeSet<String>,
    pub(super) public: BTreeSet<String>,
}

type Counts = BTreeMap<String, i64>;

fn counts(v: Vec<(String, u64)>) -> Counts {
    v.into_iter().map(|(t, n)| (t, n as i64)).collect()
}

fn present(c: Counts) -> BTreeSet<String> {
    c.into_iter().filter(|(_, n)| *n > 0).map(|(t, _)| t).collect()
}

impl Vocabulary {
    /// The store's vocabulary as it is.
    pub(super) fn of_store(store: &dyn Store) -> Result<Self> {
        Ok(Self {
            all: store.tag_vocabulary()?.into_iter().map(|(t, _)| t).collect(),
            public: store.public_tag_vocabulary()?.into_iter().map(|(t, _)| t).collect(),
        })
    }

    /// The store's vocabulary now, and once the items `replaced` (rewritten or deleted by a run) have
    /// gone and the run's files (`written`: explicit tags and audience) have been stored.
    pub(super) fn before_and_after<'a>(
        store: &dyn Store,
        replaced: impl IntoIterator<Item = &'a str>,
        written: impl IntoIterator<Item = (&'a [String], Audience)>,
    ) -> Result<(Self, Self)> {
        let mut all = counts(store.tag_vocabulary()?);
        let mut public = counts(store.public_tag_vocabulary()?);
        let before = Self { all: all.keys().cloned().collect(), public: public.keys().cloned().collect() };
        for id in replaced {
            let explicit = store.explicit_tags(id)?;
            if explicit.is_empty() {
                continue;
            }
            let is_public = store.get_item(id)?.is_some_and(|i| i.audience == Audience::Public);
            for t in &explicit {
                *all.entry(t.clone()).or_default() -= 1;
                if is_public {
                    *public.entry(t.clone()).or_default() -= 1;
                }
            }
        }
        for (tags, audience) in written {
            for t in tags {
                *all.entry(t.clone()).or_default() += 1;
                if audience == Audience::Public {
                    *public.entry(t.clone()).or_default() += 1;
                }
            }
        }
        Ok((before, Self { all: present(all), public: present(public) }))
    }
}

/// Tag matchers over a [`Vocabulary`]: one per audience class.
pub(super) struct Matchers {
    all: TagMatcher,
    public: TagMatcher,
}

impl Matchers {
    pub(super) fn new(v: &Vocabulary) -> Self {
        Self { all: TagMatcher::new(&v.all), public: TagMatcher::new(&v.public) }
    }

    /// The vocabulary tags found in `item`'s title and text (public items: only public items' tags).
    pub(super) fn infer(&self, item: &Item) -> BTreeSet<String> {
        let m = if item.audience == Audience::Public { &self.public } else { &self.all };
        let mut found: BTreeSet<String> = m.find(&item.title).into_iter().collect();
        found.extend(m.find(&item.text));
        found
    }
}

/// Re-infers the tags of the stored items `ids` against `vocab` (only items of an audience class whose
/// vocabulary differs from `before`'s; every item when `before` is `None`) and writes those whose tags
/// change, `batch` per transaction (nothing when `dry_run`). Returns how many changed.
///
/// Each item's explicit tags are in `vocab` (it holds them), so the tags an item keeps are those of
/// `vocab`; only an item whose tags would change has its explicit tags read back, and its tags are
/// then exactly its explicit tags plus the inferred ones.
pub(super) fn retag<'a>(
    store: &mut dyn Store,
    ids: impl IntoIterator<Item = &'a str>,
    vocab: &Vocabulary,
    before: Option<&Vocabulary>,
    batch: usize,
    dry_run: bool,
) -> Result<usize> {
    let (private_changed, public_changed) =
        before.map_or((true, true), |b| (b.all != vocab.all, b.public != vocab.public));
    if !private_changed && !public_changed {
        return Ok(0);
    }
    let m = Matchers::new(vocab);
    let mut writes = Vec::new();
    let mut changed = 0;
    for id in ids {
        let Some(mut item) = store.get_item(id)? else { continue };
        let public = item.audience == Audience::Public;
        if !(if public { public_changed } else { private_changed }) {
            continue;
        }
        let holds = if public { &vocab.public } else { &vocab.all };
        let inferred = m.infer(&item);
        let old: BTreeSet<&String> = item.tags.iter().collect();
        let kept = item.tags.iter().filter(|t| holds.contains(*t));
        let new: BTreeSet<&String> = kept.chain(&inferred).collect();
        if new == old {
            continue;
        }
        let explicit = store.explicit_tags(id)?;
        let tags: BTreeSet<String> = explicit.iter().cloned().chain(inferred).collect();
        if tags.iter().eq(old.iter().copied()) {
            continue;
        }
        changed += 1;
        if dry_run {
            continue;
        }
        item.tags = tags.into_iter().collect();
        let chunks = store.chunks(id)?;
        writes.push(Write::Upsert { item, chunks, explicit_tags: explicit, file: None });
        if writes.len() >= batch.max(1) {
            store.apply(&writes, "harvest")?;
            writes.clear();
        }
    }
    if !writes.is_empty() {
        store.apply(&writes, "harvest")?;
    }
    Ok(changed)
}
