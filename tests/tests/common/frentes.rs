//! The fronts operators put in front of the gate, each from Debian's package with Debian's own
//! main configuration and the guide's file of `deploy/frentes/`, started on loopback ports for
//! a test and stopped (SIGTERM) when dropped: nginx, Caddy, HAProxy, Varnish and Apache.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use super::gate::TestGate;

/// Debian's main configuration file, the one an operator's nginx reads.
pub const DEBIAN_CONF: &str = "/etc/nginx/nginx.conf";

/// A way to start a front before a gate on a port: `start_caddy`, `start_haproxy`, …
pub type StartFront = fn(&TestGate, u16) -> Front;

/// A running front (nginx, Caddy, HAProxy, Varnish, Apache), stopped when dropped.
pub struct Front {
    child: Child,
    pub url: String,
    _dir: tempfile::TempDir,
}

impl Front {
    /// The front's temp folder (its configuration, logs and cache).
    pub fn dir(&self) -> &Path {
        self._dir.path()
    }
}

impl Drop for Front {
    /// SIGTERM first, as systemd stops it: a master killed outright leaves its workers behind
    /// (nginx's keep listening); SIGKILL only if it has not ended in five seconds.
    fn drop(&mut self) {
        let _ = Command::new("kill").arg("-TERM").arg(self.child.id().to_string()).status();
        for _ in 0..100 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free loopback port (bound, then released for nginx to take).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("address").port()
}

/// Debian's `nginx.conf` with `site` in place of its includes of `conf.d` and `sites-enabled`,
/// and its pid, logs and temp files under `dir` (a test runs without writing to /var).
pub fn debian_conf(dir: &Path, site: &str) -> String {
    let debian = std::fs::read_to_string(DEBIAN_CONF).expect("Debian's nginx.conf (apt-get install nginx)");
    let site_file = dir.join("site.conf");
    std::fs::write(&site_file, site).expect("site");
    let d = dir.display();
    let mut conf = String::new();
    for line in debian.lines() {
        let trimmed = line.trim();
        let replaced = if trimmed.starts_with("user ") {
            String::new()
        } else if trimmed.starts_with("pid ") {
            format!("pid {d}/nginx.pid;")
        } else if trimmed.starts_with("error_log ") {
            format!("error_log {d}/error.log;")
        } else if trimmed.starts_with("access_log ") {
            format!("access_log {d}/access.log;")
        } else if trimmed.starts_with("include /etc/nginx/conf.d/") {
            format!(
                "client_body_temp_path {d}/body; proxy_temp_path {d}/proxy; fastcgi_temp_path {d}/fastcgi; uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;"
            )
        } else if trimmed.starts_with("include /etc/nginx/sites-enabled/") {
            format!("include {};", site_file.display())
        } else {
            line.to_owned()
        };
        conf.push_str(&replaced);
        conf.push('\n');
    }
    conf
}

/// Starts nginx over Debian's configuration with `site`, once it answers.
pub fn start_nginx(port: u16, site: impl FnOnce(&Path, u16) -> String) -> Front {
    // Without `user`, nginx's workers run as nobody when the test runs as root.
    let dir = open_dir();
    let conf = debian_conf(dir.path(), &site(dir.path(), port));
    let conf_file = dir.path().join("nginx.conf");
    std::fs::write(&conf_file, conf).expect("conf");
    let nginx = PathBuf::from("/usr/sbin/nginx");
    let test =
        Command::new(&nginx).arg("-t").arg("-c").arg(&conf_file).output().expect("nginx (apt-get install nginx)");
    assert!(test.status.success(), "nginx -t: {}", String::from_utf8_lossy(&test.stderr));
    let mut command = Command::new(&nginx);
    command.arg("-c").arg(&conf_file).args(["-g", "daemon off;"]);
    spawn_front(dir, port, &mut command)
}

/// Spawns a front that will listen on `port`, once it accepts connections.
pub fn spawn_front(dir: tempfile::TempDir, port: u16, command: &mut Command) -> Front {
    let child = command.spawn().unwrap_or_else(|e| panic!("{command:?}: {e} (./tienda probar installs it)"));
    let mut front = Front { child, url: format!("http://127.0.0.1:{port}"), _dir: dir };
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return front;
        }
        if let Ok(Some(status)) = front.child.try_wait() {
            panic!("{command:?} ended: {status}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{command:?} did not listen on {port}");
}

/// A temp folder the fronts' unprivileged workers can use (they may run as another user when
/// the test runs as root).
pub fn open_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).expect("chmod");
    dir
}

/// A file of `deploy/frentes/`, as the guide gives it.
pub fn guide_file(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/frentes").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The gate's `host:port`.
pub fn gate_address(gate: &TestGate) -> String {
    gate.server.url().trim_start_matches("http://").to_owned()
}

/// Caddy with the guide's Caddyfile; the admin endpoint off (several tests run at once, and
/// its default port is fixed) and its data under the temp folder.
pub fn start_caddy(gate: &TestGate, port: u16) -> Front {
    let dir = open_dir();
    let guide = guide_file("Caddyfile");
    let site = guide
        .replace("estudios.example.com", &format!("http://127.0.0.1:{port}"))
        .replace("127.0.0.1:8080", &gate_address(gate));
    let file = dir.path().join("Caddyfile");
    std::fs::write(&file, format!("{{\n\tadmin off\n}}\n{site}")).expect("Caddyfile");
    let mut command = Command::new("/usr/bin/caddy");
    command
        .arg("run")
        .arg("--config")
        .arg(&file)
        .args(["--adapter", "caddyfile"])
        .env("HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    spawn_front(dir, port, &mut command)
}

/// HAProxy with Debian's `haproxy.cfg` (its global and defaults sections, less the chroot,
/// the admin socket, the user switch and the daemon mode, which need the packaged service)
/// and the guide's frontend and backend.
pub fn start_haproxy(gate: &TestGate, port: u16) -> Front {
    let dir = open_dir();
    let debian = std::fs::read_to_string("/etc/haproxy/haproxy.cfg").expect("Debian's haproxy.cfg");
    let skipped = ["chroot ", "stats socket ", "user ", "group ", "daemon", "log /dev/log"];
    let mut conf: String = debian
        .lines()
        .filter(|line| !skipped.iter().any(|s| line.trim_start().starts_with(s)))
        .map(|line| format!("{line}\n"))
        .collect();
    conf.push_str(
        &guide_file("haproxy.cfg")
            .replace("bind :80", &format!("bind 127.0.0.1:{port}"))
            .replace("127.0.0.1:8080", &gate_address(gate)),
    );
    let file = dir.path().join("haproxy.cfg");
    std::fs::write(&file, conf).expect("haproxy.cfg");
    let check = Command::new("/usr/sbin/haproxy").arg("-c").arg("-f").arg(&file).output().expect("haproxy");
    assert!(check.status.success(), "haproxy -c: {}", String::from_utf8_lossy(&check.stdout));
    let mut command = Command::new("/usr/sbin/haproxy");
    command.arg("-db").arg("-f").arg(&file).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    spawn_front(dir, port, &mut command)
}

/// Apache with Debian's `apache2.conf` (its modules, `conf-enabled` and settings; the
/// variables of `/etc/apache2/envvars` pointed at the temp folder), `proxy` and `proxy_http`
/// enabled as `a2enmod` does, and the guide's site in place of `ports.conf` and `sites-enabled`.
pub fn start_apache(gate: &TestGate, port: u16) -> Front {
    let dir = open_dir();
    let site = guide_file("apache.conf")
        .replace("<VirtualHost *:80>", &format!("<VirtualHost 127.0.0.1:{port}>"))
        .replace("127.0.0.1:8080", &gate_address(gate));
    let site_file = dir.path().join("estudios-ia.conf");
    std::fs::write(&site_file, site).expect("site");
    let debian = std::fs::read_to_string("/etc/apache2/apache2.conf").expect("Debian's apache2.conf");
    let mut conf = String::new();
    for line in debian.lines() {
        let replaced = match line.trim() {
            "Include ports.conf" => format!("Listen 127.0.0.1:{port}"),
            "IncludeOptional mods-enabled/*.conf" => format!(
                "{line}\nInclude mods-available/proxy.load\nInclude mods-available/proxy.conf\nInclude mods-available/proxy_http.load"
            ),
            "IncludeOptional sites-enabled/*.conf" => format!("Include {}", site_file.display()),
            _ => line.to_owned(),
        };
        conf.push_str(&replaced);
        conf.push('\n');
    }
    let file = dir.path().join("apache2.conf");
    std::fs::write(&file, conf).expect("apache2.conf");
    let envs = [
        ("APACHE_RUN_USER", "www-data".to_owned()),
        ("APACHE_RUN_GROUP", "www-data".to_owned()),
        ("APACHE_PID_FILE", dir.path().join("apache2.pid").display().to_string()),
        ("APACHE_RUN_DIR", dir.path().display().to_string()),
        ("APACHE_LOCK_DIR", dir.path().display().to_string()),
        ("APACHE_LOG_DIR", dir.path().display().to_string()),
    ];
    let check = Command::new("/usr/sbin/apache2")
        .args(["-d", "/etc/apache2", "-f"])
        .arg(&file)
        .arg("-t")
        .envs(envs.clone())
        .output()
        .expect("apache2");
    assert!(check.status.success(), "apache2 -t: {}", String::from_utf8_lossy(&check.stderr));
    let mut command = Command::new("/usr/sbin/apache2");
    command.args(["-d", "/etc/apache2", "-f"]).arg(&file).arg("-DFOREGROUND").envs(envs);
    spawn_front(dir, port, &mut command)
}

/// Varnish with the guide's VCL, its working folder under the temp folder.
pub fn start_varnish(gate: &TestGate, port: u16) -> Front {
    let dir = open_dir();
    let gate_port = gate.server.url().rsplit(':').next().expect("port").to_owned();
    let vcl = guide_file("default.vcl").replace("\"8080\"", &format!("\"{gate_port}\""));
    let file = dir.path().join("default.vcl");
    std::fs::write(&file, vcl).expect("vcl");
    let mut command = Command::new("/usr/sbin/varnishd");
    command
        .arg("-F")
        .args(["-a", &format!("127.0.0.1:{port}")])
        .arg("-f")
        .arg(&file)
        .arg("-n")
        .arg(dir.path().join("varnish"))
        .args(["-s", "malloc,64m", "-j", "none", "-T", "127.0.0.1:0"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    spawn_front(dir, port, &mut command)
}

/// The guide's site file, with its two addresses and its cache folder replaced.
pub fn guide_site(gate: &TestGate, dir: &Path, port: u16) -> String {
    let guide = guide_file("nginx.conf");
    let replaced = guide
        .replace("listen 80;", &format!("listen 127.0.0.1:{port};"))
        .replace("127.0.0.1:8080", &gate_address(gate))
        .replace("/var/cache/nginx/estudios-ia", &dir.join("cache").display().to_string());
    assert_ne!(replaced, guide);
    replaced
}

/// A bare `proxy_pass` and nothing else: nginx's defaults, no buffer setting at all.
pub fn bare_site(gate: &TestGate, port: u16) -> String {
    format!("server {{ listen 127.0.0.1:{port}; location / {{ proxy_pass {}; }} }}\n", gate.server.url())
}
