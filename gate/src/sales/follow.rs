//! Following the journal for steps another process appended, so a running gate acts on them.
//!
//! `gate ventas conciliar` resolves a purchase left uncertain by appending a `conciliado` line
//! to the journal of a gate that may be running (one `O_APPEND` write, [`super::journal::append_one`]).
//! The gate's replay book was rebuilt from the journal at start and is changed by its own
//! purchases only, so without this the buyer's repeat kept getting 503 `liquidacion_incierta`
//! until a restart. A thread reads whatever the active file gains, every
//! [`FOLLOW_EVERY`]: a `conciliado` or `impugnado` line the book does not reflect yet makes it
//! fold the journal once and put those purchases in the book as the fold says (a sale paid by
//! hand is delivered to the same payment's repeat and owned by its wallet; one resolved unpaid
//! is forgotten). So a reconciliation reaches the running gate within twice [`FOLLOW_EVERY`]
//! of its line being written.
//!
//! The gate's own lines go by too; they are already in the book and change nothing. A line the
//! gate is appending is read only once complete. A rotation (the active file renamed to a
//! segment) is noticed by the file's identity: the old file is read to its end, then the new
//! one from its start.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::Weak;
use std::time::Duration;

use parking_lot::Mutex;

use super::book::{Book, KeyState};
use super::journal::{Event, Record};
use super::ledger;

/// How often the active file is looked at.
pub(super) const FOLLOW_EVERY: Duration = Duration::from_millis(250);

/// The marks of the lines that may carry news for the book.
const NEWS: [&str; 2] = ["\"evento\":\"conciliado\"", "\"evento\":\"impugnado\""];

/// Starts the thread that follows `path` from byte `from` (where the gate's own reading at
/// start ended) and applies what other processes resolved to `book`, until the book is gone.
pub(super) fn start(path: PathBuf, from: u64, book: Weak<Mutex<Book>>) -> std::io::Result<()> {
    std::thread::Builder::new().name("diario-seguimiento".into()).spawn(move || {
        let mut follower = Follower { path, file: None, offset: from, partial: Vec::new(), waiting: BTreeSet::new() };
        while let Some(book) = book.upgrade() {
            if let Err(e) = follower.tick(&book) {
                tracing::warn!("diario de ventas: no se pudo seguir {}: {e}", follower.path.display());
            }
            drop(book);
            std::thread::sleep(FOLLOW_EVERY);
        }
    })?;
    Ok(())
}

struct Follower {
    path: PathBuf,
    /// The active file as it was opened (it may since have been renamed to a segment).
    file: Option<File>,
    offset: u64,
    /// The start of a line still being written.
    partial: Vec<u8>,
    /// Purchases with news the book could not take yet (a purchase of theirs was in flight).
    waiting: BTreeSet<(String, News)>,
}

/// What a line says happened to a purchase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum News {
    Paid,
    Unpaid,
    Disputed,
}

impl News {
    /// Whether the book already says it (the gate's own lines, or news taken before).
    fn reflected(self, state: KeyState) -> bool {
        match self {
            News::Paid => state == KeyState::Paid,
            News::Unpaid => state == KeyState::Void,
            News::Disputed => state == KeyState::Disputed,
        }
    }
}

impl Follower {
    fn tick(&mut self, book: &Mutex<Book>) -> std::io::Result<()> {
        let mut news: BTreeSet<(String, News)> = std::mem::take(&mut self.waiting);
        if self.file.is_none() {
            match File::open(&self.path) {
                Ok(file) => self.file = Some(file),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(e),
            }
        }
        self.read_new(&mut news)?;
        if self.rotated()? {
            // Read the renamed file to its end, then start on the new active file.
            self.read_new(&mut news)?;
            self.file = None;
            self.offset = 0;
            self.partial.clear();
        }
        if news.is_empty() {
            return Ok(());
        }
        let unreflected: Vec<(String, News)> = {
            let book = book.lock();
            news.into_iter().filter(|(key, news)| !news.reflected(book.state(key))).collect()
        };
        if !unreflected.is_empty() {
            self.apply(book, &unreflected)?;
        }
        Ok(())
    }

    /// Reads what the open file gained since the last look; collects the purchases of the
    /// complete lines that may be news.
    fn read_new(&mut self, news: &mut BTreeSet<(String, News)>) -> std::io::Result<()> {
        let Some(file) = self.file.as_mut() else { return Ok(()) };
        let length = file.metadata()?.len();
        if length < self.offset {
            // Cut back (a torn line removed at a restart): start over at the new end.
            self.offset = length;
            self.partial.clear();
            return Ok(());
        }
        if length == self.offset {
            return Ok(());
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let mut bytes = std::mem::take(&mut self.partial);
        let read = file.take(length - self.offset).read_to_end(&mut bytes)?;
        self.offset += read as u64;
        let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        self.partial = bytes.split_off(complete);
        for line in bytes.split(|b| *b == b'\n') {
            if !NEWS.iter().any(|mark| contains(line, mark.as_bytes())) {
                continue;
            }
            let Ok(record) = serde_json::from_slice::<Record>(line) else { continue };
            let what = match &record.event {
                Event::Reconciled(r) if r.settled_at => News::Paid,
                Event::Reconciled(_) => News::Unpaid,
                Event::Disputed(_) => News::Disputed,
                _ => continue,
            };
            news.insert((record.purchase, what));
        }
        Ok(())
    }

    /// Whether the path now names another file than the one open (the journal rotated).
    fn rotated(&self) -> std::io::Result<bool> {
        let Some(file) = &self.file else { return Ok(false) };
        let open = file.metadata()?;
        Ok(match std::fs::metadata(&self.path) {
            Ok(now) => (now.dev(), now.ino()) != (open.dev(), open.ino()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
            Err(e) => return Err(e),
        })
    }

    /// Folds the journal and puts the purchases `keys` in the book as the fold says.
    fn apply(&mut self, book: &Mutex<Book>, keys: &[(String, News)]) -> std::io::Result<()> {
        let contents = super::journal::read(&self.path).map_err(std::io::Error::other)?;
        let ledger = ledger::fold(&contents.records);
        let now = crate::clock::now();
        let mut book = book.lock();
        for (key, news) in keys {
            if book.state(key) == KeyState::InFlight {
                // A repeat of this payment is running: look again at the next tick.
                self.waiting.insert((key.clone(), *news));
                continue;
            }
            if let Some(sale) = ledger.sales.iter().find(|s| &s.purchase == key) {
                super::restore_sale(&mut book, sale, now);
                tracing::info!(target: "compras", compra = %key, "diario de ventas: venta registrada por otro proceso (gate ventas conciliar), vigente sin reiniciar");
            } else if let Some(unsold) = ledger.unsold.iter().find(|u| &u.purchase == key) {
                book.void(key, &unsold.note, unsold.accepted.valid_until);
                tracing::info!(target: "compras", compra = %key, "diario de ventas: compra conciliada sin pago por otro proceso: {}", unsold.note);
            }
        }
        Ok(())
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}
