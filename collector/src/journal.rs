//! The study's files as the collector reads and writes them: the questions it asks, the answers
//! it appends to `respuestas.jsonl` (one `write` and one `fsync` per line, so a line is either
//! whole on disk or absent) and the non-answers it appends to `incidencias.jsonl`.
//!
//! A run that was killed leaves at most a torn last line (no newline at the end of the file);
//! [`Journal::open`] cuts it before appending, and [`done`] reads which (question, model,
//! repetition) triples already have their line, so a rerun asks only the rest.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

pub const QUESTIONS: &str = "preguntas.jsonl";
pub const ANSWERS: &str = "respuestas.jsonl";
pub const INCIDENTS: &str = "incidencias.jsonl";
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
}

/// One line of `respuestas.jsonl`: the content format (`content/README.md` §3.6) plus the
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

/// Where answers and incidents are appended, one durable line at a time.
#[derive(Debug)]
pub struct Journal {
    answers: Mutex<File>,
    incidents: Mutex<File>,
    pub answers_path: PathBuf,
}

impl Journal {
    /// Opens both files for appending, cutting a torn last line first.
    pub fn open(study: &Path) -> io::Result<Journal> {
        let answers_path = study.join(ANSWERS);
        let answers = open_append(&answers_path)?;
        let incidents = open_append(&study.join(INCIDENTS))?;
        Ok(Journal { answers: Mutex::new(answers), incidents: Mutex::new(incidents), answers_path })
    }

    pub fn answer(&self, line: &AnswerLine) -> io::Result<()> {
        append(&self.answers, line)
    }

    pub fn incident(&self, line: &IncidentLine) -> io::Result<()> {
        append(&self.incidents, line)
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
    let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
    // One write of the whole line (O_APPEND puts it at the end), then fsync: after a crash the
    // line is either all there or, at worst, a torn tail that the next open cuts.
    file.write_all(&bytes)?;
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
