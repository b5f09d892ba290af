//! The server process's life: binding the address (with an operator's error when it cannot),
//! running until a signal (SIGTERM and SIGINT end it gracefully, SIGQUIT hands the socket to a
//! new process), announcing when it listens, and the in-process server tests and benchmarks
//! start on an ephemeral port ([`spawn`]).

use std::net::{SocketAddr, ToSocketAddrs};
use std::os::fd::IntoRawFd;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use async_trait::async_trait;
use pingora_core::listeners::{L4BufferSettings, ListenerConfig};
use pingora_core::server::configuration::ServerConf;
use pingora_core::server::{Fds, RunArgs, Server, ShutdownSignal, ShutdownSignalWatch};
use pingora_core::services::Service as _;
use pingora_core::services::listening::Service;

use crate::admission::Limits;
use crate::handler::Handler;
use crate::server::App;
use crate::tls::{Certificate, TlsApp};

/// The log filter unless `GATE_LOG` says otherwise: the gate's own lines (Spanish) at info,
/// Pingora's start-up chatter (English) only when it warns, and rustls's remarks on what clients
/// send (an IP address as SNI, as wrk and curl do) only when they are errors.
pub const DEFAULT_LOG: &str = "info,pingora_core=warn,rustls=error";

/// Bytes each connection buffers before writing to the socket. Every free document (31 KB at
/// most) fits with its header, so a small answer leaves in one `send` instead of Pingora's
/// default 1,460-byte buffer's two (header, then body): one system call less per request, the
/// largest single cost of serving a file from memory. Larger bodies bypass the buffer.
const WRITE_BUFFER: usize = 32 * 1024;

/// How to run the server process.
pub struct RunOptions<'a> {
    pub name: &'a str,
    pub listen: &'a str,
    pub threads: usize,
    pub data_dir: &'a Path,
    /// Take the listening socket over from a running server with the same `data_dir` (it hands
    /// it over on SIGQUIT) instead of binding the address.
    pub take_over: bool,
    /// Serve HTTPS (HTTP/2 and HTTP/1.1) with this certificate instead of plain HTTP/1.1.
    pub tls: Option<Arc<Certificate>>,
}

/// Runs a handler as a Pingora server until SIGTERM or SIGINT (graceful, about 1 s) or SIGQUIT
/// (graceful upgrade: a new process started with the same `--datos` takes the socket over).
pub fn run<H: Handler>(handler: Arc<H>, options: RunOptions<'_>) -> Result<()> {
    run_with_limits(handler, options, Limits::default())
}

/// [`run`] with explicit [`Limits`].
pub fn run_with_limits<H: Handler>(handler: Arc<H>, options: RunOptions<'_>, limits: Limits) -> Result<()> {
    let addr = if options.take_over { resolve(options.listen)? } else { check_address(options.listen)? };
    std::fs::create_dir_all(options.data_dir)
        .with_context(|| format!("no se pudo crear la carpeta de datos {}", options.data_dir.display()))?;
    let data = options
        .data_dir
        .canonicalize()
        .with_context(|| format!("no se pudo abrir la carpeta de datos {}", options.data_dir.display()))?;
    let conf = ServerConf {
        threads: options.threads.max(1),
        grace_period_seconds: Some(1),
        graceful_shutdown_timeout_seconds: Some(2),
        pid_file: data.join(format!("{}.pid", options.name)).display().to_string(),
        upgrade_sock: data.join(format!("{}-upgrade.sock", options.name)).display().to_string(),
        ..ServerConf::default()
    };
    // With `upgrade`, Pingora's bootstrap waits on the upgrade socket for the running server's
    // listening descriptors, which that server sends when it gets SIGQUIT.
    let opt =
        options.take_over.then(|| pingora_core::server::configuration::Opt { upgrade: true, ..Default::default() });
    if options.take_over {
        tracing::info!("{}: esperando el socket del proceso en marcha (envíele SIGQUIT)", options.name);
    }
    let mut server = Server::new_with_opt_and_conf(opt, conf);
    server.bootstrap();
    let app = TlsApp::new(App::with_limits(handler, limits), options.tls.as_ref())?;
    let mut service = Service::new(options.name.to_owned(), app);
    service.add_listener(listener_config(options.listen));
    server.add_service(service);
    let pid_file = data.join(format!("{}.pid", options.name));
    std::fs::write(&pid_file, format!("{}\n", std::process::id()))
        .with_context(|| format!("no se pudo escribir {}", pid_file.display()))?;
    announce_when_listening(options.name, addr, if options.tls.is_some() { "https" } else { "http" });
    exit_if_the_listener_fails(options.name, options.listen);
    server.run(RunArgs { shutdown_signal: Box::new(Signals) });
    let _ = std::fs::remove_file(&pid_file);
    tracing::info!("{}: detenido", options.name);
    Ok(())
}

/// Binds the address once and lets it go, before Pingora binds it for good. Pingora retries a
/// busy address for half a minute and then panics in its service thread while the process
/// stays up; an operator's mistake (a port in use, no permission, an address that is not this
/// machine's, a typo) must instead end the start at once with one line that names the address
/// and `--escuchar`. Like Pingora, the first address the name resolves to is the one served.
pub fn check_address(listen: &str) -> Result<SocketAddr> {
    let addr = resolve(listen)?;
    match std::net::TcpListener::bind(addr) {
        Ok(_probe) => Ok(addr),
        Err(e) => {
            anyhow::bail!("no se puede escuchar en {listen}: {}; elija otra dirección con --escuchar", bind_failure(&e))
        }
    }
}

/// The address a `--escuchar` value names (the first one, as Pingora takes).
fn resolve(listen: &str) -> Result<SocketAddr> {
    let invalid = || {
        anyhow::anyhow!(
            "--escuchar {listen}: no es una dirección válida (se espera host:puerto, p. ej. 127.0.0.1:8080)"
        )
    };
    listen.to_socket_addrs().map_err(|_| invalid())?.next().ok_or_else(invalid)
}

/// Why a bind failed, in the operator's words.
fn bind_failure(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::AddrInUse => "la dirección ya está en uso (otro proceso escucha en ese puerto)".to_owned(),
        std::io::ErrorKind::PermissionDenied => {
            "sin permiso (los puertos menores que 1024 piden privilegios)".to_owned()
        }
        std::io::ErrorKind::AddrNotAvailable => "esa dirección no es de esta máquina".to_owned(),
        _ => error.to_string(),
    }
}

/// Pingora panics in its service thread when it cannot bind (another process took the address
/// between [`check_address`] and Pingora's own bind, after its retries), and the process would
/// stay up without serving: that panic ends the process with one line instead.
fn exit_if_the_listener_fails(name: &str, listen: &str) {
    let (name, listen) = (name.to_owned(), listen.to_owned());
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("Failed to build listeners") {
            eprintln!("{name}: no se puede escuchar en {listen} ({message}); elija otra dirección con --escuchar");
            std::process::exit(1);
        }
        default(info);
    }));
}

/// Logs "escuchando" once the socket takes connections (Pingora binds it on its own thread
/// after `run` starts), so the line never appears for a server that is not listening.
fn announce_when_listening(name: &str, addr: SocketAddr, scheme: &'static str) {
    let owned = name.to_owned();
    let target = match addr.ip() {
        std::net::IpAddr::V4(ip) if ip.is_unspecified() => SocketAddr::from(([127, 0, 0, 1], addr.port())),
        std::net::IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, addr.port()))
        }
        _ => addr,
    };
    let spawned = std::thread::Builder::new().name("anuncio".to_owned()).spawn(move || {
        let name = owned;
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if std::net::TcpStream::connect_timeout(&target, Duration::from_millis(200)).is_ok() {
                tracing::info!("{name}: escuchando en {scheme}://{addr}");
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        tracing::warn!("{name}: {addr} no acepta conexiones después de 60 s");
    });
    if spawned.is_err() {
        tracing::info!("{name}: escuchando en {scheme}://{addr}");
    }
}

/// A TCP endpoint with the gate's write buffer (Pingora's default read buffer). TLS, when on,
/// is done by [`TlsApp`] on the accepted connections.
fn listener_config(addr: &str) -> ListenerConfig {
    ListenerConfig::tcp(addr).l4_buffer(L4BufferSettings::default().write(WRITE_BUFFER))
}

/// SIGTERM and SIGINT both end the server gracefully; SIGQUIT hands the socket to a new process.
struct Signals;

#[async_trait]
impl ShutdownSignalWatch for Signals {
    async fn recv(&self) -> ShutdownSignal {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut int), Ok(mut quit)) =
            (signal(SignalKind::terminate()), signal(SignalKind::interrupt()), signal(SignalKind::quit()))
        else {
            return ShutdownSignal::FastShutdown;
        };
        tokio::select! {
            _ = term.recv() => { tracing::info!("SIGTERM: cierre ordenado"); ShutdownSignal::GracefulTerminate }
            _ = int.recv() => { tracing::info!("SIGINT: cierre ordenado"); ShutdownSignal::GracefulTerminate }
            _ = quit.recv() => { tracing::info!("SIGQUIT: traspaso a un proceso nuevo"); ShutdownSignal::GracefulUpgrade }
        }
    }
}

/// A server running in this process (for tests and benchmarks); stops when dropped.
pub struct Running {
    pub addr: SocketAddr,
    scheme: &'static str,
    stop: Option<tokio::sync::watch::Sender<bool>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    /// Base URL, e.g. `http://127.0.0.1:41234` (`https://` with TLS).
    pub fn url(&self) -> String {
        format!("{}://{}", self.scheme, self.addr)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(true);
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Starts a handler on `127.0.0.1` at an ephemeral port, on its own runtime thread.
///
/// The socket is bound here and handed to Pingora as an inherited descriptor (the path a
/// graceful upgrade takes), so the port is known and race-free.
pub fn spawn<H: Handler>(handler: Arc<H>, threads: usize) -> Result<Running> {
    spawn_with_limits(handler, threads, Limits::default())
}

/// [`spawn`] with explicit [`Limits`].
pub fn spawn_with_limits<H: Handler>(handler: Arc<H>, threads: usize, limits: Limits) -> Result<Running> {
    spawn_listening(handler, threads, limits, None)
}

/// [`spawn`] serving HTTPS (HTTP/2 and HTTP/1.1) with `certificate`.
pub fn spawn_tls<H: Handler>(
    handler: Arc<H>,
    threads: usize,
    limits: Limits,
    certificate: Arc<Certificate>,
) -> Result<Running> {
    spawn_listening(handler, threads, limits, Some(certificate))
}

fn spawn_listening<H: Handler>(
    handler: Arc<H>,
    threads: usize,
    limits: Limits,
    tls: Option<Arc<Certificate>>,
) -> Result<Running> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let mut fds = Fds::new();
    fds.add(addr.to_string(), listener.into_raw_fd());
    let (stop, watch) = tokio::sync::watch::channel(false);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(threads.max(1)).enable_all().build()?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let app = TlsApp::new(App::with_limits(handler, limits), tls.as_ref())?;
    let thread = std::thread::Builder::new().name(format!("gate-{}", addr.port())).spawn(move || {
        let mut service = Service::new("gate-test".to_owned(), app);
        service.add_listener(listener_config(&addr.to_string()));
        let fds = Arc::new(parking_lot::Mutex::new(fds));
        runtime.block_on(service.start_service(Some(fds), watch, 1));
    })?;
    Ok(Running { addr, scheme, stop: Some(stop), thread: Some(thread) })
}
