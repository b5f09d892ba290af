//! A throwaway PostgreSQL server for the tests: a cluster made with Debian's `initdb` in a
//! temporary folder, listening on a free loopback port (and a unix socket in the same
//! folder), with one database, stopped and removed when dropped. [`Postgres::stop`] and
//! [`Postgres::start_again`] take it down and bring it back mid-test, for the fault tests.
//!
//! PostgreSQL refuses to run as root: as root (CI), the cluster belongs to `nobody` and every
//! server program runs through `runuser -u nobody`; as anyone else, as that user.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The database every test server holds.
pub const DATABASE: &str = "ventas";
/// The superuser the cluster is made with (trust authentication on loopback only).
pub const USER: &str = "postgres";
/// The unprivileged account the server runs as when the tests run as root.
const RUN_AS: &str = "nobody";
const NOBODY_UID: u32 = 65534;

/// A running throwaway PostgreSQL server.
pub struct Postgres {
    /// Holds the cluster; removed on drop, after the server stops.
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    as_root: bool,
    /// Every commit flushed to disk (`fsync` on), as a production server runs; the tests run
    /// without it.
    durable: bool,
}

impl Postgres {
    /// Makes a cluster, starts it and creates [`DATABASE`].
    pub fn start() -> Result<Postgres> {
        Postgres::start_with(None, false)
    }

    /// [`Postgres::start`] with PostgreSQL's own durability (`fsync` and `synchronous_commit`
    /// on, its defaults): what a benchmark compares with a journal that fsyncs.
    pub fn start_durable() -> Result<Postgres> {
        Postgres::start_with(None, true)
    }

    /// [`Postgres::start`] with TLS: the server presents `cert_pem` (its key `key_pem`), and
    /// its `pg_hba.conf` refuses every TCP connection that is not TLS.
    pub fn start_tls(cert_pem: &str, key_pem: &str) -> Result<Postgres> {
        Postgres::start_with(Some((cert_pem, key_pem)), false)
    }

    fn start_with(tls: Option<(&str, &str)>, durable: bool) -> Result<Postgres> {
        let bin = bin_dir()?;
        let dir = tempfile::Builder::new().prefix("pg-prueba-").tempdir().context("temp dir")?;
        // The effective uid of this process is the owner of its /proc entry.
        let as_root = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self")?) == 0;
        if as_root {
            // The server's own account must own its folder.
            std::os::unix::fs::chown(dir.path(), Some(NOBODY_UID), None).context("chown of the cluster folder")?;
        }
        let port = free_port()?;
        let server = Postgres { dir, bin, port, as_root, durable };
        let data = server.data_dir();
        server.run(
            "initdb",
            &[
                "-D",
                path_str(&data)?,
                "-U",
                USER,
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
                "--no-instructions",
            ],
        )?;
        if let Some((cert_pem, key_pem)) = tls {
            server.serve_tls_only(cert_pem, key_pem)?;
        }
        server.start_again()?;
        server.run("createdb", &["-h", "127.0.0.1", "-p", &port.to_string(), "-U", USER, DATABASE])?;
        Ok(server)
    }

    /// Writes the certificate and key into the cluster, turns `ssl` on, and leaves TCP only to
    /// TLS connections (the unix socket stays open for the server's own tools).
    fn serve_tls_only(&self, cert_pem: &str, key_pem: &str) -> Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let data = self.data_dir();
        let key = data.join("server.key");
        std::fs::write(data.join("server.crt"), cert_pem).context("server.crt")?;
        std::fs::write(&key, key_pem).context("server.key")?;
        // PostgreSQL refuses a key that others can read.
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).context("server.key mode")?;
        let hba = "local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n";
        std::fs::write(data.join("pg_hba.conf"), hba).context("pg_hba.conf")?;
        let mut conf = std::fs::OpenOptions::new().append(true).open(data.join("postgresql.conf")).context("conf")?;
        std::io::Write::write_all(&mut conf, b"\nssl = on\n").context("postgresql.conf")?;
        if self.as_root {
            for file in ["server.crt", "server.key", "pg_hba.conf"] {
                std::os::unix::fs::chown(data.join(file), Some(NOBODY_UID), None).context("chown")?;
            }
        }
        Ok(())
    }

    /// The connection URL of [`DATABASE`] over TCP on loopback.
    pub fn url(&self) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/{DATABASE}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Starts the server (again) on the same port and waits until it accepts connections.
    pub fn start_again(&self) -> Result<()> {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync={} -c max_connections=200",
            self.port,
            path_str(&self.socket_dir())?,
            if self.durable { "on" } else { "off" }
        );
        let log = self.dir.path().join("servidor.log");
        self.run(
            "pg_ctl",
            &["-D", path_str(&self.data_dir())?, "-l", path_str(&log)?, "-o", &options, "-w", "-t", "60", "start"],
        )
    }

    /// Stops the server at once (`immediate`: connections are cut, as when a database host
    /// goes away), and waits until it is down.
    pub fn stop(&self) -> Result<()> {
        self.run("pg_ctl", &["-D", path_str(&self.data_dir())?, "-m", "immediate", "-w", "stop"])
    }

    /// Runs SQL with `psql` and returns its unaligned, tuples-only output (for assertions
    /// straight on the tables).
    pub fn psql(&self, sql: &str) -> Result<String> {
        let program = self.bin.join("psql");
        let output = Command::new(&program)
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", USER, "-d", DATABASE])
            .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
            .env("LC_ALL", "C")
            .output()
            .with_context(|| format!("no se pudo correr {}", program.display()))?;
        if !output.status.success() {
            bail!("psql {sql:?}: {}", String::from_utf8_lossy(&output.stderr));
        }
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
    }

    /// The server's log so far (for failure messages).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("servidor.log")).unwrap_or_default()
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.path().join("datos")
    }

    fn socket_dir(&self) -> PathBuf {
        self.dir.path().to_owned()
    }

    /// Runs one of the server's programs, as `nobody` when the tests run as root.
    fn run(&self, program: &str, args: &[&str]) -> Result<()> {
        let program = self.bin.join(program);
        let mut command = if self.as_root {
            let mut command = Command::new("runuser");
            command.args(["-u", RUN_AS, "--"]).arg(&program);
            command
        } else {
            Command::new(&program)
        };
        command.args(args).current_dir(self.dir.path()).env("LC_ALL", "C");
        let output = command.output().with_context(|| format!("no se pudo correr {}", program.display()))?;
        if !output.status.success() {
            bail!(
                "{} {:?} falló ({}):\n{}{}\n{}",
                program.display(),
                args,
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr),
                self.log()
            );
        }
        Ok(())
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

/// The newest `/usr/lib/postgresql/N/bin` (Debian's layout), or `PG_BIN` when set.
pub fn bin_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("PG_BIN") {
        return Ok(PathBuf::from(dir));
    }
    let root = Path::new("/usr/lib/postgresql");
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    match versions.pop() {
        Some((_, bin)) => Ok(bin),
        None => bail!(
            "no está PostgreSQL (/usr/lib/postgresql/*/bin/initdb): instálelo con `apt-get install postgresql` (./tienda probar lo hace) o indique su carpeta bin en PG_BIN"
        ),
    }
}

fn free_port() -> Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0").context("no free loopback port")?;
    Ok(listener.local_addr()?.port())
}

fn path_str(path: &Path) -> Result<&str> {
    path.to_str().with_context(|| format!("not UTF-8: {}", path.display()))
}
