//! The Pingora application: one hand-written `HttpServerApp` that reads a request, admits or
//! refuses it ([`crate::admission`]), hands it to a [`Handler`], writes the [`Reply`]
//! ([`crate::writing`]) and logs one access line. The process around it is
//! [`crate::lifecycle`].
//!
//! Pingora's `ServeHttp` would buffer whole bodies and its own argument parser would take over
//! `argv`, so the gate uses the lower `HttpServerApp` trait and builds `ServerConf` itself.

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use http::Method;
use pingora_core::ErrorType;
use pingora_core::apps::{HttpPersistentSettings, HttpServerApp, ReusedHttpStream};
use pingora_core::protocols::http::ServerSession;
use pingora_core::protocols::http::server::ReusableHttpStream;
use pingora_core::server::ShutdownWatch;

use crate::admission::{
    BodyError, LINGER, Limits, Slots, read_body_in_time, refuse_ambiguous_framing, refuse_foreign_target,
    refuse_missing_host, unreadable_head_reply,
};
use crate::handler::{Handler, Request};
use crate::response::Reply;
use crate::socket;
use crate::writing::{log_access, write_reply};

/// The Pingora application around a [`Handler`].
pub struct App<H> {
    pub(crate) handler: Arc<H>,
    pub(crate) limits: Limits,
    pub(crate) connections: Slots,
}

impl<H: Handler> App<H> {
    pub fn new(handler: Arc<H>) -> Self {
        App::with_limits(handler, Limits::default())
    }

    pub fn with_limits(handler: Arc<H>, limits: Limits) -> Self {
        let connections = Slots::new(limits.max_connections);
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
    pub(crate) async fn serve_session(
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
        // A kept-alive connection waits for its next head at most `read_timeout` per read (its
        // keep-alive timeout, set with the answer before): no byte in that time and it is idle,
        // closed with nothing sent. A head that has begun then has its own `read_timeout` to
        // arrive, so only idle connections are closed, as on the fast lane. A fresh connection
        // has only the head's deadline.
        let reused = session.get_keepalive().is_some();
        let head_deadline = if reused { limits.read_timeout * 2 } else { limits.read_timeout };
        match pingora_timeout::timeout(head_deadline, session.read_request()).await {
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
                .or_else(|| refuse_foreign_target(&session, &*self.handler)),
        };
        let keepalive = if *shutdown.borrow() || refused.is_some() || !client_keeps_alive {
            None
        } else {
            Some(limits.idle_wait_seconds())
        };
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
