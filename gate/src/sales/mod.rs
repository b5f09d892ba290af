//! The record of sales: the durable journal ([`journal`]), what it adds up to ([`ledger`]),
//! the replay book rebuilt from it ([`book`]), and the `gate ventas` report ([`report`]).
//!
//! At start the book is rebuilt from the journal, so a payment replayed after a restart is
//! recognised: the same payload for the same study is a buyer who lost the answer and gets
//! the study again without a second settlement; anything else that reuses the authorization
//! or the identifier is a conflict. It lives apart from the offers so a reload of `dist/`
//! keeps it.
//!
//! Re-access (x402 `sign-in-with-x`) asks the sales record two questions, both through
//! [`Sales`]: did this wallet buy this study ([`Sales::purchase_of`], every settled sale the
//! journal holds) and was this sign-in already used ([`Sales::claim_sign_in`], kept until the
//! nonce expires and rebuilt from the `reacceso` events at start). A record shared by several
//! gates answers the same two calls from its tables: a query of the sales, a unique insert of
//! the proof.
//! Several gates share one record in PostgreSQL instead ([`postgres`], `--ventas
//! postgres://…`): the same events and fold, and the replay memory in the database, so any
//! gate recognises any sale. The purchase path calls the same [`Sales`] methods either way.

pub mod book;
mod db_error;
pub mod export;
mod follow;
mod group_commit;
pub mod journal;
pub mod ledger;
pub mod period;
pub mod postgres;
pub mod postgres_tls;
pub mod report;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Result;

use book::{Book, SharedBook};
pub use book::{Owned, PaidSale, ProofClaim, Seen, UncertainSale};
use journal::{Disputed, Event, Journal, Reconciled, Record, Settled, Wait, Writer};
use ledger::Pending;

use crate::clock::{iso8601, now};
use crate::x402::SettlementResponse;

/// The journal and the replay book, or the shared record that holds both.
pub struct Sales {
    journal: Option<Writer>,
    journal_path: Option<PathBuf>,
    book: SharedBook,
    /// The PostgreSQL record; when set, it holds the journal and the replay memory.
    shared: Option<Arc<postgres::Shared>>,
    faults: faults::Faults,
    /// A purchase ended uncertain since the last reconciliation looked.
    doubt: AtomicBool,
    /// The gate's metrics: kept here because the record outlives every reload of `dist/`.
    metrics: Arc<crate::metrics::Metrics>,
}

impl Sales {
    /// Memory only: nothing survives a restart.
    pub fn in_memory() -> Sales {
        Sales {
            journal: None,
            journal_path: None,
            book: SharedBook::default(),
            shared: None,
            faults: faults::Faults::from_env(),
            doubt: AtomicBool::new(false),
            metrics: Arc::default(),
        }
    }

    /// The sales record in PostgreSQL, shared with other gates: connects and migrates, or
    /// says why not (the gate does not start without its record).
    pub fn open_shared(shared: Arc<postgres::Shared>) -> Result<Sales> {
        let contents = shared.read()?;
        let ledger = ledger::fold(&contents.records);
        tracing::info!(
            "ventas en la base {}: {} ventas, {} pendientes de conciliar",
            shared.target(),
            ledger.sales.len(),
            ledger.pending.len()
        );
        warn_pending(&ledger);
        let metrics = Arc::new(crate::metrics::Metrics::new());
        shared.observe_batches(metrics.batch_histogram());
        Ok(Sales {
            journal: None,
            journal_path: None,
            book: SharedBook::default(),
            shared: Some(shared),
            faults: faults::Faults::from_env(),
            doubt: AtomicBool::new(!ledger.pending.is_empty()),
            metrics,
        })
    }

    /// The shared record, when the sales live in PostgreSQL.
    pub fn shared(&self) -> Option<&Arc<postgres::Shared>> {
        self.shared.as_ref()
    }

    /// Opens the journal at `path` and rebuilds the book from the sales it holds whose
    /// authorization is still valid.
    pub fn open(path: &Path, segment_bytes: u64) -> Result<Sales> {
        let (mut journal, contents) = Journal::open(path, segment_bytes)?;
        let metrics = Arc::new(crate::metrics::Metrics::new());
        journal.observe_fsync(metrics.fsync_histogram());
        let ledger = ledger::fold(&contents.records);
        let mut book = Book::default();
        let restored = restore(&mut book, &ledger, now());
        tracing::info!(
            "diario de ventas {}: {} ventas, {} pendientes de conciliar, {} autorizaciones aún vigentes restauradas, {} reaccesos",
            path.display(),
            ledger.sales.len(),
            ledger.pending.len(),
            restored,
            ledger.reaccesses.len()
        );
        warn_pending(&ledger);
        let book = Arc::new(parking_lot::Mutex::new(book));
        follow::start(path.to_owned(), contents.sound_len, Arc::downgrade(&book))?;
        Ok(Sales {
            journal: Some(Writer::start(journal)?),
            journal_path: Some(path.to_owned()),
            book,
            shared: None,
            faults: faults::Faults::from_env(),
            doubt: AtomicBool::new(false),
            metrics,
        })
    }

    /// Whether [`Sales::reserve`] can commit a purchase's `aceptado` step with its reservation:
    /// the shared record can; the file journal's reservation is in memory, so there the step is
    /// appended after, with [`Sales::write`].
    pub fn accepts_with_reservation(&self) -> bool {
        self.shared.is_some()
    }

    /// Reserves a payment (its replay key and, if sent, its identifier), or says why not.
    ///
    /// `accepted` is the purchase's `aceptado` step, if it is to be sold and
    /// [`Sales::accepts_with_reservation`]: the shared record commits it with a new
    /// authorization's row, in one statement, and [`Reservation::accepted`] then says so.
    pub async fn reserve(
        &self,
        key: &str,
        id: Option<&str>,
        fingerprint: &str,
        until: u64,
        now: u64,
        accepted: Option<Event>,
    ) -> Result<Reservation, Seen> {
        match &self.shared {
            Some(shared) => {
                let accepted = accepted.map(|event| record_of(key, now, event));
                let started = std::time::Instant::now();
                let reservation = shared.reserve(key, id, fingerprint, until, now, accepted).await?;
                if reservation.accepted() {
                    self.metrics.committed_in(started.elapsed());
                }
                Ok(Reservation::Shared(reservation))
            }
            None => Book::reserve(&self.book, key, id, fingerprint, until, now).map(Reservation::Book),
        }
    }

    /// Takes an uncertain purchase back in flight to retry it.
    pub async fn resume(&self, key: &str, until: u64, now: u64) -> Result<Reservation, Seen> {
        match &self.shared {
            Some(shared) => shared.resume(key, now).await.map(Reservation::Shared),
            None => Book::resume(&self.book, key, until).map(Reservation::Book),
        }
    }

    /// Did this wallet buy this study? A settled sale of `estudio` to `pagador` on `red`, the
    /// one of `vista` if there is one (any view otherwise): from the book, or from the shared
    /// record whichever gate sold it. An error means the shared record did not answer.
    pub async fn purchase_of(
        &self,
        network: &str,
        payer: &str,
        study: &str,
        view: &str,
    ) -> std::io::Result<Option<Arc<Owned>>> {
        match &self.shared {
            Some(shared) => shared
                .purchase_of(network, payer, study, view)
                .await
                .map(|owned| owned.map(Arc::new))
                .map_err(|e| std::io::Error::other(format!("base de ventas: {e}"))),
            None => Ok(self.book.lock().owned(network, payer, study, view)),
        }
    }

    /// Takes a sign-in proof (the wallet and the nonce it signed, on `red`) for one use until
    /// `until`, or `None` when it is in use or already used: a replay. Journal the re-access,
    /// then [`SignInClaim::commit`]; dropped uncommitted, a proof in the book is released (one
    /// in the shared record stays taken). An error means the shared record did not answer.
    pub async fn claim_sign_in(
        &self,
        network: &str,
        wallet: &str,
        nonce: &str,
        until: u64,
        now: u64,
    ) -> std::io::Result<Option<SignInClaim>> {
        match &self.shared {
            Some(shared) => shared
                .claim_sign_in(network, wallet, nonce, until)
                .await
                .map(|taken| taken.then_some(SignInClaim::Shared))
                .map_err(|e| std::io::Error::other(format!("base de ventas: {e}"))),
            None => Ok(Book::claim_proof(&self.book, network, wallet, nonce, until, now).map(SignInClaim::Book)),
        }
    }

    /// Journals a sale's `liquidado` step, crediting its transaction to it. With `exclusive`
    /// (the facilitator's word is all that says this transaction paid), a transaction already
    /// credited to another purchase is not believed: nothing is written and that purchase is
    /// returned. Without it (the chain proved this authorization paid in it), the step is
    /// written whoever holds the transaction.
    pub async fn record_settlement(
        &self,
        purchase: &str,
        unix: u64,
        settled: Settled,
        exclusive: bool,
    ) -> std::io::Result<Credited> {
        if let Some(shared) = &self.shared {
            let started = std::time::Instant::now();
            let credited = shared.settle(record_of(purchase, unix, Event::Settled(settled)), exclusive).await?;
            self.metrics.committed_in(started.elapsed());
            return Ok(credited);
        }
        {
            let mut book = self.book.lock();
            if let Err(holder) = book.credit(&settled.transaction, purchase)
                && exclusive
            {
                return Ok(Credited::Elsewhere(holder));
            }
        }
        self.write(purchase, unix, Event::Settled(settled)).await?;
        Ok(Credited::Recorded)
    }

    /// Journals that the chain disputes the sale `purchase` and makes the record agree: its
    /// payment is never delivered again (a repeat is refused until `until`, the
    /// authorization's end), and its buyer no longer owns it for a re-access.
    pub async fn dispute(&self, purchase: &str, unix: u64, disputed: Disputed, until: u64) -> std::io::Result<()> {
        let reason = disputed.reason.clone();
        self.write(purchase, unix, Event::Disputed(disputed)).await?;
        if self.shared.is_none() {
            self.book.lock().dispute(purchase, &reason, until);
        }
        Ok(())
    }

    /// Appends a step to the journal and waits until it is on disk (no-op in memory).
    pub async fn write(&self, purchase: &str, unix: u64, event: Event) -> std::io::Result<()> {
        self.write_waiting(purchase, unix, event, Wait::Durable).await
    }

    /// Appends a delivery to the journal and waits only until it is in the file; its fsync
    /// follows in the same batch, and the buyer's answer does not wait for it (see
    /// [`Wait::Written`]). No-op in memory.
    pub async fn write_delivery(&self, purchase: &str, unix: u64, event: Event) -> std::io::Result<()> {
        self.write_waiting(purchase, unix, event, Wait::Written).await
    }

    async fn write_waiting(&self, purchase: &str, unix: u64, event: Event, wait: Wait) -> std::io::Result<()> {
        let record = record_of(purchase, unix, event);
        if let Some(shared) = &self.shared {
            // A commit is the write and its flush at once (a delivery waits for it too).
            let started = std::time::Instant::now();
            let written = shared.write(record).await;
            if written.is_ok() {
                self.metrics.committed_in(started.elapsed());
            }
            return written;
        }
        let Some(journal) = &self.journal else { return Ok(()) };
        journal.write(record, wait).await
    }

    /// The gate's metrics.
    pub fn metrics(&self) -> &crate::metrics::Metrics {
        &self.metrics
    }

    /// Whether purchases can be recorded now (readiness): the shared record answers a query;
    /// the journal file is still where it was opened and its last write succeeded.
    pub async fn ready(&self) -> Result<String, String> {
        if let Some(shared) = &self.shared {
            return match shared.ping().await {
                Ok(()) => Ok(format!("la base {} responde", shared.target())),
                Err(e) => Err(format!("la base {}: {e}", shared.target())),
            };
        }
        let (Some(writer), Some(path)) = (&self.journal, &self.journal_path) else {
            return Ok("en memoria".to_owned());
        };
        if !path.is_file() {
            return Err(format!("el diario {} ya no está: el gate escribiría en un archivo borrado", path.display()));
        }
        match writer.last_error() {
            Some(e) => Err(format!("la última escritura en {} falló: {e}", path.display())),
            None => Ok(format!("diario {}", path.display())),
        }
    }

    pub fn journal_path(&self) -> Option<&Path> {
        self.journal_path.as_deref()
    }

    /// Notes that a purchase ended uncertain (the reconciliation looks again).
    pub fn note_doubt(&self) {
        self.doubt.store(true, Ordering::Relaxed);
    }

    /// Whether a purchase ended uncertain since the last call.
    pub fn take_doubt(&self) -> bool {
        self.doubt.swap(false, Ordering::Relaxed)
    }

    /// The purchases to reconcile, read from the journal or the shared record now (blocks the
    /// calling thread while it reads; an in-memory record has none it can tell).
    pub fn pending(&self) -> Result<Vec<Pending>> {
        let contents = match (&self.shared, &self.journal_path) {
            (Some(shared), _) => shared.read()?,
            (None, Some(path)) => journal::read(path)?,
            (None, None) => return Ok(Vec::new()),
        };
        Ok(ledger::fold(&contents.records).pending)
    }

    /// Journals how the chain resolved a pending purchase and makes the replay book agree: a
    /// paid one is a sale its buyer gets again by repeating the request; a void one is gone.
    pub async fn reconciled(&self, pending: &Pending, reconciled: Reconciled, unix: u64) -> std::io::Result<()> {
        let paid = reconciled.settled_at.then(|| reconciled.transaction.clone().unwrap_or_default());
        let note = reconciled.note.clone();
        self.write(&pending.purchase, unix, Event::Reconciled(reconciled)).await?;
        if self.shared.is_some() {
            return Ok(()); // the record's own rows changed with the event
        }
        let accepted = &pending.accepted;
        let mut book = self.book.lock();
        match paid {
            Some(transaction) => {
                book.own(Owned {
                    purchase: pending.purchase.clone(),
                    study: pending.study.clone(),
                    view: pending.view.clone(),
                    network: pending.network.clone(),
                    payer: pending.payer.clone(),
                    amount: pending.amount.clone(),
                    transaction: transaction.clone(),
                    settled_at: unix,
                });
                let sale = PaidSale {
                    purchase: pending.purchase.clone(),
                    fingerprint: accepted.fingerprint.clone(),
                    study: pending.study.clone(),
                    view: pending.view.clone(),
                    settlement: SettlementResponse::recorded(
                        pending.network.clone(),
                        transaction,
                        pending.payer.clone(),
                        pending.amount.clone(),
                    ),
                    settled_at: unix,
                };
                book.restore_paid(&pending.purchase, accepted.identifier.as_deref(), accepted.valid_until, sale);
            }
            None => book.void(&pending.purchase, &note, accepted.valid_until),
        }
        Ok(())
    }

    /// The crash point right after a settlement is journaled (a no-op unless the gate was built
    /// with the `test-faults` feature and asked for a fault).
    pub async fn crash_point_after_settle(&self) {
        self.faults.after_settle().await;
    }

    /// The crash point after the facilitator settled and before the settlement is journaled.
    pub async fn crash_point_before_record(&self) {
        self.faults.before_record().await;
    }
}

/// What recording a settlement found: recorded, or its transaction is another purchase's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credited {
    Recorded,
    /// The transaction is already credited to this purchase (its key).
    Elsewhere(String),
}

/// A reserved payment, in the replay book of this gate or in the shared record: kept as paid
/// if it settles, as uncertain if the money may have moved, released otherwise (dropped).
pub enum Reservation {
    Book(book::Reservation),
    Shared(postgres::Reservation),
}

impl Reservation {
    /// Whether the purchase's `aceptado` step was committed with the reservation (the shared
    /// record's common case): then it is not written again.
    pub fn accepted(&self) -> bool {
        match self {
            Reservation::Book(_) => false,
            Reservation::Shared(r) => r.accepted(),
        }
    }

    /// Whether this reservation resumed a purchase whose earlier settlement was uncertain.
    pub fn resumed(&self) -> bool {
        match self {
            Reservation::Book(r) => r.resumed(),
            Reservation::Shared(r) => r.resumed(),
        }
    }

    /// The transaction an earlier uncertain attempt was told about, if any.
    pub fn earlier_transaction(&self) -> Option<&str> {
        match self {
            Reservation::Book(r) => r.earlier_transaction(),
            Reservation::Shared(r) => r.earlier_transaction(),
        }
    }

    /// Keeps the payment as paid by `sale` (journal its `liquidado` step first).
    pub fn commit(self, sale: PaidSale) {
        match self {
            Reservation::Book(r) => r.commit(sale),
            Reservation::Shared(r) => r.commit(),
        }
    }

    /// Keeps the payment as uncertain (journal its uncertain `fallido` step first).
    pub fn uncertain(self, sale: UncertainSale) {
        match self {
            Reservation::Book(r) => r.uncertain(sale),
            Reservation::Shared(r) => r.uncertain(),
        }
    }

    /// Holds the payment as never paid, an earlier doubt included: the chain proved it can
    /// never pay (`note`: how; journal its `conciliado` step first). Its repeats are refused.
    pub fn void(self, note: &str) {
        match self {
            Reservation::Book(r) => r.void(note),
            Reservation::Shared(r) => r.void(),
        }
    }
}

/// A step of `purchase` as the record keeps it.
fn record_of(purchase: &str, unix: u64, event: Event) -> Record {
    Record { date: iso8601(unix), unix, purchase: purchase.to_owned(), event }
}

/// Puts every sale and every uncertain purchase whose authorization is still valid back in
/// the book, every sale under its buyer, and every sign-in whose nonce has not expired;
/// returns how many authorizations.
fn restore(book: &mut Book, ledger: &ledger::Ledger, now: u64) -> usize {
    for reaccess in ledger.reaccesses.iter().filter(|r| r.valid_until >= now) {
        book.restore_proof(&reaccess.network, &reaccess.payer, &reaccess.nonce, reaccess.valid_until);
    }
    let mut restored = 0;
    for sale in &ledger.sales {
        if restore_sale(book, sale, now) {
            restored += 1;
        }
    }
    for unsold in ledger.unsold.iter().filter(|u| u.accepted.valid_until >= now) {
        book.void(&unsold.purchase, &unsold.note, unsold.accepted.valid_until);
        restored += 1;
    }
    for pending in &ledger.pending {
        let accepted = &pending.accepted;
        if accepted.valid_until < now {
            continue;
        }
        let doubt = UncertainSale {
            fingerprint: accepted.fingerprint.clone(),
            study: accepted.study.clone(),
            view: accepted.view.clone(),
            transaction: pending.transaction.clone(),
        };
        book.restore_uncertain(&pending.purchase, accepted.identifier.as_deref(), accepted.valid_until, doubt);
        restored += 1;
    }
    restored
}

/// Puts one sale of the journal in the book: its transaction credited to it, its buyer owning
/// it (unless disputed), and its authorization, while still valid, held as paid (or disputed).
/// Returns whether the authorization was held.
fn restore_sale(book: &mut Book, sale: &ledger::Sale, now: u64) -> bool {
    // The first sale journaled with a transaction holds it (a later one naming it again was
    // never believed, or the chain proved it; either way the first keeps it).
    let _ = book.credit(&sale.transaction, &sale.purchase);
    if sale.disputed.is_none() {
        book.own(Owned {
            purchase: sale.purchase.clone(),
            study: sale.study.clone(),
            view: sale.view.clone(),
            network: sale.network.clone(),
            payer: sale.payer.clone(),
            amount: sale.amount.clone(),
            transaction: sale.transaction.clone(),
            settled_at: sale.unix,
        });
    }
    let Some(accepted) = &sale.accepted else { return false };
    if accepted.valid_until < now {
        return false;
    }
    let paid = PaidSale {
        purchase: sale.purchase.clone(),
        fingerprint: accepted.fingerprint.clone(),
        study: sale.study.clone(),
        view: sale.view.clone(),
        settlement: SettlementResponse::recorded(
            sale.network.clone(),
            sale.transaction.clone(),
            sale.payer.clone(),
            sale.amount.clone(),
        ),
        settled_at: sale.unix,
    };
    book.restore_paid(&sale.purchase, accepted.identifier.as_deref(), accepted.valid_until, paid);
    if let Some(reason) = &sale.disputed {
        book.dispute(&sale.purchase, reason, accepted.valid_until);
    }
    true
}

/// Warns at start about each purchase whose settlement has no certain outcome yet.
fn warn_pending(ledger: &ledger::Ledger) {
    for pending in &ledger.pending {
        tracing::warn!(
            compra = %pending.purchase,
            estudio = %pending.study,
            estado = pending.status,
            "compra sin resultado cierto de liquidación: una repetición del mismo pago la resuelve; si no, concíliela con la cadena (gate ventas)"
        );
    }
}

/// A sign-in proof taken for one re-access, in the book or in the shared record.
pub enum SignInClaim {
    Book(ProofClaim),
    /// Taken for good by the insert that claimed it.
    Shared,
}

impl SignInClaim {
    /// Keeps the proof as used, now that its re-access is journaled.
    pub fn commit(self) {
        if let SignInClaim::Book(claim) = self {
            claim.commit();
        }
    }
}

/// Test-only faults, compiled in only with the `test-faults` feature (the end-to-end tests
/// enable it; release builds of the gate never carry it).
#[cfg(feature = "test-faults")]
mod faults {
    /// Read at start: right after a settlement is journaled and before the answer,
    /// `abortar-tras-liquidar` aborts the process and `pausar-tras-liquidar` stalls the purchase
    /// forever (so a test can SIGKILL the gate at exactly that point); `pausar-antes-de-registrar`
    /// stalls after the facilitator settled and before the settlement reaches the journal.
    pub(super) const FAULT_ENV: &str = "GATE_FALLA_PRUEBA";

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) enum Faults {
        None,
        AbortAfterSettle,
        PauseAfterSettle,
        PauseBeforeRecord,
    }

    impl Faults {
        pub(super) fn from_env() -> Faults {
            match std::env::var(FAULT_ENV).as_deref() {
                Ok("abortar-tras-liquidar") => Faults::AbortAfterSettle,
                Ok("pausar-tras-liquidar") => Faults::PauseAfterSettle,
                Ok("pausar-antes-de-registrar") => Faults::PauseBeforeRecord,
                _ => Faults::None,
            }
        }

        pub(super) async fn before_record(self) {
            if self == Faults::PauseBeforeRecord {
                tracing::error!("{FAULT_ENV}: compra detenida tras liquidar, antes de registrarlo");
                std::future::pending::<()>().await;
            }
        }

        pub(super) async fn after_settle(self) {
            match self {
                Faults::None | Faults::PauseBeforeRecord => {}
                Faults::AbortAfterSettle => {
                    tracing::error!("{FAULT_ENV}: abortando tras registrar la liquidación");
                    std::process::abort();
                }
                Faults::PauseAfterSettle => {
                    tracing::error!("{FAULT_ENV}: compra detenida tras registrar la liquidación");
                    std::future::pending::<()>().await;
                }
            }
        }
    }
}

#[cfg(not(feature = "test-faults"))]
mod faults {
    /// Without the `test-faults` feature there are no faults to inject.
    #[derive(Debug, Clone, Copy)]
    pub(super) struct Faults;

    impl Faults {
        pub(super) fn from_env() -> Faults {
            Faults
        }

        pub(super) async fn after_settle(self) {}

        pub(super) async fn before_record(self) {}
    }
}
