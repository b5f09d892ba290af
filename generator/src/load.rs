//! Stage 1, load: read `content/` into the model.
//!
//! Every file is parsed even when another one failed, so one run reports every syntax and
//! type problem. Errors carry the field path (serde_path_to_error) and, for TOML, the line;
//! JSON Lines errors name the line. Cross-file rules live in `validate`.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::model::{
    Answer, BrandsFile, Content, FindingsFile, MetricsFile, Question, ServiceSettings, Study, StudyFile,
};
use crate::problems::Problems;

/// File names inside the content folder.
pub const SERVICE_FILE: &str = "servicio.toml";
pub const METRICS_FILE: &str = "metricas.toml";
pub const STUDIES_DIR: &str = "estudios";
pub const STUDY_FILE: &str = "estudio.toml";
pub const BRANDS_FILE: &str = "marcas.toml";
pub const QUESTIONS_FILE: &str = "preguntas.jsonl";
pub const ANSWERS_FILE: &str = "respuestas.jsonl";
pub const FINDINGS_FILE: &str = "hallazgos.toml";
pub const REPORTS_DIR: &str = "informes";
/// The previous run's questions and answers (`[corrida_anterior]` in `estudio.toml`).
pub const PREVIOUS_DIR: &str = "anterior";

/// What could be loaded, and every problem met on the way. A study whose files do not
/// parse is left out of `studies` (its problems say why), so the others can still be
/// validated in the same run.
pub struct Loaded {
    pub service: Option<ServiceSettings>,
    pub metrics: Option<Vec<crate::model::MetricDefinition>>,
    pub change_method: Option<crate::model::ChangeDefinition>,
    pub studies: Vec<Study>,
    pub problems: Problems,
}

impl Loaded {
    /// The whole content, when every file parsed and `problems` (this load's and any found
    /// since) is empty.
    pub fn into_content_with(self, problems: Problems) -> Result<Content, Problems> {
        match (self.service, self.metrics) {
            (Some(service), Some(metrics)) if problems.is_empty() => {
                Ok(Content { service, metrics, change_method: self.change_method, studies: self.studies })
            }
            _ => Err(problems),
        }
    }
}

/// Reads every file under `root`.
pub fn load(root: &Path) -> Loaded {
    let mut problems = Problems::default();
    let service = read_toml::<ServiceSettings>(&root.join(SERVICE_FILE), &mut problems);
    let (metrics, change_method) = match read_toml::<MetricsFile>(&root.join(METRICS_FILE), &mut problems) {
        Some(m) => (Some(m.metrics), m.change),
        None => (None, None),
    };
    let studies = load_studies(&root.join(STUDIES_DIR), &mut problems);
    Loaded { service, metrics, change_method, studies, problems }
}

/// The study folders, sorted by name.
pub fn study_dirs(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut dirs = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if entry.file_type()?.is_dir() && !name.to_string_lossy().starts_with('.') {
            dirs.push(entry.path());
        }
    }
    dirs.sort();
    Ok(dirs)
}

fn load_studies(dir: &Path, problems: &mut Problems) -> Vec<Study> {
    let dirs = match study_dirs(dir) {
        Ok(dirs) => dirs,
        Err(e) => {
            problems.push(dir, "", format!("no se pudo leer la carpeta de estudios: {e}"));
            return Vec::new();
        }
    };
    if dirs.is_empty() {
        problems.push(dir, "", "no hay ningún estudio (se esperaba una carpeta por estudio)");
    }
    // Studies load in parallel, the largest answer files first; their problems are merged in
    // folder order, as a serial load would list them.
    let sizes: Vec<u64> = dirs.iter().map(|d| std::fs::metadata(d.join(ANSWERS_FILE)).map_or(0, |m| m.len())).collect();
    let loaded: Vec<(Option<Study>, Problems)> = crate::parallel::largest_first(&sizes, |i| {
        let mut found = Problems::default();
        (load_study(&dirs[i], &mut found), found)
    });
    let mut studies = Vec::with_capacity(loaded.len());
    for (study, found) in loaded {
        problems.extend(found);
        studies.extend(study);
    }
    studies
}

/// Loads one study folder; `None` when a file could not be parsed (problems say why).
pub fn load_study(dir: &Path, problems: &mut Problems) -> Option<Study> {
    let slug = dir.file_name()?.to_string_lossy().into_owned();
    let before = problems.len();
    let design = read_toml::<StudyFile>(&dir.join(STUDY_FILE), problems);
    let brands = read_toml::<BrandsFile>(&dir.join(BRANDS_FILE), problems);
    let questions = read_jsonl::<Question>(&dir.join(QUESTIONS_FILE), problems);
    let answers = read_jsonl::<Answer>(&dir.join(ANSWERS_FILE), problems);
    let findings = read_toml::<FindingsFile>(&dir.join(FINDINGS_FILE), problems);
    let reports = read_reports(&dir.join(REPORTS_DIR), problems);
    let previous_dir = dir.join(PREVIOUS_DIR);
    let previous = match design.as_ref().map(|d| d.previous_run.is_some()) {
        Some(true) => Some((
            read_jsonl::<Question>(&previous_dir.join(QUESTIONS_FILE), problems),
            read_jsonl::<Answer>(&previous_dir.join(ANSWERS_FILE), problems),
        )),
        Some(false) if previous_dir.is_dir() => {
            problems.push(
                &previous_dir,
                "",
                "hay una carpeta anterior/ pero estudio.toml no declara [corrida_anterior]",
            );
            None
        }
        _ => None,
    };
    if problems.len() > before {
        return None;
    }
    let (questions, question_lines) = questions?;
    let (answers, answer_lines) = answers?;
    let mut study = Study {
        slug,
        design: design?,
        brands: brands?.brands,
        questions,
        answers,
        findings: findings?.findings,
        reports,
        question_lines,
        answer_lines,
        previous: None,
    };
    if let Some((questions, answers)) = previous {
        let ((questions, question_lines), (answers, answer_lines)) = (questions?, answers?);
        study.previous = previous_run(&study, questions, answers, question_lines, answer_lines).map(Box::new);
    }
    Some(study)
}

/// The previous run as a study of its own: the same slug and brands, the models of
/// `[corrida_anterior]`, its questions and answers; no tables, findings or reports.
fn previous_run(
    study: &Study,
    questions: Vec<Question>,
    answers: Vec<Answer>,
    question_lines: Vec<usize>,
    answer_lines: Vec<usize>,
) -> Option<Study> {
    let spec = study.design.previous_run.as_ref()?;
    let mut design = study.design.clone();
    design.models = spec.models.clone();
    design.weighting = spec.weighting.clone();
    design.analyses = Vec::new();
    design.previous_run = None;
    Some(Study {
        slug: study.slug.clone(),
        design,
        brands: study.brands.clone(),
        questions,
        answers,
        findings: Vec::new(),
        reports: Vec::new(),
        question_lines,
        answer_lines,
        previous: None,
    })
}

fn read_text(path: &Path, problems: &mut Problems) -> Option<String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            problems.push(path, "", "falta el archivo");
            None
        }
        Err(e) => {
            problems.push(path, "", format!("no se pudo leer: {e}"));
            None
        }
    }
}

/// Parses a TOML file; on error records the line and the field path.
pub fn read_toml<T: DeserializeOwned>(path: &Path, problems: &mut Problems) -> Option<T> {
    let text = read_text(path, problems)?;
    parse_toml(&text).map_err(|(location, message)| problems.push(path, location, message)).ok()
}

/// Parses TOML text; the error is (location, message).
pub fn parse_toml<T: DeserializeOwned>(text: &str) -> Result<T, (String, String)> {
    let deserializer = toml::de::Deserializer::parse(text).map_err(|e| toml_error(text, &e, ""))?;
    serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let path = e.path().to_string();
        toml_error(text, e.inner(), if path == "." { "" } else { &path })
    })
}

fn toml_error(text: &str, error: &toml::de::Error, path: &str) -> (String, String) {
    let line = error.span().map(|span| line_of(text, span.start));
    let location = match (line, path.is_empty()) {
        (Some(line), true) => format!("línea {line}"),
        (Some(line), false) => format!("línea {line}, campo `{path}`"),
        (None, false) => format!("campo `{path}`"),
        (None, true) => String::new(),
    };
    (location, error.message().trim().to_owned())
}

fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes().iter().take(offset).filter(|&&b| b == b'\n').count() + 1
}

/// Parses a JSON Lines file, one value a line (blank lines allowed); every bad line is
/// reported. Returns the values and the file line (1-based) of each.
pub fn read_jsonl<T: DeserializeOwned>(path: &Path, problems: &mut Problems) -> Option<(Vec<T>, Vec<usize>)> {
    let text = read_text(path, problems)?;
    let mut items = Vec::new();
    let mut lines = Vec::new();
    let mut ok = true;
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_json_line(line) {
            Ok(item) => {
                items.push(item);
                lines.push(index + 1);
            }
            Err(message) => {
                ok = false;
                problems.push(path, format!("línea {}", index + 1), message);
            }
        }
    }
    ok.then_some((items, lines))
}

fn parse_json_line<T: DeserializeOwned>(line: &str) -> Result<T, String> {
    // The plain parser is much faster; a line it refuses is parsed again to locate the field.
    if let Ok(value) = serde_json::from_str(line) {
        return Ok(value);
    }
    let mut deserializer = serde_json::Deserializer::from_str(line);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." || inner.is_syntax() || inner.is_eof() {
            format!("JSON inválido: {inner}")
        } else {
            format!("campo `{path}`: {inner}")
        }
    })?;
    deserializer.end().map_err(|e| format!("JSON inválido: {e}"))?;
    Ok(value)
}

/// PDF reports in `informes/` (optional folder), sorted by name.
fn read_reports(dir: &Path, problems: &mut Problems) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut reports = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !path.is_file() {
            continue;
        }
        if !name.ends_with(".pdf") || !name.is_ascii() {
            problems.push(&path, "", "en informes/ solo van PDF con nombre ASCII terminado en .pdf");
            continue;
        }
        match std::fs::read(&path) {
            Ok(bytes) if bytes.starts_with(b"%PDF-") => reports.push((name, bytes)),
            Ok(_) => problems.push(&path, "", "no es un PDF (no empieza con %PDF-)"),
            Err(e) => problems.push(&path, "", format!("no se pudo leer: {e}")),
        }
    }
    reports.sort();
    reports
}
