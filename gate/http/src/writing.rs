//! Writing answers: a [`Reply`]'s head and body onto the session (files with `sendfile(2)` where
//! the connection allows it, else streamed in fixed chunks; bodies prepared with their head in
//! one `send`), the access log line of each request, and the CORS preflight answer.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use bytes::Bytes;
use pingora_core::protocols::http::ServerSession;
use pingora_http::ResponseHeader;

use crate::admission::Limits;
use crate::response::{ALLOW_HEADERS, Body, EXPOSE_HEADERS, JSON, Reply};
use crate::sendfile::{self, Sent};
use crate::socket;

/// Size of each chunk when streaming a file.
const CHUNK: usize = 256 * 1024;

/// Writes a reply; returns the body bytes sent.
pub(crate) async fn write_reply(
    session: &mut ServerSession,
    reply: Reply,
    head_only: bool,
    limits: &Limits,
) -> Result<u64> {
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
        if let Some(sent) =
            socket::send_prepared(session, head, body, (limits.idle_seconds(), limits.write_stall)).await?
        {
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
    if session.get_keepalive().is_some() && !session.is_http2() {
        // Pingora adds `Connection: keep-alive`; how long the gate keeps it idle is ours to say.
        head.insert_header("Keep-Alive", format!("timeout={}", limits.idle_seconds()))?;
    }
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
pub(crate) fn log_access(
    session: &ServerSession,
    client: Option<std::net::IpAddr>,
    status: u16,
    bytes: u64,
    started: Instant,
) {
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
