//! The replay book: every authorization in flight, already paid, or with an uncertain
//! settlement (by network, payer and nonce), and every `payment-identifier` seen, so one
//! payment can never be sold twice and a buyer who repeats a request is recognised.
//!
//! A [`Reservation`] holds an authorization while its purchase runs. It ends one of three
//! ways: committed as paid, marked uncertain (the money may have moved: the same payload may
//! come back and retry), or dropped (the purchase failed for certain: the buyer may try again,
//! or, for a resumed uncertain purchase, it goes back to uncertain).
//!
//! The book also answers the two questions of a re-access (x402 `sign-in-with-x`): which
//! settled sales a wallet holds ([`Owned`], every sale, kept for good), and whether a sign-in
//! proof (wallet and nonce) was already used ([`ProofClaim`], kept until the nonce expires).
//!
//! Two more rules keep one payment one sale. Every transaction credited to a sale is kept
//! ([`Book::credit`]): a facilitator naming, for a new purchase, a transaction that already
//! paid another one is not believed. And a sale the chain disputed (its facilitator's success
//! did not pay) is never delivered again, by a repeat or by a re-access ([`Book::dispute`]).

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::x402::SettlementResponse;

/// Fewest entries before expired ones are swept. Above it a sweep runs when the entries have
/// doubled since the last one, so its cost stays a constant share of each insert however many
/// unexpired entries the book holds (sweeping on every insert above a fixed size made each sale
/// walk the whole replay memory once a gate held more than that).
const SWEEP_ABOVE: usize = 10_000;
/// Seconds after which a sweep runs even if the entries have not doubled: what expired is
/// gone within this time, so the book holds the authorizations still valid (a purchase rate
/// times their validity) and not up to twice as many.
const SWEEP_EVERY: u64 = 30;

/// A paid purchase, enough to deliver it again.
#[derive(Debug, Clone)]
pub struct PaidSale {
    /// The purchase key (`compra`) it is journaled under.
    pub purchase: String,
    /// sha256 of the payload that paid.
    pub fingerprint: String,
    pub study: String,
    pub view: String,
    pub settlement: SettlementResponse,
    /// Unix time of its `liquidado` step: when it settled, as its receipt says.
    pub settled_at: u64,
}

impl PaidSale {
    /// The sale as the book keeps it: without the settlement's extensions. The signed receipt
    /// they carry is a pure function of the sale and its offer, signed again for every repeat
    /// (`payment::receipt::attach`), as for a sale restored from the journal, which never had
    /// it; held here it was most of the memory each sale took for as long as its authorization
    /// stays valid.
    fn held(mut self) -> PaidSale {
        self.settlement.extensions = None;
        self
    }
}

/// A purchase whose settlement may or may not have moved the money.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UncertainSale {
    /// sha256 of the payload that was being settled.
    pub fingerprint: String,
    pub study: String,
    pub view: String,
    /// A transaction the facilitator named for it (a pending settlement), if any.
    pub transaction: Option<String>,
}

/// A settled sale as re-access needs it: who bought which study and view, on which network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owned {
    /// The purchase key (`compra`) it is journaled under.
    pub purchase: String,
    pub study: String,
    pub view: String,
    pub network: String,
    pub payer: String,
    /// Atomic units paid.
    pub amount: String,
    pub transaction: String,
    /// Unix time of the `liquidado` step: the `issuedAt` of the sale's signed receipt.
    pub settled_at: u64,
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
    /// This authorization's sale was disputed: the chain did not confirm the transaction the
    /// facilitator named (why, in Spanish). It is never delivered again.
    Disputed(Arc<str>),
    /// This authorization was resolved as never paid (why, in Spanish): nothing to deliver,
    /// nothing to settle again.
    Void(Arc<str>),
    /// The shared sales record could not be reached: nothing was reserved, nothing settled.
    Unavailable,
}

#[derive(Debug, Clone)]
enum Entry {
    InFlight,
    Used {
        until: u64,
        sale: Arc<PaidSale>,
    },
    Uncertain {
        until: u64,
        sale: Arc<UncertainSale>,
    },
    Disputed {
        until: u64,
        reason: Arc<str>,
    },
    /// Resolved as never paid (the chain voided it, or the publisher reconciled it without
    /// payment): a repeat of it is refused, never settled again.
    Void {
        until: u64,
        note: Arc<str>,
    },
}

#[derive(Debug)]
struct IdEntry {
    fingerprint: String,
    /// The replay key of the purchase the identifier names.
    key: String,
    until: u64,
}

/// A sign-in proof in use or used.
#[derive(Debug, Clone, Copy)]
enum ProofEntry {
    InFlight,
    Used { until: u64 },
}

/// The book itself, shared by the sales record and its open reservations.
#[derive(Debug, Default)]
pub struct Book {
    keys: HashMap<String, Entry>,
    ids: HashMap<String, IdEntry>,
    /// Settled sales by network, payer (lowercase) and study: the first sale of each view, in
    /// the order they were sold (a wallet buying a study again adds nothing here).
    owners: HashMap<String, Vec<Arc<Owned>>>,
    /// Sign-in proofs by network, wallet (lowercase) and nonce.
    proofs: HashMap<String, ProofEntry>,
    /// The purchase each transaction credited to a sale paid, by transaction (lowercase): one
    /// transaction, one sale. Kept for good, like the owners.
    credits: HashMap<String, String>,
    /// Entries above which the next sweep runs (`SWEEP_ABOVE` at least).
    sweep_at: usize,
    /// Unix time after which the next sweep runs, doubled or not.
    sweep_after: u64,
}

/// Where a payment stands in the book.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyState {
    /// Not held (never seen, failed for certain, voided, or expired and swept).
    Absent,
    InFlight,
    Paid,
    Uncertain,
    Disputed,
    Void,
}

/// The key of a wallet's sales of one study on one network.
fn owner_key(network: &str, payer: &str, study: &str) -> String {
    format!("{network}|{}|{study}", payer.to_ascii_lowercase())
}

/// The key of a sign-in proof: the wallet and the nonce it signed, on a network.
fn proof_key(network: &str, wallet: &str, nonce: &str) -> String {
    format!("{network}|{}|{nonce}", wallet.to_ascii_lowercase())
}

/// The book behind a lock, shared with the reservations it hands out.
pub type SharedBook = Arc<Mutex<Book>>;

impl Book {
    fn entries(&self) -> usize {
        self.keys.len() + self.ids.len() + self.proofs.len()
    }

    fn sweep(&mut self, now: u64) {
        let entries = self.entries();
        if entries <= SWEEP_ABOVE || (entries <= self.sweep_at && now < self.sweep_after) {
            return;
        }
        self.keys.retain(|_, entry| match entry {
            Entry::InFlight => true,
            Entry::Used { until, .. }
            | Entry::Uncertain { until, .. }
            | Entry::Disputed { until, .. }
            | Entry::Void { until, .. } => *until >= now,
        });
        self.ids.retain(|_, entry| entry.until >= now);
        self.proofs.retain(|_, entry| match entry {
            ProofEntry::InFlight => true,
            ProofEntry::Used { until } => *until >= now,
        });
        // A table emptied by a sweep gives its room back (a map never shrinks by itself).
        if self.keys.capacity() / 4 > self.keys.len() {
            self.keys.shrink_to(2 * self.keys.len());
        }
        if self.ids.capacity() / 4 > self.ids.len() {
            self.ids.shrink_to(2 * self.ids.len());
        }
        if self.proofs.capacity() / 4 > self.proofs.len() {
            self.proofs.shrink_to(2 * self.proofs.len());
        }
        self.sweep_at = 2 * self.entries();
        self.sweep_after = now + SWEEP_EVERY;
    }

    /// Records a settled sale by its buyer, if it is the buyer's first of its view of the study
    /// (all [`Book::owned`] answers with).
    pub fn own(&mut self, owned: Owned) {
        let sales = self.owners.entry(owner_key(&owned.network, &owned.payer, &owned.study)).or_default();
        if !sales.iter().any(|known| known.view == owned.view) {
            sales.push(Arc::new(owned));
        }
    }

    /// Where the payment `key` stands.
    pub fn state(&self, key: &str) -> KeyState {
        match self.keys.get(key) {
            None => KeyState::Absent,
            Some(Entry::InFlight) => KeyState::InFlight,
            Some(Entry::Used { .. }) => KeyState::Paid,
            Some(Entry::Uncertain { .. }) => KeyState::Uncertain,
            Some(Entry::Disputed { .. }) => KeyState::Disputed,
            Some(Entry::Void { .. }) => KeyState::Void,
        }
    }

    /// Credits `transaction` to the sale `purchase`, unless another purchase holds it: then
    /// that purchase is returned and nothing changes. Crediting a purchase its own transaction
    /// again is no change.
    pub fn credit(&mut self, transaction: &str, purchase: &str) -> Result<(), String> {
        if transaction.is_empty() {
            return Ok(());
        }
        match self.credits.get(&transaction.to_ascii_lowercase()) {
            Some(holder) if holder != purchase => Err(holder.clone()),
            Some(_) => Ok(()),
            None => {
                self.credits.insert(transaction.to_ascii_lowercase(), purchase.to_owned());
                Ok(())
            }
        }
    }

    /// The purchase `transaction` is credited to, if any.
    pub fn credited(&self, transaction: &str) -> Option<&str> {
        self.credits.get(&transaction.to_ascii_lowercase()).map(String::as_str)
    }

    /// Marks the sale `purchase` disputed (why: `reason`): a repeat of its payment is refused
    /// until `until`, and its buyer no longer owns it for a re-access. Its transaction stays
    /// credited to it, so it cannot pay for another sale either.
    pub fn dispute(&mut self, purchase: &str, reason: &str, until: u64) {
        let until = match self.keys.get(purchase) {
            Some(Entry::Used { until: held, .. }) => (*held).max(until),
            _ => until,
        };
        self.keys.insert(purchase.to_owned(), Entry::Disputed { until, reason: Arc::from(reason) });
        for sales in self.owners.values_mut() {
            sales.retain(|owned| owned.purchase != purchase);
        }
        self.owners.retain(|_, sales| !sales.is_empty());
    }

    /// A settled sale of `estudio` to `pagador` on `red`: of `vista` if there is one, else the
    /// first of another view.
    pub fn owned(&self, network: &str, payer: &str, study: &str, view: &str) -> Option<Arc<Owned>> {
        let sales = self.owners.get(&owner_key(network, payer, study))?;
        sales.iter().find(|s| s.view == view).or_else(|| sales.first()).cloned()
    }

    /// Records a sign-in proof used before a restart, refused as a replay until `until`.
    pub fn restore_proof(&mut self, network: &str, wallet: &str, nonce: &str, until: u64) {
        self.proofs.insert(proof_key(network, wallet, nonce), ProofEntry::Used { until });
    }

    /// Takes a sign-in proof for one use, or `None` when it is in use or was used.
    pub fn claim_proof(
        book: &SharedBook,
        network: &str,
        wallet: &str,
        nonce: &str,
        until: u64,
        now: u64,
    ) -> Option<ProofClaim> {
        let key = proof_key(network, wallet, nonce);
        let mut locked = book.lock();
        locked.sweep(now);
        match locked.proofs.get(&key) {
            Some(ProofEntry::InFlight) => return None,
            Some(ProofEntry::Used { until }) if *until >= now => return None,
            _ => {}
        }
        locked.proofs.insert(key.clone(), ProofEntry::InFlight);
        Some(ProofClaim { book: Arc::clone(book), key, until, done: false })
    }

    /// Records a sale paid before a restart, valid until `until`.
    pub fn restore_paid(&mut self, key: &str, id: Option<&str>, until: u64, sale: PaidSale) {
        self.restore_id(id, key, &sale.fingerprint, until);
        self.keys.insert(key.to_owned(), Entry::Used { until, sale: Arc::new(sale.held()) });
    }

    /// Records a purchase left uncertain before a restart, retriable until `until`.
    pub fn restore_uncertain(&mut self, key: &str, id: Option<&str>, until: u64, sale: UncertainSale) {
        self.restore_id(id, key, &sale.fingerprint, until);
        self.keys.insert(key.to_owned(), Entry::Uncertain { until, sale: Arc::new(sale) });
    }

    /// Holds a payment resolved as never paid (`note`: why) until `until`: its repeats are
    /// refused. A paid or disputed payment is left as it is (a sale stays a sale).
    pub fn void(&mut self, key: &str, note: &str, until: u64) {
        if !matches!(self.keys.get(key), Some(Entry::Used { .. } | Entry::Disputed { .. })) {
            self.keys.insert(key.to_owned(), Entry::Void { until, note: Arc::from(note) });
        }
    }

    fn restore_id(&mut self, id: Option<&str>, key: &str, fingerprint: &str, until: u64) {
        if let Some(id) = id {
            self.ids.insert(id.to_owned(), IdEntry { fingerprint: fingerprint.to_owned(), key: key.to_owned(), until });
        }
    }

    /// Reserves a payment (its replay key and, if sent, its identifier), or says why not.
    pub fn reserve(
        book: &SharedBook,
        key: &str,
        id: Option<&str>,
        fingerprint: &str,
        until: u64,
        now: u64,
    ) -> Result<Reservation, Seen> {
        let mut locked = book.lock();
        locked.sweep(now);
        if let Some(id) = id
            && let Some(seen) = locked.ids.get(id)
            && seen.fingerprint != fingerprint
        {
            return Err(match locked.keys.get(&seen.key) {
                Some(Entry::Used { sale, .. }) => Seen::IdPaid(Arc::clone(sale)),
                Some(Entry::Disputed { reason, .. }) => Seen::Disputed(Arc::clone(reason)),
                Some(Entry::Void { note, .. }) => Seen::Void(Arc::clone(note)),
                _ => Seen::IdConflict,
            });
        }
        match locked.keys.get(key) {
            Some(Entry::InFlight) => return Err(Seen::InFlight),
            Some(Entry::Used { sale, .. }) => return Err(Seen::Paid(Arc::clone(sale))),
            Some(Entry::Uncertain { sale, .. }) => return Err(Seen::Uncertain(Arc::clone(sale))),
            Some(Entry::Disputed { reason, .. }) => return Err(Seen::Disputed(Arc::clone(reason))),
            Some(Entry::Void { note, .. }) => return Err(Seen::Void(Arc::clone(note))),
            None => {}
        }
        locked.keys.insert(key.to_owned(), Entry::InFlight);
        let id = id.map(str::to_owned);
        if let Some(id) = &id {
            locked.ids.insert(id.clone(), IdEntry { fingerprint: fingerprint.to_owned(), key: key.to_owned(), until });
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
            Some(Entry::Disputed { reason, .. }) => return Err(Seen::Disputed(Arc::clone(reason))),
            Some(Entry::Void { note, .. }) => return Err(Seen::Void(Arc::clone(note))),
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
            Some(Entry::Uncertain { sale, .. }) => sale.transaction.as_deref(),
            _ => None,
        }
    }

    /// Keeps the payment as paid by `sale`, and the sale as its payer's.
    pub fn commit(mut self, sale: PaidSale) {
        let mut book = self.book.lock();
        if let Some(payer) = sale.settlement.payer.as_deref().filter(|p| !p.is_empty()) {
            book.own(Owned {
                purchase: sale.purchase.clone(),
                study: sale.study.clone(),
                view: sale.view.clone(),
                network: sale.settlement.network.clone(),
                payer: payer.to_owned(),
                amount: sale.settlement.amount.clone().unwrap_or_default(),
                transaction: sale.settlement.transaction.clone(),
                settled_at: sale.settled_at,
            });
        }
        book.keys.insert(self.key.clone(), Entry::Used { until: self.until, sale: Arc::new(sale.held()) });
        self.done = true;
    }

    /// Holds the payment as never paid, an earlier doubt included (the chain proved it void:
    /// `note` says how): its repeats are refused.
    pub fn void(mut self, note: &str) {
        self.book.lock().keys.insert(self.key.clone(), Entry::Void { until: self.until, note: Arc::from(note) });
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

/// A sign-in proof held while its re-access runs: kept as used (until its nonce expires) once
/// the re-access is journaled, released if it fails, so the proof may be tried again.
pub struct ProofClaim {
    book: SharedBook,
    key: String,
    until: u64,
    done: bool,
}

impl ProofClaim {
    /// Keeps the proof as used.
    pub fn commit(mut self) {
        self.book.lock().proofs.insert(self.key.clone(), ProofEntry::Used { until: self.until });
        self.done = true;
    }
}

impl Drop for ProofClaim {
    fn drop(&mut self) {
        if !self.done {
            self.book.lock().proofs.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sale(fingerprint: &str) -> PaidSale {
        PaidSale {
            purchase: "k".into(),
            fingerprint: fingerprint.into(),
            study: "s".into(),
            view: "completo".into(),
            settlement: SettlementResponse::failure("eip155:84532", "x", None, None),
            settled_at: 0,
        }
    }

    fn doubt(fingerprint: &str) -> UncertainSale {
        UncertainSale { fingerprint: fingerprint.into(), study: "s".into(), view: "completo".into(), transaction: None }
    }

    fn owned_sale(purchase: &str, view: &str) -> Owned {
        Owned {
            purchase: purchase.into(),
            study: "s".into(),
            view: view.into(),
            network: "eip155:84532".into(),
            payer: "0xAbC".into(),
            amount: "990000".into(),
            transaction: format!("0x{purchase}"),
            settled_at: 0,
        }
    }

    #[test]
    fn a_wallet_owns_its_first_sale_of_each_view() {
        let mut book = Book::default();
        for n in 0..1_000 {
            book.own(owned_sale(&format!("c{n}"), "completo"));
        }
        book.own(owned_sale("r0", "resumen"));
        book.own(owned_sale("r1", "resumen"));
        let owned = |view: &str| book.owned("eip155:84532", "0xabc", "s", view).map(|o| o.purchase.clone());
        assert_eq!(owned("completo").as_deref(), Some("c0"));
        assert_eq!(owned("resumen").as_deref(), Some("r0"));
        assert_eq!(owned("otra").as_deref(), Some("c0"), "another view: the first sale");
        assert_eq!(book.owners.values().map(Vec::len).sum::<usize>(), 2, "repeat purchases add nothing");
        assert!(book.owned("eip155:84532", "0xabc", "otro-estudio", "completo").is_none());
    }

    #[test]
    fn expired_entries_are_swept_and_live_ones_do_not_make_every_insert_sweep() {
        let book = SharedBook::default();
        for n in 0..=SWEEP_ABOVE {
            book.lock().restore_paid(&format!("viejo{n}"), None, 5, sale("h"));
        }
        // Past their time: the next reservation sweeps them all away.
        drop(Book::reserve(&book, "nuevo", None, "h", 100, 10).unwrap());
        assert_eq!(book.lock().keys.len(), 0);
        // Live entries above the threshold: one sweep, then none until they double.
        for n in 0..=SWEEP_ABOVE {
            book.lock().restore_paid(&format!("vivo{n}"), None, 1_000, sale("h"));
        }
        drop(Book::reserve(&book, "otro", None, "h", 1_000, 10).unwrap());
        let sweep_at = book.lock().sweep_at;
        assert_eq!(sweep_at, 2 * (SWEEP_ABOVE + 1));
        book.lock().restore_paid("expirado", None, 5, sale("h"));
        drop(Book::reserve(&book, "otro", None, "h", 1_000, 10).unwrap());
        assert!(book.lock().keys.contains_key("expirado"), "no sweep before the entries double");
    }

    #[test]
    fn expired_entries_go_within_the_sweep_interval_without_waiting_for_the_book_to_double() {
        let book = SharedBook::default();
        for n in 0..=SWEEP_ABOVE {
            book.lock().restore_paid(&format!("vivo{n}"), None, 1_000, sale("h"));
        }
        drop(Book::reserve(&book, "primera", None, "h", 1_000, 10).unwrap());
        for n in 0..100 {
            book.lock().restore_paid(&format!("breve{n}"), None, 20, sale("h"));
        }
        drop(Book::reserve(&book, "antes", None, "h", 1_000, 10 + SWEEP_EVERY - 1).unwrap());
        assert!(book.lock().keys.contains_key("breve0"), "before the interval, no sweep");
        drop(Book::reserve(&book, "despues", None, "h", 1_000, 10 + SWEEP_EVERY).unwrap());
        let locked = book.lock();
        assert!(!locked.keys.keys().any(|k| k.starts_with("breve")), "expired entries swept");
        assert_eq!(locked.keys.len(), SWEEP_ABOVE + 1, "live entries kept");
    }

    #[test]
    fn a_paid_sale_is_held_without_its_receipt_and_replays_with_what_the_receipt_needs() {
        let book = SharedBook::default();
        let mut paid = sale("h");
        paid.settlement =
            SettlementResponse::recorded("eip155:84532".into(), "0xt".into(), "0xAb".into(), "990000".into());
        paid.settled_at = 77;
        paid.settlement.extensions = Some(serde_json::json!({"offer-receipt": {"info": {"receipt": "firmado"}}}));
        Book::reserve(&book, "k", None, "h", 100, 0).unwrap().commit(paid);
        let Err(Seen::Paid(held)) = Book::reserve(&book, "k", None, "h", 100, 0) else { panic!("paid") };
        assert!(held.settlement.extensions.is_none(), "the receipt is signed again, not held");
        assert_eq!(
            (held.settlement.transaction.as_str(), held.settlement.payer.as_deref(), held.settled_at),
            ("0xt", Some("0xAb"), 77),
            "what signing it again needs"
        );
    }

    #[test]
    fn a_reservation_is_released_unless_committed() {
        let book = SharedBook::default();
        let r = Book::reserve(&book, "k", None, "h", 100, 0).unwrap();
        assert!(matches!(Book::reserve(&book, "k", None, "h", 100, 0), Err(Seen::InFlight)));
        drop(r);
        let r = Book::reserve(&book, "k", None, "h", 100, 0).unwrap();
        r.commit(sale("h"));
        assert!(matches!(Book::reserve(&book, "k", None, "h", 100, 0), Err(Seen::Paid(s)) if s.fingerprint == "h"));
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
            matches!(Book::reserve(&book, "k2", id, "h2", 100, 0), Err(Seen::IdPaid(s)) if s.fingerprint == "h1"),
            "a fresh payload under a paid id names the paid purchase"
        );
        let other = Some("other-id-0123456789");
        drop(Book::reserve(&book, "k3", other, "h3", 100, 0).unwrap());
        assert!(Book::reserve(&book, "k4", other, "h4", 100, 0).is_ok(), "a failed purchase frees its id");
    }

    #[test]
    fn a_committed_sale_is_its_payers_and_a_proof_is_used_once() {
        let book = SharedBook::default();
        let mut paid = sale("h");
        paid.settlement = SettlementResponse {
            success: true,
            payer: Some("0xABCdef".into()),
            network: "eip155:84532".into(),
            transaction: "0xt".into(),
            ..paid.settlement
        };
        Book::reserve(&book, "k", None, "h", 100, 0).unwrap().commit(paid);
        let owned = book.lock().owned("eip155:84532", "0xabcDEF", "s", "resumen").expect("the payer owns it");
        assert_eq!((owned.purchase.as_str(), owned.view.as_str()), ("k", "completo"), "another view's sale");
        assert!(book.lock().owned("eip155:8453", "0xabcdef", "s", "completo").is_none(), "another network");
        assert!(book.lock().owned("eip155:84532", "0xabcdef", "t", "completo").is_none(), "another study");

        let claim = Book::claim_proof(&book, "eip155:84532", "0xAB", "n1", 50, 10).expect("first use");
        assert!(Book::claim_proof(&book, "eip155:84532", "0xab", "n1", 50, 10).is_none(), "in use");
        drop(claim);
        Book::claim_proof(&book, "eip155:84532", "0xab", "n1", 50, 10).expect("released").commit();
        assert!(Book::claim_proof(&book, "eip155:84532", "0xAB", "n1", 50, 20).is_none(), "used");
        assert!(Book::claim_proof(&book, "eip155:84532", "0xcd", "n1", 50, 20).is_some(), "another wallet");
        book.lock().restore_proof("eip155:84532", "0xEF", "n2", 50);
        assert!(Book::claim_proof(&book, "eip155:84532", "0xef", "n2", 50, 20).is_none(), "restored as used");
    }

    #[test]
    fn an_uncertain_purchase_is_resumed_once_and_falls_back_to_uncertain() {
        let book = SharedBook::default();
        let id = Some("id-uncertain-0123456789");
        Book::reserve(&book, "k", id, "h", 100, 0).unwrap().uncertain(doubt("h"));
        assert!(
            matches!(Book::reserve(&book, "k", None, "h", 100, 0), Err(Seen::Uncertain(u)) if u.fingerprint == "h")
        );
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
