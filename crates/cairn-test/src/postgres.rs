//! A throw-away PostgreSQL server for tests: `initdb` into a temporary directory, `pg_ctl start` on a
//! Unix socket in that directory (no TCP port), one database per test, stopped when dropped.
//! [`tls_server`] also listens on a free TCP port of 127.0.0.1, accepting only TLS there.
//!
//! The server binaries are looked up on `PATH`, then in `/usr/lib/postgresql/<version>/bin` (Debian's
//! layout), newest version first. `initdb` refuses to run as root: a root process runs the server as
//! the system user `cairnpg` (created when missing) through `runuser`, and connects as the database
//! superuser `postgres` over the socket with `trust` authentication.
//!
//! `CAIRN_TEST_PG` decides what happens without binaries: `required` (set by CI) makes [`server`] panic,
//! `skip` skips even when binaries exist, and by default a test without binaries prints one `skipped:`
//! line and passes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// The environment variable that makes PostgreSQL tests required (`required`) or skipped (`skip`).
pub const REQUIRE_ENV: &str = "CAIRN_TEST_PG";

/// The system user a root process runs the server as.
const SERVER_USER: &str = "cairnpg";

/// The port number in the socket's name (`.s.PGSQL.<port>`) of a server that does not listen on TCP.
const PORT: u16 = 5432;

/// A running server in a temporary directory; stopped (and the directory removed) on drop.
#[derive(Debug)]
pub struct PgServer {
    bin: PathBuf,
    dir: tempfile::TempDir,
    as_user: Option<&'static str>,
    next_db: AtomicU32,
    /// The port: in the socket's name, and on 127.0.0.1 when `tls`.
    port: u16,
    tls: bool,
}

/// A server certificate and its key, PEM.
#[derive(Debug, Clone)]
pub struct ServerCert {
    /// The certificate (chain), PEM.
    pub cert_pem: String,
    /// Its private key, PEM.
    pub key_pem: String,
}

/// Starts a server for the test `test`, or returns `None` (after printing why) when PostgreSQL tests
/// are skipped. Panics when the server cannot start, and when binaries are missing while
/// `CAIRN_TEST_PG=required`.
pub fn server(test: &str) -> Option<PgServer> {
    server_with(test, None)
}

/// Like [`server`], and also listening on a free TCP port of 127.0.0.1 ([`PgServer::port`]) with TLS
/// (`cert`), where it refuses connections without TLS (`hostnossl` has no entry in `pg_hba.conf`).
pub fn tls_server(test: &str, cert: &ServerCert) -> Option<PgServer> {
    server_with(test, Some(cert))
}

fn server_with(test: &str, cert: Option<&ServerCert>) -> Option<PgServer> {
    let mode = std::env::var(REQUIRE_ENV).unwrap_or_default();
    if mode == "skip" {
        println!("skipped: {test}: {REQUIRE_ENV}=skip");
        return None;
    }
    let Some(bin) = find_bin_dir() else {
        assert!(
            mode != "required",
            "{test}: {REQUIRE_ENV}=required but no PostgreSQL server binaries (initdb, pg_ctl) were found \
             on PATH or in /usr/lib/postgresql/*/bin"
        );
        println!(
            "skipped: {test}: no PostgreSQL server binaries (initdb, pg_ctl) on PATH or in \
             /usr/lib/postgresql/*/bin; install PostgreSQL 15+ or set {REQUIRE_ENV}=required to fail instead"
        );
        return None;
    };
    Some(PgServer::start(bin, cert))
}

impl PgServer {
    fn start(bin: PathBuf, cert: Option<&ServerCert>) -> Self {
        let as_user = is_root().then(|| {
            ensure_user(SERVER_USER);
            SERVER_USER
        });
        let dir = tempfile::Builder::new().prefix("cairn-pg-").tempdir().expect("temporary directory");
        if let Some(user) = as_user {
            run(Command::new("chown").arg(format!("{user}:")).arg(dir.path()), "chown");
        }
        let port = match cert {
            Some(_) => std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("a free port on 127.0.0.1")
                .port(),
            None => PORT,
        };
        let server = PgServer { bin, dir, as_user, next_db: AtomicU32::new(0), port, tls: cert.is_some() };
        let data = server.data_dir();
        server.run_server_tool(
            "initdb",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-U".as_ref(),
                "postgres".as_ref(),
                "-A".as_ref(),
                "trust".as_ref(),
                "-E".as_ref(),
                "UTF8".as_ref(),
                "--locale=C".as_ref(),
                "--no-sync".as_ref(),
            ],
        );
        if let Some(cert) = cert {
            // Local connections as before; TCP only with TLS.
            server.write_server_file("server.crt", &cert.cert_pem);
            server.write_server_file("server.key", &cert.key_pem);
            server.write_server_file(
                "pg_hba.conf",
                "local all all trust\nhostssl all all 127.0.0.1/32 trust\n",
            );
        }
        server.pg_ctl_start();
        server
    }

    /// Writes `name` into the data directory, readable by the server's user only.
    fn write_server_file(&self, name: &str, content: &str) {
        use std::os::unix::fs::PermissionsExt as _;
        let path = self.data_dir().join(name);
        std::fs::write(&path, content).expect("writing a server file");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        if let Some(user) = self.as_user {
            run(Command::new("chown").arg(format!("{user}:")).arg(&path), "chown");
        }
    }

    /// The port the server listens on (on 127.0.0.1 for a [`tls_server`]; else only in the socket's
    /// name).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Starts the server on its data directory (waiting until it accepts connections).
    fn pg_ctl_start(&self) {
        let data = self.data_dir();
        let port = self.port;
        let options = match self.tls {
            true => format!(
                "-k {} -p {port} -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file=server.crt \
                 -c ssl_key_file=server.key -F",
                self.socket_dir().display()
            ),
            false => format!("-k {} -p {port} -c listen_addresses= -F", self.socket_dir().display()),
        };
        let log = self.dir.path().join("server.log");
        self.run_server_tool(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-l".as_ref(),
                log.as_os_str(),
                "-o".as_ref(),
                options.as_ref(),
                "-w".as_ref(),
                "-t".as_ref(),
                "60".as_ref(),
                "start".as_ref(),
            ],
        );
    }

    /// Stops the server at once, as a crash or a kill would (`pg_ctl stop -m immediate`): what was
    /// committed survives, connections are cut.
    pub fn kill(&self) {
        let data = self.data_dir();
        self.run_server_tool(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-m".as_ref(),
                "immediate".as_ref(),
                "-w".as_ref(),
                "stop".as_ref(),
            ],
        );
    }

    /// Starts the server again after [`PgServer::kill`] (it recovers from its log).
    pub fn restart(&self) {
        self.pg_ctl_start();
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The directory holding the server's socket.
    pub fn socket_dir(&self) -> &Path {
        self.dir.path()
    }

    /// Creates a new, empty database and returns its `postgres://` URL (the socket directory
    /// percent-encoded as the host).
    pub fn create_db(&self) -> String {
        let name = format!("cairn_{}", self.next_db.fetch_add(1, Ordering::Relaxed));
        self.run_client("createdb", &[&name]);
        self.url(&name)
    }

    /// The URL of database `name` on this server.
    pub fn url(&self, name: &str) -> String {
        let host: String = self
            .socket_dir()
            .to_str()
            .expect("UTF-8 temporary path")
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect();
        format!("postgres://postgres@{host}:{}/{name}", self.port)
    }

    /// Runs a client program of the server's installation (`createdb`, `psql`) against it as `postgres`.
    pub fn run_client(&self, tool: &str, args: &[&str]) -> String {
        let mut cmd = Command::new(self.bin.join(tool));
        cmd.arg("-h").arg(self.socket_dir()).arg("-p").arg(self.port.to_string()).arg("-U").arg("postgres");
        cmd.args(args);
        run(&mut cmd, tool)
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    fn run_server_tool(&self, tool: &str, args: &[&std::ffi::OsStr]) -> String {
        let mut cmd = match self.as_user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(self.bin.join(tool));
                c
            }
            None => Command::new(self.bin.join(tool)),
        };
        cmd.args(args);
        // The server inherits no test-harness pipes: `pg_ctl start` would otherwise keep them open.
        cmd.stdin(std::process::Stdio::null());
        let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {tool}: {e}"));
        assert!(
            out.status.success(),
            "{tool} failed ({}): {}{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            self.log()
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let data = self.data_dir();
        let mut cmd = match self.as_user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(self.bin.join("pg_ctl"));
                c
            }
            None => Command::new(self.bin.join("pg_ctl")),
        };
        let _ = cmd
            .arg("-D")
            .arg(&data)
            .args(["-m", "immediate", "-w", "stop"])
            .stdin(std::process::Stdio::null())
            .output();
    }
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false)
}

/// Creates the system user `user` unless it exists (another test may be creating it at the same time).
fn ensure_user(user: &str) {
    let exists = || Command::new("id").arg("-u").arg(user).output().is_ok_and(|o| o.status.success());
    if exists() {
        return;
    }
    let _ = Command::new("useradd")
        .args(["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user])
        .output();
    assert!(exists(), "cannot create the system user `{user}` to run PostgreSQL (initdb refuses root)");
}

/// The directory holding `initdb` and `pg_ctl`: on `PATH`, else Debian's newest
/// `/usr/lib/postgresql/<version>/bin`.
fn find_bin_dir() -> Option<PathBuf> {
    let has_tools = |d: &Path| ["initdb", "pg_ctl", "createdb"].iter().all(|t| d.join(t).is_file());
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .find(|d| d.join("initdb").is_file())
        // Resolve symlinks (`/usr/local/bin/initdb` → the installation's bin directory) so that the
        // client programs come from the same installation.
        .and_then(|d| {
            std::fs::canonicalize(d.join("initdb")).ok().and_then(|p| p.parent().map(Path::to_owned))
        })
        .filter(|d| has_tools(d));
    if on_path.is_some() {
        return on_path;
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, d)| has_tools(d))
        .collect();
    versions.sort();
    versions.pop().map(|(_, d)| d)
}
