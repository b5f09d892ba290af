//! The sales record in PostgreSQL, for several gates sharing one (`--ventas postgres://…`).
//!
//! The same events as the file journal, stored as the same JSON records (table `eventos`,
//! folded by [`super::ledger`] exactly like the file), committed before the next step runs as
//! the file is fsync'd, and, as the file's fsync is shared, committed together with the steps
//! of the purchases running beside them ([`super::group_commit`]). The replay memory lives
//! beside them in the database, so any gate recognises any sale: `compras` holds one row per authorization (`network|payer|nonce`, the
//! primary key) and `identificadores` one per x402 `payment-identifier`.
//!
//! A reservation is one transaction that inserts the authorization's row (and its
//! identifier's): of two gates racing one authorization, the second waits on the primary key
//! until the first commits, inserts nothing, and reads why (in flight, paid, uncertain). A new
//! authorization's row is inserted with its `aceptado` record, in one statement: the file
//! journal's first durable step is that record too (its reservation lives in memory). Each
//! event that changes the state of a purchase changes its row in the same transaction as the
//! event: `liquidado` makes it paid, an uncertain `fallido` uncertain. A purchase that ends
//! for certain without a sale releases its row. A row a gate left in flight (it stopped
//! mid-purchase) counts as uncertain once its hold expires, so the same payment, repeated
//! through any gate, settles it again or finds it settled: never lost, never charged twice.
//!
//! Every query runs on a small runtime of its own with a deadline, so a database that is gone
//! turns into a refusal within seconds, before anything is settled.

use std::future::Future;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use sha2::Digest;

use super::Credited;
use super::book::{Owned, PaidSale, Seen, UncertainSale};
pub use super::db_error::DbError;
use super::group_commit::{GroupCommit, Param};
use super::journal::{Contents, Event, Record};
use super::ledger;
use crate::x402::SettlementResponse;

mod statements;
use statements::*;

/// The environment variable that may carry the URL instead of `--ventas` (it holds the
/// database password, so it is kept out of process listings).
pub const URL_ENV: &str = "GATE_VENTAS";

/// The migrations, in order: (version, name, SQL). Applied at start in one transaction and
/// recorded in `schema_migrations`.
const MIGRATIONS: &[(i32, &str, &str)] = &[
    (1, "diario_de_ventas", include_str!("../../migrations/0001_diario_de_ventas.sql")),
    (2, "reaccesos", include_str!("../../migrations/0002_reaccesos.sql")),
    (3, "indice_de_billetera", include_str!("../../migrations/0003_indice_de_billetera.sql")),
    (4, "una_transaccion_una_venta", include_str!("../../migrations/0004_una_transaccion_una_venta.sql")),
];

/// Serialises concurrent starts of several gates on one database while they migrate.
const MIGRATION_LOCK: i64 = 0x7665_6e74_6173; // "ventas"

/// How long one database operation may take before the purchase is refused.
const OPERATION_DEADLINE: Duration = Duration::from_secs(10);
/// How long a gate holds an authorization in flight before others presume it stopped.
pub const DEFAULT_HOLD: Duration = Duration::from_secs(150);
/// Connections per gate, unless [`POOL_ENV`] says otherwise: one for each of the
/// [`COMMITTERS`], and the rest for what runs beside them (re-access lookups, sign-in claims,
/// the rare transactions), opened as needed, within the server's `max_connections` (100 by
/// default) for the gates that share it.
const POOL_SIZE: usize = 32;
/// Batches of purchase steps a gate commits at once ([`GroupCommit`]), each on a connection of
/// the pool. Measured with `bench-gate` (docs/src/diseno/historia-de-benchmarks.md, "The shared
/// record's steps committed together"): 1, 2, 4 and 8 sold within the noise of
/// one another; 4 keeps a lone step from waiting behind a batch.
const COMMITTERS: usize = 4;
/// The environment variable that sets the connections per gate (1 to 1,000).
pub const POOL_ENV: &str = "GATE_VENTAS_CONEXIONES";

/// The shared sales record: a pool on a runtime of its own.
pub struct Shared {
    pool: Pool,
    /// The purchase steps, committed together with the steps running beside them.
    group: GroupCommit,
    runtime: DbRuntime,
    /// The URL without its password, for messages.
    target: String,
    hold: Duration,
}

/// The database's runtime, shut down in the background when dropped (possibly from async code).
struct DbRuntime(Option<tokio::runtime::Runtime>);

impl DbRuntime {
    fn handle(&self) -> Option<&tokio::runtime::Handle> {
        self.0.as_ref().map(tokio::runtime::Runtime::handle)
    }
}

impl Drop for DbRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

/// Parses a `postgres://` URL, with an error that never repeats it (it may hold a password).
/// libpq's `sslrootcert` is accepted beside tokio-postgres's own parameters (see
/// [`postgres_tls`](super::postgres_tls)).
pub fn parse_url(url: &str) -> Result<tokio_postgres::Config> {
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        anyhow::bail!("--ventas: se espera una URL postgres://usuario:clave@host:puerto/base");
    }
    let (url, _) = super::postgres_tls::take_root_cert(url);
    tokio_postgres::Config::from_str(&url).map_err(|e| anyhow!("--ventas: la URL de PostgreSQL no es válida ({e})"))
}

/// `postgres://user@host:port/db`: the URL as messages may show it, without the password.
pub fn describe(config: &tokio_postgres::Config) -> String {
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
        Some(tokio_postgres::config::Host::Unix(path)) => path.display().to_string(),
        None => "localhost".to_owned(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().map(|u| format!("{u}@")).unwrap_or_default();
    let db = config.get_dbname().unwrap_or_default();
    format!("postgres://{user}{host}:{port}/{db}")
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

impl Shared {
    /// Connects, checks the database answers, and applies the pending migrations. Blocks the
    /// calling thread (it is called once, at start), also from async code.
    pub fn connect(url: &str) -> Result<Arc<Shared>> {
        Shared::connect_with_hold(url, DEFAULT_HOLD)
    }

    /// [`Shared::connect`] with another hold for purchases in flight (tests).
    pub fn connect_with_hold(url: &str, hold: Duration) -> Result<Arc<Shared>> {
        let hold = test_hold().unwrap_or(hold);
        let mut config = parse_url(url)?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(5));
        }
        let target = describe(&config);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("ventas-pg")
            .enable_all()
            .build()
            .context("no se pudo crear el hilo de la base de ventas")?;
        let (_, root_cert) = super::postgres_tls::take_root_cert(url);
        let tls = super::postgres_tls::connector(root_cert.as_deref())?;
        let manager = Manager::from_config(config, tls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = {
            // The pool's timers belong to the database's runtime.
            let _entered = runtime.enter();
            Pool::builder(manager)
                .max_size(pool_size()?)
                .runtime(Runtime::Tokio1)
                .wait_timeout(Some(OPERATION_DEADLINE))
                .create_timeout(Some(Duration::from_secs(5)))
                .recycle_timeout(Some(Duration::from_secs(5)))
                .build()
                .context("no se pudo preparar la conexión con la base de ventas")?
        };
        let group = GroupCommit::start(&pool, runtime.handle(), COMMITTERS, OPERATION_DEADLINE);
        let shared = Arc::new(Shared { pool, group, runtime: DbRuntime(Some(runtime)), target, hold });
        let pool = shared.pool.clone();
        shared.block(migrate(pool)).map_err(|e| {
            anyhow!(
                "no se pudo usar la base de ventas {}: {e}; el gate no arranca sin su registro de ventas (revise --ventas o {URL_ENV}, que el servidor PostgreSQL esté en marcha y acepte al usuario)",
                shared.target
            )
        })?;
        Ok(shared)
    }

    /// Observes in `histogram` how many steps each committed transaction carried.
    pub fn observe_batches(&self, histogram: prometheus_client::metrics::histogram::Histogram) {
        self.group.observe(histogram);
    }

    /// The database as messages show it (no password).
    pub fn target(&self) -> &str {
        &self.target
    }

    /// Runs `work` on the database's runtime with the operation deadline.
    async fn run<T: Send + 'static>(
        &self,
        work: impl Future<Output = Result<T, DbError>> + Send + 'static,
    ) -> Result<T, DbError> {
        let Some(handle) = self.runtime.handle() else { return Err(DbError("la base de ventas se cerró".into())) };
        let task = handle.spawn(async move {
            tokio::time::timeout(OPERATION_DEADLINE, work)
                .await
                .unwrap_or_else(|_| Err(DbError("la base de ventas no respondió a tiempo".into())))
        });
        task.await.unwrap_or_else(|e| Err(DbError(format!("la tarea de la base de ventas falló: {e}"))))
    }

    /// Runs `work` on the database's runtime and waits for it from plain (or async) code.
    fn block<T: Send + 'static>(&self, work: impl Future<Output = Result<T, DbError>> + Send + 'static) -> Result<T> {
        let handle = self.runtime.handle().context("la base de ventas se cerró")?;
        let (done, result) = std::sync::mpsc::channel();
        handle.spawn(async move {
            let outcome = tokio::time::timeout(Duration::from_secs(120), work)
                .await
                .unwrap_or_else(|_| Err(DbError("la base de ventas no respondió a tiempo".into())));
            let _ = done.send(outcome);
        });
        let outcome = result.recv().context("la tarea de la base de ventas se detuvo")?;
        outcome.map_err(|e| anyhow!("{e}"))
    }

    /// Reserves an authorization (and its identifier) for one purchase, across every gate.
    /// With `accepted` (the purchase's `aceptado` record), a new authorization's row and that
    /// record are committed together, in one statement ([`Reservation::accepted`] says so);
    /// otherwise the record is left to [`Shared::write`].
    pub async fn reserve(
        self: &Arc<Self>,
        key: &str,
        id: Option<&str>,
        fingerprint: &str,
        until: u64,
        now: u64,
        accepted: Option<Record>,
    ) -> Result<Reservation, Seen> {
        let wanted = Wanted {
            key: key.to_owned(),
            id: id.map(str::to_owned),
            fingerprint: fingerprint.to_owned(),
            until,
            now,
            token: new_token(),
            hold: now + self.hold.as_secs(),
        };
        let token = wanted.token.clone();
        let (pool, group) = (self.pool.clone(), self.group.clone());
        let outcome = self.run(async move { reserve_in(&pool, &group, wanted, accepted).await }).await;
        match outcome {
            Ok(Ok(accepted)) => {
                let mut reservation = Reservation::new(self, key, &token, false, None);
                reservation.accepted = accepted;
                Ok(reservation)
            }
            Ok(Err(seen)) => Err(seen),
            Err(e) => {
                tracing::error!("base de ventas {}: no se pudo reservar el pago: {e}", self.target);
                Err(Seen::Unavailable)
            }
        }
    }

    /// Takes an uncertain purchase (or one whose hold expired) back in flight to retry it.
    pub async fn resume(self: &Arc<Self>, key: &str, now: u64) -> Result<Reservation, Seen> {
        let token = new_token();
        let hold = now + self.hold.as_secs();
        let (pool, key_owned, token_owned) = (self.pool.clone(), key.to_owned(), token.clone());
        let outcome = self.run(async move { resume_in(&pool, &key_owned, now, &token_owned, hold).await }).await;
        match outcome {
            Ok(Ok(earlier)) => Ok(Reservation::new(self, key, &token, true, earlier)),
            Ok(Err(seen)) => Err(seen),
            Err(e) => {
                tracing::error!("base de ventas {}: no se pudo retomar el pago: {e}", self.target);
                Err(Seen::Unavailable)
            }
        }
    }

    /// A settled sale of `estudio` to `pagador` on `red`, whichever gate sold it: of `vista` if
    /// there is one, else the first of another view (what a re-access proves).
    pub async fn purchase_of(
        &self,
        network: &str,
        payer: &str,
        study: &str,
        view: &str,
    ) -> Result<Option<Owned>, DbError> {
        let pool = self.pool.clone();
        let (network, payer, study, view) = (network.to_owned(), payer.to_owned(), study.to_owned(), view.to_owned());
        self.run(async move {
            let client = pool.get().await?;
            let statement = client
                .prepare_cached(
                    "SELECT compra, estudio, vista, red, pagador, monto, transaccion, liquidada_unix FROM compras
                     WHERE estado = 'pagada' AND red = $1 AND lower(pagador) = lower($2) AND estudio = $3
                     ORDER BY (vista = $4) DESC, liquidada_unix, compra LIMIT 1",
                )
                .await?;
            let row = client.query_opt(&statement, &[&network, &payer, &study, &view]).await?;
            Ok(row.map(|row| Owned {
                purchase: row.get("compra"),
                study: row.get::<_, Option<String>>("estudio").unwrap_or_default(),
                view: row.get::<_, Option<String>>("vista").unwrap_or_default(),
                network: row.get::<_, Option<String>>("red").unwrap_or_default(),
                payer: row.get::<_, Option<String>>("pagador").unwrap_or_default(),
                amount: row.get::<_, Option<String>>("monto").unwrap_or_default(),
                transaction: row.get::<_, Option<String>>("transaccion").unwrap_or_default(),
                settled_at: row.get::<_, Option<i64>>("liquidada_unix").map_or(0, |t| t.max(0) as u64),
            }))
        })
        .await
    }

    /// Takes a sign-in proof for good, across every gate: `false` when a gate took it already
    /// (a replay). A proof counts as used from the moment a gate takes it, even if that
    /// re-access then fails: the buyer signs a new challenge, never the same one twice.
    pub async fn claim_sign_in(&self, network: &str, wallet: &str, nonce: &str, until: u64) -> Result<bool, DbError> {
        let pool = self.pool.clone();
        let (network, wallet, nonce) = (network.to_owned(), wallet.to_ascii_lowercase(), nonce.to_owned());
        let until = i64::try_from(until).unwrap_or(i64::MAX);
        self.run(async move {
            let client = pool.get().await?;
            let statement = client
                .prepare_cached(
                    "INSERT INTO pruebas_usadas (red, pagador, nonce, valido_hasta) VALUES ($1, $2, $3, $4)
                     ON CONFLICT (red, pagador, nonce) DO NOTHING",
                )
                .await?;
            let inserted = client.execute(&statement, &[&network, &wallet, &nonce, &until]).await?;
            Ok(inserted == 1)
        })
        .await
    }

    /// Commits one step, with the change it makes to its purchase's row. Every step waits for
    /// its commit, a delivery too (the file journal answers a delivery before its fsync; here
    /// that measured no faster: docs/src/diseno/historia-de-benchmarks.md, "Measured and not kept").
    pub async fn write(&self, record: Record) -> std::io::Result<()> {
        let group = self.group.clone();
        self.run(async move { write_in(&group, record).await })
            .await
            .map_err(|e| std::io::Error::other(format!("base de ventas: {e}")))
    }

    /// Commits a sale's `liquidado` step, crediting its transaction to it; with `exclusive`, a
    /// transaction another purchase holds is not believed: nothing is committed and that
    /// purchase is returned ([`super::Sales::record_settlement`]).
    pub async fn settle(&self, record: Record, exclusive: bool) -> std::io::Result<Credited> {
        let (pool, group) = (self.pool.clone(), self.group.clone());
        self.run(async move { settle_in(&pool, &group, record, exclusive).await })
            .await
            .map_err(|e| std::io::Error::other(format!("base de ventas: {e}")))
    }

    /// Whether the database answers a trivial query now (readiness, `/listo`).
    pub async fn ping(&self) -> Result<(), DbError> {
        let pool = self.pool.clone();
        self.run(async move {
            pool.get().await?.simple_query("SELECT 1").await?;
            Ok(())
        })
        .await
    }

    /// Every record, in the order committed (for `gate ventas`), with any unreadable one
    /// named in the warnings.
    pub fn read(&self) -> Result<Contents> {
        let pool = self.pool.clone();
        self.block(async move {
            let client = pool.get().await?;
            let rows = client.query("SELECT id, registro::text FROM eventos ORDER BY id", &[]).await?;
            let mut contents = Contents::default();
            for row in rows {
                let id: i64 = row.get(0);
                let text: String = row.get(1);
                match serde_json::from_str::<Record>(&text) {
                    Ok(record) => contents.records.push(record),
                    Err(e) => contents.warnings.push(format!("eventos id {id} ilegible, se omite: {e}")),
                }
            }
            Ok(contents)
        })
    }

    /// Records one step from plain code (`gate ventas conciliar`).
    pub fn write_blocking(&self, record: Record) -> Result<()> {
        let group = self.group.clone();
        self.block(async move { write_in(&group, record).await })
    }

    /// Loads a journal's records, skipping those already loaded, and puts its sales and its
    /// purchases to reconcile in the replay memory. Returns how many records were new.
    pub fn import(&self, records: Vec<Record>) -> Result<u64> {
        let pool = self.pool.clone();
        self.block(async move { import_in(&pool, &records).await })
    }
}

/// [`POOL_SIZE`], or what [`POOL_ENV`] says.
fn pool_size() -> Result<usize> {
    match std::env::var(POOL_ENV) {
        Err(_) => Ok(POOL_SIZE),
        Ok(text) => text
            .trim()
            .parse()
            .ok()
            .filter(|n| (1..=1_000).contains(n))
            .with_context(|| format!("{POOL_ENV}: se espera un número de conexiones de 1 a 1000, no {text:?}")),
    }
}

/// Tests only, and only in a gate built with the `test-faults` feature: seconds a gate holds
/// an authorization in flight (`GATE_VENTAS_PLAZO_PRUEBA`), so a kill test need not wait
/// [`DEFAULT_HOLD`].
#[cfg(feature = "test-faults")]
fn test_hold() -> Option<Duration> {
    std::env::var("GATE_VENTAS_PLAZO_PRUEBA").ok()?.parse().ok().map(Duration::from_secs)
}

#[cfg(not(feature = "test-faults"))]
fn test_hold() -> Option<Duration> {
    None
}

fn new_token() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}

async fn migrate(pool: Pool) -> Result<(), DbError> {
    let mut client = pool.get().await?;
    let transaction = client.transaction().await?;
    transaction.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await?;
    // Created only when absent (IF NOT EXISTS would log a notice at every start).
    let exists: bool = transaction.query_one("SELECT to_regclass('schema_migrations') IS NOT NULL", &[]).await?.get(0);
    if !exists {
        transaction
            .batch_execute(
                "CREATE TABLE schema_migrations (
                    version INTEGER PRIMARY KEY,
                    nombre TEXT NOT NULL,
                    aplicada TIMESTAMPTZ NOT NULL DEFAULT now()
                )",
            )
            .await?;
    }
    let applied: Vec<i32> =
        transaction.query("SELECT version FROM schema_migrations", &[]).await?.iter().map(|r| r.get(0)).collect();
    for (version, name, sql) in MIGRATIONS {
        if applied.contains(version) {
            continue;
        }
        transaction.batch_execute(sql).await?;
        transaction
            .execute("INSERT INTO schema_migrations (version, nombre) VALUES ($1, $2)", &[version, name])
            .await?;
        tracing::info!("base de ventas: migración {version:04}_{name} aplicada");
    }
    if let Some(newest) = applied.iter().max().filter(|v| **v > MIGRATIONS.len() as i32) {
        return Err(DbError(format!(
            "la base tiene la migración {newest}, más nueva que este gate: actualice el gate"
        )));
    }
    transaction.commit().await?;
    Ok(())
}

/// A paid purchase's row as a [`PaidSale`].
fn paid_from(row: &tokio_postgres::Row) -> PaidSale {
    let text = |name: &str| row.get::<_, Option<String>>(name).unwrap_or_default();
    PaidSale {
        purchase: text("compra"),
        fingerprint: text("huella"),
        study: text("estudio"),
        view: text("vista"),
        settlement: SettlementResponse::recorded(text("red"), text("transaccion"), text("pagador"), text("monto")),
        settled_at: to_u64(row.get::<_, Option<i64>>("liquidada_unix").unwrap_or_default()),
    }
}

fn uncertain_from(row: &tokio_postgres::Row) -> UncertainSale {
    let text = |name: &str| row.get::<_, Option<String>>(name).unwrap_or_default();
    UncertainSale {
        fingerprint: text("huella"),
        study: text("estudio"),
        view: text("vista"),
        transaction: row.get::<_, Option<String>>("transaccion").filter(|t| !t.is_empty()),
    }
}

const ROW: &str = "SELECT compra, estado, huella, estudio, vista, red, pagador, monto, transaccion, liquidada_unix, plazo, motivo FROM compras WHERE compra = $1";

/// Why a row that exists cannot be reserved.
fn seen_from(row: &tokio_postgres::Row, now: u64) -> Seen {
    let status: String = row.get("estado");
    match status.as_str() {
        "pagada" => Seen::Paid(Arc::new(paid_from(row))),
        "incierta" => Seen::Uncertain(Arc::new(uncertain_from(row))),
        "impugnada" => Seen::Disputed(Arc::from(
            row.get::<_, Option<String>>("motivo").unwrap_or_else(|| "la cadena no confirmó la liquidación".into()),
        )),
        "anulada" => Seen::Void(Arc::from(
            row.get::<_, Option<String>>("motivo").unwrap_or_else(|| "conciliada sin pago".into()),
        )),
        _ if to_u64(row.get::<_, Option<i64>>("plazo").unwrap_or_default()) < now => {
            // The gate that held it stopped mid-purchase: the money may have moved.
            Seen::Uncertain(Arc::new(uncertain_from(row)))
        }
        _ => Seen::InFlight,
    }
}

/// A reservation's row, unless the authorization has one already.
const RESERVE: &str = "INSERT INTO compras (compra, estado, huella, valido_hasta, ficha, plazo)
     VALUES ($1, 'en_curso', $2, $3, $4, $5) ON CONFLICT (compra) DO NOTHING";

/// A reservation's row with what is bought, and the `aceptado` record, unless the
/// authorization has a row already (then neither): [`RESERVE`]'s parameters, then the record's
/// ($6 evento, $7 unix, $8 the JSON record) and the row's ($9 estudio … $13 monto).
const RESERVE_ACCEPTED: &str = "WITH reserva AS (
        INSERT INTO compras (compra, estado, huella, valido_hasta, ficha, plazo, estudio, vista, red, pagador, monto)
        VALUES ($1, 'en_curso', $2, $3, $4, $5, $9, $10, $11, $12, $13) ON CONFLICT (compra) DO NOTHING
        RETURNING compra)
     INSERT INTO eventos (compra, evento, unix, registro) SELECT compra, $6, $7, $8::text::jsonb FROM reserva";

/// What a reservation asks of the record.
struct Wanted {
    key: String,
    id: Option<String>,
    fingerprint: String,
    until: u64,
    now: u64,
    /// This reservation's own mark on the row while it runs.
    token: String,
    /// Until when the row counts as in flight.
    hold: u64,
}

/// Reserves the authorization; `Ok(true)` when `accepted` was committed with it.
async fn reserve_in(
    pool: &Pool,
    group: &GroupCommit,
    wanted: Wanted,
    accepted: Option<Record>,
) -> Result<Result<bool, Seen>, DbError> {
    let Wanted { key, id, fingerprint, until, now, token, hold } = wanted;
    if id.is_none() {
        // The common case, a new authorization without an identifier: its row inserted (with
        // its `aceptado` record) by one statement, committed with the steps beside it. Any
        // other case takes the transaction below.
        let mut params: Vec<Param> = vec![
            Box::new(key.clone()),
            Box::new(fingerprint.clone()),
            Box::new(to_i64(until)),
            Box::new(token.clone()),
            Box::new(to_i64(hold)),
        ];
        let (sql, journaled) = match accepted.as_ref().map(|record| (record, &record.event)) {
            Some((record, Event::Accepted(a))) => {
                params.extend(record_columns(record)?);
                params.extend(accepted_row(a));
                (RESERVE_ACCEPTED, true)
            }
            _ => (RESERVE, false),
        };
        if group.commit(&key, sql, params).await? == 1 {
            return Ok(Ok(journaled));
        }
    }
    let id = id.as_deref();
    let (key, fingerprint, token) = (key.as_str(), fingerprint.as_str(), token.as_str());
    let mut client = pool.get().await?;
    let transaction = client.transaction().await?;
    if let Some(id) = id {
        // An identifier whose authorization expired is free again.
        let taken = transaction
            .execute(
                "INSERT INTO identificadores (id, compra, huella, valido_hasta) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (id) DO UPDATE SET compra = EXCLUDED.compra, huella = EXCLUDED.huella, valido_hasta = EXCLUDED.valido_hasta
                 WHERE identificadores.valido_hasta < $5",
                &[&id, &key, &fingerprint, &to_i64(until), &to_i64(now)],
            )
            .await?;
        if taken == 0 {
            let known =
                transaction.query_one("SELECT compra, huella FROM identificadores WHERE id = $1", &[&id]).await?;
            let (purchase, known_fingerprint): (String, String) = (known.get(0), known.get(1));
            if known_fingerprint != fingerprint {
                let row = transaction.query_opt(ROW, &[&purchase]).await?;
                let seen = match row {
                    Some(row) if row.get::<_, String>("estado") == "pagada" => Seen::IdPaid(Arc::new(paid_from(&row))),
                    Some(row) if matches!(row.get::<_, &str>("estado"), "impugnada" | "anulada") => {
                        seen_from(&row, now)
                    }
                    _ => Seen::IdConflict,
                };
                transaction.rollback().await?;
                return Ok(Err(seen));
            }
        }
    }
    let inserted = transaction
        .execute(
            "INSERT INTO compras (compra, estado, huella, valido_hasta, identificador, ficha, plazo)
             VALUES ($1, 'en_curso', $2, $3, $4, $5, $6) ON CONFLICT (compra) DO NOTHING",
            &[&key, &fingerprint, &to_i64(until), &id, &token, &to_i64(hold)],
        )
        .await?;
    if inserted == 0 {
        let row = transaction.query_one(ROW, &[&key]).await?;
        let status: String = row.get("estado");
        let never_accepted = row.get::<_, Option<String>>("estudio").is_none();
        let stale = to_u64(row.get::<_, Option<i64>>("plazo").unwrap_or_default()) < now;
        if status == "en_curso" && stale && never_accepted {
            // A gate stopped before it even journaled the acceptance: nothing was settled.
            transaction
                .execute(
                    "UPDATE compras SET huella = $2, valido_hasta = $3, identificador = $4, ficha = $5, plazo = $6 WHERE compra = $1",
                    &[&key, &fingerprint, &to_i64(until), &id, &token, &to_i64(hold)],
                )
                .await?;
        } else {
            transaction.rollback().await?;
            return Ok(Err(seen_from(&row, now)));
        }
    }
    transaction.commit().await?;
    Ok(Ok(false))
}

/// Takes an uncertain row back in flight; returns the transaction an earlier attempt named.
async fn resume_in(
    pool: &Pool,
    key: &str,
    now: u64,
    token: &str,
    hold: u64,
) -> Result<Result<Option<String>, Seen>, DbError> {
    let client = pool.get().await?;
    let taken = client
        .query_opt(
            "UPDATE compras SET estado = 'en_curso', dudosa = TRUE, ficha = $2, plazo = $3
             WHERE compra = $1 AND (estado = 'incierta' OR (estado = 'en_curso' AND plazo < $4))
             RETURNING transaccion",
            &[&key, &token, &to_i64(hold), &to_i64(now)],
        )
        .await?;
    if let Some(row) = taken {
        return Ok(Ok(row.get::<_, Option<String>>(0).filter(|t| !t.is_empty())));
    }
    Ok(Err(match client.query_opt(ROW, &[&key]).await? {
        Some(row) if matches!(row.get::<_, &str>("estado"), "pagada" | "impugnada" | "anulada") => seen_from(&row, now),
        _ => Seen::InFlight,
    }))
}

/// Commits one record with what it means to its purchase's row: one prepared statement (the
/// event's insert and the row's change in one data-modifying `WITH`), committed with the steps
/// of the purchases running beside it ([`GroupCommit`]).
async fn write_in(group: &GroupCommit, record: Record) -> Result<(), DbError> {
    let (sql, row): (&'static str, Vec<Param>) = match &record.event {
        Event::Accepted(a) => (ACCEPTED, accepted_row(a)),
        Event::Settled(s) => (SETTLED, settled_row(s)),
        Event::Disputed(d) => (DISPUTED, vec![Box::new(d.reason.clone())]),
        Event::Failed(f) if f.uncertain => (UNCERTAIN, vec![Box::new(f.transaction.clone())]),
        Event::Reconciled(c) if c.settled_at => (RECONCILED_PAID, vec![Box::new(c.transaction.clone())]),
        Event::Reconciled(c) => (RECONCILED_UNPAID, vec![Box::new(c.note.clone())]),
        // Deliveries, certain failures (their reservation releases the row) and any other step
        // leave the purchase's row as it is.
        _ => (RECORD, Vec::new()),
    };
    let mut params: Vec<Param> = vec![Box::new(record.purchase.clone())];
    params.extend(record_columns(&record)?);
    params.extend(row);
    group.commit(&record.purchase, sql, params).await?;
    Ok(())
}

/// Commits a `liquidado` step; with `exclusive`, only if its transaction is free or already
/// this purchase's (the claim and the step in one statement, committed with the others).
async fn settle_in(pool: &Pool, group: &GroupCommit, record: Record, exclusive: bool) -> Result<Credited, DbError> {
    let Event::Settled(settled) = &record.event else {
        return Err(DbError("settle_in: se esperaba un paso liquidado".into()));
    };
    if !exclusive || settled.transaction.is_empty() {
        write_in(group, record).await?;
        return Ok(Credited::Recorded);
    }
    let mut params: Vec<Param> = vec![Box::new(record.purchase.clone())];
    params.extend(record_columns(&record)?);
    params.extend(settled_row(settled));
    if group.commit(&record.purchase, SETTLED_EXCLUSIVE, params).await? == 1 {
        return Ok(Credited::Recorded);
    }
    let client = pool.get().await?;
    let holder = client
        .query_opt("SELECT compra FROM transacciones WHERE transaccion = lower($1)", &[&settled.transaction])
        .await?
        .map(|row| row.get::<_, String>(0));
    match holder {
        Some(holder) if holder != record.purchase => Ok(Credited::Elsewhere(holder)),
        _ => Err(DbError(format!("la compra {} no tiene fila en compras", record.purchase))),
    }
}

async fn insert_record(
    transaction: &deadpool_postgres::Transaction<'_>,
    record: &Record,
    json: &str,
    imported: Option<&str>,
) -> Result<u64, DbError> {
    Ok(transaction
        .execute(
            "INSERT INTO eventos (compra, evento, unix, registro, importado) VALUES ($1, $2, $3, $4::text::jsonb, $5)
             ON CONFLICT (importado) DO NOTHING",
            &[&record.purchase, &event_name(json), &to_i64(record.unix), &json, &imported],
        )
        .await?)
}

/// Frees the identifiers of a purchase whose row is gone.
async fn release_identifiers(transaction: &deadpool_postgres::Transaction<'_>, key: &str) -> Result<(), DbError> {
    transaction
        .execute(
            "DELETE FROM identificadores WHERE compra = $1 AND NOT EXISTS (SELECT 1 FROM compras WHERE compra = $1)",
            &[&key],
        )
        .await?;
    Ok(())
}

async fn import_in(pool: &Pool, records: &[Record]) -> Result<u64, DbError> {
    let mut client = pool.get().await?;
    let transaction = client.transaction().await?;
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut added = 0;
    for record in records {
        let json = serde_json::to_string(record).map_err(|e| DbError(e.to_string()))?;
        let digest = hex::encode(sha2::Sha256::digest(json.as_bytes()));
        let occurrence = seen.entry(digest.clone()).or_default();
        let imported = format!("{digest}:{occurrence}");
        *occurrence += 1;
        added += insert_record(&transaction, record, &json, Some(&imported)).await?;
    }
    // The replay memory of what the journal sold or left uncertain.
    let ledger = ledger::fold(records);
    for sale in &ledger.sales {
        let Some(accepted) = &sale.accepted else { continue };
        transaction
            .execute(
                "INSERT INTO compras (compra, estado, huella, valido_hasta, identificador, estudio, vista, red, pagador, monto, transaccion, liquidada_unix)
                 VALUES ($1, 'pagada', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                 ON CONFLICT (compra) DO UPDATE SET estado = 'pagada', transaccion = EXCLUDED.transaccion,
                    liquidada_unix = EXCLUDED.liquidada_unix, ficha = NULL
                 WHERE compras.estado <> 'pagada'",
                &[
                    &sale.purchase,
                    &accepted.fingerprint,
                    &to_i64(accepted.valid_until),
                    &accepted.identifier,
                    &sale.study,
                    &sale.view,
                    &sale.network,
                    &sale.payer,
                    &sale.amount,
                    &sale.transaction,
                    &to_i64(sale.unix),
                ],
            )
            .await?;
        import_identifier(&transaction, &sale.purchase, accepted).await?;
        if !sale.transaction.is_empty() {
            transaction
                .execute(
                    "INSERT INTO transacciones (transaccion, compra) VALUES (lower($1), $2) ON CONFLICT (transaccion) DO NOTHING",
                    &[&sale.transaction, &sale.purchase],
                )
                .await?;
        }
        if let Some(reason) = &sale.disputed {
            transaction
                .execute(
                    "UPDATE compras SET estado = 'impugnada', motivo = $2 WHERE compra = $1",
                    &[&sale.purchase, reason],
                )
                .await?;
        }
    }
    for unsold in &ledger.unsold {
        let accepted = &unsold.accepted;
        transaction
            .execute(
                "INSERT INTO compras (compra, estado, huella, valido_hasta, identificador, estudio, vista, red, pagador, monto, motivo)
                 VALUES ($1, 'anulada', $2, $3, $4, $5, $6, $7, $8, $9, $10)
                 ON CONFLICT (compra) DO NOTHING",
                &[
                    &unsold.purchase,
                    &accepted.fingerprint,
                    &to_i64(accepted.valid_until),
                    &accepted.identifier,
                    &accepted.study,
                    &accepted.view,
                    &accepted.network,
                    &accepted.payer,
                    &accepted.amount,
                    &unsold.note,
                ],
            )
            .await?;
    }
    for pending in &ledger.pending {
        let accepted = &pending.accepted;
        transaction
            .execute(
                "INSERT INTO compras (compra, estado, huella, valido_hasta, identificador, estudio, vista, red, pagador, monto, transaccion, dudosa)
                 VALUES ($1, 'incierta', $2, $3, $4, $5, $6, $7, $8, $9, $10, TRUE)
                 ON CONFLICT (compra) DO NOTHING",
                &[
                    &pending.purchase,
                    &accepted.fingerprint,
                    &to_i64(accepted.valid_until),
                    &accepted.identifier,
                    &accepted.study,
                    &accepted.view,
                    &accepted.network,
                    &accepted.payer,
                    &accepted.amount,
                    &pending.transaction,
                ],
            )
            .await?;
        import_identifier(&transaction, &pending.purchase, accepted).await?;
    }
    transaction.commit().await?;
    Ok(added)
}

async fn import_identifier(
    transaction: &deadpool_postgres::Transaction<'_>,
    key: &str,
    accepted: &super::journal::Accepted,
) -> Result<(), DbError> {
    if let Some(id) = &accepted.identifier {
        transaction
            .execute(
                "INSERT INTO identificadores (id, compra, huella, valido_hasta) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING",
                &[id, &key, &accepted.fingerprint, &to_i64(accepted.valid_until)],
            )
            .await?;
    }
    Ok(())
}

/// An authorization held in the database while its purchase runs. Committed or marked
/// uncertain, its row already says so (the `liquidado` or uncertain `fallido` step changed it
/// in the same transaction); dropped otherwise, it is released in the background: deleted,
/// or put back to uncertain when it was a retry of an uncertain purchase. A release that
/// cannot reach the database leaves the row in flight until its hold expires, and then it
/// counts as uncertain: a repeat settles it, once.
pub struct Reservation {
    shared: Arc<Shared>,
    key: String,
    token: String,
    resumed: bool,
    earlier_transaction: Option<String>,
    /// The `aceptado` record was committed with the reservation.
    accepted: bool,
    done: bool,
}

impl Reservation {
    fn new(shared: &Arc<Shared>, key: &str, token: &str, resumed: bool, earlier: Option<String>) -> Reservation {
        Reservation {
            shared: Arc::clone(shared),
            key: key.to_owned(),
            token: token.to_owned(),
            resumed,
            earlier_transaction: earlier,
            accepted: false,
            done: false,
        }
    }

    pub fn resumed(&self) -> bool {
        self.resumed
    }

    /// Whether the `aceptado` record was committed with the reservation.
    pub fn accepted(&self) -> bool {
        self.accepted
    }

    pub fn earlier_transaction(&self) -> Option<&str> {
        self.earlier_transaction.as_deref()
    }

    /// The sale is in the database already (its `liquidado` step made the row paid).
    pub fn commit(mut self) {
        self.done = true;
    }

    /// The doubt is in the database already (its uncertain `fallido` step).
    pub fn uncertain(mut self) {
        self.done = true;
    }

    /// The row says so already (its `conciliado` step made it `anulada`).
    pub fn void(mut self) {
        self.done = true;
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let Some(handle) = self.shared.runtime.handle() else { return };
        let (pool, key, token, resumed) =
            (self.shared.pool.clone(), self.key.clone(), self.token.clone(), self.resumed);
        let target = self.shared.target.clone();
        handle.spawn(async move {
            let released = tokio::time::timeout(OPERATION_DEADLINE, release(&pool, &key, &token, resumed)).await;
            if !matches!(released, Ok(Ok(()))) {
                tracing::warn!(compra = %key, "base de ventas {target}: no se pudo liberar la reserva; queda en curso hasta que venza su plazo");
            }
        });
    }
}

async fn release(pool: &Pool, key: &str, token: &str, resumed: bool) -> Result<(), DbError> {
    let mut client = pool.get().await?;
    let transaction = client.transaction().await?;
    if resumed {
        transaction
            .execute(
                "UPDATE compras SET estado = 'incierta', ficha = NULL WHERE compra = $1 AND ficha = $2 AND estado = 'en_curso'",
                &[&key, &token],
            )
            .await?;
    } else {
        transaction
            .execute("DELETE FROM compras WHERE compra = $1 AND ficha = $2 AND estado = 'en_curso'", &[&key, &token])
            .await?;
        release_identifiers(&transaction, key).await?;
    }
    transaction.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_shown_without_its_password() {
        let config = parse_url("postgres://ventas:s3creto@db.interna:6432/tienda?connect_timeout=3").unwrap();
        assert_eq!(describe(&config), "postgres://ventas@db.interna:6432/tienda");
        let config = parse_url("postgresql://db.interna/tienda").unwrap();
        assert_eq!(describe(&config), "postgres://db.interna:5432/tienda");
        for bad in ["mysql://u:p@h/d", "db.interna:5432", ""] {
            let error = parse_url(bad).unwrap_err().to_string();
            assert!(error.contains("se espera una URL postgres://"), "{error}");
        }
        let error = parse_url("postgres://u:s3creto@h:notaport/d").unwrap_err().to_string();
        assert!(!error.contains("s3creto"), "{error}");
    }
}
