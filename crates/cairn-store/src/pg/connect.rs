//! Reaching the server: the URL as the `postgres` client reads it, plus the two TLS settings libpq users
//! write in it.
//!
//! - `sslmode=require` (or libpq's `verify-ca` and `verify-full`, read as `require`): the connection is
//!   TLS, and the server's certificate must chain to a trusted root and name the host the URL names.
//!   rustls always checks both; there is no "encrypted but unchecked" mode, which would let anyone on
//!   the path read the memory anyway.
//! - `sslrootcert=PATH`: the roots to trust, a PEM file (the server's own CA). Without it, the system's
//!   roots.
//! - Otherwise (`prefer`, the default, or `disable`): no TLS, as over a Unix socket or a private
//!   network. `cairn doctor` warns about a server reached over the network without it.
//!
//! The `postgres` client knows neither `sslrootcert` nor the `verify-*` modes, so they are taken out of
//! the URL (in both its `postgres://` and its key=value form) before it reads the rest.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use postgres::config::{Host, SslMode};
use postgres::{Client, NoTls};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{label_of, redact};
use crate::{Error, Result};

/// How a connection reaches the server, for `cairn doctor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// A Unix socket on this host.
    Socket,
    /// TLS, the server's certificate checked.
    Tls,
    /// TCP to this host (`localhost`, `127.0.0.1`, `::1`), not encrypted.
    Loopback,
    /// TCP to another host, not encrypted: passwords and memory cross the network in clear.
    Plain,
}

impl Transport {
    /// How it reads in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Socket => "Unix socket",
            Transport::Tls => "TLS",
            Transport::Loopback => "loopback TCP, not encrypted",
            Transport::Plain => "TCP, not encrypted",
        }
    }
}

/// A parsed URL: what to connect to, and how.
pub(crate) struct Server {
    pub(crate) config: postgres::Config,
    tls: Option<MakeRustlsConnect>,
    pub(crate) label: String,
}

impl Server {
    /// Reads `url` (see [the module](self)); a bad URL or an unreadable root file is `BadUrl`.
    pub(crate) fn parse(url: &str) -> Result<Server> {
        let bad = |reason: String| Error::BadUrl { url: redact(url), reason };
        let (rest, rootcert) = take_tls_params(url).map_err(bad)?;
        let config: postgres::Config = rest
            .parse()
            .map_err(|e: postgres::Error| Error::BadUrl { url: redact(url), reason: e.to_string() })?;
        let tls = match config.get_ssl_mode() {
            SslMode::Require => {
                Some(MakeRustlsConnect::new(client_config(rootcert.as_deref()).map_err(bad)?))
            }
            _ if rootcert.is_some() => {
                return Err(bad(
                    "`sslrootcert` is given but `sslmode` is not `require`: add `sslmode=require`".into(),
                ));
            }
            _ => None,
        };
        let label = label_of(&config);
        Ok(Server { config, tls, label })
    }

    /// A new connection.
    pub(crate) fn connect(&self) -> Result<Client> {
        let connected = match &self.tls {
            Some(tls) => self.config.connect(tls.clone()),
            None => self.config.connect(NoTls),
        };
        connected.map_err(|source| Error::Connect { url: self.label.clone(), source })
    }

    /// How connections reach the server.
    pub(crate) fn transport(&self) -> Transport {
        if self.tls.is_some() {
            return Transport::Tls;
        }
        match self.config.get_hosts().first() {
            Some(Host::Unix(_)) => Transport::Socket,
            Some(Host::Tcp(h)) if !matches!(h.as_str(), "localhost" | "127.0.0.1" | "::1") => {
                Transport::Plain
            }
            // No host: the client's default, a local socket or localhost.
            _ => Transport::Loopback,
        }
    }
}

/// The roots `rootcert` names, else the system's, for a client that checks the server.
fn client_config(rootcert: Option<&Path>) -> std::result::Result<rustls::ClientConfig, String> {
    let mut roots = rustls::RootCertStore::empty();
    match rootcert {
        Some(path) => {
            let shown = path.display();
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                .map_err(|e| format!("cannot read `sslrootcert` `{shown}`: {e}"))?
                .collect::<std::result::Result<_, _>>()
                .map_err(|e| format!("`sslrootcert` `{shown}` is not PEM certificates: {e}"))?;
            if certs.is_empty() {
                return Err(format!("`sslrootcert` `{shown}` holds no certificate"));
            }
            for cert in certs {
                roots.add(cert).map_err(|e| format!("`sslrootcert` `{shown}`: {e}"))?;
            }
        }
        None => {
            for cert in rustls_native_certs::load_native_certs().certs {
                let _ = roots.add(cert);
            }
            if roots.is_empty() {
                return Err("no trusted root certificates on this system: name the server's CA with \
                            `sslrootcert=PATH`"
                    .into());
            }
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// `url` without `sslrootcert` (returned as a path) and with a `verify-*` `sslmode` read as `require`.
fn take_tls_params(url: &str) -> std::result::Result<(String, Option<PathBuf>), String> {
    let mut rootcert = None;
    let mut keep = |key: &str, value: String| -> Option<String> {
        match (key, value.as_str()) {
            ("sslrootcert", _) => {
                rootcert = Some(PathBuf::from(value));
                None
            }
            ("sslmode", "verify-ca" | "verify-full") => Some("require".to_owned()),
            _ => Some(value),
        }
    };
    if let Some((head, query)) = url.split_once('?').filter(|_| url.contains("://")) {
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let decoded = percent_encoding::percent_decode_str(value)
                .decode_utf8()
                .map_err(|_| format!("the value of `{key}` is not UTF-8"))?
                .into_owned();
            match keep(key, decoded) {
                Some(v) if key == "sslmode" => kept.push(format!("{key}={v}")),
                Some(_) => kept.push(pair.to_owned()),
                None => {}
            }
        }
        let rest = if kept.is_empty() { head.to_owned() } else { format!("{head}?{}", kept.join("&")) };
        return Ok((rest, rootcert));
    }
    if url.contains("://") {
        return Ok((url.to_owned(), None));
    }
    let mut kept = Vec::new();
    for (key, value) in key_values(url)? {
        if let Some(v) = keep(&key, value) {
            kept.push(format!("{key}='{}'", v.replace('\\', "\\\\").replace('\'', "\\'")));
        }
    }
    Ok((kept.join(" "), rootcert))
}

/// The pairs of a key=value connection string (`host=/run/postgresql dbname='my db'`), values unquoted.
fn key_values(s: &str) -> std::result::Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return Ok(out);
        }
        let mut key = String::new();
        while let Some(c) = chars.next_if(|c| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.next() != Some('=') {
            return Err(format!("`{key}` has no `=` value"));
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        if chars.next_if_eq(&'\'').is_some() {
            loop {
                match chars.next() {
                    Some('\'') => break,
                    Some('\\') => value.extend(chars.next()),
                    Some(c) => value.push(c),
                    None => return Err(format!("the value of `{key}` has no closing quote")),
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                if c == '\\' {
                    value.extend(chars.next());
                } else {
                    value.push(c);
                }
            }
        }
        out.push((key, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_params_are_taken_out_of_both_url_forms() {
        let (rest, root) = take_tls_params(
            "postgres://u:p@db:5432/x?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&connect_timeout=5",
        )
        .unwrap();
        assert_eq!(rest, "postgres://u:p@db:5432/x?sslmode=require&connect_timeout=5");
        assert_eq!(root, Some(PathBuf::from("/etc/ca.pem")));
        let (rest, root) = take_tls_params("postgres://db/x?sslrootcert=/ca.pem").unwrap();
        assert_eq!((rest.as_str(), root), ("postgres://db/x", Some(PathBuf::from("/ca.pem"))));
        let (rest, root) = take_tls_params("postgres://db/x").unwrap();
        assert_eq!((rest.as_str(), root), ("postgres://db/x", None));

        let (rest, root) =
            take_tls_params("host=db dbname = 'my db' sslmode=verify-ca sslrootcert='/a b/ca.pem'").unwrap();
        assert_eq!(rest, "host='db' dbname='my db' sslmode='require'");
        assert_eq!(root, Some(PathBuf::from("/a b/ca.pem")));
        let parsed: postgres::Config = rest.parse().unwrap();
        assert_eq!(parsed.get_dbname(), Some("my db"));
        assert_eq!(parsed.get_ssl_mode(), SslMode::Require);
        assert!(take_tls_params("host=db dbname='open").is_err());
        assert!(take_tls_params("host").is_err());
    }

    #[test]
    fn transport_names_what_crosses_the_network_in_clear() {
        let t = |url: &str| Server::parse(url).unwrap().transport();
        assert_eq!(t("host=/run/postgresql dbname=x"), Transport::Socket);
        assert_eq!(t("postgres://u@localhost/x"), Transport::Loopback);
        assert_eq!(t("postgres://u@db.example/x"), Transport::Plain);
        assert_eq!(t("postgres://u@db.example/x?sslmode=disable"), Transport::Plain);
        let e = Server::parse("postgres://u:secret@db/x?sslrootcert=/nonexistent.pem").err().unwrap();
        assert!(e.to_string().contains("sslmode"), "{e}");
        assert!(!e.to_string().contains("secret"), "{e}");
        let e =
            Server::parse("postgres://u@db/x?sslmode=require&sslrootcert=/nonexistent.pem").err().unwrap();
        assert!(e.to_string().contains("/nonexistent.pem"), "{e}");
    }
}
