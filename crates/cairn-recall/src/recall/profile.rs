//! The asker's profile: what the user wrote about themselves for the assistant (OpenClaw's `USER.md`:
//! what to call them, which units, how blunt to be; [`RecallSettings::profile_files`]).
//!
//! Two rules follow from what such a file is for:
//!
//! - **It is about the asker.** A prompt about anything else ("what time zone is Tokyo in?") may share
//!   words with its instructions ("say which time zone when it matters") but asks nothing of it: its
//!   chunks are candidates only for a prompt about the asker ("what's *my* time zone?", `personal.rs`)
//!   or addressed to the assistant about them (below).
//! - **It answers how the assistant should treat the asker**, in whatever words: "what nickname should
//!   *you* use for *me*?", "how direct should *you* be about *my* lesson plans?", "which units should
//!   *you* use when telling *me* the temperature?" rarely share a word with "Call me Tam" or "Celsius
//!   first". A prompt holding a word addressed to the assistant (`you`, `your`) and one for the asker
//!   (`I`, `me`, `my`), not a request ("can you tell me a joke?"), finds the profile chunks in scope
//!   with a `profile` part of [`PROFILE`]: relevant, modestly (a block of a few entries, see
//!   `context.modest_relevance`), and ahead of what only shares a word with the prompt.
//!
//! In a shared audience (a group chat) the asker is anyone in it, not the owner the files are about:
//! there they are no candidates, whatever their own audience (their bootstrap leaves them out too).
//! English only, like the other forms. A session whose host bootstraps the file whole does not get it
//! again in its turns (the engine leaves it out).
//!
//! [`RecallSettings::profile_files`]: super::RecallSettings::profile_files

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocId, DocSet as _, Searcher, SegmentReader, TERMINATED, Term};

use cairn_core::Hit;

use super::lanes::{Found, SegmentScope};
use super::personal::{opens_a_request, words};
use super::{RecallQuery, Recaller};
use crate::error::{Error, Result};

/// The `profile` part of a profile chunk for a prompt about the asker's treatment: above the
/// ordinary floor, below `context.modest_relevance`.
pub(super) const PROFILE: f32 = 0.6;

/// What the `profile` part adds to a profile chunk's fused score: as much as a lane that found it
/// first, so that a note sharing one word with the prompt does not rank ahead of it, while one that
/// answers in words and meaning too still can.
pub(super) const PROFILE_WEIGHT: f32 = 1.0;

/// The part's name in a hit's `parts` and in the receipt.
pub const PROFILE_PART: &str = "profile";

/// Words that address the assistant.
const ADDRESSED: &[&str] = &["you", "you'd", "you'll", "you're", "you've", "your", "yours", "yourself"];

/// Words for the asker.
const ASKER: &[&str] = &["i", "i'd", "i'll", "i'm", "i've", "me", "mine", "my", "myself"];

/// Whether `text` asks the assistant about the asker (see the module docs): a word addressed to the
/// assistant and one for the asker, not a request.
pub(crate) fn addressed_about_the_asker(text: &str) -> bool {
    let lower = text.to_lowercase().replace('\u{2019}', "'");
    let words = words(&lower);
    if opens_a_request(&words) {
        return false;
    }
    words.iter().any(|w| ADDRESSED.contains(w)) && words.iter().any(|w| ASKER.contains(w))
}

/// How a prompt stands to the profile files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stance {
    /// Not about the asker: the profile chunks are no candidates.
    Elsewhere,
    /// About the asker: the profile chunks compete like any other.
    About,
    /// Asks how the assistant should treat the asker: the profile chunks are relevant.
    Treatment,
}

impl Stance {
    /// The stance of `text`, which asks about the asker when `personal` (`personal.rs`).
    pub(super) fn of(text: &str, personal: bool) -> Stance {
        if addressed_about_the_asker(text) {
            Stance::Treatment
        } else if personal {
            Stance::About
        } else {
            Stance::Elsewhere
        }
    }
}

/// Leaves out of the recent list the chunks of the files the asker's host injects whole
/// ([`RecallQuery::bootstrapped`]); the profile step left them out of the candidates.
pub(super) fn without_bootstrapped(q: &RecallQuery, recent: &mut Vec<Hit>) {
    if !q.bootstrapped.is_empty() {
        recent.retain(|h| h.provenance.file_path().is_none_or(|p| !q.bootstrapped.iter().any(|b| b == p)));
    }
}

/// The chunks of one memory file in an index generation, deleted ones left out, whatever their scope.
pub(super) type FileChunks = HashSet<DocAddress>;

impl Recaller {
    /// Applies the two rules of the module docs to what the lanes found, and leaves out the files the
    /// asker's host injects whole ([`RecallQuery::bootstrapped`]). The lanes' candidates are in scope
    /// already: leaving some out needs no scope check, adding the profile's does.
    /// `personal`: the query asks about the asker (`personal.rs`).
    pub(super) fn profile_step(
        &self,
        searcher: &Searcher,
        q: &RecallQuery,
        found: &mut Found,
        personal: bool,
    ) {
        // In a shared audience the asker is anyone in it, not the owner the files are about.
        let stance = if q.scope.allow_private { Stance::of(&q.text, personal) } else { Stance::Elsewhere };
        let profile = match stance {
            Stance::About => &[][..],
            _ => &self.settings.profile_files[..],
        };
        let (bootstrapped, profile): (Vec<&String>, Vec<&String>) = (
            q.bootstrapped.iter().collect(),
            profile.iter().filter(|p| !q.bootstrapped.contains(p)).collect(),
        );
        let leave_out =
            if stance == Stance::Treatment { bootstrapped } else { [bootstrapped, profile.clone()].concat() };
        for path in leave_out {
            match self.file_chunks(searcher, path) {
                Ok(chunks) if !chunks.is_empty() => found.cands.retain(|a, _| !chunks.contains(a)),
                Ok(_) => {}
                Err(e) => found.warnings.push(format!("finding the chunks of `{path}` failed: {e}")),
            }
        }
        if stance != Stance::Treatment {
            return;
        }
        for path in profile {
            match self.file_chunks(searcher, path).and_then(|chunks| in_scope(searcher, q, &chunks)) {
                Ok(chunks) => {
                    for a in chunks {
                        found.cands.entry(a).or_default().profile = true;
                    }
                }
                Err(e) => found.warnings.push(format!("finding the chunks of `{path}` failed: {e}")),
            }
        }
    }

    /// The chunks of the memory file at `path` (workspace-relative) in this index generation, read
    /// once per generation: a term lookup per segment, then a set lookup per candidate.
    fn file_chunks(&self, searcher: &Searcher, path: &str) -> Result<Arc<FileChunks>> {
        let generation = searcher.generation().generation_id();
        {
            let cache = self.file_chunks.lock().unwrap_or_else(|e| e.into_inner());
            if cache.0 == generation
                && let Some(chunks) = cache.1.get(path)
            {
                return Ok(Arc::clone(chunks));
            }
        }
        let term = Term::from_field_text(self.index.fields.item_id, &cairn_core::memory_file_id(path));
        let mut chunks = HashSet::new();
        for (ord, reader) in searcher.segment_readers().iter().enumerate() {
            for doc in docs_of(reader, &term).map_err(Error::engine("read the index"))? {
                if !reader.is_deleted(doc) {
                    chunks.insert(DocAddress::new(ord as u32, doc));
                }
            }
        }
        let chunks = Arc::new(chunks);
        let mut cache = self.file_chunks.lock().unwrap_or_else(|e| e.into_inner());
        if cache.0 != generation {
            *cache = (generation, HashMap::new());
        }
        cache.1.insert(path.to_owned(), Arc::clone(&chunks));
        Ok(chunks)
    }
}

/// Those of `chunks` in the query's scope.
fn in_scope(searcher: &Searcher, q: &RecallQuery, chunks: &FileChunks) -> Result<Vec<DocAddress>> {
    let mut out = Vec::new();
    for (ord, reader) in searcher.segment_readers().iter().enumerate() {
        let mut docs: Vec<DocId> =
            chunks.iter().filter(|a| a.segment_ord as usize == ord).map(|a| a.doc_id).collect();
        if docs.is_empty() {
            continue;
        }
        let seg = SegmentScope::new(reader, &q.scope)?;
        docs.sort_unstable();
        out.extend(docs.into_iter().filter(|&d| seg.in_scope(d)).map(|d| DocAddress::new(ord as u32, d)));
    }
    Ok(out)
}

/// The documents of one segment holding `term`, deleted ones included.
fn docs_of(reader: &SegmentReader, term: &Term) -> tantivy::Result<Vec<DocId>> {
    let mut docs = Vec::new();
    let inverted = reader.inverted_index(term.field())?;
    if let Some(mut postings) = inverted.read_postings(term, IndexRecordOption::Basic)? {
        let mut doc = postings.doc();
        while doc != TERMINATED {
            docs.push(doc);
            doc = postings.advance();
        }
    }
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use super::super::personal::about_the_asker;
    use super::{Stance, addressed_about_the_asker};

    #[test]
    fn prompts_that_ask_how_to_treat_the_asker() {
        for q in [
            "What nickname should you use for me?",
            "What name do I prefer you to use for me?",
            "How direct should you be when critiquing my teaching materials?",
            "Which units should you use when telling me how hot it is?",
            "You should call me Tam from now on, right?",
            "Do you remember what I said about the boiler?",
        ] {
            assert!(addressed_about_the_asker(q), "{q}");
            assert_eq!(Stance::of(q, about_the_asker(q)), Stance::Treatment, "{q}");
        }
    }

    #[test]
    fn requests_and_prompts_without_both_are_not() {
        for q in [
            "Can you tell me a joke?",
            "Tell me what you know about black holes.",
            "Please remind me what you said.",
            "What do you know about black holes?",
            "What's my time zone?",
            "What time zone is Tokyo in?",
            "",
        ] {
            assert!(!addressed_about_the_asker(q), "{q}");
        }
        assert_eq!(
            Stance::of("What's my time zone?", about_the_asker("What's my time zone?")),
            Stance::About
        );
        assert_eq!(
            Stance::of("What time zone is Tokyo in?", about_the_asker("What time zone is Tokyo in?")),
            Stance::Elsewhere
        );
        assert_eq!(
            Stance::of("Can you tell me a joke?", about_the_asker("Can you tell me a joke?")),
            Stance::Elsewhere
        );
    }
}
