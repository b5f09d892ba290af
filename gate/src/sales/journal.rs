//! The sales journal: append-only JSON Lines files under `--datos`, one line per purchase step,
//! each on disk (fsync'd) before the next step runs, so that after any crash the publisher can
//! say which studies were sold to whom and settled where, and the gate can rebuild its replay
//! book and recover paid sales. The one step nothing depends on, the delivery, is only waited
//! for until it is in the file: its fsync follows in the same batch without holding the answer.
//!
//! Steps of one purchase (`compra` is its key: network, payer and nonce):
//! `aceptado` (local checks passed, before settling) → `liquidado` (the facilitator's
//! transaction; `recuperado` when a repeat found the money had already moved) or `fallido`
//! (nothing delivered; `incierto` when the money may have moved) → `entregado` (the study was
//! handed to the transport), `reentregado` when a buyer repeats a paid request,
//! `conciliado` when the publisher settles an uncertain purchase by hand after checking the
//! chain, and `reacceso` each time the buyer's wallet signs in (x402 `sign-in-with-x`) and gets
//! the study again without paying. What the steps add up to is [`super::ledger`]'s to say.
//!
//! The active file is `ventas.jsonl`; past `--diario-max-mb` it is renamed to the next
//! `ventas.NNNNNN.jsonl` and a new one started, and every reader reads all of them in order.
//! A crash can only tear the last line of the active file; it is detected, skipped with a
//! warning and cut off on the next start.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

/// The active journal file's name inside `--datos`.
pub const JOURNAL_FILE: &str = "ventas.jsonl";
/// Size past which the active file is rotated, by default.
pub const DEFAULT_SEGMENT_BYTES: u64 = 64 * 1024 * 1024;

/// One line of the journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// UTC time of the step, ISO 8601.
    #[serde(rename = "fecha")]
    pub date: String,
    pub unix: u64,
    /// The purchase key (`network|payer|nonce` on EVM).
    #[serde(rename = "compra")]
    pub purchase: String,
    #[serde(flatten)]
    pub event: Event,
}

/// What happened at one step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "evento", rename_all = "snake_case")]
pub enum Event {
    /// Local checks passed; about to settle (an attempt starts).
    #[serde(rename = "aceptado")]
    Accepted(Accepted),
    /// The facilitator settled: the money moved.
    #[serde(rename = "liquidado")]
    Settled(Settled),
    /// Nothing was delivered, with the reason.
    #[serde(rename = "fallido")]
    Failed(Failed),
    /// The study left for the buyer.
    #[serde(rename = "entregado")]
    Delivered(Handed),
    /// A paid request repeated by its buyer got the study again, without settling.
    #[serde(rename = "reentregado")]
    Redelivered(Handed),
    /// The publisher resolved an uncertain purchase by hand (`gate ventas conciliar`).
    #[serde(rename = "conciliado")]
    Reconciled(Reconciled),
    /// The buyer's wallet signed in (x402 `sign-in-with-x`) and got the study again, with fresh
    /// links and no charge: recorded under the sale it proved, before the answer leaves.
    #[serde(rename = "reacceso")]
    Reaccess(Reaccess),
    /// The chain does not confirm a settlement the facilitator reported as a success (its
    /// transaction did not pay payTo the price, or never appeared): the sale is disputed.
    #[serde(rename = "impugnado")]
    Disputed(Disputed),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Accepted {
    #[serde(rename = "estudio")]
    pub study: String,
    #[serde(rename = "vista")]
    pub view: String,
    #[serde(rename = "red")]
    pub network: String,
    #[serde(rename = "pagador")]
    pub payer: String,
    pub nonce: String,
    /// Atomic units of `activo`.
    #[serde(rename = "monto")]
    pub amount: String,
    #[serde(rename = "activo")]
    pub asset: String,
    #[serde(rename = "pagar_a")]
    pub pay_to: String,
    /// Unix time after which the authorization is void.
    #[serde(rename = "valido_hasta")]
    pub valid_until: u64,
    /// Unix time after which the authorization is valid (0 in journals written before it was
    /// recorded): with `valido_hasta`, where on chain its use can be.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[serde(rename = "valido_desde")]
    pub valid_from: u64,
    /// sha256 of the payment payload, to tell a repeated request from a different one.
    #[serde(rename = "huella")]
    pub fingerprint: String,
    /// The buyer's `payment-identifier`, when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "identificador")]
    pub identifier: Option<String>,
    /// The protocol the buyer paid with (x402 in journals written before MPP was offered).
    #[serde(default, skip_serializing_if = "Protocol::is_x402")]
    #[serde(rename = "protocolo")]
    pub protocol: Protocol,
}

/// The protocol a purchase came by: both end in the same sale.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// x402 v2 (`PAYMENT-SIGNATURE`, or the MCP tool's `_meta`).
    #[default]
    X402,
    /// The Machine Payments Protocol (`Authorization: Payment`), method `evm`.
    Mpp,
}

impl Protocol {
    pub fn is_x402(&self) -> bool {
        *self == Protocol::X402
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Protocol::X402 => "x402",
            Protocol::Mpp => "mpp",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settled {
    /// Transaction hash; empty when a recovery could not learn it (look the nonce up on chain).
    #[serde(rename = "transaccion")]
    pub transaction: String,
    #[serde(rename = "red")]
    pub network: String,
    #[serde(rename = "pagador")]
    pub payer: String,
    /// Settled by recovery: a repeat after an uncertain outcome found this authorization's
    /// nonce already used, so the money had moved for it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[serde(rename = "recuperado")]
    pub recovered: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failed {
    #[serde(rename = "motivo")]
    pub reason: String,
    #[serde(rename = "mensaje")]
    pub message: String,
    /// The settle request may have moved the money (it timed out, the connection broke, the
    /// facilitator answered 5xx or something unreadable, or said the settlement is pending):
    /// nothing was delivered, and the purchase stays to reconcile until a definite event.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[serde(rename = "incierto")]
    pub uncertain: bool,
    /// A transaction the facilitator named (a pending settlement), for reconciliation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "transaccion")]
    pub transaction: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Handed {
    #[serde(rename = "transaccion")]
    pub transaction: String,
    /// Bytes of the response body.
    pub bytes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A settlement the chain does not confirm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disputed {
    /// The transaction the facilitator named.
    #[serde(rename = "transaccion")]
    pub transaction: String,
    /// What the chain shows instead.
    #[serde(rename = "motivo")]
    pub reason: String,
}

/// How the publisher resolved an uncertain purchase after looking it up on chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reconciled {
    /// `true`: the money moved (a sale, with its transaction); `false`: it did not.
    #[serde(rename = "liquidada")]
    pub settled_at: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "transaccion")]
    pub transaction: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[serde(rename = "nota")]
    pub note: String,
}

/// A re-access: who signed in, with which one-time nonce, and what was delivered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reaccess {
    #[serde(rename = "estudio")]
    pub study: String,
    /// The view delivered (the one asked, whichever view the sale was).
    #[serde(rename = "vista")]
    pub view: String,
    /// The chain the sign-in was signed for (CAIP-2), the sale's network.
    #[serde(rename = "red")]
    pub network: String,
    /// The wallet that signed in: the sale's payer.
    #[serde(rename = "pagador")]
    pub payer: String,
    /// The sign-in nonce the gate issued; with the wallet, what a replay is recognised by.
    pub nonce: String,
    /// Unix time the nonce expires: until then a repeat of the proof is refused, after a
    /// restart too.
    #[serde(rename = "valido_hasta")]
    pub valid_until: u64,
    /// The transaction of the sale that was proved.
    #[serde(rename = "transaccion")]
    pub transaction: String,
    /// Bytes of the response body.
    pub bytes: u64,
}

/// What reading a journal found.
#[derive(Debug, Default)]
pub struct Contents {
    pub records: Vec<Record>,
    /// Human-readable problems (torn or unreadable lines), already logged.
    pub warnings: Vec<String>,
    /// Length of the active file up to the end of its last complete line.
    pub sound_len: u64,
}

/// Parses journal bytes: complete lines are records; an unterminated last line is a torn
/// write and is skipped; a complete line that does not parse is skipped with a warning.
pub fn parse(bytes: &[u8], name: &str) -> Contents {
    let mut contents = Contents::default();
    let mut offset = 0usize;
    let mut line_number = 0usize;
    while offset < bytes.len() {
        line_number += 1;
        let Some(end) = bytes[offset..].iter().position(|b| *b == b'\n').map(|i| offset + i) else {
            let warning = format!(
                "{name}: la última línea ({line_number}, {} bytes) quedó cortada por una caída y se descarta",
                bytes.len() - offset
            );
            tracing::warn!("{warning}");
            contents.warnings.push(warning);
            break;
        };
        let line = &bytes[offset..end];
        offset = end + 1;
        contents.sound_len = offset as u64;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Record>(line) {
            Ok(record) => contents.records.push(record),
            Err(e) => {
                let warning = format!("{name}: línea {line_number} ilegible, se omite: {e}");
                tracing::warn!("{warning}");
                contents.warnings.push(warning);
            }
        }
    }
    contents
}

/// The rotated segments of the journal whose active file is `active`, oldest first.
pub fn segments(active: &Path) -> Result<Vec<PathBuf>> {
    let dir = parent_dir(active);
    let (stem, extension) = stem_and_extension(active);
    let mut found: Vec<(u64, PathBuf)> = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("no se pudo leer {}", dir.display())),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(number) = name
            .to_str()
            .and_then(|n| n.strip_prefix(&format!("{stem}.")))
            .and_then(|n| n.strip_suffix(&format!(".{extension}")))
            .filter(|n| n.len() == 6 && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        found.push((number, entry.path()));
    }
    found.sort();
    Ok(found.into_iter().map(|(_, path)| path).collect())
}

/// Reads every segment and the active file, in order, without changing them (for
/// `gate ventas`); a missing journal is empty.
pub fn read(active: &Path) -> Result<Contents> {
    let mut all = Contents::default();
    for path in segments(active)?.iter().map(PathBuf::as_path).chain([active]) {
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("no se pudo leer {}", path.display())),
        };
        let contents = parse(&bytes, &path.display().to_string());
        all.records.extend(contents.records);
        all.warnings.extend(contents.warnings);
        all.sound_len = contents.sound_len;
    }
    Ok(all)
}

/// The open journal, appended to by purchases.
pub struct Journal {
    path: PathBuf,
    segment_bytes: u64,
    file: Mutex<File>,
    /// fsyncs run so far (group commit makes it fewer than the lines).
    syncs: std::sync::atomic::AtomicU64,
    /// Where each fsync's duration is observed (the gate's metrics).
    fsync_seconds: Option<prometheus_client::metrics::histogram::Histogram>,
    /// The last write's error, until a write succeeds (readiness).
    last_error: Mutex<Option<String>>,
}

impl Journal {
    /// Opens (or creates) the journal, reads every segment and the active file, and cuts a
    /// torn last line off the active file, so the next append starts on a line of its own.
    pub fn open(path: &Path, segment_bytes: u64) -> Result<(Journal, Contents)> {
        let mut contents = read_segments(path)?;
        let created = !path.exists();
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .with_context(|| format!("no se pudo abrir el diario de ventas {}", path.display()))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).with_context(|| format!("no se pudo leer {}", path.display()))?;
        let active = parse(&bytes, &path.display().to_string());
        if active.sound_len < bytes.len() as u64 {
            file.set_len(active.sound_len).with_context(|| format!("no se pudo recortar {}", path.display()))?;
            file.sync_all()?;
        }
        if created {
            sync_dir(parent_dir(path));
        }
        file.seek(SeekFrom::End(0))?;
        contents.records.extend(active.records);
        contents.warnings.extend(active.warnings);
        contents.sound_len = active.sound_len;
        let journal = Journal {
            path: path.to_owned(),
            segment_bytes: segment_bytes.max(1),
            file: Mutex::new(file),
            syncs: Default::default(),
            fsync_seconds: None,
            last_error: Mutex::new(None),
        };
        Ok((journal, contents))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Observes each fsync's duration, in seconds, in `histogram`.
    pub fn observe_fsync(&mut self, histogram: prometheus_client::metrics::histogram::Histogram) {
        self.fsync_seconds = Some(histogram);
    }

    /// Appends one record as one line and waits until it is on disk.
    pub fn append(&self, record: &Record) -> std::io::Result<()> {
        self.append_all(std::slice::from_ref(record))
    }

    /// Appends records, one line each, with a single fsync for all of them.
    pub fn append_all(&self, records: &[Record]) -> std::io::Result<()> {
        let mut file = self.file.lock();
        self.write_lines(&mut file, records)?;
        self.sync_and_rotate(&mut file)
    }

    /// Writes records, one line each, in one `write` (visible to readers at once, not yet
    /// durable). A failed write is cut back off so it cannot glue onto the next line.
    fn write_lines(&self, file: &mut File, records: &[Record]) -> std::io::Result<()> {
        let mut lines = Vec::with_capacity(records.len() * 400);
        for record in records {
            serde_json::to_writer(&mut lines, record).map_err(std::io::Error::other)?;
            lines.push(b'\n');
        }
        let before = file.metadata()?.len();
        let written = file.write_all(&lines);
        if written.is_err() {
            let _ = file.set_len(before);
        }
        written
    }

    /// Makes every line written so far durable; past the segment size, rotates the file after.
    fn sync_and_rotate(&self, file: &mut File) -> std::io::Result<()> {
        let started = std::time::Instant::now();
        file.sync_data()?;
        if let Some(histogram) = &self.fsync_seconds {
            histogram.observe(started.elapsed().as_secs_f64());
        }
        self.syncs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if file.metadata()?.len() >= self.segment_bytes {
            // The lines are on disk either way; a failed rotation only leaves a larger file.
            match self.rotate() {
                Ok(next) => *file = next,
                Err(e) => tracing::error!("diario de ventas: no se pudo rotar {}: {e}", self.path.display()),
            }
        }
        Ok(())
    }

    /// Renames the active file to the next segment and opens a new, empty active file.
    fn rotate(&self) -> std::io::Result<File> {
        let (stem, extension) = stem_and_extension(&self.path);
        let next = segments(&self.path)
            .map_err(std::io::Error::other)?
            .last()
            .and_then(|p| p.file_name()?.to_str()?.split('.').nth(1)?.parse::<u64>().ok())
            .map_or(1, |n| n + 1);
        let segment = parent_dir(&self.path).join(format!("{stem}.{next:06}.{extension}"));
        std::fs::rename(&self.path, &segment)?;
        let file = OpenOptions::new().read(true).append(true).create(true).open(&self.path)?;
        sync_dir(parent_dir(&self.path));
        tracing::info!("diario de ventas: {} completo, sigue en {}", segment.display(), self.path.display());
        Ok(file)
    }
}

/// Reads the rotated segments only (the active file is read by [`Journal::open`]).
fn read_segments(active: &Path) -> Result<Contents> {
    let mut all = Contents::default();
    for path in segments(active)? {
        let bytes = std::fs::read(&path).with_context(|| format!("no se pudo leer {}", path.display()))?;
        let contents = parse(&bytes, &path.display().to_string());
        all.records.extend(contents.records);
        all.warnings.extend(contents.warnings);
    }
    Ok(all)
}

type Ack = tokio::sync::oneshot::Sender<std::io::Result<()>>;

/// When a queued record's writer answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Once the line is on disk (fsync'd): for the steps the next step depends on.
    Durable,
    /// Once the line is in the file, before its fsync (which the same batch then runs): for a
    /// delivery, which nothing waits on. Readers of the file see it at once; a crash in the
    /// next milliseconds may lose it, and the sale then reads as not yet delivered.
    Written,
}

/// One thread that owns the journal's writes (group commit): each wake-up takes every record
/// queued so far, writes them in one `write`, answers those that only wait for the write,
/// fsyncs once, then answers the rest. Under load many purchases share one fsync, and no
/// blocking-pool threads pile up behind the disk.
pub struct Writer {
    queue: std::sync::mpsc::Sender<(Record, Wait, Ack)>,
    journal: std::sync::Arc<Journal>,
}

impl Writer {
    pub fn start(journal: Journal) -> std::io::Result<Writer> {
        let (queue, pending) = std::sync::mpsc::channel::<(Record, Wait, Ack)>();
        let journal = std::sync::Arc::new(journal);
        let owner = std::sync::Arc::clone(&journal);
        std::thread::Builder::new().name("diario-ventas".into()).spawn(move || {
            while let Ok(first) = pending.recv() {
                let mut batch = vec![first];
                batch.extend(pending.try_iter());
                owner.commit(batch);
            }
        })?;
        Ok(Writer { queue, journal })
    }

    /// fsyncs run so far.
    pub fn syncs(&self) -> u64 {
        self.journal.syncs.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The last write's error, while no later write has succeeded.
    pub fn last_error(&self) -> Option<String> {
        self.journal.last_error.lock().clone()
    }

    /// Queues a record and waits until it is on disk (or only written, per `wait`).
    pub async fn write(&self, record: Record, wait: Wait) -> std::io::Result<()> {
        let (ack, done) = tokio::sync::oneshot::channel();
        self.queue.send((record, wait, ack)).map_err(|_| std::io::Error::other("el escritor del diario se detuvo"))?;
        done.await.unwrap_or_else(|_| Err(std::io::Error::other("el escritor del diario se detuvo")))
    }
}

impl Journal {
    /// Writes one batch of the [`Writer`] and answers each record when its [`Wait`] is met.
    fn commit(&self, batch: Vec<(Record, Wait, Ack)>) {
        let mut records = Vec::with_capacity(batch.len());
        let mut durable = Vec::new();
        let mut written = Vec::new();
        for (record, wait, ack) in batch {
            records.push(record);
            match wait {
                Wait::Durable => durable.push(ack),
                Wait::Written => written.push(ack),
            }
        }
        let mut file = self.file.lock();
        let result = self.write_lines(&mut file, &records);
        answer(written, &result);
        let result = result.and_then(|()| self.sync_and_rotate(&mut file));
        if let Err(e) = &result {
            tracing::error!("diario de ventas: no se pudo escribir en {}: {e}", self.path.display());
        }
        *self.last_error.lock() = result.as_ref().err().map(|e| e.to_string());
        answer(durable, &result);
    }
}

/// Sends the same outcome to every waiting purchase.
fn answer(acks: Vec<Ack>, result: &std::io::Result<()>) {
    for ack in acks {
        let _ = ack.send(result.as_ref().map(|_| ()).map_err(|e| std::io::Error::new(e.kind(), e.to_string())));
    }
}

/// Appends one record to the journal of a gate that may be running (`gate ventas
/// conciliar`): one `write` of one line with `O_APPEND`, then fsync, so it cannot interleave
/// with the gate's own lines.
pub fn append_one(active: &Path, record: &Record) -> Result<()> {
    let mut line = serde_json::to_vec(record)?;
    line.push(b'\n');
    let mut file = OpenOptions::new()
        .append(true)
        .create(true)
        .open(active)
        .with_context(|| format!("no se pudo abrir {}", active.display()))?;
    file.write_all(&line)
        .and_then(|()| file.sync_data())
        .with_context(|| format!("no se pudo escribir {}", active.display()))
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// `ventas.jsonl` → (`ventas`, `jsonl`).
fn stem_and_extension(path: &Path) -> (String, String) {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("ventas").to_owned();
    let extension = path.extension().and_then(|s| s.to_str()).unwrap_or("jsonl").to_owned();
    (stem, extension)
}

/// Makes a new or renamed file's directory entry durable.
fn sync_dir(dir: &Path) {
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn accepted(purchase: &str, unix: u64) -> Record {
        Record {
            date: crate::clock::iso8601(unix),
            unix,
            purchase: purchase.into(),
            event: Event::Accepted(Accepted {
                study: "banca-2026".into(),
                view: "completo".into(),
                network: "eip155:84532".into(),
                payer: "0xabc".into(),
                nonce: "0x11".into(),
                amount: "990000".into(),
                asset: "0xusdc".into(),
                pay_to: "0xpay".into(),
                valid_until: unix + 300,
                valid_from: 0,
                fingerprint: "h".into(),
                identifier: None,
                protocol: Protocol::X402,
            }),
        }
    }

    pub(crate) fn settled(purchase: &str, unix: u64) -> Record {
        Record {
            date: crate::clock::iso8601(unix),
            unix,
            purchase: purchase.into(),
            event: Event::Settled(Settled {
                transaction: format!("0xtx{purchase}"),
                network: "eip155:84532".into(),
                payer: "0xabc".into(),
                recovered: false,
            }),
        }
    }

    #[test]
    fn a_torn_last_line_is_skipped_and_cut_off() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL_FILE);
        {
            let (journal, contents) = Journal::open(&path, DEFAULT_SEGMENT_BYTES).unwrap();
            assert!(contents.records.is_empty());
            journal.append(&accepted("a", 1_700_000_000)).unwrap();
            journal.append(&settled("a", 1_700_000_001)).unwrap();
        }
        let sound = std::fs::read(&path).unwrap();
        let mut torn = sound.clone();
        torn.extend_from_slice(br#"{"fecha":"2023-11-14T22:13:22Z","unix":1700000002,"compra":"b","eve"#);
        std::fs::write(&path, &torn).unwrap();

        let read_only = read(&path).unwrap();
        assert_eq!(read_only.records.len(), 2);
        assert_eq!(read_only.warnings.len(), 1, "{:?}", read_only.warnings);
        assert_eq!(std::fs::read(&path).unwrap(), torn, "reading alone changes nothing");

        let (journal, contents) = Journal::open(&path, DEFAULT_SEGMENT_BYTES).unwrap();
        assert_eq!(contents.records.len(), 2);
        assert!(contents.warnings[0].contains("cortada"));
        assert_eq!(std::fs::read(&path).unwrap(), sound, "the torn tail is cut off");
        journal.append(&accepted("c", 1_700_000_003)).unwrap();
        let again = read(&path).unwrap();
        assert_eq!(again.records.len(), 3);
        assert!(again.warnings.is_empty());
    }

    #[test]
    fn an_unreadable_middle_line_is_skipped_with_a_warning() {
        let mut bytes = serde_json::to_vec(&accepted("a", 10)).unwrap();
        bytes.extend_from_slice(b"\nnot json\n");
        bytes.extend_from_slice(&serde_json::to_vec(&settled("a", 11)).unwrap());
        bytes.push(b'\n');
        let contents = parse(&bytes, "x");
        assert_eq!(contents.records.len(), 2);
        assert!(contents.warnings[0].contains("línea 2"), "{:?}", contents.warnings);
        assert_eq!(contents.sound_len, bytes.len() as u64);
    }

    #[test]
    fn records_round_trip_with_their_event_tag() {
        let record = settled("k", 5);
        let line = serde_json::to_string(&record).unwrap();
        assert!(line.contains(r#""evento":"liquidado""#), "{line}");
        assert!(!line.contains("recuperado"), "false flags are left out: {line}");
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), record);
        let reconciled = Record {
            date: String::new(),
            unix: 9,
            purchase: "k".into(),
            event: Event::Reconciled(Reconciled {
                settled_at: true,
                transaction: Some("0xt".into()),
                note: "ok".into(),
            }),
        };
        let line = serde_json::to_string(&reconciled).unwrap();
        assert!(line.contains(r#""evento":"conciliado""#), "{line}");
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), reconciled);
    }

    #[test]
    fn the_active_file_rotates_by_size_and_readers_see_every_segment() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL_FILE);
        let one_line = serde_json::to_vec(&accepted("k0", 1)).unwrap().len() as u64 + 1;
        let (journal, _) = Journal::open(&path, one_line * 3).unwrap();
        for i in 0..10 {
            journal.append(&accepted(&format!("k{i}"), i)).unwrap();
        }
        drop(journal);
        let segments = segments(&path).unwrap();
        let names: Vec<String> =
            segments.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["ventas.000001.jsonl", "ventas.000002.jsonl", "ventas.000003.jsonl"]);
        let all = read(&path).unwrap();
        let keys: Vec<&str> = all.records.iter().map(|r| r.purchase.as_str()).collect();
        assert_eq!(keys, (0..10).map(|i| format!("k{i}")).collect::<Vec<_>>());
        let (journal, reopened) = Journal::open(&path, one_line * 3).unwrap();
        assert_eq!(reopened.records.len(), 10, "a restart reads every segment");
        journal.append(&accepted("k10", 10)).unwrap();
        assert_eq!(read(&path).unwrap().records.len(), 11);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_purchases_share_fsyncs_and_a_delivery_waits_only_for_its_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL_FILE);
        let (journal, _) = Journal::open(&path, DEFAULT_SEGMENT_BYTES).unwrap();
        let writer = std::sync::Arc::new(Writer::start(journal).unwrap());
        // 200 purchases' steps queued at once: each waits for its own line on disk.
        let steps: Vec<_> = (0..200u64)
            .map(|i| {
                let writer = std::sync::Arc::clone(&writer);
                tokio::spawn(async move { writer.write(accepted(&format!("k{i}"), i), Wait::Durable).await })
            })
            .collect();
        for step in steps {
            step.await.unwrap().unwrap();
        }
        let keys: std::collections::BTreeSet<String> =
            read(&path).unwrap().records.into_iter().map(|r| r.purchase).collect();
        assert_eq!(keys.len(), 200, "every line whole, none lost");
        assert!(writer.syncs() < 100, "group commit: {} fsyncs for 200 lines", writer.syncs());
        // A delivery: in the file as soon as its write is answered.
        writer.write(settled("entrega", 300), Wait::Written).await.unwrap();
        assert!(std::fs::read_to_string(&path).unwrap().contains("\"entrega\""));
    }
}
