//! The gate that can be swapped under a running server: SIGHUP (or [`Live::reload`]) loads a
//! new `dist/` into a new [`Gate`] and swaps it in. Requests in flight keep the gate they
//! started with (an `Arc`), new requests get the new one, so nothing is dropped; the journal
//! and replay book carry over.

use std::sync::Arc;

use async_trait::async_trait;
use parking_lot::RwLock;

use crate::response::Reply;
use crate::router::Gate;
use crate::server::{Handler, Request};

pub struct Live {
    current: RwLock<Arc<Gate>>,
}

impl Live {
    pub fn new(gate: Gate) -> Live {
        Live { current: RwLock::new(Arc::new(gate)) }
    }

    /// The gate new requests go to.
    pub fn current(&self) -> Arc<Gate> {
        Arc::clone(&self.current.read())
    }

    /// Loads `dist/` again and swaps it in; on error the running gate stays as it was.
    pub fn reload(&self) -> anyhow::Result<()> {
        let next = self.current().reload()?;
        let studies = next.manifest.estudios.len();
        *self.current.write() = Arc::new(next);
        tracing::info!("dist/ recargado: {studies} estudios");
        Ok(())
    }

    /// Reloads on every SIGHUP, on a thread of its own. The handler is installed before this
    /// returns, so a SIGHUP sent once the server answers never kills the process.
    pub fn reload_on_sighup(self: &Arc<Self>) -> anyhow::Result<()> {
        use tokio::signal::unix::{SignalKind, signal};
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let mut hangups = {
            let _entered = runtime.enter();
            signal(SignalKind::hangup())?
        };
        let live = Arc::clone(self);
        std::thread::Builder::new().name("sighup".into()).spawn(move || {
            runtime.block_on(async move {
                while hangups.recv().await.is_some() {
                    tracing::info!("SIGHUP: recargando dist/");
                    if let Err(e) = live.reload() {
                        tracing::error!("SIGHUP: no se pudo recargar dist/, sigue el anterior: {e:#}");
                    }
                }
            });
        })?;
        Ok(())
    }
}

#[async_trait]
impl Handler for Live {
    async fn handle(&self, request: &Request<'_>) -> Reply {
        let gate = self.current();
        gate.handle(request).await
    }

    fn body_limit(&self) -> usize {
        self.current().body_limit()
    }
}
