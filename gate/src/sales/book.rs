//! The replay book: every authorization in flight or already paid (by network, payer and
//! nonce) and every `payment-identifier` seen, so one payment can never be sold twice and a
//! buyer who repeats a paid request is recognised.
//!
//! A [`Reservation`] holds an authorization while its purchase runs: it is released if the
//! purchase fails (the buyer may try again) and kept as paid when it settles.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::x402::SettlementResponse;

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
        self.keys.retain(|_, entry| !matches!(entry, Entry::Used { until, .. } if *until < now));
        self.ids.retain(|_, entry| entry.until >= now);
    }

    /// Records a sale paid before a restart, valid until `until`.
    pub fn restore(&mut self, key: &str, id: Option<&str>, until: u64, sale: PaidSale) {
        if let Some(id) = id {
            self.ids.insert(id.to_owned(), IdEntry { huella: sale.huella.clone(), until });
        }
        self.keys.insert(key.to_owned(), Entry::Used { until, sale: Arc::new(sale) });
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
            return Err(Seen::IdConflict);
        }
        match locked.keys.get(key) {
            Some(Entry::InFlight) => return Err(Seen::InFlight),
            Some(Entry::Used { sale, .. }) => return Err(Seen::Paid(Arc::clone(sale))),
            None => {}
        }
        locked.keys.insert(key.to_owned(), Entry::InFlight);
        let id = id.map(str::to_owned);
        if let Some(id) = &id {
            locked.ids.insert(id.clone(), IdEntry { huella: huella.to_owned(), until });
        }
        Ok(Reservation { book: Arc::clone(book), key: key.to_owned(), id, until, committed: false })
    }
}

/// A reserved payment: released if the purchase fails, kept as paid if it settles.
pub struct Reservation {
    book: SharedBook,
    key: String,
    id: Option<String>,
    until: u64,
    committed: bool,
}

impl Reservation {
    /// Keeps the payment as paid by `sale`.
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
        assert!(matches!(Book::reserve(&book, "k2", id, "h2", 100, 0), Err(Seen::IdConflict)));
        let other = Some("other-id-0123456789");
        drop(Book::reserve(&book, "k3", other, "h3", 100, 0).unwrap());
        assert!(Book::reserve(&book, "k4", other, "h4", 100, 0).is_ok(), "a failed purchase frees its id");
    }
}
