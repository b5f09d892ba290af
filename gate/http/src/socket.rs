//! The socket under a Pingora session, for the two things Pingora does not do with it: hand a
//! file to the kernel ([`crate::sendfile`]) and close politely after refusing a request.
//!
//! A refusal sent while the client is still sending (a head too large to read, a body over the
//! limit) must not be followed by a plain `close`: with unread bytes in its receive buffer the
//! kernel answers the close with a reset, and the client may lose the answer it has not read
//! yet. [`linger`] closes the way nginx does: send the FIN, then read and discard what the
//! client still sends, for a moment, before the descriptor is closed.

use std::io::{self, IoSlice};
use std::os::fd::{AsFd, BorrowedFd};
use std::time::{Duration, Instant};

use pingora_core::protocols::Stream;
use pingora_core::protocols::http::ServerSession;
use rustix::fs::{FileType, fstat};
use tokio::io::Interest;
use tokio::net::TcpStream;

/// The session's socket, if the session is plain (no TLS) HTTP/1 over a real socket.
pub(crate) fn plain_http1_socket(session: &ServerSession) -> Option<BorrowedFd<'_>> {
    plain_http1_descriptor(session).filter(|fd| is_socket(*fd))
}

/// Whether the stream is encrypted.
fn is_tls(stream: &Stream) -> bool {
    stream.get_ssl().is_some() || stream.get_ssl_digest().is_some()
}

/// The descriptor of a stream, if it is a socket.
fn socket_of(stream: &Stream) -> Option<BorrowedFd<'_>> {
    Some(borrow_socket(stream)).filter(|fd| is_socket(*fd))
}

/// Whether a descriptor is a socket.
fn is_socket(fd: BorrowedFd<'_>) -> bool {
    matches!(fstat(fd), Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::Socket)
}

/// After a refusal: ends the sending side of an HTTP/1 connection (TLS or not) and reads what
/// the client still sends, until it closes or `wait` passes. The caller then drops the session,
/// which closes the descriptor.
pub(crate) async fn linger(session: &ServerSession, wait: Duration) {
    if session.as_http1().is_none() {
        return;
    }
    let Some(socket) = session.stream().and_then(socket_of) else { return };
    let Ok(owned) = socket.try_clone_to_owned() else { return };
    let Ok(reader) = TcpStream::from_std(std::net::TcpStream::from(owned)) else { return };
    let _ = rustix::net::shutdown(&reader, rustix::net::Shutdown::Write);
    let deadline = Instant::now() + wait;
    let mut sink = vec![0u8; 16 * 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || tokio::time::timeout(left, reader.readable()).await.is_err() {
            return;
        }
        match reader
            .try_io(Interest::READABLE, || rustix::io::read(&reader, &mut sink[..]).map_err(std::io::Error::from))
        {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => return,
        }
    }
}

/// Runs a non-blocking socket call once the socket can take data, until it does not block.
pub(crate) async fn wait_and(
    waiter: &TcpStream,
    stall: Duration,
    mut call: impl FnMut(BorrowedFd<'_>) -> rustix::io::Result<usize>,
) -> io::Result<usize> {
    loop {
        tokio::time::timeout(stall, waiter.writable())
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "el cliente dejó de leer"))??;
        match waiter.try_io(Interest::WRITABLE, || call(waiter.as_fd()).map_err(io::Error::from)) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
            result => return result,
        }
    }
}

/// Writes a response whose head was serialized at load (see [`crate::response::Body::Prepared`])
/// on a plain HTTP/1 session's socket: `head`, the `Date` and `Connection` lines Pingora would
/// add, and `body`. `None` when the session is not plain HTTP/1 (nothing written).
///
/// The common case costs one system call: a vectored `sendmsg` straight on the session's
/// descriptor (non-blocking, as tokio keeps it), with no copy of the body and no second
/// registration of the socket. Only when the socket buffer cannot take the whole answer at once
/// does the rest wait for the socket through a registered duplicate, as [`wait_and`] does.
pub(crate) async fn send_prepared(
    session: &ServerSession,
    head: &[u8],
    body: &[u8],
    (idle, stall): (u64, Duration),
) -> io::Result<Option<u64>> {
    let Some(socket) = plain_http1_descriptor(session) else { return Ok(None) };
    send_answer(socket, head, body, session.get_keepalive().is_some().then_some(idle), stall).await
}

/// Writes a prepared answer on a plain HTTP/1 socket (see [`send_prepared`]); `None` when the
/// descriptor is not a socket after all (nothing was written).
pub(crate) async fn send_answer(
    socket: BorrowedFd<'_>,
    head: &[u8],
    body: &[u8],
    keep_alive: Option<u64>,
    stall: Duration,
) -> io::Result<Option<u64>> {
    // In the order Pingora's path writes them: the reply's own headers (`Keep-Alive` among
    // them), then `Date` and `Connection`.
    let mut seconds = itoa::Buffer::new();
    let ([idle, seconds, end], connection): ([&[u8]; 3], &[u8]) = match keep_alive {
        Some(idle) => ([b"Keep-Alive: timeout=", seconds.format(idle).as_bytes(), b"\r\n"], b"keep-alive"),
        None => ([b"", b"", b""], b"close"),
    };
    let date = pingora_core::protocols::http::date::get_cached_date();
    let parts: [&[u8]; 10] =
        [head, idle, seconds, end, b"Date: ", date.as_bytes(), b"\r\nConnection: ", connection, b"\r\n\r\n", body];
    let mut ancillary = rustix::net::SendAncillaryBuffer::default();
    let written = match rustix::net::sendmsg(
        socket,
        &parts.map(IoSlice::new),
        &mut ancillary,
        rustix::net::SendFlags::NOSIGNAL,
    ) {
        Ok(n) => n,
        Err(rustix::io::Errno::AGAIN) => 0,
        // Not a socket after all (nothing was written): let Pingora write it.
        Err(rustix::io::Errno::NOTSOCK) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    if written < parts.iter().map(|part| part.len()).sum() {
        // Rare: the socket took only part of it. The rest is copied once and waits its turn.
        let wire = parts.concat();
        let rest = &wire[written..];
        let waiter = TcpStream::from_std(std::net::TcpStream::from(socket.try_clone_to_owned()?))?;
        let mut sent = 0;
        while sent < rest.len() {
            sent +=
                wait_and(&waiter, stall, |fd| rustix::net::send(fd, &rest[sent..], rustix::net::SendFlags::NOSIGNAL))
                    .await?;
        }
    }
    Ok(Some(body.len() as u64))
}

/// The descriptor of a plain stream (no TLS) that is a socket: the one a connection on the
/// fast lane ([`crate::quick`]) is answered on.
pub(crate) fn plain_socket(stream: &Stream) -> Option<BorrowedFd<'_>> {
    if is_tls(stream) {
        return None;
    }
    socket_of(stream)
}

/// The descriptor of a plain (no TLS) HTTP/1 session, without checking that it is a socket:
/// for callers that find out from the first call on it.
fn plain_http1_descriptor(session: &ServerSession) -> Option<BorrowedFd<'_>> {
    session.as_http1()?;
    let stream: &Stream = session.stream()?;
    (!is_tls(stream)).then(|| borrow_socket(stream))
}

/// The descriptor under a stream already known to be a plain socket ([`plain_socket`]), with
/// no system call.
pub(crate) fn descriptor(stream: &Stream) -> BorrowedFd<'_> {
    borrow_socket(stream)
}

/// The descriptor under a Pingora stream, borrowed for as long as the stream is.
#[allow(unsafe_code)]
fn borrow_socket(stream: &Stream) -> BorrowedFd<'_> {
    // `UniqueID::id` is the stream's descriptor on Unix (Pingora's l4 stream returns
    // `as_raw_fd()`, and TLS wrappers forward their inner stream's). SAFETY: the descriptor
    // is open for as long as `stream` lives, it is closed only when the stream is dropped,
    // which cannot happen while this shared borrow (which the returned value carries) exists.
    let fd = stream.id();
    unsafe { BorrowedFd::borrow_raw(fd) }
}
