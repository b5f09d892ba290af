//! The fast lane of plain HTTP/1.1: a GET or HEAD that the handler answers from memory (a free
//! document, a search) is read, answered and logged here, without a Pingora session.
//!
//! Pingora builds a whole session per request on a kept-alive connection (buffers, a header
//! map, a URI, timers), about as much work in user space as nginx spends on the entire request;
//! for the free files that was the last gap to nginx. So a plain connection starts here: its
//! bytes are read into one buffer kept for the connection, each head is parsed in place with
//! `httparse`, and when the request is one of the simple kind ([`parse`]) and
//! [`Handler::answer_at_once`] has its answer, the answer goes out with one `sendmsg`. Anything
//! else (a body, an unusual header, HTTP/1.0, a head too large for the lane, a payment, a file)
//! is handed to Pingora with the bytes already read as its first input, exactly as if Pingora
//! had read them, so every rule of the strict HTTP/1.1 path applies to it unchanged; after
//! Pingora's answer the connection comes back to the lane.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use bytes::{Buf, BytesMut};
use pingora_core::protocols::Stream;
use pingora_core::protocols::http::ServerSession;
use pingora_core::server::ShutdownWatch;
use tokio::io::AsyncReadExt;

use crate::handler::{Handler, Quick};
use crate::response::Body;
use crate::server::App;
use crate::socket;
use crate::tls::ServesPlain;

/// Header lines the lane parses; a request with more goes to Pingora (which allows 256).
const LANE_HEADERS: usize = 32;
/// Largest head the lane waits for; a longer one goes to Pingora, which enforces the limits.
const LANE_HEAD_BYTES: usize = 8 * 1024;
/// What the connection's buffer reserves before each read.
const READ_RESERVE: usize = 4 * 1024;

/// What became of the next request on a connection.
enum Turn {
    /// Answered on the lane; the connection stays open.
    Answered,
    /// The connection is over (closed by the client, timed out, failed, or answered with
    /// `Connection: close`).
    Over,
    /// Not one for the lane: Pingora reads it from the buffered bytes.
    ToPingora,
}

#[async_trait]
impl<H: Handler> ServesPlain for App<H> {
    /// Serves a plain HTTP/1.1 connection: simple requests on the lane, the others through
    /// Pingora, in the order they came.
    async fn serve_plain(self: &Arc<Self>, mut stream: Stream, shutdown: &ShutdownWatch) -> Option<Stream> {
        let Some(peer) =
            stream.get_socket_digest().and_then(|d| d.peer_addr().and_then(|a| a.as_inet()).map(|a| a.ip()))
        else {
            return self.serve_with_pingora(stream, BytesMut::new(), shutdown).await;
        };
        if socket::plain_socket(&stream).is_none() {
            return self.serve_with_pingora(stream, BytesMut::new(), shutdown).await;
        }
        let mut pending = BytesMut::with_capacity(READ_RESERVE);
        // The connection holds a slot of the limit while it is open, as on Pingora's path;
        // without one, its requests go to Pingora, which refuses them with 503.
        let mut slot = self.connections.try_take();
        loop {
            match self.next_on_lane(&mut stream, &mut pending, peer, slot.is_some(), shutdown).await {
                Turn::Answered => {}
                Turn::Over => return None,
                Turn::ToPingora => {
                    // Pingora's path takes a slot of its own for the request.
                    drop(slot.take());
                    (stream, pending) =
                        self.one_through_pingora(stream, std::mem::take(&mut pending), shutdown).await?;
                    slot = self.connections.try_take();
                }
            }
        }
    }
}

impl<H: Handler> App<H> {
    /// Pingora's own loop, for connections the lane cannot take at all.
    async fn serve_with_pingora(
        self: &Arc<Self>,
        mut stream: Stream,
        mut pending: BytesMut,
        shutdown: &ShutdownWatch,
    ) -> Option<Stream> {
        loop {
            (stream, pending) = self.one_through_pingora(stream, pending, shutdown).await?;
        }
    }

    /// One request through a Pingora session, read from the bytes already buffered (`pending`)
    /// and then the stream; the connection and what was read past the request back, when it
    /// can carry another.
    async fn one_through_pingora(
        &self,
        stream: Stream,
        pending: BytesMut,
        shutdown: &ShutdownWatch,
    ) -> Option<(Stream, BytesMut)> {
        let mut session = ServerSession::new_http1(stream);
        // Nothing buffered: the connection waits idle for its next head, as a kept-alive one
        // (`serve_session` then gives a head that begins its own deadline). Bytes buffered: the
        // head has begun, and has only the head's deadline.
        let waits_idle = pending.is_empty() && !*shutdown.borrow();
        session.set_keepalive(waits_idle.then(|| self.limits.idle_wait_seconds()));
        if !pending.is_empty() {
            session.set_pipelined_prefix(pending);
        }
        let (stream, prefix) = self.serve_session(session, shutdown).await?.0.into_parts();
        Some((stream, prefix.unwrap_or_default()))
    }

    /// Reads the next request head (within the head deadline) and answers it on the lane if
    /// it is one for the lane.
    async fn next_on_lane(
        &self,
        stream: &mut Stream,
        pending: &mut BytesMut,
        peer: IpAddr,
        has_slot: bool,
        shutdown: &ShutdownWatch,
    ) -> Turn {
        // Idle, the connection is closed after the head deadline; once a request starts to
        // arrive it has the whole deadline for its head, however long the connection was idle:
        // only an idle connection is closed for being idle.
        let mut deadline = Instant::now() + self.limits.read_timeout;
        let mut idle = pending.is_empty();
        loop {
            if !pending.is_empty() {
                if std::mem::take(&mut idle) {
                    deadline = Instant::now() + self.limits.read_timeout;
                }
                match head_state(pending) {
                    HeadState::Complete => break,
                    HeadState::Partial if pending.len() < LANE_HEAD_BYTES => {}
                    HeadState::Partial | HeadState::Invalid => return Turn::ToPingora,
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            pending.reserve(READ_RESERVE);
            match pingora_timeout::timeout(left, stream.read_buf(pending)).await {
                Ok(Ok(0)) | Ok(Err(_)) | Err(_) => return Turn::Over,
                Ok(Ok(_)) => {}
            }
        }
        let started = Instant::now();
        if !has_slot {
            return Turn::ToPingora;
        }
        let keep_alive = !*shutdown.borrow();
        let mut headers = [httparse::EMPTY_HEADER; LANE_HEADERS];
        let Some((head_len, request)) = parse(pending, &mut headers) else { return Turn::ToPingora };
        // Over the limits (when they are set below the lane's own): Pingora's path refuses it.
        // The head is measured both as sent and as Pingora's path measures it (target plus each
        // name and value plus 4), which is larger when lines are short of `: ` or end in a bare LF.
        let target_len = request.path.len() + request.query.map_or(0, |q| q.len() + 1);
        let measured = target_len + request.headers.iter().map(|h| h.name.len() + h.value.len() + 4).sum::<usize>();
        if head_len.max(measured) > self.limits.max_head_bytes || target_len > self.limits.max_uri_bytes {
            return Turn::ToPingora;
        }
        let Some(reply) = self.handler.answer_at_once(&request) else { return Turn::ToPingora };
        let status = reply.status;
        // Built answers get their head here; a file stays a file, for Pingora to send.
        let reply = if matches!(reply.body, Body::Prepared { .. }) { reply } else { reply.prepared() };
        let Body::Prepared { head, body } = reply.body else { return Turn::ToPingora };
        let body = if request.is_head() { &[][..] } else { &body[..] };
        // Checked to be a plain socket when the connection came (`serve_plain`).
        let fd = socket::descriptor(stream);
        let idle = keep_alive.then(|| self.limits.idle_seconds());
        let sent = socket::send_answer(fd, &head, body, idle, self.limits.write_stall).await;
        let client = || self.limits.proxies.client_from(peer, |name| request.values(name));
        let forwarding = request.header("forwarded").is_some() || request.header("x-forwarded-for").is_some();
        self.limits.proxies.note_forwarding(peer, forwarding);
        log_quick(&request, client, status, sent.as_ref().ok().copied().flatten().unwrap_or(0), started);
        self.handler.observe(request.path(), status);
        pending.advance(head_len);
        match sent {
            Ok(Some(_)) if keep_alive => Turn::Answered,
            _ => Turn::Over,
        }
    }
}

/// Whether the buffer holds a whole head yet.
enum HeadState {
    Complete,
    Partial,
    /// Not something the lane parses (too many lines, a malformed line): Pingora decides.
    Invalid,
}

/// A head is whole once it has its empty line (the lane's parse then says whether it is one for
/// the lane); until then `httparse` tells a head still arriving from one that never will be.
fn head_state(buffer: &[u8]) -> HeadState {
    if has_empty_line(buffer) {
        return HeadState::Complete;
    }
    let mut headers = [httparse::EMPTY_HEADER; LANE_HEADERS];
    match httparse::Request::new(&mut headers).parse(buffer) {
        Ok(httparse::Status::Complete(_)) => HeadState::Complete,
        Ok(httparse::Status::Partial) => HeadState::Partial,
        Err(_) => HeadState::Invalid,
    }
}

/// Whether an empty line (CRLF CRLF, or bare LF as `httparse` also accepts) ends a head in
/// `buffer`.
fn has_empty_line(buffer: &[u8]) -> bool {
    let mut rest = buffer;
    while let Some(at) = rest.iter().position(|&b| b == b'\n') {
        rest = &rest[at + 1..];
        if rest.first() == Some(&b'\n') || rest.starts_with(b"\r\n") {
            return true;
        }
    }
    false
}

/// The request at the start of `buffer` and the length of its head, if it is one for the lane:
/// GET or HEAD over HTTP/1.1, an origin-form target of plain characters, exactly one `Host`
/// (without userinfo), and no header that changes how the request is framed or the connection
/// kept (`Content-Length`, `Transfer-Encoding`, `Connection`, `Expect`, `Upgrade`).
fn parse<'b>(buffer: &'b [u8], headers: &'b mut [httparse::Header<'b>]) -> Option<(usize, Quick<'b>)> {
    let mut request = httparse::Request::new(headers);
    let httparse::Status::Complete(head_len) = request.parse(buffer).ok()? else { return None };
    let head_only = match request.method? {
        "GET" => false,
        "HEAD" => true,
        _ => return None,
    };
    if request.version? != 1 {
        return None;
    }
    let target = request.path?;
    if !target.starts_with('/') || target.starts_with("//") || !target.bytes().all(plain_target_byte) {
        return None;
    }
    let headers: &'b [httparse::Header<'b>] = request.headers;
    let mut hosts = 0;
    for header in headers {
        let name = header.name;
        if name.eq_ignore_ascii_case("host") {
            hosts += 1;
            if header.value.contains(&b'@') {
                return None;
            }
        } else if ["content-length", "transfer-encoding", "connection", "expect", "upgrade"]
            .iter()
            .any(|framing| name.eq_ignore_ascii_case(framing))
        {
            return None;
        }
    }
    // No `Host` on HTTP/1.1 is a 400 (RFC 9112 §3.2), which Pingora's path answers.
    if hosts != 1 {
        return None;
    }
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (target, None),
    };
    Some((head_len, Quick { head_only, path, query, headers }))
}

/// Bytes the lane accepts in a target: unreserved, sub-delimiters, `:@/?%`. Anything else (which
/// Pingora escapes or refuses) goes to Pingora.
fn plain_target_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?%".contains(&b)
}

/// The access line of a request answered on the lane: the same fields as Pingora's path.
fn log_quick(request: &Quick<'_>, client: impl Fn() -> IpAddr, status: u16, bytes: u64, started: Instant) {
    tracing::info!(
        target: "acceso",
        client = %client(),
        method = if request.is_head() { "HEAD" } else { "GET" },
        path = request.path(),
        status,
        bytes,
        ms = format_args!("{:.2}", started.elapsed().as_secs_f64() * 1000.0),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lane(raw: &str) -> Option<(usize, String, Option<String>, bool)> {
        let mut headers = [httparse::EMPTY_HEADER; LANE_HEADERS];
        parse(raw.as_bytes(), &mut headers)
            .map(|(len, q)| (len, q.path().to_owned(), q.query().map(str::to_owned), q.is_head()))
    }

    #[test]
    fn simple_gets_and_heads_take_the_lane() {
        let raw = "GET /buscar?q=bancos HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\nGET /";
        let head_len = raw.rfind("GET /").expect("second request");
        assert_eq!(lane(raw), Some((head_len, "/buscar".into(), Some("q=bancos".into()), false)));
        assert_eq!(lane("HEAD /catalogo HTTP/1.1\r\nHost: x\r\n\r\n"), Some((36, "/catalogo".into(), None, true)));
    }

    #[test]
    fn everything_else_goes_to_pingora() {
        for raw in [
            "POST /mcp HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /catalogo HTTP/1.0\r\nHost: x\r\n\r\n",
            "GET http://otro.example/catalogo HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET //catalogo HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /catalogo HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
            "GET /catalogo HTTP/1.1\r\nHost: u@x\r\n\r\n",
            "GET /catalogo HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
            "GET /catalogo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            "GET /catalogo HTTP/1.1\r\nConnection: close\r\n\r\n",
            "GET /catalogo HTTP/1.1\r\nExpect: 100-continue\r\n\r\n",
            "GET /catalogo HTTP/1.1\r\nUpgrade: h2c\r\n\r\n",
            "GET /cat\"logo HTTP/1.1\r\n\r\n",
            "GET /catalogo HTTP/1.1\r\nHost: x\r\n",
            "GET /catalogo HTTP/1.1\r\nAccept: */*\r\n\r\n",
        ] {
            assert_eq!(lane(raw), None, "{raw:?}");
        }
        let many = format!("GET / HTTP/1.1\r\n{}\r\n", "X-A: 1\r\n".repeat(LANE_HEADERS + 1));
        assert_eq!(lane(&many), None);
    }

    #[test]
    fn heads_are_waited_for_only_while_they_can_still_be_http() {
        assert!(matches!(head_state(b"GET /catalogo HTTP/1.1\r\nHost: x\r\n"), HeadState::Partial));
        assert!(matches!(head_state(b"GET / HTTP/1.1\nHost: x\n\n"), HeadState::Complete), "bare LF");
        // A TLS hello on the plain port: Pingora answers it at once, as before the lane.
        assert!(matches!(head_state(b"\x16\x03\x01\x02\x00\x01"), HeadState::Invalid));
        let many = format!("GET / HTTP/1.1\r\n{}", "X-A: 1\r\n".repeat(LANE_HEADERS + 1));
        assert!(matches!(head_state(many.as_bytes()), HeadState::Invalid), "more lines than the lane parses");
    }
}
