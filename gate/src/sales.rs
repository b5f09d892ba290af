//! The shop's memory of payments: the durable journal plus the replay book it rebuilds.
//!
//! The book holds every authorization in flight or already paid (by network, payer and nonce)
//! and every `payment-identifier` seen. At start it is rebuilt from the journal, so a payment
//! replayed after a restart is recognised: the same payload for the same study is a buyer who
//! lost the answer and gets the study again without a second settlement; anything else that
//! reuses the authorization or the identifier is a conflict. It lives apart from the offers
//! so a reload of `dist/` keeps it.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::Result;
use parking_lot::Mutex;

use crate::journal::{self, Event, Journal, Record, Writer};
use crate::x402::SettlementResponse;

/// Test-only fault switch, read at start: right after a settlement is journaled and before
/// the answer, `abortar-tras-liquidar` aborts the process and `pausar-tras-liquidar` stalls
/// the purchase forever (so a test can SIGKILL the gate at exactly that point).
pub const FAULT_ENV: &str = "GATE_FALLA_PRUEBA";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    None,
    AbortAfterSettle,
    PauseAfterSettle,
}

/// Most entries before expired ones are swept.
const SWEEP_ABOVE: usize = 10_000;

/// A paid purchase, enough to deliver it again.
#[derive(Debug, Clone)]
pub struct PaidSale {
    /// sha256 of the payload that paid.
    pub huella: String,
    pub estudio: String,
    pub vista: String,
    pub settlement: SettlementResponse,
}

/// Why a payment could not be reserved.
#[derive(Debug, Clone)]
pub enum Seen {
    /// Another request is running this payment right now.
    InFlight,
    /// This authorization already paid.
    Paid(Arc<PaidSale>),
    /// The `payment-identifier` was used with another payload.
    IdConflict,
}

#[derive(Debug)]
enum Entry {
    InFlight,
    Used { until: u64, sale: Arc<PaidSale> },
}

#[derive(Debug)]
struct IdEntry {
    huella: String,
    until: u64,
}

#[derive(Debug, Default)]
struct Book {
    keys: HashMap<String, Entry>,
    ids: HashMap<String, IdEntry>,
}

impl Book {
    fn sweep(&mut self, now: u64) {
        if self.keys.len() + self.ids.len() <= SWEEP_ABOVE {
            return;
        }
        self.keys.retain(|_, entry| !matches!(entry, Entry::Used { until, .. } if *until < now));
        self.ids.retain(|_, entry| entry.until >= now);
    }
}

/// The journal and the replay book.
pub struct Sales {
    journal: Option<Writer>,
    journal_path: Option<std::path::PathBuf>,
    book: Arc<Mutex<Book>>,
    fault: Fault,
}

impl Sales {
    /// Memory only: nothing survives a restart.
    pub fn in_memory() -> Sales {
        Sales { journal: None, journal_path: None, book: Arc::default(), fault: fault_requested() }
    }

    /// Opens the journal at `path` and rebuilds the book from the sales it holds whose
    /// authorization is still valid.
    pub fn open(path: &Path) -> Result<Sales> {
        let (journal, contents) = Journal::open(path)?;
        let now = crate::payment::now();
        let ledger = journal::fold(&contents.records);
        let mut book = Book::default();
        let mut restored = 0usize;
        for sale in &ledger.sales {
            let Some(accepted) = &sale.accepted else { continue };
            if accepted.valido_hasta < now {
                continue;
            }
            let paid = Arc::new(PaidSale {
                huella: accepted.huella.clone(),
                estudio: sale.estudio.clone(),
                vista: sale.vista.clone(),
                settlement: SettlementResponse {
                    success: true,
                    error_reason: None,
                    error_message: None,
                    payer: Some(sale.pagador.clone()),
                    transaction: sale.transaccion.clone(),
                    network: sale.red.clone(),
                    amount: Some(sale.monto.clone()),
                    extensions: None,
                },
            });
            book.keys.insert(sale.compra.clone(), Entry::Used { until: accepted.valido_hasta, sale: paid });
            if let Some(id) = &accepted.identificador {
                book.ids.insert(id.clone(), IdEntry { huella: accepted.huella.clone(), until: accepted.valido_hasta });
            }
            restored += 1;
        }
        tracing::info!(
            "diario de ventas {}: {} ventas, {} pendientes de conciliar, {} autorizaciones aún vigentes restauradas",
            path.display(),
            ledger.sales.len(),
            ledger.pending.len(),
            restored
        );
        for pending in &ledger.pending {
            tracing::warn!(
                compra = %pending.compra,
                estudio = %pending.estudio,
                "compra aceptada sin resultado de liquidación (el gate se detuvo mientras liquidaba): concíliela con la cadena"
            );
        }
        Ok(Sales {
            journal: Some(Writer::start(journal)?),
            journal_path: Some(path.to_owned()),
            book: Arc::new(Mutex::new(book)),
            fault: fault_requested(),
        })
    }

    /// Reserves a payment (its replay key and, if sent, its identifier), or says why not.
    pub fn reserve(
        &self,
        key: &str,
        id: Option<&str>,
        huella: &str,
        until: u64,
        now: u64,
    ) -> Result<Reservation, Seen> {
        let mut book = self.book.lock();
        book.sweep(now);
        if let Some(id) = id
            && let Some(seen) = book.ids.get(id)
            && seen.huella != huella
        {
            return Err(Seen::IdConflict);
        }
        match book.keys.get(key) {
            Some(Entry::InFlight) => return Err(Seen::InFlight),
            Some(Entry::Used { sale, .. }) => return Err(Seen::Paid(Arc::clone(sale))),
            None => {}
        }
        book.keys.insert(key.to_owned(), Entry::InFlight);
        let id = id.map(str::to_owned);
        if let Some(id) = &id {
            book.ids.insert(id.clone(), IdEntry { huella: huella.to_owned(), until });
        }
        Ok(Reservation { book: Arc::clone(&self.book), key: key.to_owned(), id, until, committed: false })
    }

    /// Appends a step to the journal and waits until it is on disk (no-op in memory).
    pub async fn write(&self, compra: &str, unix: u64, event: Event) -> std::io::Result<()> {
        let Some(journal) = &self.journal else { return Ok(()) };
        journal.write(Record { fecha: crate::payment::iso8601(unix), unix, compra: compra.to_owned(), event }).await
    }

    pub fn journal_path(&self) -> Option<&Path> {
        self.journal_path.as_deref()
    }

    /// The test-only crash point right after a settlement is journaled.
    pub async fn crash_point_after_settle(&self) {
        match self.fault {
            Fault::None => {}
            Fault::AbortAfterSettle => {
                tracing::error!("{FAULT_ENV}: abortando tras registrar la liquidación");
                std::process::abort();
            }
            Fault::PauseAfterSettle => {
                tracing::error!("{FAULT_ENV}: compra detenida tras registrar la liquidación");
                std::future::pending::<()>().await;
            }
        }
    }
}

fn fault_requested() -> Fault {
    match std::env::var(FAULT_ENV).as_deref() {
        Ok("abortar-tras-liquidar") => Fault::AbortAfterSettle,
        Ok("pausar-tras-liquidar") => Fault::PauseAfterSettle,
        _ => Fault::None,
    }
}

/// A reserved payment: released if the purchase fails, kept as paid if it settles.
pub struct Reservation {
    book: Arc<Mutex<Book>>,
    key: String,
    id: Option<String>,
    until: u64,
    committed: bool,
}

impl Reservation {
    pub fn commit(mut self, sale: PaidSale) {
        self.book.lock().keys.insert(self.key.clone(), Entry::Used { until: self.until, sale: Arc::new(sale) });
        self.committed = true;
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if !self.committed {
            let mut book = self.book.lock();
            book.keys.remove(&self.key);
            if let Some(id) = &self.id {
                book.ids.remove(id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sale(huella: &str) -> PaidSale {
        PaidSale {
            huella: huella.into(),
            estudio: "s".into(),
            vista: "completo".into(),
            settlement: SettlementResponse::failure("eip155:84532", "x", None, None),
        }
    }

    #[test]
    fn a_reservation_is_released_unless_committed() {
        let sales = Sales::in_memory();
        let r = sales.reserve("k", None, "h", 100, 0).unwrap();
        assert!(matches!(sales.reserve("k", None, "h", 100, 0), Err(Seen::InFlight)));
        drop(r);
        let r = sales.reserve("k", None, "h", 100, 0).unwrap();
        r.commit(sale("h"));
        assert!(matches!(sales.reserve("k", None, "h", 100, 0), Err(Seen::Paid(s)) if s.huella == "h"));
    }

    #[test]
    fn an_identifier_binds_one_payload() {
        let sales = Sales::in_memory();
        let r = sales.reserve("k1", Some("id-0123456789abcdef"), "h1", 100, 0).unwrap();
        assert!(matches!(sales.reserve("k2", Some("id-0123456789abcdef"), "h2", 100, 0), Err(Seen::IdConflict)));
        r.commit(sale("h1"));
        assert!(matches!(sales.reserve("k1", Some("id-0123456789abcdef"), "h1", 100, 0), Err(Seen::Paid(_))));
        assert!(matches!(sales.reserve("k2", Some("id-0123456789abcdef"), "h2", 100, 0), Err(Seen::IdConflict)));
        let released = sales.reserve("k3", Some("other-id-0123456789"), "h3", 100, 0).unwrap();
        drop(released);
        assert!(
            sales.reserve("k4", Some("other-id-0123456789"), "h4", 100, 0).is_ok(),
            "a failed purchase frees its id"
        );
    }
}
