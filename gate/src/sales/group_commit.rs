//! Group commit for the shared record: the steps of the purchases running at once, committed
//! together in one transaction.
//!
//! The file journal writes the records that arrive while it syncs and then syncs them all with
//! one `fdatasync`; this does the same for PostgreSQL. A step is queued, a committer takes every
//! step queued at that moment, runs their statements pipelined in one transaction and commits it,
//! and each caller waits for that commit: a purchase's step is still durable (with
//! `synchronous_commit` on) before its next one runs. A few committers run at once, so a lone
//! step never waits for another's batch; under load, the steps that queue while the committers
//! are busy go together in the next batch, and a purchase costs fewer commits, round trips and
//! WAL flushes.
//!
//! A batch in which the database refuses a statement is rolled back whole (nothing of it
//! committed); that step is answered with its error and the rest committed again without it, so
//! one refused step fails only its own purchase. A batch that loses its connection or its
//! deadline fails every step in it, as a lone statement would.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::Context;
use std::time::Duration;

use deadpool_postgres::Pool;
use futures_util::future::{BoxFuture, FutureExt, MaybeDone, TryFutureExt, maybe_done};
use prometheus_client::metrics::histogram::Histogram;
use tokio::sync::{Mutex, mpsc, oneshot};
use tokio_postgres::types::ToSql;

use super::db_error::DbError;

/// At most this many steps in one transaction.
const MAX_BATCH: usize = 256;

/// One parameter of a queued statement.
pub(super) type Param = Box<dyn ToSql + Send + Sync>;

/// A statement waiting for its commit.
struct Step {
    /// The purchase it changes: a batch runs its statements in this order, the same on every
    /// gate, so two gates' batches take their row locks in one order and cannot deadlock.
    key: String,
    sql: &'static str,
    params: Vec<Param>,
    done: oneshot::Sender<Result<u64, DbError>>,
}

/// The queue of steps to commit, shared by the committers on the database's runtime.
#[derive(Clone)]
pub(super) struct GroupCommit {
    queue: mpsc::UnboundedSender<Step>,
    /// Where each committed transaction's count of steps is observed, once the metrics exist.
    sizes: Arc<OnceLock<Histogram>>,
}

impl GroupCommit {
    /// Starts `committers` tasks on `runtime`, each committing one batch at a time on a
    /// connection of `pool`; each batch must be done within `deadline`.
    pub(super) fn start(
        pool: &Pool,
        runtime: &tokio::runtime::Handle,
        committers: usize,
        deadline: Duration,
    ) -> GroupCommit {
        let (queue, steps) = mpsc::unbounded_channel();
        let steps = Arc::new(Mutex::new(steps));
        let sizes = Arc::new(OnceLock::new());
        for _ in 0..committers.max(1) {
            let committer = Committer { pool: pool.clone(), deadline, sizes: Arc::clone(&sizes) };
            runtime.spawn(committer.run(Arc::clone(&steps)));
        }
        GroupCommit { queue, sizes }
    }

    /// Observes in `histogram` how many steps each committed transaction carried (the first
    /// histogram given stays).
    pub(super) fn observe(&self, histogram: Histogram) {
        let _ = self.sizes.set(histogram);
    }

    /// Commits `sql` for the purchase `key`, with whatever steps are queued beside it, and
    /// returns the rows it changed once that transaction is committed.
    pub(super) async fn commit(&self, key: &str, sql: &'static str, params: Vec<Param>) -> Result<u64, DbError> {
        let (done, outcome) = oneshot::channel();
        let step = Step { key: key.to_owned(), sql, params, done };
        self.queue.send(step).map_err(|_| DbError("la base de ventas se cerró".into()))?;
        outcome.await.unwrap_or_else(|_| Err(DbError("la base de ventas se cerró".into())))
    }
}

/// One of a queue's committers.
struct Committer {
    pool: Pool,
    deadline: Duration,
    /// Where each committed transaction's count of steps is observed, once the metrics exist.
    sizes: Arc<OnceLock<Histogram>>,
}

impl Committer {
    /// Takes the steps queued, as one batch at a time, until the queue closes.
    async fn run(self, steps: Arc<Mutex<mpsc::UnboundedReceiver<Step>>>) {
        loop {
            let batch = {
                let mut steps = steps.lock().await;
                let Some(first) = steps.recv().await else { return };
                let mut batch = vec![first];
                while batch.len() < MAX_BATCH {
                    match steps.try_recv() {
                        Ok(step) => batch.push(step),
                        Err(_) => break,
                    }
                }
                batch
            };
            self.commit_batch(batch).await;
        }
    }

    /// Commits the batch in one transaction. A step the database refuses is answered with its
    /// error and left out, and the rest is committed again without it.
    async fn commit_batch(&self, mut batch: Vec<Step>) {
        batch.sort_by(|a, b| a.key.cmp(&b.key));
        loop {
            // A caller that stopped waiting (its deadline passed) was told nothing was committed.
            batch.retain(|step| !step.done.is_closed());
            if batch.is_empty() {
                return;
            }
            let outcome = match batch.len() {
                1 => self.within(alone(&self.pool, &batch[0])).await.map(|count| vec![count]),
                _ => self.within(together(&self.pool, &batch)).await,
            };
            match outcome {
                Ok(counts) => {
                    if let Some(sizes) = self.sizes.get() {
                        sizes.observe(batch.len() as f64);
                    }
                    for (step, count) in batch.into_iter().zip(counts) {
                        let _ = step.done.send(Ok(count));
                    }
                    return;
                }
                Err(Failure::Refused(index, e)) => {
                    let _ = batch.remove(index).done.send(Err(e));
                }
                Err(Failure::Lost(e)) => {
                    for step in batch {
                        let _ = step.done.send(Err(e.clone()));
                    }
                    return;
                }
            }
        }
    }

    async fn within<T>(&self, work: impl std::future::Future<Output = Result<T, Failure>>) -> Result<T, Failure> {
        tokio::time::timeout(self.deadline, work)
            .await
            .unwrap_or_else(|_| Err(Failure::Lost(DbError("la base de ventas no respondió a tiempo".into()))))
    }
}

/// Why a batch did not commit.
enum Failure {
    /// The database refused the statement at this index of the batch, and rolled the whole
    /// transaction back: nothing of it is committed.
    Refused(usize, DbError),
    /// The connection, the pool or the deadline failed: what was committed is not known.
    Lost(DbError),
}

fn lost(e: impl Into<DbError>) -> Failure {
    Failure::Lost(e.into())
}

fn params_of(step: &Step) -> Vec<&(dyn ToSql + Sync)> {
    step.params.iter().map(|param| param.as_ref() as &(dyn ToSql + Sync)).collect()
}

/// The batch in one transaction, sent at once: `BEGIN`, every statement and `COMMIT` pipelined
/// in one round trip, in that order ([`pipelined`]). The rows each statement changed.
///
/// A statement that fails aborts the transaction, the statements after it fail too, and the
/// `COMMIT` ends it as a rollback: nothing of the batch is committed.
async fn together(pool: &Pool, batch: &[Step]) -> Result<Vec<u64>, Failure> {
    let client = pool.get().await.map_err(lost)?;
    let mut statements = Vec::with_capacity(batch.len());
    for step in batch {
        statements.push(client.prepare_cached(step.sql).await.map_err(lost)?);
    }
    let params: Vec<_> = batch.iter().map(params_of).collect();
    let mut requests: Vec<Request<'_>> = Vec::with_capacity(batch.len() + 2);
    requests.push(request(client.batch_execute("BEGIN").map_ok(|()| 0)));
    for (statement, params) in statements.iter().zip(&params) {
        requests.push(request(client.execute(statement, params)));
    }
    requests.push(request(client.batch_execute("COMMIT").map_ok(|()| 0)));
    let unanswered = || lost(DbError("la base de ventas no contestó un pedido del lote".into()));
    let mut answers = pipelined(requests).await.ok_or_else(unanswered)?.into_iter();
    let began = answers.next().ok_or_else(unanswered)?;
    let committed = answers.next_back().ok_or_else(unanswered)?;
    began.map_err(lost)?;
    let mut counts = Vec::with_capacity(batch.len());
    for (index, answer) in answers.enumerate() {
        match answer {
            Ok(count) => counts.push(count),
            // The first refusal is the statement's own; those after it say the transaction
            // was aborted.
            Err(e) if e.as_db_error().is_some() => return Err(Failure::Refused(index, e.into())),
            Err(e) => return Err(lost(e)),
        }
    }
    committed.map_err(lost)?;
    Ok(counts)
}

/// One request to the server, kept with its answer once it has one.
type Request<'a> = Pin<Box<MaybeDone<BoxFuture<'a, Result<u64, tokio_postgres::Error>>>>>;

fn request<'a>(future: impl Future<Output = Result<u64, tokio_postgres::Error>> + Send + 'a) -> Request<'a> {
    Box::pin(maybe_done(future.boxed()))
}

/// Sends `requests` in this order, then waits for their answers. A tokio-postgres request goes
/// out when its future is first polled, so each is polled once, in order, before any is waited
/// for: the order does not depend on how a combinator polls. The answers, in the same order.
async fn pipelined(mut requests: Vec<Request<'_>>) -> Option<Vec<Result<u64, tokio_postgres::Error>>> {
    send_in_order(&mut requests);
    let mut answers = Vec::with_capacity(requests.len());
    for mut request in requests {
        request.as_mut().await;
        answers.push(request.as_mut().take_output()?);
    }
    Some(answers)
}

/// Polls each request once, in order (a noop waker: they are waited for afterwards).
fn send_in_order(requests: &mut [Request<'_>]) {
    let mut sending = Context::from_waker(futures_util::task::noop_waker_ref());
    for request in requests {
        let _ = request.as_mut().poll(&mut sending);
    }
}

/// One step in a transaction of its own (a single statement commits by itself).
async fn alone(pool: &Pool, step: &Step) -> Result<u64, Failure> {
    let client = pool.get().await.map_err(lost)?;
    let statement = client.prepare_cached(step.sql).await.map_err(lost)?;
    match client.execute(&statement, &params_of(step)).await {
        Ok(count) => Ok(count),
        Err(e) if e.as_db_error().is_some() => Err(Failure::Refused(0, e.into())),
        Err(e) => Err(lost(e)),
    }
}
