//! Operations: the gate's Prometheus metrics, its liveness (`/salud`) and readiness (`/listo`)
//! answers, and the listener of `--listen-metricas`, apart from the buyers' address.
//!
//! | metric | kind | labels |
//! |---|---|---|
//! | `gate_pedidos_total` | counter | `ruta` (a route template), `estado` (HTTP status) |
//! | `gate_402_total` | counter | `ruta`: 402 answers served over HTTP |
//! | `gate_compras_total` | counter | `resultado`: `vendida`, `incierta`, `rechazada`, `limitada`, `error` |
//! | `gate_compras_inciertas_total` | counter | purchases whose settlement ended uncertain |
//! | `gate_compras_por_conciliar` | gauge | purchases the sales record holds uncertain now |
//! | `gate_liquidacion_segundos` | histogram | time the facilitator took to settle |
//! | `gate_facilitador_errores_total` | counter | `tipo`: `sin_conexion`, `tiempo_agotado`, `conexion_cortada`, `estado_http`, `respuesta_ilegible` |
//! | `gate_diario_fsync_segundos` | histogram | fsync of the sales journal (file record only) |
//! | `gate_reenvio_ignorado_total` | counter | requests with `Forwarded`/`X-Forwarded-For` from a peer not in `--proxies` |
//! | `gate_listo` | gauge | 1 when `/listo` would answer 200 |
//!
//! The metrics live with the sales record ([`crate::sales::Sales`]), which outlives every
//! reload of `dist/`, so a SIGHUP never resets them.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use parking_lot::Mutex;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use serde_json::json;

use crate::app::{Gate, Live};
use crate::facilitator::FacilitatorError;
use crate::http::response::{Body, Reply};

/// OpenMetrics text, which Prometheus reads.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
/// Liveness: the process answers.
pub const LIVENESS_PATH: &str = "/salud";
/// Readiness: `dist/` is loaded and its files are there, and the sales record answers.
pub const READINESS_PATH: &str = "/listo";
/// How long a count of the purchases to reconcile is reused (it reads the whole record).
const PENDING_TTL: Duration = Duration::from_secs(15);

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    ruta: &'static str,
    estado: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    ruta: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    resultado: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    tipo: &'static str,
}

/// Every metric the gate keeps.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    payment_required: Family<RouteLabels, Counter>,
    purchases: Family<OutcomeLabels, Counter>,
    uncertain: Counter,
    pending: Gauge,
    settlement: Histogram,
    facilitator_errors: Family<KindLabels, Counter>,
    fsync: Histogram,
    forwarded_ignored: Counter,
    ready: Gauge,
    /// When `pending` was last counted.
    pending_counted: Mutex<Option<Instant>>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register("gate_pedidos", "Pedidos atendidos, por ruta y estado HTTP", requests.clone());
        let payment_required = Family::<RouteLabels, Counter>::default();
        registry.register("gate_402", "Respuestas 402 (pago requerido) servidas por HTTP", payment_required.clone());
        let purchases = Family::<OutcomeLabels, Counter>::default();
        registry.register("gate_compras", "Compras con un pago, por resultado", purchases.clone());
        let uncertain = Counter::default();
        registry.register("gate_compras_inciertas", "Compras cuya liquidación quedó incierta", uncertain.clone());
        let pending = Gauge::default();
        registry.register(
            "gate_compras_por_conciliar",
            "Compras inciertas que el registro de ventas tiene sin conciliar",
            pending.clone(),
        );
        // 10 ms to ~40 s: a local settlement, a facilitator, a chain that mines slowly.
        let settlement = Histogram::new([0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 40.0]);
        registry.register(
            "gate_liquidacion_segundos",
            "Tiempo que tardó el facilitador en liquidar un pago",
            settlement.clone(),
        );
        let facilitator_errors = Family::<KindLabels, Counter>::default();
        registry.register(
            "gate_facilitador_errores",
            "Liquidaciones sin respuesta legible del facilitador, por tipo",
            facilitator_errors.clone(),
        );
        // 50 µs to ~1 s: a fast SSD to a saturated disk.
        let fsync = Histogram::new([0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1.0]);
        registry.register("gate_diario_fsync_segundos", "Tiempo de cada fsync del diario de ventas", fsync.clone());
        let forwarded_ignored = Counter::default();
        registry.register(
            "gate_reenvio_ignorado",
            "Pedidos con Forwarded o X-Forwarded-For de una dirección que no está en --proxies",
            forwarded_ignored.clone(),
        );
        let ready = Gauge::default();
        registry.register("gate_listo", "1 si /listo responde 200", ready.clone());
        Metrics {
            registry,
            requests,
            payment_required,
            purchases,
            uncertain,
            pending,
            settlement,
            facilitator_errors,
            fsync,
            forwarded_ignored,
            ready,
            pending_counted: Mutex::new(None),
        }
    }

    /// One answered request.
    pub fn request(&self, ruta: &'static str, estado: u16) {
        self.requests.get_or_create(&RequestLabels { ruta, estado }).inc();
        if estado == 402 {
            self.payment_required.get_or_create(&RouteLabels { ruta }).inc();
        }
    }

    /// A purchase's outcome: `Ok` is a delivery; a refusal by its status and code.
    pub fn purchase(&self, outcome: Result<(), (u16, &str)>) {
        let resultado = match outcome {
            Ok(()) => "vendida",
            Err((_, code)) if code == crate::payment::settlement::UNCERTAIN_CODE => {
                self.uncertain.inc();
                // The next scrape counts the purchases to reconcile again.
                *self.pending_counted.lock() = None;
                "incierta"
            }
            Err((429, _)) => "limitada",
            Err((status, _)) if status >= 500 => "error",
            Err(_) => "rechazada",
        };
        self.purchases.get_or_create(&OutcomeLabels { resultado }).inc();
    }

    /// The time one settlement took at the facilitator.
    pub fn settled_in(&self, elapsed: Duration) {
        self.settlement.observe(elapsed.as_secs_f64());
    }

    /// A settlement without a readable answer.
    pub fn facilitator_error(&self, error: &FacilitatorError) {
        let tipo = match error {
            FacilitatorError::NotReached(_) => "sin_conexion",
            FacilitatorError::Timeout => "tiempo_agotado",
            FacilitatorError::Broken(_) => "conexion_cortada",
            FacilitatorError::Status { .. } => "estado_http",
            FacilitatorError::BadBody(_) => "respuesta_ilegible",
        };
        self.facilitator_errors.get_or_create(&KindLabels { tipo }).inc();
    }

    /// The histogram the sales journal's writer observes each fsync in.
    pub fn fsync_histogram(&self) -> Histogram {
        self.fsync.clone()
    }

    /// The metrics in the OpenMetrics text format, after counting what is counted on demand:
    /// the purchases to reconcile (at most every [`PENDING_TTL`]) and readiness.
    pub fn render(&self, gate: &Gate, ready: bool) -> String {
        {
            let mut counted = self.pending_counted.lock();
            if counted.is_none_or(|at| at.elapsed() >= PENDING_TTL) {
                match gate.shop.sales().pending() {
                    Ok(pending) => {
                        self.pending.set(pending.len() as i64);
                    }
                    Err(e) => tracing::warn!("métricas: no se pudieron contar las compras por conciliar: {e:#}"),
                }
                *counted = Some(Instant::now());
            }
        }
        let ignored = crate::http::client::forwarding_ignored();
        let seen = self.forwarded_ignored.get();
        if ignored > seen {
            self.forwarded_ignored.inc_by(ignored - seen);
        }
        self.ready.set(i64::from(ready));
        let mut text = String::new();
        if let Err(e) = prometheus_client::encoding::text::encode(&mut text, &self.registry) {
            tracing::error!("métricas: no se pudieron escribir: {e}");
        }
        text
    }
}

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
        _ if path.strip_prefix("/estudio/").is_some_and(|s| gate.manifest.estudios.contains_key(s)) => {
            "/estudio/{slug}"
        }
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
    for (name, download) in &gate.manifest.descargas {
        let path = gate.dist.join(&download.archivo);
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
    Ok(format!("{} estudios, {} descargas", gate.manifest.estudios.len(), gate.manifest.descargas.len()))
}

/// Opens `--listen-metricas` and answers on it, on a thread of its own: `GET /metrics`
/// (OpenMetrics text), `/salud` and `/listo`. Returns the bound address (port 0 picks one).
/// A gate taking over from another (`--relevo`) waits for the old one to free the address.
pub fn serve(listen: &str, live: Arc<Live>, take_over: bool) -> Result<Option<SocketAddr>> {
    let address: SocketAddr =
        listen.parse().with_context(|| format!("--listen-metricas {listen:?} no es una dirección IP:puerto"))?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let first = TcpListener::bind(address);
    let bound = match &first {
        Ok(listener) => Some(listener.local_addr()?),
        Err(e) if take_over => {
            tracing::info!("métricas: {address} sigue ocupada ({e}); se reintenta mientras el gate anterior se cierra");
            None
        }
        Err(e) => anyhow::bail!("no se pudo abrir --listen-metricas {listen}: {e}"),
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
            (200, CONTENT_TYPE, gate.shop.metrics().render(&gate, ready).into_bytes())
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
