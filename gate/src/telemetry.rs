//! Operations: the gate's liveness (`/salud`) and readiness (`/listo`) answers, and the
//! listener of `--escuchar-metricas`, apart from the buyers' address, that serves the metrics of
//! [`crate::metrics`] besides them.
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::json;

use crate::app::{Gate, Live};
use gate_http::response::{Body, Reply};

/// OpenMetrics text, which Prometheus reads.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
/// Liveness: the process answers.
pub const LIVENESS_PATH: &str = "/salud";
/// Readiness: `dist/` is loaded and its files are there, and the sales record answers.
pub const READINESS_PATH: &str = "/listo";

/// The route template a path is counted under (a bounded set: never a slug or a file name).
pub fn route_of(gate: &Gate, path: &str) -> &'static str {
    match path {
        LIVENESS_PATH => LIVENESS_PATH,
        READINESS_PATH => READINESS_PATH,
        "/buscar" => "/buscar",
        "/mcp" => "/mcp",
        "/mcp/catalogo" => "/mcp/catalogo",
        _ if path.starts_with("/descarga/") => "/descarga/{archivo}",
        _ if gate.statics.get(path).is_some() => "documento",
        _ if path.strip_prefix("/estudio/").is_some_and(|s| gate.manifest.studies.contains_key(s)) => "/estudio/{slug}",
        _ => "otra",
    }
}

/// `/salud`: the process is up and answering.
pub fn liveness() -> Reply {
    no_store(Reply::json(200, &json!({"estado": "vivo"})))
}

/// `/listo`: 200 when the gate can sell (its `dist/` and the files the manifest names are
/// there, and the sales record answers), else 503 with what fails.
pub async fn readiness(gate: &Gate) -> (bool, Reply) {
    let dist = dist_present(gate);
    let sales = gate.shop.sales().ready().await;
    let ready = dist.is_ok() && sales.is_ok();
    let text = |r: Result<String, String>| match r {
        Ok(detail) => json!({"ok": true, "detalle": detail}),
        Err(detail) => json!({"ok": false, "detalle": detail}),
    };
    let body = json!({"listo": ready, "comprobaciones": {"dist": text(dist), "ventas": text(sales)}});
    (ready, no_store(Reply::json(if ready { 200 } else { 503 }, &body)))
}

fn no_store(reply: Reply) -> Reply {
    reply.with_header("Cache-Control", "no-store")
}

/// The loaded `dist/` is still on disk: its manifest and every download it names, at its size
/// (a deploy that removed or half-replaced it under the running gate fails here).
fn dist_present(gate: &Gate) -> Result<String, String> {
    let manifest = gate.dist.join(contract::manifest::FILE);
    if !manifest.is_file() {
        return Err(format!("falta {}: dist/ no está cargado", manifest.display()));
    }
    for (name, download) in &gate.manifest.downloads {
        let path = gate.dist.join(&download.file);
        match std::fs::metadata(&path) {
            Ok(meta) if meta.len() == download.bytes => {}
            Ok(meta) => {
                return Err(format!(
                    "{name}: {} mide {} bytes y el manifiesto dice {}: recargue dist/ (SIGHUP)",
                    path.display(),
                    meta.len(),
                    download.bytes
                ));
            }
            Err(e) => return Err(format!("{name}: {}: {e}", path.display())),
        }
    }
    Ok(format!("{} estudios, {} descargas", gate.manifest.studies.len(), gate.manifest.downloads.len()))
}

/// Opens `--escuchar-metricas` and answers on it, on a thread of its own: `GET /metrics`
/// (OpenMetrics text), `/salud` and `/listo`. Returns the bound address (port 0 picks one).
/// A gate taking over from another (`--relevo`) waits for the old one to free the address.
pub fn serve(listen: &str, live: Arc<Live>, take_over: bool) -> Result<Option<SocketAddr>> {
    let address: SocketAddr =
        listen.parse().with_context(|| format!("--escuchar-metricas {listen:?} no es una dirección IP:puerto"))?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let first = TcpListener::bind(address);
    let bound = match &first {
        Ok(listener) => Some(listener.local_addr()?),
        Err(e) if take_over => {
            tracing::info!("métricas: {address} sigue ocupada ({e}); se reintenta mientras el gate anterior se cierra");
            None
        }
        Err(e) => anyhow::bail!("no se pudo abrir --escuchar-metricas {listen}: {e}"),
    };
    std::thread::Builder::new().name("metricas".into()).spawn(move || {
        let mut listener = first.ok();
        for _ in 0..300 {
            if listener.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_secs(1));
            listener = TcpListener::bind(address).ok();
        }
        let Some(listener) = listener else {
            tracing::error!("métricas: no se pudo abrir {address}");
            return;
        };
        let shown = listener.local_addr().unwrap_or(address);
        tracing::info!("métricas en http://{shown}/metrics (y /salud, /listo)");
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            if let Err(e) = answer(stream, &live, &runtime) {
                tracing::debug!("métricas: {e}");
            }
        }
    })?;
    Ok(bound)
}

/// Reads one request head (up to 8 KiB, within 5 s) and answers it, closing the connection.
fn answer(mut stream: TcpStream, live: &Live, runtime: &tokio::runtime::Runtime) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    let mut head = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 8192 {
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&chunk[..n]);
    }
    let line = head.split(|&b| b == b'\r' || b == b'\n').next().unwrap_or_default();
    let mut parts = line.split(|&b| b == b' ');
    let (method, target) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
    let path = target.split(|&b| b == b'?').next().unwrap_or_default();
    let gate = live.current();
    let (status, content_type, body) = match (method, path) {
        (b"GET", b"/metrics") => {
            let (ready, _) = runtime.block_on(readiness(&gate));
            let count = || match gate.shop.sales().pending() {
                Ok(pending) => Some(pending.len()),
                Err(e) => {
                    tracing::warn!("métricas: no se pudieron contar las compras por conciliar: {e:#}");
                    None
                }
            };
            (200, CONTENT_TYPE, gate.shop.metrics().render(count, ready).into_bytes())
        }
        (b"GET", b"/salud") => (200, "application/json", reply_bytes(liveness())),
        (b"GET", b"/listo") => {
            let (ready, reply) = runtime.block_on(readiness(&gate));
            (if ready { 200 } else { 503 }, "application/json", reply_bytes(reply))
        }
        (b"GET", _) => (404, "text/plain; charset=utf-8", b"/metrics, /salud o /listo\n".to_vec()),
        _ => (405, "text/plain; charset=utf-8", b"solo GET\n".to_vec()),
    };
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Service Unavailable",
    };
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(&body);
    stream.write_all(&out)
}

fn reply_bytes(reply: Reply) -> Vec<u8> {
    match reply.body {
        Body::Bytes(bytes) => bytes.to_vec(),
        _ => Vec::new(),
    }
}
