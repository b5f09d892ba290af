//! The sales journal: an append-only JSON Lines file under `--data`, one fsync'd line per
//! purchase step, so that after any crash the publisher can say which studies were sold to
//! whom and settled where, and the gate can rebuild its used nonces and recover paid sales.
//!
//! Steps of one purchase (`compra` is its key: network, payer and nonce):
//! `aceptado` (local checks passed, before settling) → `liquidado` (the facilitator's
//! transaction) or `fallido` (why nothing was charged) → `entregado` (the study was handed to
//! the transport), and `reentregado` when a buyer repeats a paid request. A crash can only
//! tear the last line; it is detected, skipped with a warning and cut off on the next start.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

/// The journal's file name inside `--data`.
pub const JOURNAL_FILE: &str = "ventas.jsonl";

/// One line of the journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// UTC time of the step, ISO 8601.
    pub fecha: String,
    pub unix: u64,
    /// The purchase key (`network|payer|nonce` on EVM).
    pub compra: String,
    #[serde(flatten)]
    pub event: Event,
}

/// What happened at one step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "evento", rename_all = "snake_case")]
pub enum Event {
    /// Local checks passed; about to settle.
    Aceptado(Accepted),
    /// The facilitator settled: the money moved.
    Liquidado(Settled),
    /// Nothing was charged, with the reason.
    Fallido(Failed),
    /// The study left for the buyer.
    Entregado(Handed),
    /// A paid request repeated by its buyer got the study again, without settling.
    Reentregado(Handed),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Accepted {
    pub estudio: String,
    pub vista: String,
    pub red: String,
    pub pagador: String,
    pub nonce: String,
    /// Atomic units of `activo`.
    pub monto: String,
    pub activo: String,
    pub pagar_a: String,
    /// Unix time after which the authorization is void.
    pub valido_hasta: u64,
    /// sha256 of the payment payload, to tell a repeated request from a different one.
    pub huella: String,
    /// The buyer's `payment-identifier`, when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identificador: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settled {
    pub transaccion: String,
    pub red: String,
    pub pagador: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failed {
    pub motivo: String,
    pub mensaje: String,
    /// The settle request may have reached the facilitator (it timed out or the connection
    /// broke): nothing was delivered, but whether the money moved must be checked on chain.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub incierto: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Handed {
    pub transaccion: String,
    /// Bytes of the response body.
    pub bytes: u64,
}

/// What reading a journal found.
#[derive(Debug, Default)]
pub struct Contents {
    pub records: Vec<Record>,
    /// Human-readable problems (torn or unreadable lines), already logged.
    pub warnings: Vec<String>,
    /// Length of the file up to the end of its last complete line.
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

/// Reads a journal without changing it (for `gate ventas`); a missing file is empty.
pub fn read(path: &Path) -> Result<Contents> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(parse(&bytes, &path.display().to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Contents::default()),
        Err(e) => Err(e).with_context(|| format!("no se pudo leer {}", path.display())),
    }
}

/// The open journal, appended to by purchases.
pub struct Journal {
    path: PathBuf,
    file: Mutex<File>,
}

impl Journal {
    /// Opens (or creates) the journal, reads what it holds and cuts a torn last line off, so
    /// the next append starts on a line of its own.
    pub fn open(path: &Path) -> Result<(Journal, Contents)> {
        let created = !path.exists();
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .with_context(|| format!("no se pudo abrir el diario de ventas {}", path.display()))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).with_context(|| format!("no se pudo leer {}", path.display()))?;
        let contents = parse(&bytes, &path.display().to_string());
        if contents.sound_len < bytes.len() as u64 {
            file.set_len(contents.sound_len).with_context(|| format!("no se pudo recortar {}", path.display()))?;
            file.sync_all()?;
        }
        if created {
            sync_parent(path);
        }
        file.seek(SeekFrom::End(0))?;
        Ok((Journal { path: path.to_owned(), file: Mutex::new(file) }, contents))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record as one line and waits until it is on disk.
    pub fn append(&self, record: &Record) -> std::io::Result<()> {
        self.append_all(std::slice::from_ref(record))
    }

    /// Appends records, one line each, with a single fsync for all of them (group commit).
    /// A failed write is cut back off so it cannot glue onto the next line.
    pub fn append_all(&self, records: &[Record]) -> std::io::Result<()> {
        let mut lines = Vec::with_capacity(records.len() * 400);
        for record in records {
            serde_json::to_writer(&mut lines, record).map_err(std::io::Error::other)?;
            lines.push(b'\n');
        }
        let mut file = self.file.lock();
        let before = file.metadata()?.len();
        let written = file.write_all(&lines).and_then(|()| file.sync_data());
        if written.is_err() {
            let _ = file.set_len(before);
        }
        written
    }
}

type Ack = tokio::sync::oneshot::Sender<std::io::Result<()>>;

/// One thread that owns the journal's writes: each wake-up takes every record queued so
/// far, writes them and fsyncs once, then answers each waiting purchase. Under load many
/// purchases share one fsync, and no blocking-pool threads pile up behind the disk.
pub struct Writer {
    queue: std::sync::mpsc::Sender<(Record, Ack)>,
}

impl Writer {
    pub fn start(journal: Journal) -> std::io::Result<Writer> {
        let (queue, pending) = std::sync::mpsc::channel::<(Record, Ack)>();
        std::thread::Builder::new().name("diario-ventas".into()).spawn(move || {
            while let Ok(first) = pending.recv() {
                let mut batch = vec![first];
                batch.extend(pending.try_iter());
                let (records, acks): (Vec<Record>, Vec<Ack>) = batch.into_iter().unzip();
                let result = journal.append_all(&records);
                for ack in acks {
                    let _ =
                        ack.send(result.as_ref().map(|_| ()).map_err(|e| std::io::Error::new(e.kind(), e.to_string())));
                }
            }
        })?;
        Ok(Writer { queue })
    }

    /// Queues a record and waits until it is on disk.
    pub async fn write(&self, record: Record) -> std::io::Result<()> {
        let (ack, done) = tokio::sync::oneshot::channel();
        self.queue.send((record, ack)).map_err(|_| std::io::Error::other("el escritor del diario se detuvo"))?;
        done.await.unwrap_or_else(|_| Err(std::io::Error::other("el escritor del diario se detuvo")))
    }
}

/// Makes a new file's directory entry durable.
fn sync_parent(path: &Path) {
    if let Some(parent) = path.parent()
        && let Ok(dir) = File::open(if parent.as_os_str().is_empty() { Path::new(".") } else { parent })
    {
        let _ = dir.sync_all();
    }
}

/// One settled sale, as the journal tells it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sale {
    pub fecha: String,
    pub unix: u64,
    pub compra: String,
    pub estudio: String,
    pub vista: String,
    pub red: String,
    pub pagador: String,
    pub monto: String,
    pub activo: String,
    pub transaccion: String,
    /// Whether an `entregado` (or `reentregado`) step followed.
    pub entregado: bool,
    pub reentregas: u32,
    /// Kept for recovery, not shown.
    #[serde(skip)]
    pub accepted: Option<Accepted>,
}

/// Purchases that were accepted but have no certain settlement result: the gate stopped, or
/// the facilitator timed out, while settling them. Reconcile them with the chain (nonce used
/// or not).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pending {
    pub fecha: String,
    pub compra: String,
    pub estudio: String,
    pub vista: String,
    pub red: String,
    pub pagador: String,
    pub monto: String,
}

/// The journal folded into sales.
#[derive(Debug, Default)]
pub struct Ledger {
    /// In journal order.
    pub sales: Vec<Sale>,
    pub pending: Vec<Pending>,
    /// Failed attempts by reason.
    pub failures: BTreeMap<String, u64>,
}

/// Folds records into sales, pending purchases and failures.
pub fn fold(records: &[Record]) -> Ledger {
    let mut ledger = Ledger::default();
    let mut open: BTreeMap<&str, &Record> = BTreeMap::new();
    let mut sale_of: BTreeMap<&str, usize> = BTreeMap::new();
    for record in records {
        match &record.event {
            Event::Aceptado(_) => {
                open.insert(&record.compra, record);
            }
            Event::Liquidado(settled) => {
                let accepted = open.remove(record.compra.as_str()).and_then(|r| match &r.event {
                    Event::Aceptado(a) => Some(a.clone()),
                    _ => None,
                });
                let a = accepted.clone();
                sale_of.insert(&record.compra, ledger.sales.len());
                ledger.sales.push(Sale {
                    fecha: record.fecha.clone(),
                    unix: record.unix,
                    compra: record.compra.clone(),
                    estudio: a.as_ref().map(|a| a.estudio.clone()).unwrap_or_default(),
                    vista: a.as_ref().map(|a| a.vista.clone()).unwrap_or_default(),
                    red: settled.red.clone(),
                    pagador: settled.pagador.clone(),
                    monto: a.as_ref().map(|a| a.monto.clone()).unwrap_or_default(),
                    activo: a.as_ref().map(|a| a.activo.clone()).unwrap_or_default(),
                    transaccion: settled.transaccion.clone(),
                    entregado: false,
                    reentregas: 0,
                    accepted,
                });
            }
            Event::Fallido(failed) => {
                if !failed.incierto {
                    open.remove(record.compra.as_str());
                }
                *ledger.failures.entry(failed.motivo.clone()).or_default() += 1;
            }
            Event::Entregado(_) | Event::Reentregado(_) => {
                if let Some(sale) = sale_of.get(record.compra.as_str()).and_then(|i| ledger.sales.get_mut(*i)) {
                    if matches!(record.event, Event::Reentregado(_)) {
                        sale.reentregas += 1;
                    }
                    sale.entregado = true;
                }
            }
        }
    }
    let mut pending: Vec<&Record> = open.into_values().collect();
    pending.sort_by_key(|r| r.unix);
    ledger.pending = pending
        .into_iter()
        .filter_map(|r| match &r.event {
            Event::Aceptado(a) => Some(Pending {
                fecha: r.fecha.clone(),
                compra: r.compra.clone(),
                estudio: a.estudio.clone(),
                vista: a.vista.clone(),
                red: a.red.clone(),
                pagador: a.pagador.clone(),
                monto: a.monto.clone(),
            }),
            _ => None,
        })
        .collect();
    ledger
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepted(compra: &str, unix: u64) -> Record {
        Record {
            fecha: crate::clock::iso8601(unix),
            unix,
            compra: compra.into(),
            event: Event::Aceptado(Accepted {
                estudio: "banca-2026".into(),
                vista: "completo".into(),
                red: "eip155:84532".into(),
                pagador: "0xabc".into(),
                nonce: "0x11".into(),
                monto: "990000".into(),
                activo: "0xusdc".into(),
                pagar_a: "0xpay".into(),
                valido_hasta: unix + 300,
                huella: "h".into(),
                identificador: None,
            }),
        }
    }

    fn settled(compra: &str, unix: u64) -> Record {
        Record {
            fecha: crate::clock::iso8601(unix),
            unix,
            compra: compra.into(),
            event: Event::Liquidado(Settled {
                transaccion: format!("0xtx{compra}"),
                red: "eip155:84532".into(),
                pagador: "0xabc".into(),
            }),
        }
    }

    #[test]
    fn a_torn_last_line_is_skipped_and_cut_off() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL_FILE);
        {
            let (journal, contents) = Journal::open(&path).unwrap();
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

        let (journal, contents) = Journal::open(&path).unwrap();
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
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), record);
    }

    #[test]
    fn folding_joins_steps_and_leaves_unresolved_purchases_pending() {
        let records = vec![
            accepted("a", 10),
            settled("a", 11),
            Record {
                fecha: String::new(),
                unix: 12,
                compra: "a".into(),
                event: Event::Entregado(Handed { transaccion: "0xtxa".into(), bytes: 9 }),
            },
            accepted("b", 20),
            Record {
                fecha: String::new(),
                unix: 21,
                compra: "b".into(),
                event: Event::Fallido(Failed {
                    motivo: "insufficient_funds".into(),
                    mensaje: String::new(),
                    incierto: false,
                }),
            },
            accepted("c", 30),
        ];
        let ledger = fold(&records);
        assert_eq!(ledger.sales.len(), 1);
        assert_eq!(ledger.sales[0].estudio, "banca-2026");
        assert_eq!(ledger.sales[0].transaccion, "0xtxa");
        assert!(ledger.sales[0].entregado);
        assert_eq!(ledger.failures.get("insufficient_funds"), Some(&1));
        assert_eq!(ledger.pending.len(), 1);
        assert_eq!(ledger.pending[0].compra, "c");
    }
}
