//! The replay book: every authorization in flight, already paid, or with an uncertain
//! settlement (by network, payer and nonce), and every `payment-identifier` seen, so one
//! payment can never be sold twice and a buyer who repeats a request is recognised.
//!
//! A [`Reservation`] holds an authorization while its purchase runs. It ends one of three
//! ways: committed as paid, marked uncertain (the money may have moved: the same payload may
//! come back and retry), or dropped (the purchase failed for certain: the buyer may try again,
//! or, for a resumed uncertain purchase, it goes back to uncertain).

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::x402::SettlementResponse;

/// Most entries before expired ones are swept.
const SWEEP_ABOVE: usize = 10_000;

/// A paid purchase, enough to deliver it again.
#[derive(Debug, Clone)]
pub struct PaidSale {
    /// The purchase key (`compra`) it is journaled under.
    pub compra: String,
    /// sha256 of the payload that paid.
    pub huella: String,
    pub estudio: String,
    pub vista: String,
    pub settlement: SettlementResponse,
    /// Unix time of its `liquidado` step: when it settled, as its receipt says.
    pub settled_at: u64,
}

/// A purchase whose settlement may or may not have moved the money.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UncertainSale {
    /// sha256 of the payload that was being settled.
    pub huella: String,
    pub estudio: String,
    pub vista: String,
    /// A transaction the facilitator named for it (a pending settlement), if any.
    pub transaccion: Option<String>,
}

/// Why a payment could not be reserved.
#[derive(Debug, Clone)]
pub enum Seen {
    /// Another request is running this payment right now.
    InFlight,
    /// This authorization already paid.
    Paid(Arc<PaidSale>),
    /// This authorization's settlement is uncertain: the same payload may resume it.
    Uncertain(Arc<UncertainSale>),
    /// The `payment-identifier` was used with another payload, for a purchase already paid:
    /// the same buyer retrying the same purchase with a fresh authorization gets it again.
    IdPaid(Arc<PaidSale>),
    /// The `payment-identifier` was used with another payload, for a purchase in flight,
    /// uncertain or gone.
    IdConflict,
    /// The shared sales record could not be reached: nothing was reserved, nothing settled.
    Unavailable,
}

#[derive(Debug, Clone)]
enum Entry {
    InFlight,
    Used { until: u64, sale: Arc<PaidSale> },
    Uncertain { until: u64, sale: Arc<UncertainSale> },
}

#[derive(Debug)]
struct IdEntry {
    huella: String,
    /// The replay key of the purchase the identifier names.
    key: String,
    until: u64,
}

/// The book itself, shared by the sales record and its open reservations.
#[derive(Debug, Default)]
pub struct Book {
    keys: HashMap<String, Entry>,
    ids: HashMap<String, IdEntry>,
}

/// The book behind a lock, shared with the reservations it hands out.
pub type SharedBook = Arc<Mutex<Book>>;

impl Book {
    fn sweep(&mut self, now: u64) {
        if self.keys.len() + self.ids.len() <= SWEEP_ABOVE {
            return;
        }
        self.keys.retain(|_, entry| match entry {
            Entry::InFlight => true,
            Entry::Used { until, .. } | Entry::Uncertain { until, .. } => *until >= now,
        });
        self.ids.retain(|_, entry| entry.until >= now);
    }

    /// Records a sale paid before a restart, valid until `until`.
    pub fn restore_paid(&mut self, key: &str, id: Option<&str>, until: u64, sale: PaidSale) {
        self.restore_id(id, key, &sale.huella, until);
        self.keys.insert(key.to_owned(), Entry::Used { until, sale: Arc::new(sale) });
    }

    /// Records a purchase left uncertain before a restart, retriable until `until`.
    pub fn restore_uncertain(&mut self, key: &str, id: Option<&str>, until: u64, sale: UncertainSale) {
        self.restore_id(id, key, &sale.huella, until);
        self.keys.insert(key.to_owned(), Entry::Uncertain { until, sale: Arc::new(sale) });
    }

    fn restore_id(&mut self, id: Option<&str>, key: &str, huella: &str, until: u64) {
        if let Some(id) = id {
            self.ids.insert(id.to_owned(), IdEntry { huella: huella.to_owned(), key: key.to_owned(), until });
        }
    }

    /// Reserves a payment (its replay key and, if sent, its identifier), or says why not.
    pub fn reserve(
        book: &SharedBook,
        key: &str,
        id: Option<&str>,
        huella: &str,
        until: u64,
        now: u64,
    ) -> Result<Reservation, Seen> {
        let mut locked = book.lock();
        locked.sweep(now);
        if let Some(id) = id
            && let Some(seen) = locked.ids.get(id)
            && seen.huella != huella
        {
            return Err(match locked.keys.get(&seen.key) {
                Some(Entry::Used { sale, .. }) => Seen::IdPaid(Arc::clone(sale)),
                _ => Seen::IdConflict,
            });
        }
        match locked.keys.get(key) {
            Some(Entry::InFlight) => return Err(Seen::InFlight),
            Some(Entry::Used { sale, .. }) => return Err(Seen::Paid(Arc::clone(sale))),
            Some(Entry::Uncertain { sale, .. }) => return Err(Seen::Uncertain(Arc::clone(sale))),
            None => {}
        }
        locked.keys.insert(key.to_owned(), Entry::InFlight);
        let id = id.map(str::to_owned);
        if let Some(id) = &id {
            locked.ids.insert(id.clone(), IdEntry { huella: huella.to_owned(), key: key.to_owned(), until });
        }
        Ok(Reservation { book: Arc::clone(book), key: key.to_owned(), id, until, fallback: None, done: false })
    }

    /// Takes an uncertain purchase back in flight to retry it (the same payload came back).
    /// Fails if it is no longer uncertain (another request resumed it, or it settled).
    pub fn resume(book: &SharedBook, key: &str, until: u64) -> Result<Reservation, Seen> {
        let mut locked = book.lock();
        let previous = match locked.keys.get(key) {
            Some(entry @ Entry::Uncertain { .. }) => entry.clone(),
            Some(Entry::InFlight) | None => return Err(Seen::InFlight),
            Some(Entry::Used { sale, .. }) => return Err(Seen::Paid(Arc::clone(sale))),
        };
        locked.keys.insert(key.to_owned(), Entry::InFlight);
        Ok(Reservation {
            book: Arc::clone(book),
            key: key.to_owned(),
            id: None,
            until,
            fallback: Some(previous),
            done: false,
        })
    }
}

/// A reserved payment: kept as paid if it settles, kept as uncertain if the money may have
/// moved, released otherwise.
pub struct Reservation {
    book: SharedBook,
    key: String,
    /// The identifier reserved with it (released with it).
    id: Option<String>,
    until: u64,
    /// What the key goes back to when the purchase fails for certain (a resumed uncertain one).
    fallback: Option<Entry>,
    done: bool,
}

impl Reservation {
    /// Whether this reservation resumed a purchase whose earlier settlement was uncertain.
    pub fn resumed(&self) -> bool {
        self.fallback.is_some()
    }

    /// The transaction an earlier uncertain attempt was told about, if any.
    pub fn earlier_transaction(&self) -> Option<&str> {
        match &self.fallback {
            Some(Entry::Uncertain { sale, .. }) => sale.transaccion.as_deref(),
            _ => None,
        }
    }

    /// Keeps the payment as paid by `sale`.
    pub fn commit(mut self, sale: PaidSale) {
        self.book.lock().keys.insert(self.key.clone(), Entry::Used { until: self.until, sale: Arc::new(sale) });
        self.done = true;
    }

    /// Keeps the payment as uncertain: a repeat of the same payload will retry it, anything
    /// else that reuses the authorization is refused.
    pub fn uncertain(mut self, sale: UncertainSale) {
        self.book.lock().keys.insert(self.key.clone(), Entry::Uncertain { until: self.until, sale: Arc::new(sale) });
        self.done = true;
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let mut book = self.book.lock();
        match self.fallback.take() {
            Some(entry) => {
                book.keys.insert(self.key.clone(), entry);
            }
            None => {
                book.keys.remove(&self.key);
                if let Some(id) = &self.id {
                    book.ids.remove(id);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sale(huella: &str) -> PaidSale {
        PaidSale {
            compra: "k".into(),
            huella: huella.into(),
            estudio: "s".into(),
            vista: "completo".into(),
            settlement: SettlementResponse::failure("eip155:84532", "x", None, None),
            settled_at: 0,
        }
    }

    fn doubt(huella: &str) -> UncertainSale {
        UncertainSale { huella: huella.into(), estudio: "s".into(), vista: "completo".into(), transaccion: None }
    }

    #[test]
    fn a_reservation_is_released_unless_committed() {
        let book = SharedBook::default();
        let r = Book::reserve(&book, "k", None, "h", 100, 0).unwrap();
        assert!(matches!(Book::reserve(&book, "k", None, "h", 100, 0), Err(Seen::InFlight)));
        drop(r);
        let r = Book::reserve(&book, "k", None, "h", 100, 0).unwrap();
        r.commit(sale("h"));
        assert!(matches!(Book::reserve(&book, "k", None, "h", 100, 0), Err(Seen::Paid(s)) if s.huella == "h"));
    }

    #[test]
    fn an_identifier_binds_one_payload() {
        let book = SharedBook::default();
        let id = Some("id-0123456789abcdef");
        let r = Book::reserve(&book, "k1", id, "h1", 100, 0).unwrap();
        assert!(matches!(Book::reserve(&book, "k2", id, "h2", 100, 0), Err(Seen::IdConflict)));
        r.commit(sale("h1"));
        assert!(matches!(Book::reserve(&book, "k1", id, "h1", 100, 0), Err(Seen::Paid(_))));
        assert!(
            matches!(Book::reserve(&book, "k2", id, "h2", 100, 0), Err(Seen::IdPaid(s)) if s.huella == "h1"),
            "a fresh payload under a paid id names the paid purchase"
        );
        let other = Some("other-id-0123456789");
        drop(Book::reserve(&book, "k3", other, "h3", 100, 0).unwrap());
        assert!(Book::reserve(&book, "k4", other, "h4", 100, 0).is_ok(), "a failed purchase frees its id");
    }

    #[test]
    fn an_uncertain_purchase_is_resumed_once_and_falls_back_to_uncertain() {
        let book = SharedBook::default();
        let id = Some("id-uncertain-0123456789");
        Book::reserve(&book, "k", id, "h", 100, 0).unwrap().uncertain(doubt("h"));
        assert!(matches!(Book::reserve(&book, "k", None, "h", 100, 0), Err(Seen::Uncertain(u)) if u.huella == "h"));
        assert!(matches!(Book::reserve(&book, "other", id, "h2", 100, 0), Err(Seen::IdConflict)));
        let resumed = Book::resume(&book, "k", 100).unwrap();
        assert!(resumed.resumed());
        assert!(matches!(Book::resume(&book, "k", 100), Err(Seen::InFlight)), "one retry at a time");
        drop(resumed);
        assert!(matches!(Book::reserve(&book, "k", None, "h", 100, 0), Err(Seen::Uncertain(_))), "still uncertain");
        assert!(matches!(Book::reserve(&book, "other", id, "h2", 100, 0), Err(Seen::IdConflict)), "id kept");
        Book::resume(&book, "k", 100).unwrap().commit(sale("h"));
        assert!(matches!(Book::reserve(&book, "k", None, "h", 100, 0), Err(Seen::Paid(_))));
    }
}
