//! Downloads sent straight from the page cache to the socket with `sendfile(2)`, as nginx does.
//!
//! Pingora only writes bodies it is handed as bytes, so a file streamed through it is copied
//! twice on its way out: page cache → a buffer of ours → the socket. On a plain HTTP/1
//! connection the gate instead writes the response head and hands the kernel the file
//! descriptor: no copy through user space, and a download costs about what it costs nginx.
//! Anything else (TLS, HTTP/2, a stream that is not a socket) gets `None` and the caller
//! streams chunks through Pingora as before.
//!
//! The socket belongs to Pingora's session. It is borrowed for exactly as long as the session
//! is borrowed, written only while Pingora has nothing buffered for it (before any byte of this
//! response went through Pingora), and waited on through a duplicate registered with the
//! runtime, so Pingora's own registration is left alone. After the last byte the connection
//! goes back to Pingora, which reuses it for the next request like any other.

use std::io;
use std::time::Duration;

use bytes::{BufMut, BytesMut};
use pingora_core::protocols::http::ServerSession;
use pingora_http::ResponseHeader;
use rustix::net::{SendFlags, send};
use tokio::net::TcpStream;

use crate::socket::{plain_http1_socket, wait_and};

/// Most bytes one `sendfile` call is asked for; the socket takes what its buffer holds.
const MAX_PER_CALL: usize = 4 * 1024 * 1024;

/// What happened when the zero-copy path was offered a response.
pub(crate) enum Sent {
    /// The head and all `len` bytes of the file went out.
    All(u64),
    /// This connection cannot take it (TLS, HTTP/2, not a socket); nothing was written and
    /// the head comes back, for the caller to send through Pingora.
    NotApplicable(Box<ResponseHeader>),
}

/// Writes `head` and `len` bytes of `file` from byte `start` on the session's socket.
///
/// `head` is completed with the `Date` and `Connection` headers Pingora would have added.
/// Gives up with an error (the caller closes the connection) if the client takes nothing for
/// `stall`, or if the file is shorter than `len`.
pub(crate) async fn send_file(
    session: &ServerSession,
    mut head: Box<ResponseHeader>,
    file: &std::fs::File,
    start: u64,
    len: u64,
    stall: Duration,
) -> io::Result<Sent> {
    let Some(socket) = plain_http1_socket(session) else {
        return Ok(Sent::NotApplicable(head));
    };
    let keepalive = session.get_keepalive().is_some();
    add_pingora_headers(&mut head, keepalive)?;
    let mut wire = BytesMut::with_capacity(1024);
    wire.put_slice(b"HTTP/1.1 ");
    wire.put_slice(head.status.as_str().as_bytes());
    wire.put_u8(b' ');
    wire.put_slice(head.get_reason_phrase().unwrap_or("").as_bytes());
    wire.put_slice(b"\r\n");
    head.header_to_h1_wire(&mut wire);
    wire.put_slice(b"\r\n");

    // A duplicate of the socket registered with the runtime, so this task can wait for it to
    // drain; dropping it closes only the duplicate.
    let waiter = TcpStream::from_std(std::net::TcpStream::from(socket.try_clone_to_owned()?))?;
    let mut written = 0;
    while written < wire.len() {
        // More data follows at once: let the kernel put the head in the file's first packet.
        written +=
            wait_and(&waiter, stall, |fd| send(fd, &wire[written..], SendFlags::MORE | SendFlags::NOSIGNAL)).await?;
    }
    let end = start + len;
    let mut offset = start;
    while offset < end {
        let want = usize::try_from(end - offset).unwrap_or(usize::MAX).min(MAX_PER_CALL);
        let sent = wait_and(&waiter, stall, |fd| rustix::fs::sendfile(fd, file, Some(&mut offset), want)).await?;
        if sent == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "el archivo es más corto de lo anunciado"));
        }
    }
    Ok(Sent::All(offset - start))
}

/// The `Date` and `Connection` headers Pingora adds to every response it writes itself.
fn add_pingora_headers(head: &mut ResponseHeader, keepalive: bool) -> io::Result<()> {
    let date = pingora_core::protocols::http::date::get_cached_date();
    head.insert_header(http::header::DATE, date).map_err(io::Error::other)?;
    head.insert_header(http::header::CONNECTION, if keepalive { "keep-alive" } else { "close" })
        .map_err(io::Error::other)?;
    Ok(())
}
