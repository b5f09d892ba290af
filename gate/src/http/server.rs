//! The Pingora plumbing: one hand-written `HttpServerApp` that reads a request, hands it to a
//! [`Handler`], writes the [`Reply`] (files with `sendfile(2)`, or in chunks) and logs one access line.
//!
//! Pingora's `ServeHttp` would buffer whole bodies and its own argument parser would take over
//! `argv`, so the gate uses the lower `HttpServerApp` trait and builds `ServerConf` itself.
//! Both the gate and the local facilitator binary run through here,
//! and tests start the same server in-process on an ephemeral port with [`spawn`].

use std::net::{SocketAddr, ToSocketAddrs};
use std::os::fd::IntoRawFd;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use async_trait::async_trait;
use bytes::Bytes;
use http::Method;
use pingora_core::ErrorType;
use pingora_core::apps::{HttpPersistentSettings, HttpServerApp, ReusedHttpStream};
use pingora_core::listeners::{L4BufferSettings, ListenerConfig};
use pingora_core::protocols::http::ServerSession;
use pingora_core::protocols::http::server::ReusableHttpStream;
use pingora_core::server::configuration::ServerConf;
use pingora_core::server::{Fds, RunArgs, Server, ShutdownSignal, ShutdownSignalWatch, ShutdownWatch};
use pingora_core::services::Service as _;
use pingora_core::services::listening::Service;
use pingora_http::{RequestHeader, ResponseHeader};

use super::client::TrustedProxies;
pub use super::quick::Quick;
use super::response::{ALLOW_HEADERS, Body, EXPOSE_HEADERS, JSON, Reply};
use super::sendfile::{self, Sent};
use super::socket;
use super::tls::{Certificate, TlsApp};

/// The log filter unless `GATE_LOG` says otherwise: the gate's own lines (Spanish) at info,
/// Pingora's start-up chatter (English) only when it warns, and rustls's remarks on what clients
/// send (an IP address as SNI, as wrk and curl do) only when they are errors.
pub const DEFAULT_LOG: &str = "info,pingora_core=warn,rustls=error";

/// Size of each chunk when streaming a file.
const CHUNK: usize = 256 * 1024;
/// Bytes each connection buffers before writing to the socket. Every free document (31 KB at
/// most) fits with its header, so a small answer leaves in one `send` instead of Pingora's
/// default 1,460-byte buffer's two (header, then body): one system call less per request, the
/// largest single cost of serving a file from memory. Larger bodies bypass the buffer.
const WRITE_BUFFER: usize = 32 * 1024;
/// Idle keep-alive between requests, in seconds (the head deadline of [`Limits`] also caps it).
pub(super) const KEEPALIVE_SECONDS: u64 = 60;

/// What one client may send or hold, so a hostile or broken one cannot starve the others.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Deadline to receive a whole request head, and then its whole body (slow clients, and
    /// idle keep-alive connections, are closed after it).
    pub read_timeout: Duration,
    /// Largest request head (request target plus header names and values), bytes; 431 above.
    pub max_head_bytes: usize,
    /// Longest request target (path and query), bytes; 414 above.
    pub max_uri_bytes: usize,
    /// Connections served at once; a request on a connection beyond them gets 503 and a close.
    pub max_connections: usize,
    /// A response whose client takes no byte for this long is abandoned and its connection
    /// closed (a download left open by a client that stopped reading).
    pub write_stall: Duration,
    /// Downloads go out with `sendfile(2)` where the connection allows it; off, they are
    /// streamed in chunks through user space.
    pub sendfile: bool,
    /// Proxies whose `Forwarded` / `X-Forwarded-For` name the client (`--proxies`).
    pub proxies: TrustedProxies,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            read_timeout: Duration::from_secs(15),
            max_head_bytes: 48 * 1024,
            max_uri_bytes: 16 * 1024,
            max_connections: 1024,
            write_stall: Duration::from_secs(60),
            sendfile: true,
            proxies: TrustedProxies::default(),
        }
    }
}

impl Limits {
    /// The refusal for a request head over the limits, if it is.
    fn refuse_head(&self, head: &RequestHeader) -> Option<Reply> {
        let uri = head.uri.path_and_query().map_or(0, |pq| pq.as_str().len());
        if uri > self.max_uri_bytes {
            return Some(Reply::error(
                414,
                "uri_demasiado_larga",
                format!("La ruta con su consulta mide {uri} bytes; el máximo es {}.", self.max_uri_bytes),
            ));
        }
        let head_bytes: usize =
            uri + head.headers.iter().map(|(name, value)| name.as_str().len() + value.len() + 4).sum::<usize>();
        if head_bytes > self.max_head_bytes {
            return Some(Reply::error(
                431,
                "encabezados_demasiado_grandes",
                format!("Los encabezados miden {head_bytes} bytes; el máximo es {}.", self.max_head_bytes),
            ));
        }
        None
    }
}

/// A request as routes see it: the parsed head and the whole (bounded) body.
pub struct Request<'a> {
    pub head: &'a RequestHeader,
    pub body: Bytes,
    /// The client's address (the peer of the connection, or what a trusted proxy says), when
    /// known.
    pub client: Option<std::net::IpAddr>,
}

impl Request<'_> {
    pub fn method(&self) -> &Method {
        &self.head.method
    }

    pub fn path(&self) -> &str {
        self.head.uri.path()
    }

    pub fn query(&self) -> Option<&str> {
        self.head.uri.query()
    }

    /// A header's value as bytes, if present.
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.head.headers.get(name).map(|v| v.as_bytes())
    }

    /// The first value of a query parameter, percent-decoded.
    pub fn query_param(&self, name: &str) -> Option<String> {
        query_param(self.query(), name)
    }
}

/// The first value of a query parameter of `query`, percent-decoded.
pub fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    url::form_urlencoded::parse(query?.as_bytes()).find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
}

/// What a server built on this module does with each request.
#[async_trait]
pub trait Handler: Send + Sync + 'static {
    async fn handle(&self, request: &Request<'_>) -> Reply;

    /// Largest request body read, in bytes; longer bodies get 413.
    fn body_limit(&self) -> usize {
        64 * 1024
    }

    /// Whether `authority` (`host[:port]` of an absolute-form target) names this server.
    fn serves_host(&self, _authority: &str) -> bool {
        true
    }

    /// The answer to a simple GET or HEAD when it is in memory and needs no waiting (a free
    /// document, a search), for the fast lane of plain HTTP/1.1 ([`super::quick`]); `None`
    /// sends the request the usual way, to [`Handler::handle`]. When both answer, they must
    /// answer the same.
    fn answer_at_once(&self, _request: &Quick<'_>) -> Option<Reply> {
        None
    }

    /// Called once per answered request with its path and status (the gate's metrics).
    fn observe(&self, _path: &str, _status: u16) {}
}

/// The Pingora application around a [`Handler`].
pub struct App<H> {
    pub(super) handler: Arc<H>,
    pub(super) limits: Limits,
    pub(super) connections: Slots,
}

/// A count of connections in service against a maximum, with one atomic operation each way:
/// Pingora's path holds a slot while it reads and answers a request, the fast lane for as long
/// as the connection is on it.
pub(super) struct Slots {
    in_use: std::sync::atomic::AtomicUsize,
    max: usize,
}

/// A slot taken; given back on drop.
pub(super) struct Slot<'a>(&'a Slots);

impl Slots {
    pub(super) fn try_take(&self) -> Option<Slot<'_>> {
        use std::sync::atomic::Ordering;
        let taken = self.in_use.fetch_add(1, Ordering::Acquire);
        if taken >= self.max {
            self.in_use.fetch_sub(1, Ordering::Release);
            return None;
        }
        Some(Slot(self))
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.in_use.fetch_sub(1, std::sync::atomic::Ordering::Release);
    }
}

impl<H: Handler> App<H> {
    pub fn new(handler: Arc<H>) -> Self {
        App::with_limits(handler, Limits::default())
    }

    pub fn with_limits(handler: Arc<H>, limits: Limits) -> Self {
        let connections = Slots { in_use: Default::default(), max: limits.max_connections.max(1) };
        App { handler, limits, connections }
    }
}

#[async_trait]
impl<H: Handler> HttpServerApp for App<H> {
    async fn process_new_http(
        self: &Arc<Self>,
        session: ServerSession,
        shutdown: &ShutdownWatch,
    ) -> Option<ReusedHttpStream> {
        let (reusable, persistent) = self.serve_session(session, shutdown).await?;
        Some(ReusedHttpStream::from_reusable_stream(reusable, persistent))
    }
}

impl<H: Handler> App<H> {
    /// Reads one request of a session, answers it and logs it; the connection back, with the
    /// session's settings, when it can carry another request.
    pub(super) async fn serve_session(
        &self,
        mut session: ServerSession,
        shutdown: &ShutdownWatch,
    ) -> Option<(ReusableHttpStream, HttpPersistentSettings)> {
        // Held while this connection is being served (including waiting for its next request).
        let permit = self.connections.try_take();
        let limits = &self.limits;
        session.set_read_timeout(Some(limits.read_timeout));
        // Requests a client sends without waiting for the answers are read one after the
        // other and answered in order (RFC 9112 §9.3.2), never dropped.
        session.set_pipelining_enabled(true);
        match pingora_timeout::timeout(limits.read_timeout, session.read_request()).await {
            Ok(Ok(true)) => {}
            Ok(Err(error)) if error.etype == ErrorType::InvalidHTTPHeader => {
                refuse_unreadable_head(&mut session, &error, limits).await;
                return None;
            }
            _ => return None,
        }
        let started = Instant::now();
        // Pingora's reading of the head: `Connection: close`, HTTP/1.0 without keep-alive, or
        // both `Content-Length` and `Transfer-Encoding` end the connection after this answer.
        let client_keeps_alive = session.is_http2() || session.get_keepalive().is_some();
        let refused = match permit {
            None => Some(
                Reply::error(
                    503,
                    "demasiadas_conexiones",
                    "El servidor atiende demasiadas conexiones; reintente en un momento.",
                )
                .with_header("Retry-After", "1".to_owned()),
            ),
            Some(_) => limits
                .refuse_head(session.req_header())
                .or_else(|| refuse_ambiguous_framing(&session))
                .or_else(|| refuse_missing_host(&session))
                .or_else(|| self.refuse_foreign_target(&session)),
        };
        let keepalive =
            if *shutdown.borrow() || refused.is_some() || !client_keeps_alive { None } else { Some(KEEPALIVE_SECONDS) };
        session.set_keepalive(keepalive);

        let unread_body = refused.is_some();
        let peer = session.client_addr().and_then(|a| a.as_inet()).map(|a| a.ip());
        let client = peer.map(|peer| limits.proxies.client(peer, session.req_header()));
        if let Some(peer) = peer {
            let headers = &session.req_header().headers;
            limits
                .proxies
                .note_forwarding(peer, headers.contains_key("forwarded") || headers.contains_key("x-forwarded-for"));
        }
        let reply = match refused {
            Some(reply) => reply,
            None => match read_body_in_time(&mut session, &*self.handler, limits.read_timeout).await {
                Ok(Ok(body)) => {
                    let request = Request { head: session.req_header(), body, client };
                    self.handler.handle(&request).await
                }
                Ok(Err(BodyError::TooLarge)) => {
                    session.set_keepalive(None);
                    Reply::error(
                        413,
                        "cuerpo_demasiado_grande",
                        format!("El cuerpo supera {} bytes.", self.handler.body_limit()),
                    )
                }
                Ok(Err(BodyError::Io)) | Err(_) => return None,
            },
        };
        let head_only = session.req_header().method == Method::HEAD;
        let status = reply.status;
        let written = write_reply(&mut session, reply, head_only, limits).await;
        log_access(&session, client, status, *written.as_ref().unwrap_or(&0), started);
        self.handler.observe(session.req_header().uri.path(), status);
        if unread_body || status == 413 {
            // The client may still be sending what was refused: close without a reset, so it
            // reads the answer.
            socket::linger(&session, LINGER).await;
        }
        written.ok()?;
        let persistent = HttpPersistentSettings::for_session(&session);
        Some((session.finish().await.ok().flatten()?, persistent))
    }
}

impl<H: Handler> App<H> {
    /// 400 for an absolute-form target (`GET http://host/path`) naming a host this server does
    /// not answer for: the gate is not a proxy. Its own hosts are served as usual.
    fn refuse_foreign_target(&self, session: &ServerSession) -> Option<Reply> {
        let head = session.req_header();
        if session.is_http2() || head.method == Method::CONNECT {
            return None;
        }
        // Pingora keeps only the path in `uri`; the target as sent is the raw path.
        let raw = head.raw_path();
        if raw.first().is_none_or(|b| *b == b'/' || *b == b'*') {
            return None;
        }
        let target = http::Uri::try_from(raw).ok();
        let authority = target.as_ref().and_then(http::Uri::authority).map_or("?", |a| a.as_str());
        if self.handler.serves_host(authority) {
            return None;
        }
        Some(Reply::error(
            400,
            "destino_ajeno",
            format!("Este servidor no es un proxy: no atiende {authority}. Pida la ruta sola (p. ej. GET /catalogo)."),
        ))
    }
}

/// How long a refused client gets to finish sending before its connection is closed.
const LINGER: Duration = Duration::from_secs(1);

/// Answers a head Pingora could not accept (too many header lines, a head over 1 MiB, a
/// malformed line, contradictory `Host` and target) with JSON, then closes.
async fn refuse_unreadable_head(session: &mut ServerSession, error: &pingora_core::Error, limits: &Limits) {
    let reply = unreadable_head_reply(error, limits);
    let status = reply.status;
    session.set_keepalive(None);
    let written = write_reply(session, reply, false, limits).await;
    tracing::info!(
        target: "acceso",
        method = "-",
        path = "-",
        status,
        bytes = *written.as_ref().unwrap_or(&0),
        ms = "0",
    );
    socket::linger(session, LINGER).await;
}

/// The refusal for a head Pingora rejected: 431 when it is too large, 400 otherwise.
fn unreadable_head_reply(error: &pingora_core::Error, limits: &Limits) -> Reply {
    let too_many_lines =
        error.root_cause().downcast_ref::<httparse::Error>().is_some_and(|e| *e == httparse::Error::TooManyHeaders);
    let too_large = error.context.as_ref().is_some_and(|c| c.as_str().contains("larger than"));
    if too_many_lines {
        Reply::error(
            431,
            "encabezados_demasiado_grandes",
            format!("La solicitud trae más de {MAX_HEADER_LINES} líneas de encabezado."),
        )
    } else if too_large {
        Reply::error(
            431,
            "encabezados_demasiado_grandes",
            format!("Los encabezados superan 1 MiB; el máximo es {} bytes.", limits.max_head_bytes),
        )
    } else {
        Reply::error(
            400,
            "solicitud_invalida",
            "La cabecera de la solicitud no es HTTP/1.1 válido (línea mal formada, Host distinto del destino \
             o encabezados duplicados que no pueden coincidir).",
        )
    }
}

/// Header lines Pingora parses in one request head; a head with more is refused with 431.
const MAX_HEADER_LINES: usize = 256;

/// 400 for a request with both `Content-Length` and `Transfer-Encoding` (RFC 9112 §6.3: a
/// request smuggling attempt or a broken client); the connection closes after the answer.
/// Pingora has already dropped the `Content-Length`, so the raw head tells.
fn refuse_ambiguous_framing(session: &ServerSession) -> Option<Reply> {
    let h1 = session.as_http1()?;
    if !session.req_header().headers.contains_key(http::header::TRANSFER_ENCODING) {
        return None;
    }
    let raw = h1.get_headers_raw_bytes();
    let has_length = raw.split(|&b| b == b'\n').any(|line| {
        line.split(|&b| b == b':').next().is_some_and(|name| name.trim_ascii().eq_ignore_ascii_case(b"content-length"))
            && line.contains(&b':')
    });
    has_length.then(|| {
        Reply::error(
            400,
            "longitud_ambigua",
            "La solicitud trae Content-Length y Transfer-Encoding a la vez; envíe solo uno de los dos.",
        )
    })
}

/// 400 for an HTTP/1.1 request without `Host` (RFC 9112 §3.2: a server MUST answer 400 to any
/// HTTP/1.1 request that lacks it, whatever its target form); HTTP/1.0 predates the header and
/// HTTP/2 carries `:authority` instead. The fast lane hands such a request here.
fn refuse_missing_host(session: &ServerSession) -> Option<Reply> {
    let head = session.req_header();
    if session.is_http2() || head.version != http::Version::HTTP_11 || head.headers.contains_key(http::header::HOST) {
        return None;
    }
    Some(Reply::error(
        400,
        "host_requerido",
        "Una solicitud HTTP/1.1 debe llevar el encabezado Host (RFC 9112 §3.2); agréguelo, p. ej. Host: tienda.example.",
    ))
}

enum BodyError {
    TooLarge,
    Io,
}

/// Reads the request body within `deadline`: nothing to wait for when the head says there is
/// no body (every GET), so no timer is set for it.
async fn read_body_in_time<H: Handler>(
    session: &mut ServerSession,
    handler: &H,
    deadline: Duration,
) -> Result<Result<Bytes, BodyError>, pingora_timeout::Elapsed> {
    if session.is_body_empty() {
        return Ok(Ok(Bytes::new()));
    }
    pingora_timeout::timeout(deadline, read_body(session, handler.body_limit())).await
}

/// Reads the request body up to `limit` bytes.
async fn read_body(session: &mut ServerSession, limit: usize) -> Result<Bytes, BodyError> {
    let mut body = Vec::new();
    loop {
        match session.read_request_body().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > limit {
                    return Err(BodyError::TooLarge);
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(Bytes::from(body)),
            Err(_) => return Err(BodyError::Io),
        }
    }
}

/// Writes a reply; returns the body bytes sent.
async fn write_reply(session: &mut ServerSession, reply: Reply, head_only: bool, limits: &Limits) -> Result<u64> {
    let Reply { status, headers, body } = reply;
    // Open a file before the header goes out, so a missing file is still a clean 500.
    let (status, headers, body, file) = match body {
        Body::File { path, start, len } => match tokio::fs::File::open(&path).await {
            Ok(file) => (status, headers, Body::File { path, start, len }, Some(file)),
            Err(_) => {
                let fallback = Reply::error(500, "error_interno", "El archivo no está disponible.");
                (fallback.status, fallback.headers, fallback.body, None)
            }
        },
        other => (status, headers, other, None),
    };
    let len = body.len();
    if let Body::Prepared { head, body } = &body {
        let body = if head_only { &[][..] } else { &body[..] };
        if let Some(sent) = socket::send_prepared(session, head, body, limits.write_stall).await? {
            return Ok(sent);
        }
    }
    let mut head = ResponseHeader::build(status, Some(headers.len() + 4))?;
    for (name, value) in headers {
        head.append_header(name, value)?;
    }
    head.insert_header("Content-Length", len.to_string())?;
    head.insert_header("Access-Control-Allow-Origin", "*")?;
    head.insert_header("Access-Control-Expose-Headers", EXPOSE_HEADERS)?;
    if head_only || len == 0 {
        session.write_response_header(Box::new(head)).await?;
        session.finish_body().await?;
        return Ok(0);
    }
    match (body, file) {
        (Body::File { start, .. }, Some(file)) => send_file(session, Box::new(head), file, start, len, limits).await,
        (Body::Bytes(bytes) | Body::Prepared { body: bytes, .. }, _) => {
            session.write_response_header(Box::new(head)).await?;
            session.write_response_body(bytes, true).await?;
            Ok(len)
        }
        (Body::Parts(parts), _) => {
            session.write_response_header(Box::new(head)).await?;
            let last = parts.len().saturating_sub(1);
            for (n, part) in parts.into_iter().enumerate() {
                tokio::time::timeout(limits.write_stall, session.write_response_body(part, n == last))
                    .await
                    .context("el cliente dejó de leer")??;
            }
            Ok(len)
        }
        _ => Ok(0),
    }
}

/// Sends `len` bytes of a file from byte `start` after its head: with `sendfile(2)` where the
/// connection allows it, else in chunks through Pingora.
async fn send_file(
    session: &mut ServerSession,
    head: Box<ResponseHeader>,
    file: tokio::fs::File,
    start: u64,
    len: u64,
    limits: &Limits,
) -> Result<u64> {
    let mut file = file.into_std().await;
    let head = if limits.sendfile {
        match sendfile::send_file(session, head, &file, start, len, limits.write_stall).await? {
            Sent::All(sent) => return Ok(sent),
            Sent::NotApplicable(head) => head,
        }
    } else {
        head
    };
    if start > 0 {
        use std::io::Seek;
        file.seek(std::io::SeekFrom::Start(start))?;
    }
    session.write_response_header(head).await?;
    stream_file(session, file, len, limits.write_stall).await
}

/// Streams `len` bytes of a file in fixed chunks through Pingora, so memory stays flat
/// whatever its size: for connections `sendfile` cannot take, or with it turned off.
///
/// Each chunk is read on the blocking pool straight into its own buffer (a plain `read`, not
/// `tokio::fs`, which reads into a buffer of its own and copies), and the next chunk is read
/// while the current one goes out: two chunks per download at most, one copy from the page
/// cache, and the disk and the socket kept busy at once.
async fn stream_file(session: &mut ServerSession, file: std::fs::File, len: u64, stall: Duration) -> Result<u64> {
    let mut sent = 0u64;
    let mut pending = Some(read_chunk(file, CHUNK.min(len as usize)));
    while let Some(reading) = pending.take() {
        let (file, chunk) = reading.await??;
        if chunk.is_empty() {
            anyhow::bail!("el archivo terminó antes de lo esperado");
        }
        sent += chunk.len() as u64;
        let done = sent >= len;
        if !done {
            pending = Some(read_chunk(file, CHUNK.min((len - sent) as usize)));
        }
        tokio::time::timeout(stall, session.write_response_body(Bytes::from(chunk), done))
            .await
            .context("el cliente dejó de leer")??;
    }
    Ok(sent)
}

/// Reads up to `want` bytes from the file's current position on the blocking pool; hands the
/// file back with them.
fn read_chunk(file: std::fs::File, want: usize) -> tokio::task::JoinHandle<std::io::Result<(std::fs::File, Vec<u8>)>> {
    tokio::task::spawn_blocking(move || {
        use std::io::Read;
        let mut chunk = Vec::with_capacity(want);
        (&file).take(want as u64).read_to_end(&mut chunk)?;
        Ok((file, chunk))
    })
}

/// One line per request: client address, method, path (never the query, which may carry link
/// signatures), status, body bytes and duration.
fn log_access(session: &ServerSession, client: Option<std::net::IpAddr>, status: u16, bytes: u64, started: Instant) {
    let head = session.req_header();
    tracing::info!(
        target: "acceso",
        client = %client.map_or_else(|| "-".to_owned(), |c| c.to_string()),
        method = %head.method,
        path = head.uri.path(),
        status,
        bytes,
        ms = format_args!("{:.2}", started.elapsed().as_secs_f64() * 1000.0),
    );
}

/// A CORS preflight answer.
pub fn preflight(allow: &'static str) -> Reply {
    Reply::new(204, JSON, Body::Empty)
        .with_header("Access-Control-Allow-Methods", allow)
        .with_header("Access-Control-Allow-Headers", ALLOW_HEADERS)
        .with_header("Access-Control-Max-Age", "86400")
        .with_header("Allow", allow)
}

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
/// (graceful upgrade: a new process started with the same `--data` takes the socket over).
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
/// and `--listen`. Like Pingora, the first address the name resolves to is the one served.
pub fn check_address(listen: &str) -> Result<SocketAddr> {
    let addr = resolve(listen)?;
    match std::net::TcpListener::bind(addr) {
        Ok(_probe) => Ok(addr),
        Err(e) => {
            anyhow::bail!("no se puede escuchar en {listen}: {}; elija otra dirección con --listen", bind_failure(&e))
        }
    }
}

/// The address a `--listen` value names (the first one, as Pingora takes).
fn resolve(listen: &str) -> Result<SocketAddr> {
    let invalid = || {
        anyhow::anyhow!("--listen {listen}: no es una dirección válida (se espera host:puerto, p. ej. 127.0.0.1:8080)")
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
            eprintln!("{name}: no se puede escuchar en {listen} ({message}); elija otra dirección con --listen");
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
