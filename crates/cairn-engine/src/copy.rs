//! Moving a memory from one store to another (a single-host SQLite file onto a shared PostgreSQL
//! store, or back): [`Engine::copy_store_to`] exports this store, imports the export into an empty
//! target, exports the target again and checks that both exports have the same counts and the same
//! bytes. The original is only read; derived parts (the index, vectors, the graph's extracted rows)
//! are rebuilt on the target's side.

use std::io::{BufReader, Seek, Write};
use std::path::Path;

use cairn_store::Store;
use serde::Serialize;

use crate::open::Engine;
use crate::{Error, PortableReport, Result};

/// What [`Engine::copy_store_to`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CopyReport {
    /// Records copied, per kind (`unchanged` is 0: the target was empty).
    pub copied: PortableReport,
    /// BLAKE3 of the export, hex: the original's and the copy's are the same.
    pub hash: String,
    /// Bytes in the export.
    pub bytes: u64,
}

/// A writer that hashes and counts what goes through it.
struct Hashing<W> {
    inner: W,
    hasher: blake3::Hasher,
    bytes: u64,
}

impl<W: Write> Hashing<W> {
    fn new(inner: W) -> Self {
        Self { inner, hasher: blake3::Hasher::new(), bytes: 0 }
    }

    fn finish(self) -> (W, String, u64) {
        (self.inner, self.hasher.finalize().to_hex().to_string(), self.bytes)
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl Engine {
    /// Copies this store into `target`, whose store must be empty, and verifies the copy (see [the
    /// module](self)). `scratch` is a directory for the export in between (deleted afterwards). A copy
    /// that does not read back as the original is an error, and the copy is left for inspection.
    pub fn copy_store_to(&self, target: &Engine, scratch: &Path) -> Result<CopyReport> {
        self.store_exists()?;
        {
            let writer = target.writer()?;
            let seq = writer.last_seq()?;
            let items = writer.status()?.items;
            if seq > 0 || items > 0 {
                return Err(Error::BadInput(format!(
                    "the target store is not empty ({items} items, log at {seq}); copy into a new one"
                )));
            }
        }
        let file = tempfile::tempfile_in(scratch)
            .map_err(|e| Error::Unavailable(format!("a scratch file in `{}`: {e}", scratch.display())))?;
        let mut out = Hashing::new(std::io::BufWriter::new(file));
        let exported = self.export_store(&mut out)?;
        let (buffered, hash, bytes) = out.finish();
        let mut file = buffered
            .into_inner()
            .map_err(|e| Error::Unavailable(format!("writing the scratch export: {}", e.error())))?;
        file.rewind().map_err(|e| Error::Unavailable(format!("reading the scratch export: {e}")))?;
        let imported = target.import_store(&mut BufReader::new(file), "the export of the original")?;
        let mut check = Hashing::new(std::io::sink());
        let reexported = target.export_store(&mut check)?;
        let (_, copy_hash, copy_bytes) = check.finish();
        let counts = |r: &PortableReport| (r.items, r.turns, r.links, r.session_states, r.subagents);
        if counts(&exported) != counts(&imported) || counts(&exported) != counts(&reexported) {
            return Err(Error::Unavailable(format!(
                "the copy does not match the original: exported {:?}, imported {:?}, read back {:?} \
                 (items, turns, links, session states, sub-agent spawns)",
                counts(&exported),
                counts(&imported),
                counts(&reexported)
            )));
        }
        if (&copy_hash, copy_bytes) != (&hash, bytes) {
            return Err(Error::Unavailable(format!(
                "the copy does not read back as the original: its export hashes to {copy_hash} \
                 ({copy_bytes} bytes), the original's to {hash} ({bytes} bytes)"
            )));
        }
        Ok(CopyReport { copied: imported, hash, bytes })
    }
}
