//! The private overlay: a routing config directory whose words and pack text must not appear in a
//! public tree. Loaded with the router's own loader, so it is validated exactly as `cairn` would use it.

use std::path::{Path, PathBuf};

use cairn_route::{RouteConfig, Vocabulary};

use crate::error::{Error, Result};

/// A loaded private overlay: its directory and its [`Vocabulary`].
#[derive(Debug, Clone)]
pub struct Overlay {
    dir: PathBuf,
    vocabulary: Vocabulary,
}

impl Overlay {
    /// Loads the routing config in `dir` (`intent_rules`, `consumer_profiles`, `pack_registry`,
    /// packs, optional `sessions`); its errors name the file and line.
    pub fn load(dir: impl AsRef<Path>) -> Result<Overlay> {
        let dir = dir.as_ref();
        let config = RouteConfig::load(dir)?;
        let dir = dir.canonicalize().map_err(|source| Error::Io { path: dir.to_owned(), source })?;
        Ok(Overlay { dir, vocabulary: config.vocabulary() })
    }

    /// An overlay from a vocabulary (tests, or a caller that loaded the config itself); `dir` is
    /// where its files are, so that they are recognised when the audited tree contains them.
    pub fn from_vocabulary(dir: impl Into<PathBuf>, vocabulary: Vocabulary) -> Overlay {
        Overlay { dir: dir.into(), vocabulary }
    }

    /// The overlay's directory (canonical when loaded).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Its intents, keywords, profiles, owner ids and packs.
    pub fn vocabulary(&self) -> &Vocabulary {
        &self.vocabulary
    }
}
