//! What gets in, and what is turned away before any route sees it: the limits one client may
//! use ([`Limits`]), the connection slots they are counted against, the refusals of a request
//! head (too large, unreadable, ambiguous framing, no `Host`, a target naming another host) and
//! the reading of its bounded body. Every refusal is a JSON answer, never a reset.

use std::time::Duration;

use bytes::Bytes;
use http::Method;
use pingora_core::protocols::http::ServerSession;
use pingora_http::RequestHeader;

use crate::client::TrustedProxies;
use crate::handler::Handler;
use crate::response::Reply;

/// What one client may send or hold, so a hostile or broken one cannot starve the others.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Deadline to receive a whole request head, and then its whole body (slow clients are
    /// closed after it). A kept-alive connection first waits this long idle for its next head
    /// (then it is closed), and a head that began has this long again.
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
    /// Seconds a kept-alive connection may stay idle as its answers say it (`Keep-Alive:
    /// timeout=N`): one under the head deadline that closes an idle connection, so a client
    /// that retires its idle connections by that hint (browsers, Node's undici) never sends a
    /// request on one the gate is closing, which would fail it at the transport.
    pub fn idle_seconds(&self) -> u64 {
        self.read_timeout.as_secs().saturating_sub(1).max(1)
    }

    /// Seconds a kept-alive connection is actually waited for before it counts as idle and is
    /// closed: the read deadline, rounded up (Pingora's keep-alive timeout is in whole seconds).
    pub(crate) fn idle_wait_seconds(&self) -> u64 {
        self.read_timeout.as_secs_f64().ceil().max(1.0) as u64
    }

    /// The refusal for a request head over the limits, if it is.
    pub(crate) fn refuse_head(&self, head: &RequestHeader) -> Option<Reply> {
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

/// A count of connections in service against a maximum, with one atomic operation each way:
/// Pingora's path holds a slot while it reads and answers a request, the fast lane for as long
/// as the connection is on it.
pub(crate) struct Slots {
    in_use: std::sync::atomic::AtomicUsize,
    max: usize,
}

/// A slot taken; given back on drop.
pub(crate) struct Slot<'a>(&'a Slots);

impl Slots {
    pub(crate) fn new(max: usize) -> Self {
        Slots { in_use: Default::default(), max: max.max(1) }
    }

    pub(crate) fn try_take(&self) -> Option<Slot<'_>> {
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

/// How long a refused client gets to finish sending before its connection is closed.
pub(crate) const LINGER: Duration = Duration::from_secs(1);

/// The refusal for a head Pingora rejected: 431 when it is too large, 400 otherwise.
pub(crate) fn unreadable_head_reply(error: &pingora_core::Error, limits: &Limits) -> Reply {
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
pub(crate) fn refuse_ambiguous_framing(session: &ServerSession) -> Option<Reply> {
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
pub(crate) fn refuse_missing_host(session: &ServerSession) -> Option<Reply> {
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

pub(crate) enum BodyError {
    TooLarge,
    Io,
}

/// Reads the request body within `deadline`: nothing to wait for when the head says there is
/// no body (every GET), so no timer is set for it.
pub(crate) async fn read_body_in_time<H: Handler>(
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

/// 400 for an absolute-form target (`GET http://host/path`) naming a host this server does
/// not answer for: the gate is not a proxy. Its own hosts are served as usual.
pub(crate) fn refuse_foreign_target<H: Handler>(session: &ServerSession, handler: &H) -> Option<Reply> {
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
    if handler.serves_host(authority) {
        return None;
    }
    Some(Reply::error(
        400,
        "destino_ajeno",
        format!("Este servidor no es un proxy: no atiende {authority}. Pida la ruta sola (p. ej. GET /catalogo)."),
    ))
}
