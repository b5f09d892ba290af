//! The study's files as the collector reads and writes them: the questions it asks, the answers
//! it appends to `respuestas.jsonl` (one `write` and one `fsync` per line, so a line is either
//! whole on disk or absent), the non-answers it appends to `incidencias.jsonl`, and the requests
//! it sends, in `envios.jsonl`.
//!
//! A run that was killed leaves at most a torn last line (no newline at the end of the file);
//! [`Journal::open`] cuts it before appending, and [`done`] reads which (question, model,
//! repetition) triples already have their line, so a rerun asks only the rest.
//!
//! **What the study has spent** ([`spent`]) is read from the files, never from memory, so it holds
//! across runs and kills: the costs that `respuestas.jsonl` and `incidencias.jsonl` record, plus
//! every request of `envios.jsonl` that no record accounts for. Each request that may be billed
//! gets a `envio` line, written and fsync'd before the request leaves, with the cost reserved for
//! it. When its outcome is known, a `cierre` line says what it cost and, when it led to a record,
//! that record's fingerprint; the `cierre` is durable before the record is written. So:
//!
//! - a request in flight at a `kill -9` has no `cierre`: it counts at its reserved cost, forever
//!   (its answer was lost with the process; the provider may have billed it), and its triple is
//!   asked again by the next run, which sends and counts a new request;
//! - a `cierre` whose record is missing (killed between the two lines) counts its own cost;
//! - a `cierre` whose record is there counts nothing more: the record's cost covers it, so an
//!   answer is never counted twice.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

pub const QUESTIONS: &str = "preguntas.jsonl";
pub const ANSWERS: &str = "respuestas.jsonl";
pub const INCIDENTS: &str = "incidencias.jsonl";
pub const SENT: &str = "envios.jsonl";
pub const COLLECTION: &str = "recoleccion.toml";

/// What the collector reads of a question (dimensions are the generator's business).
#[derive(Debug, Clone, Deserialize)]
pub struct Question {
    pub id: String,
    #[serde(rename = "texto")]
    pub text: String,
    /// The tier of the models that answer it.
    #[serde(rename = "modelo")]
    pub model: String,
    /// Its language (a SERP API searches in it).
    #[serde(default, rename = "idioma")]
    pub language: String,
}

/// One line of `respuestas.jsonl`: the content format (`docs/src/publicar/preguntas-y-respuestas.md`) plus the
/// repetition and what the collection recorded.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AnswerLine {
    pub id: String,
    #[serde(rename = "pregunta")]
    pub question: String,
    #[serde(rename = "modelo")]
    pub model: String,
    pub version: String,
    #[serde(rename = "fecha")]
    pub date: String,
    #[serde(rename = "respuesta")]
    pub answer: String,
    #[serde(default)]
    #[serde(rename = "fuentes")]
    pub sources: Vec<SourceLine>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[serde(rename = "tono")]
    pub tone: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "repeticion")]
    pub repetition: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "recoleccion")]
    pub collection: Option<Collected>,
    /// Where the answer was seen (`collector::surface`); absent on old lines, which mean `api`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "superficie")]
    pub surface: Option<String>,
    /// Every source the provider says it consulted, cited or not (`fuentes` holds the cited
    /// ones); absent on lines collected before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "fuentes_consultadas")]
    pub consulted: Option<Vec<SourceLine>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SourceLine {
    pub url: String,
    #[serde(rename = "titulo")]
    pub title: String,
}

/// What the collection recorded about one answer.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Collected {
    /// When the answer arrived, UTC, RFC 3339 to the second.
    #[serde(rename = "hora")]
    pub time: String,
    /// The provider's model id that was asked.
    #[serde(rename = "modelo_proveedor")]
    pub provider_model: String,
    #[serde(rename = "tokens_entrada")]
    pub input_tokens: u64,
    #[serde(rename = "tokens_salida")]
    pub output_tokens: u64,
    #[serde(rename = "busquedas")]
    pub searches: u64,
    /// At the prices of `recoleccion.toml` at the time.
    #[serde(rename = "costo_usd")]
    pub cost_usd: f64,
    /// The provider flagged the answer as a refusal.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[serde(rename = "rechazo")]
    pub refusal: bool,
    /// Who labelled the tone, when someone did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "tono")]
    pub tone: Option<ToneOrigin>,
}

/// Who labelled the tone of an answer.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ToneOrigin {
    /// `juez` (a model) or `humano` (imported).
    #[serde(rename = "origen")]
    pub origin: String,
    /// The judge's model id and the version it reported; the import file for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "modelo")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "archivo")]
    pub file: Option<String>,
    #[serde(rename = "hora")]
    pub time: String,
}

/// One line of `incidencias.jsonl`: a call that gave no answer to write.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct IncidentLine {
    #[serde(rename = "pregunta")]
    pub question: String,
    #[serde(rename = "modelo")]
    pub model: String,
    #[serde(rename = "repeticion")]
    pub repetition: u32,
    #[serde(rename = "hora")]
    pub time: String,
    /// `vacia`, `rechazo`, `http_400`, `http_429`, `tiempo_agotado`, `cuerpo_ilegible`, `red`...
    #[serde(rename = "causa")]
    pub cause: String,
    #[serde(rename = "detalle")]
    pub detail: String,
    /// `true`: the provider answered (empty, or refused without text) and was paid; a rerun does
    /// not ask again. `false`: a rerun asks again.
    #[serde(rename = "definitiva")]
    pub final_refusal: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default)]
    #[serde(rename = "tokens_entrada")]
    pub input_tokens: u64,
    #[serde(default)]
    #[serde(rename = "tokens_salida")]
    pub output_tokens: u64,
    #[serde(default)]
    #[serde(rename = "costo_usd")]
    pub cost_usd: f64,
}

/// The key of one call.
pub type Triple = (String, String, u32);

/// One line of `envios.jsonl`: a request about to leave, or what became of it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "evento")]
pub enum SentEvent {
    #[serde(rename = "envio")]
    Sent(SentLine),
    #[serde(rename = "cierre")]
    Closed(CloseLine),
}

/// A request that may be billed, written before it leaves.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SentLine {
    /// Unique in the study: the run's id and a sequence number.
    #[serde(rename = "envio")]
    pub id: String,
    #[serde(rename = "pregunta")]
    pub question: String,
    #[serde(rename = "modelo")]
    pub model: String,
    #[serde(rename = "repeticion")]
    pub repetition: u32,
    /// Which request of the call this is (retries and follow-up requests count up).
    #[serde(rename = "intento")]
    pub attempt: u32,
    #[serde(rename = "hora")]
    pub time: String,
    /// What the budget reserved for it: what it counts while nothing closes it.
    #[serde(rename = "reserva_usd")]
    pub reserved_usd: f64,
    /// The batch it went in, for `recolectar --lote`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "lote")]
    pub batch: Option<String>,
}

/// What a request cost, and the record it led to, if any.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CloseLine {
    #[serde(rename = "envio")]
    pub id: String,
    /// This request's own cost: 0 when it was not billed (429, 5xx), the reserved cost when it may
    /// have been (a timeout, a connection cut mid-answer).
    #[serde(rename = "costo_usd")]
    pub cost_usd: f64,
    /// The fingerprint ([`answer_fingerprint`], [`incident_fingerprint`]) of the line of
    /// `respuestas.jsonl` or `incidencias.jsonl` whose cost includes this request's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "registro")]
    pub record: Option<String>,
    /// The call it belongs to (the id of the call's first request), when it names a record: a
    /// record covers the requests of one call. A call whose record never got written and the
    /// call that asked the same question again can name the same fingerprint (same answer id,
    /// text, cost and second); the record then belongs to the later call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "llamada")]
    pub call: Option<String>,
}

/// What the study has spent, read from its files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spent {
    /// The costs `respuestas.jsonl` and `incidencias.jsonl` record.
    pub recorded: f64,
    /// Requests no record accounts for: in flight at a kill (their reservation), possibly billed
    /// without an answer (a timeout), or closed for a record that never got written.
    pub unrecorded: f64,
    /// Requests without a `cierre` (in flight when a run was killed, or in a batch not yet read).
    pub open: u64,
    /// The most expensive answer of each model so far (for the budget's reservations).
    pub most_per_model: BTreeMap<String, f64>,
}

impl Spent {
    pub fn total(&self) -> f64 {
        self.recorded + self.unrecorded
    }
}

#[derive(Deserialize)]
struct KeyOfLine {
    #[serde(rename = "pregunta")]
    question: String,
    #[serde(rename = "modelo")]
    model: String,
    #[serde(rename = "repeticion")]
    repetition: Option<u32>,
}

#[derive(Deserialize)]
struct KeyOfIncident {
    #[serde(rename = "pregunta")]
    question: String,
    #[serde(rename = "modelo")]
    model: String,
    #[serde(rename = "repeticion")]
    repetition: u32,
    #[serde(rename = "definitiva")]
    final_refusal: bool,
}

/// Reads `preguntas.jsonl`.
pub fn questions(study: &Path) -> Result<Vec<Question>, String> {
    let path = study.join(QUESTIONS);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: no se pudo leer: {e}", path.display()))?;
    let mut questions = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Question>(line) {
            Ok(q) => questions.push(q),
            Err(e) => problems.push(format!("{}: línea {}: {e}", path.display(), i + 1)),
        }
    }
    if problems.is_empty() { Ok(questions) } else { Err(problems.join("\n")) }
}

/// The triples that already have their line: every answer, and every definitive incident.
/// An answer without `repeticion` (written by hand) counts as repetition 1.
pub fn done(study: &Path) -> io::Result<BTreeSet<Triple>> {
    let mut done = BTreeSet::new();
    for line in whole_lines(&study.join(ANSWERS))? {
        if let Ok(key) = serde_json::from_str::<KeyOfLine>(&line) {
            done.insert((key.question, key.model, key.repetition.unwrap_or(1)));
        }
    }
    for line in whole_lines(&study.join(INCIDENTS))? {
        if let Ok(key) = serde_json::from_str::<KeyOfIncident>(&line)
            && key.final_refusal
        {
            done.insert((key.question, key.model, key.repetition));
        }
    }
    Ok(done)
}

/// What the study has spent so far: see the module's documentation.
pub fn spent(study: &Path) -> io::Result<Spent> {
    let mut spent = Spent::default();
    // How many lines carry each fingerprint.
    let mut records: BTreeMap<String, usize> = BTreeMap::new();
    for line in whole_lines(&study.join(ANSWERS))? {
        if let Ok(answer) = serde_json::from_str::<AnswerLine>(&line)
            && let Some(collected) = &answer.collection
        {
            spent.recorded += collected.cost_usd;
            let most = spent.most_per_model.entry(answer.model.clone()).or_default();
            *most = most.max(collected.cost_usd);
            *records.entry(answer_fingerprint(&answer)).or_default() += 1;
        }
    }
    for line in whole_lines(&study.join(INCIDENTS))? {
        if let Ok(incident) = serde_json::from_str::<IncidentLine>(&line) {
            spent.recorded += incident.cost_usd;
            *records.entry(incident_fingerprint(&incident)).or_default() += 1;
        }
    }
    let mut open: BTreeMap<String, f64> = BTreeMap::new();
    // Per fingerprint named by `cierre` lines: the calls naming it, in the file's order, each
    // with what its requests cost.
    let mut naming: BTreeMap<String, Vec<(String, f64)>> = BTreeMap::new();
    for line in whole_lines(&study.join(SENT))? {
        match serde_json::from_str::<SentEvent>(&line) {
            Ok(SentEvent::Sent(sent)) => {
                open.insert(sent.id, sent.reserved_usd);
            }
            Ok(SentEvent::Closed(close)) => {
                if open.remove(&close.id).is_none() {
                    continue;
                }
                match close.record {
                    None => spent.unrecorded += close.cost_usd,
                    Some(record) => {
                        let call = close.call.unwrap_or(close.id);
                        let calls = naming.entry(record).or_default();
                        match calls.iter_mut().find(|(c, _)| *c == call) {
                            Some((_, cost)) => *cost += close.cost_usd,
                            None => calls.push((call, close.cost_usd)),
                        }
                    }
                }
            }
            Err(_) => {}
        }
    }
    // A record covers one call: the last calls naming its fingerprint, one per line that carries
    // it; the earlier ones never got their record written and count their own cost.
    for (record, calls) in naming {
        let covered = records.get(&record).copied().unwrap_or(0).min(calls.len());
        spent.unrecorded += calls[..calls.len() - covered].iter().map(|(_, cost)| cost).sum::<f64>();
    }
    spent.open = open.len() as u64;
    spent.unrecorded += open.values().sum::<f64>();
    Ok(spent)
}

/// Every request of `envios.jsonl` by id, and the ids that have a `cierre`.
pub fn sends(study: &Path) -> io::Result<(BTreeMap<String, SentLine>, BTreeSet<String>)> {
    let mut sent = BTreeMap::new();
    let mut closed = BTreeSet::new();
    for line in whole_lines(&study.join(SENT))? {
        match serde_json::from_str::<SentEvent>(&line) {
            Ok(SentEvent::Sent(line)) => {
                sent.insert(line.id.clone(), line);
            }
            Ok(SentEvent::Closed(close)) => {
                closed.insert(close.id);
            }
            Err(_) => {}
        }
    }
    Ok((sent, closed))
}

/// Identifies an answer line by what no later rewrite changes (tone labels are added to answers
/// by rewriting the file): its id, when it arrived, its cost and its text.
pub fn answer_fingerprint(answer: &AnswerLine) -> String {
    let (time, cost) = answer.collection.as_ref().map_or((String::new(), 0.0), |c| (c.time.clone(), c.cost_usd));
    fingerprint(&[&answer.id, &time, &format!("{cost:.6}"), &answer.answer])
}

/// Identifies an incident line.
pub fn incident_fingerprint(incident: &IncidentLine) -> String {
    fingerprint(&[
        &incident.question,
        &incident.model,
        &incident.repetition.to_string(),
        &incident.time,
        &incident.cause,
        &format!("{:.6}", incident.cost_usd),
    ])
}

fn fingerprint(parts: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hasher.finalize().iter().take(12).map(|b| format!("{b:02x}")).collect()
}

/// The complete lines of a file (a torn last line is not one); none if the file is missing.
pub fn whole_lines(path: &Path) -> io::Result<Vec<String>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let complete = match text.rfind('\n') {
        Some(end) => &text[..end],
        None => "",
    };
    Ok(complete.lines().filter(|l| !l.trim().is_empty()).map(str::to_owned).collect())
}

/// Where answers, incidents and requests are appended, one durable line at a time.
#[derive(Debug)]
pub struct Journal {
    answers: Mutex<File>,
    incidents: Mutex<File>,
    sent: Mutex<File>,
    /// This run's id, the prefix of its requests' ids.
    run: String,
    /// Whether requests are journaled (always, but in `bench-recolector`'s reference run, which
    /// measures the collector as it was before `envios.jsonl`).
    requests_journaled: std::sync::atomic::AtomicBool,
    sequence: AtomicU64,
    pub answers_path: PathBuf,
}

impl Journal {
    /// Opens the three files for appending, cutting a torn last line first.
    pub fn open(study: &Path) -> io::Result<Journal> {
        let answers_path = study.join(ANSWERS);
        let answers = open_append(&answers_path)?;
        let incidents = open_append(&study.join(INCIDENTS))?;
        let sent = open_append(&study.join(SENT))?;
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let run = format!("{:x}{:04x}", nanos, std::process::id() & 0xffff);
        Ok(Journal {
            answers: Mutex::new(answers),
            incidents: Mutex::new(incidents),
            sent: Mutex::new(sent),
            run,
            requests_journaled: std::sync::atomic::AtomicBool::new(true),
            sequence: AtomicU64::new(0),
            answers_path,
        })
    }

    /// Stops writing `envios.jsonl`: only for `bench-recolector`'s reference run (the collector as
    /// it was before the study's budget), never for a collection.
    pub fn without_request_lines(&self) {
        self.requests_journaled.store(false, Ordering::Relaxed);
    }

    fn journals_requests(&self) -> bool {
        self.requests_journaled.load(Ordering::Relaxed)
    }

    pub fn answer(&self, line: &AnswerLine) -> io::Result<()> {
        append(&self.answers, line)
    }

    pub fn incident(&self, line: &IncidentLine) -> io::Result<()> {
        append(&self.incidents, line)
    }

    /// A new request id, unique in the study.
    pub fn next_id(&self) -> String {
        format!("{}-{}", self.run, self.sequence.fetch_add(1, Ordering::Relaxed) + 1)
    }

    /// Writes a request's line, durable before it returns (call it before the request leaves).
    pub fn sent(&self, line: SentLine) -> io::Result<()> {
        if !self.journals_requests() {
            return Ok(());
        }
        append(&self.sent, &SentEvent::Sent(line))
    }

    /// Writes the lines of several requests in one durable write (a batch's, before it leaves).
    pub fn sent_many(&self, lines: Vec<SentLine>) -> io::Result<()> {
        let mut bytes = Vec::new();
        for line in lines {
            serde_json::to_writer(&mut bytes, &SentEvent::Sent(line)).map_err(io::Error::other)?;
            bytes.push(b'\n');
        }
        append_bytes(&self.sent, &bytes)
    }

    /// Writes what requests cost, all in one durable write (before the record they name).
    pub fn close(&self, lines: Vec<CloseLine>) -> io::Result<()> {
        if lines.is_empty() || !self.journals_requests() {
            return Ok(());
        }
        let mut bytes = Vec::new();
        for line in lines {
            serde_json::to_writer(&mut bytes, &SentEvent::Closed(line)).map_err(io::Error::other)?;
            bytes.push(b'\n');
        }
        append_bytes(&self.sent, &bytes)
    }
}

fn open_append(path: &Path) -> io::Result<File> {
    let mut file = OpenOptions::new().create(true).read(true).append(true).open(path)?;
    let length = file.metadata()?.len();
    if length > 0 {
        let mut text = Vec::new();
        file.seek(SeekFrom::Start(0))?;
        file.read_to_end(&mut text)?;
        if text.last() != Some(&b'\n') {
            let keep = text.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
            file.set_len(keep as u64)?;
            file.sync_all()?;
        }
    }
    Ok(file)
}

fn append<T: Serialize>(file: &Mutex<File>, line: &T) -> io::Result<()> {
    let mut bytes = serde_json::to_vec(line).map_err(io::Error::other)?;
    bytes.push(b'\n');
    append_bytes(file, &bytes)
}

fn append_bytes(file: &Mutex<File>, bytes: &[u8]) -> io::Result<()> {
    let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
    // One write of the whole line (O_APPEND puts it at the end), then fsync: after a crash the
    // line is either all there or, at worst, a torn tail that the next open cuts.
    file.write_all(bytes)?;
    file.sync_data()
}

/// Rewrites `respuestas.jsonl` whole (tone labels): a temporary file, fsync, rename.
pub fn rewrite_answers(study: &Path, lines: &[AnswerLine]) -> io::Result<()> {
    let path = study.join(ANSWERS);
    let temporary = study.join(".respuestas.jsonl.tmp");
    let mut file = File::create(&temporary)?;
    for line in lines {
        let mut bytes = serde_json::to_vec(line).map_err(io::Error::other)?;
        bytes.push(b'\n');
        file.write_all(&bytes)?;
    }
    file.sync_all()?;
    std::fs::rename(&temporary, &path)?;
    if let Ok(dir) = File::open(study) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// The answer id of a triple: stable, so a rerun never mints two ids for one answer.
pub fn answer_id(question: &str, model: &str, repetition: u32) -> String {
    format!("{question}-{model}-r{repetition}")
}

/// Seconds since the epoch → (`AAAA-MM-DD`, `AAAA-MM-DDTHH:MM:SSZ`), UTC.
pub fn date_and_time(now: SystemTime) -> (String, String) {
    let seconds = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rest) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let date = format!("{year:04}-{month:02}-{day:02}");
    let time = format!("{date}T{:02}:{:02}:{:02}Z", rest / 3600, rest % 3600 / 60, rest % 60);
    (date, time)
}

/// Reads every line of `respuestas.jsonl` as the collector writes it.
pub fn answers(study: &Path) -> Result<Vec<AnswerLine>, String> {
    let path = study.join(ANSWERS);
    let mut lines = Vec::new();
    for (i, line) in whole_lines(&path).map_err(|e| format!("{}: {e}", path.display()))?.iter().enumerate() {
        lines.push(
            serde_json::from_str::<AnswerLine>(line)
                .map_err(|e| format!("{}: respuesta {}: {e}", path.display(), i + 1))?,
        );
    }
    Ok(lines)
}

/// What the collector reads of a tracked brand (`marcas.toml`).
#[derive(Debug, Clone, Deserialize)]
pub struct Brand {
    pub id: String,
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(default)]
    pub alias: Vec<String>,
    #[serde(default)]
    #[serde(rename = "excluir")]
    pub exclude: Vec<String>,
    #[serde(default)]
    #[serde(rename = "dominios")]
    pub domains: Vec<String>,
}

#[derive(Deserialize)]
struct BrandsFile {
    #[serde(rename = "marcas")]
    brands: Vec<Brand>,
}

/// Reads a study's `marcas.toml`.
pub fn brand_list(path: &Path) -> Result<Vec<Brand>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: no se pudo leer: {e}", path.display()))?;
    toml::from_str::<BrandsFile>(&text).map(|f| f.brands).map_err(|e| format!("{}: {}", path.display(), e.message()))
}

/// (name, domain) of each brand, for the simulator's answers.
pub fn brands(path: &Path) -> Result<Vec<(String, String)>, String> {
    Ok(brand_list(path)?
        .into_iter()
        .map(|b| {
            let domain = b.domains.first().cloned().unwrap_or_else(|| format!("{}.example.com", b.id));
            (b.name, domain)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_are_civil_utc() {
        let at = |s: u64| date_and_time(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), ("1970-01-01".into(), "1970-01-01T00:00:00Z".into()));
        assert_eq!(at(951_782_400), ("2000-02-29".into(), "2000-02-29T00:00:00Z".into()));
        assert_eq!(at(1_775_000_000).1, "2026-03-31T23:33:20Z");
    }

    fn answer(id: &str, cost: f64) -> AnswerLine {
        AnswerLine {
            id: id.to_owned(),
            question: "P1".into(),
            model: "m".into(),
            version: "v".into(),
            date: "2026-04-02".into(),
            answer: "texto".into(),
            sources: Vec::new(),
            tone: BTreeMap::new(),
            repetition: Some(1),
            collection: Some(Collected {
                time: "2026-04-02T10:00:00Z".into(),
                provider_model: "m".into(),
                input_tokens: 1,
                output_tokens: 1,
                searches: 1,
                cost_usd: cost,
                refusal: false,
                tone: None,
            }),
            surface: Some("api".into()),
            consulted: Some(Vec::new()),
        }
    }

    fn sent(journal: &Journal, reserved: f64) -> String {
        let id = journal.next_id();
        journal
            .sent(SentLine {
                id: id.clone(),
                question: "P1".into(),
                model: "m".into(),
                repetition: 1,
                attempt: 1,
                time: "2026-04-02T10:00:00Z".into(),
                reserved_usd: reserved,
                batch: None,
            })
            .unwrap();
        id
    }

    /// Closes a call of one request, naming the answer it led to.
    fn close(journal: &Journal, id: String, cost: f64, record: Option<&AnswerLine>) {
        let call = record.map(|_| id.clone());
        let record = record.map(answer_fingerprint);
        journal.close(vec![CloseLine { id, cost_usd: cost, record, call }]).unwrap();
    }

    #[test]
    fn a_record_that_never_got_written_is_not_covered_by_the_same_answer_asked_again() {
        // Killed between the `cierre` and the answer; the next run asks again within the same
        // second and gets the very same answer (same id, text, cost and second): one line, two
        // calls naming it. The line covers the later call; the first counts its own cost.
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open(dir.path()).unwrap();
        let line = answer("P1-m-r1", 0.015);
        let first = sent(&journal, 0.02);
        close(&journal, first, 0.015, Some(&line));
        let again = sent(&journal, 0.02);
        close(&journal, again, 0.015, Some(&line));
        journal.answer(&line).unwrap();
        let spent = spent(dir.path()).unwrap();
        assert!((spent.total() - 0.03).abs() < 1e-12, "both calls were billed: {spent:?}");
    }

    #[test]
    fn the_study_spends_what_its_records_say_plus_requests_no_record_accounts_for() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open(dir.path()).unwrap();
        // Answered and recorded: counted once, by the answer.
        let a = sent(&journal, 0.02);
        let recorded = answer("P1-m-r1", 0.015);
        close(&journal, a, 0.015, Some(&recorded));
        journal.answer(&recorded).unwrap();
        // In flight at a kill: no close; counted at its reservation.
        sent(&journal, 0.02);
        // Closed for an answer that was never written (killed between the lines): its own cost.
        let lost = sent(&journal, 0.02);
        let missing = answer("P2-m-r1", 0.011);
        close(&journal, lost, 0.011, Some(&missing));
        // A 429 (not billed) and a timeout (maybe billed, at its reservation).
        let refused = sent(&journal, 0.02);
        close(&journal, refused, 0.0, None);
        let timed_out = sent(&journal, 0.02);
        close(&journal, timed_out, 0.02, None);
        let spent = spent(dir.path()).unwrap();
        assert_eq!(spent.open, 1);
        assert!((spent.recorded - 0.015).abs() < 1e-12, "{spent:?}");
        assert!((spent.unrecorded - (0.02 + 0.011 + 0.02)).abs() < 1e-12, "{spent:?}");
        assert_eq!(spent.most_per_model.get("m"), Some(&0.015));

        // Tone labels rewrite the answers' file: the fingerprint still finds the answer.
        let mut labelled = recorded.clone();
        labelled.tone.insert("movistar".into(), "pos".into());
        rewrite_answers(dir.path(), &[labelled]).unwrap();
        assert_eq!(super::spent(dir.path()).unwrap(), spent);
    }

    #[test]
    fn a_torn_last_line_is_cut_and_not_counted() {
        let dir = tempfile::tempdir().unwrap();
        let whole = r#"{"pregunta":"P1","modelo":"m","repeticion":2}"#;
        std::fs::write(dir.path().join(ANSWERS), format!("{whole}\n{{\"pregunta\":\"P2\",\"mod")).unwrap();
        let done = done(dir.path()).unwrap();
        assert_eq!(done.into_iter().collect::<Vec<_>>(), vec![("P1".into(), "m".into(), 2)]);
        let journal = Journal::open(dir.path()).unwrap();
        drop(journal);
        assert_eq!(std::fs::read_to_string(dir.path().join(ANSWERS)).unwrap(), format!("{whole}\n"));
    }
}
