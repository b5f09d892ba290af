//! The gate's Prometheus metrics (served by [`crate::telemetry`] on `--escuchar-metricas`).
//!
//! | metric | kind | labels |
//! |---|---|---|
//! | `gate_pedidos_total` | counter | `ruta` (a route template), `estado` (HTTP status) |
//! | `gate_402_total` | counter | `ruta`: 402 answers served over HTTP, and `comprar_estudio`'s payment-required answers under `/mcp` |
//! | `gate_compras_total` | counter | `resultado`: `vendida`, `incierta`, `rechazada`, `limitada`, `error` |
//! | `gate_compras_inciertas_total` | counter | purchases whose settlement ended uncertain |
//! | `gate_compras_por_conciliar` | gauge | purchases the sales record holds uncertain now |
//! | `gate_liquidacion_segundos` | histogram | time the facilitator took to settle |
//! | `gate_facilitador_errores_total` | counter | `tipo`: `sin_conexion`, `tiempo_agotado`, `conexion_cortada`, `estado_http`, `respuesta_ilegible` |
//! | `gate_transaccion_ajena_total` | counter | a facilitator's success named a transaction the record credits to another purchase (not believed) |
//! | `gate_ventas_impugnadas_total` | counter | sales the chain disputed after their answer left |
//! | `gate_diario_fsync_segundos` | histogram | fsync of the sales journal (file record only) |
//! | `gate_base_commit_segundos` | histogram | a step committed to the PostgreSQL sales record (shared record only) |
//! | `gate_base_pasos_por_commit` | histogram | purchase steps committed together in one PostgreSQL transaction (shared record only) |
//! | `gate_reenvio_ignorado_total` | counter | requests with `Forwarded`/`X-Forwarded-For` from a peer not in `--proxies` |
//! | `gate_listo` | gauge | 1 when `/listo` would answer 200 |
//!
//! They live with the sales record ([`crate::sales::Sales`]), which outlives every
//! reload of `dist/`, so a SIGHUP never resets them.

use std::time::{Duration, Instant};

use parking_lot::Mutex;
use prometheus_client::encoding::{EncodeLabel, EncodeLabelSet, LabelSetEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// How long a count of the purchases to reconcile is reused (it reads the whole record).
const PENDING_TTL: Duration = Duration::from_secs(15);

#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct RequestLabels {
    route: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct RouteLabels {
    route: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct OutcomeLabels {
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct KindLabels {
    kind: &'static str,
}

/// A label set whose fields are English and whose label names are the Spanish ones operators
/// query (`gate_pedidos_total{ruta="/",estado="200"}`): the derive would name them after the fields.
macro_rules! label_set {
    ($ty:ident { $($field:ident => $label:literal),+ }) => {
        impl EncodeLabelSet for $ty {
            fn encode(&self, encoder: &mut LabelSetEncoder) -> Result<(), std::fmt::Error> {
                $( ($label, self.$field).encode(encoder.encode_label())?; )+
                Ok(())
            }
        }
    };
}

label_set!(RequestLabels { route => "ruta", status => "estado" });
label_set!(RouteLabels { route => "ruta" });
label_set!(OutcomeLabels { outcome => "resultado" });
label_set!(KindLabels { kind => "tipo" });

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
    credited_elsewhere: Counter,
    disputed: Counter,
    fsync: Histogram,
    commit: Histogram,
    batch: Histogram,
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
        registry.register(
            "gate_402",
            "Respuestas de pago requerido: 402 por HTTP y pago requerido de comprar_estudio por MCP",
            payment_required.clone(),
        );
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
        let credited_elsewhere = Counter::default();
        registry.register(
            "gate_transaccion_ajena",
            "Éxitos de liquidación que nombraron una transacción ya acreditada a otra compra (no se les cree)",
            credited_elsewhere.clone(),
        );
        let disputed = Counter::default();
        registry.register(
            "gate_ventas_impugnadas",
            "Ventas cuya liquidación la cadena no confirmó después de entregarlas",
            disputed.clone(),
        );
        // 50 µs to ~1 s: a fast SSD to a saturated disk.
        let fsync = Histogram::new([0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1.0]);
        registry.register("gate_diario_fsync_segundos", "Tiempo de cada fsync del diario de ventas", fsync.clone());
        // 250 µs to ~5 s: a database on the same host to one across a region, or struggling.
        let commit = Histogram::new([0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0]);
        registry.register(
            "gate_base_commit_segundos",
            "Tiempo de cada paso de una compra confirmado (COMMIT) en la base de ventas PostgreSQL",
            commit.clone(),
        );
        // 1 to 256 steps: a lone purchase to the largest batch (`group_commit::MAX_BATCH`).
        let batch = Histogram::new([1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0]);
        registry.register(
            "gate_base_pasos_por_commit",
            "Pasos de compras confirmados juntos en cada transacción de la base de ventas PostgreSQL",
            batch.clone(),
        );
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
            credited_elsewhere,
            disputed,
            fsync,
            commit,
            batch,
            forwarded_ignored,
            ready,
            pending_counted: Mutex::new(None),
        }
    }

    /// One answered request.
    pub fn request(&self, route: &'static str, status: u16) {
        self.requests.get_or_create(&RequestLabels { route, status }).inc();
        if status == 402 {
            self.payment_required.get_or_create(&RouteLabels { route }).inc();
        }
    }

    /// A payment-required answer that is not an HTTP 402: `comprar_estudio` over MCP answers
    /// it inside a JSON-RPC message (HTTP 200), in any of its bindings.
    pub fn payment_required(&self, route: &'static str) {
        self.payment_required.get_or_create(&RouteLabels { route }).inc();
    }

    /// A purchase's outcome: `Ok` is a delivery; a refusal by its status and whether its
    /// settlement ended uncertain.
    pub fn purchase(&self, outcome: Result<(), (u16, bool)>) {
        let outcome = match outcome {
            Ok(()) => "vendida",
            Err((_, true)) => {
                self.uncertain.inc();
                // The next scrape counts the purchases to reconcile again.
                *self.pending_counted.lock() = None;
                "incierta"
            }
            Err((429, _)) => "limitada",
            Err((status, _)) if status >= 500 => "error",
            Err(_) => "rechazada",
        };
        self.purchases.get_or_create(&OutcomeLabels { outcome }).inc();
    }

    /// The time one settlement took at the facilitator.
    pub fn settled_in(&self, elapsed: Duration) {
        self.settlement.observe(elapsed.as_secs_f64());
    }

    /// A settlement without a readable answer, by kind (`FacilitatorError::kind`).
    pub fn facilitator_error(&self, kind: &'static str) {
        self.facilitator_errors.get_or_create(&KindLabels { kind }).inc();
    }

    /// A facilitator's success named a transaction another purchase holds.
    pub fn credited_elsewhere(&self) {
        self.credited_elsewhere.inc();
    }

    /// The chain disputed a sale already delivered.
    pub fn disputed(&self) {
        self.disputed.inc();
    }

    /// The time one step of a purchase took to commit to the PostgreSQL sales record (what the
    /// purchase waits for: its statement queued, then committed with the steps beside it).
    pub fn committed_in(&self, elapsed: Duration) {
        self.commit.observe(elapsed.as_secs_f64());
    }

    /// The histogram the shared record's committers observe each batch's size in.
    pub fn batch_histogram(&self) -> Histogram {
        self.batch.clone()
    }

    /// The histogram the sales journal's writer observes each fsync in.
    pub fn fsync_histogram(&self) -> Histogram {
        self.fsync.clone()
    }

    /// The metrics in the OpenMetrics text format, after counting what is counted on demand:
    /// the purchases to reconcile (`count_pending`, called at most every [`PENDING_TTL`]) and
    /// readiness.
    pub fn render(&self, count_pending: impl FnOnce() -> Option<usize>, ready: bool) -> String {
        {
            let mut counted = self.pending_counted.lock();
            if counted.is_none_or(|at| at.elapsed() >= PENDING_TTL) {
                if let Some(pending) = count_pending() {
                    self.pending.set(pending as i64);
                }
                *counted = Some(Instant::now());
            }
        }
        let ignored = gate_http::client::forwarding_ignored();
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
