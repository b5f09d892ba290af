//! Tone labels: for every answer and every tracked brand it names, `pos`, `neu` or `neg`, from a
//! judge model named in the collection file (recorded with the judge's model id and the version it
//! reported), or imported from people's labels.
//!
//! Labels arrive one durable line at a time in `tono.jsonl` (so a stopped run keeps what it paid
//! for) and are then merged into `respuestas.jsonl` in one atomic rewrite. Brands are found with
//! the rules of the book's `marcas.toml` page (`docs/src/publicar/marcas.md`: folded, whole words, exclusions, longest alias first),
//! so a label never lands on a brand the generator does not see named.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

use crate::client::{self, Endpoint, Pacer, Stop};
use crate::config::{self, CollectionFile};
use crate::journal::{self, AnswerLine, Brand, ToneOrigin};
use crate::providers::{self, Call};

pub const TONE_JOURNAL: &str = "tono.jsonl";

/// The judge's instructions. The answer and the brands go in the user message.
pub const JUDGE_INSTRUCTIONS: &str = "Sos un anotador de tono. Para cada marca de la lista, decidí cómo la presenta la respuesta: \"pos\" (la recomienda o la elogia), \"neu\" (la nombra sin valorarla) o \"neg\" (la desaconseja o la critica). Respondé solo con un objeto JSON cuyas claves son los id de la lista y cuyos valores son \"pos\", \"neu\" o \"neg\".";

/// Folds as the generator does: NFD, marks removed, lowercase.
pub fn fold(text: &str) -> String {
    text.nfd().filter(|c| !is_combining_mark(*c)).flat_map(char::to_lowercase).collect()
}

fn word_char(c: Option<char>) -> bool {
    c.is_some_and(char::is_alphanumeric)
}

/// Byte ranges of whole-word occurrences of `needle` in `haystack` (both folded), overlapping
/// ones included.
fn occurrences(haystack: &str, needle: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    if needle.is_empty() {
        return found;
    }
    let mut start = 0;
    while let Some(at) = haystack[start..].find(needle) {
        let begin = start + at;
        let end = begin + needle.len();
        if !word_char(haystack[..begin].chars().next_back()) && !word_char(haystack[end..].chars().next()) {
            found.push((begin, end));
        }
        start = begin + haystack[begin..].chars().next().map_or(1, char::len_utf8);
    }
    found
}

/// The brands (indexes into `brands`) an answer names, in order of first mention.
pub fn brands_named(brands: &[Brand], text: &str) -> Vec<usize> {
    let folded = fold(text);
    let mut aliases: Vec<(String, usize)> = Vec::new();
    for (i, brand) in brands.iter().enumerate() {
        for alias in std::iter::once(&brand.name).chain(&brand.alias) {
            let alias = fold(alias.trim());
            if !alias.is_empty() && !aliases.iter().any(|(a, b)| *a == alias && *b == i) {
                aliases.push((alias, i));
            }
        }
    }
    // Longest alias first; at equal length, by folded text.
    aliases.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    let exclusions: Vec<Vec<(usize, usize)>> =
        brands.iter().map(|b| b.exclude.iter().flat_map(|e| occurrences(&folded, &fold(e.trim()))).collect()).collect();
    let mut taken: Vec<(usize, usize, usize)> = Vec::new();
    for (alias, brand) in &aliases {
        for (begin, end) in occurrences(&folded, alias) {
            if exclusions[*brand].iter().any(|(b, e)| *b <= begin && end <= *e) {
                continue;
            }
            if taken.iter().any(|(b, e, _)| begin < *e && *b < end) {
                continue;
            }
            taken.push((begin, end, *brand));
        }
    }
    taken.sort();
    let mut order = Vec::new();
    for (_, _, brand) in taken {
        if !order.contains(&brand) {
            order.push(brand);
        }
    }
    order
}

/// One line of `tono.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ToneLine {
    pub id: String,
    #[serde(rename = "tono")]
    pub tone: BTreeMap<String, String>,
    #[serde(rename = "origen")]
    pub origin: ToneOrigin,
    #[serde(default)]
    #[serde(rename = "costo_usd")]
    pub cost_usd: f64,
}

/// The judge's user message for one answer.
pub fn judge_prompt(answer: &str, brands: &[&Brand]) -> String {
    let list = brands.iter().map(|b| format!("{}={}", b.id, b.name)).collect::<Vec<_>>().join("; ");
    format!("MARCAS: {list}\n\nRESPUESTA:\n{answer}")
}

/// Reads the judge's reply: the first JSON object in the text; only the listed ids, only valid
/// labels.
pub fn read_labels(reply: &str, ids: &BTreeSet<&str>) -> BTreeMap<String, String> {
    let (Some(start), Some(end)) = (reply.find('{'), reply.rfind('}')) else { return BTreeMap::new() };
    let Ok(map) = serde_json::from_str::<BTreeMap<String, serde_json::Value>>(&reply[start..=end]) else {
        return BTreeMap::new();
    };
    map.into_iter()
        .filter(|(id, _)| ids.contains(id.as_str()))
        .filter_map(|(id, v)| {
            let label = v.as_str()?.trim().to_ascii_lowercase();
            ["pos", "neu", "neg"].contains(&label.as_str()).then_some((id, label))
        })
        .collect()
}

/// What a tone run did.
#[derive(Debug, Clone, Default)]
pub struct ToneSummary {
    pub answers: usize,
    pub to_label: usize,
    pub labelled: usize,
    pub failed: usize,
    pub cost: f64,
    /// The versions the judge reported.
    pub versions: BTreeSet<String>,
}

/// The answers that name a tracked brand and have no labels yet (from the file or the journal).
/// The answers, and the index of each one to label with the brands it names.
type Pending = (Vec<AnswerLine>, Vec<(usize, Vec<usize>)>);

fn pending(study: &Path, brands: &[Brand]) -> Result<Pending, String> {
    let answers = journal::answers(study)?;
    let journaled: BTreeSet<String> = journal::whole_lines(&study.join(TONE_JOURNAL))
        .map_err(|e| e.to_string())?
        .iter()
        .filter_map(|l| serde_json::from_str::<ToneLine>(l).ok())
        .map(|l| l.id)
        .collect();
    let mut work = Vec::new();
    for (i, answer) in answers.iter().enumerate() {
        if !answer.tone.is_empty() || journaled.contains(&answer.id) {
            continue;
        }
        let named = brands_named(brands, &answer.answer);
        if !named.is_empty() {
            work.push((i, named));
        }
    }
    Ok((answers, work))
}

/// `recolector tono --plan`: how many judge calls, and their expected cost.
pub fn plan(study: &Path, file: &CollectionFile) -> Result<String, String> {
    let judge = file.judge.as_ref().ok_or("recoleccion.toml no tiene [juez]")?;
    let brands = journal::brand_list(&study.join("marcas.toml"))?;
    let (answers, work) = pending(study, &brands)?;
    let e = file.estimate;
    let cost = work.len() as f64 * judge.price.cost(e.output_tokens + 300, 40, 0.0);
    Ok(format!(
        "Tono: {} respuestas, {} por etiquetar (nombran alguna marca y no tienen etiquetas); juez {} ({}); costo esperado {:.4} USD.\n",
        answers.len(),
        work.len(),
        judge.model,
        judge.provider,
        cost
    ))
}

/// Labels every pending answer with the judge, then merges all labels into `respuestas.jsonl`.
pub async fn label(
    study: &Path,
    file: &CollectionFile,
    key: Option<String>,
    stop: &Stop,
) -> Result<ToneSummary, String> {
    let judge = file.judge.as_ref().ok_or("recoleccion.toml no tiene [juez]")?;
    let provider = &file.providers[&judge.provider];
    let brands = journal::brand_list(&study.join("marcas.toml"))?;
    let (answers, work) = pending(study, &brands)?;
    let mut summary = ToneSummary { answers: answers.len(), to_label: work.len(), ..ToneSummary::default() };
    let (api, _) = crate::run::clients()?;
    let endpoint = Endpoint {
        name: judge.provider.clone(),
        kind: provider.kind,
        base_url: config::base_url(&judge.provider, provider).ok_or("falta url_base del juez")?,
        key,
        pacer: Pacer::per_minute(provider.requests_per_minute),
    };
    let journal_path = study.join(TONE_JOURNAL);
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&journal_path)
        .map_err(|e| format!("{}: {e}", journal_path.display()))?;
    for (index, named) in work {
        if stop.is_set() {
            break;
        }
        let answer = &answers[index];
        let listed: Vec<&Brand> = named.iter().map(|&b| &brands[b]).collect();
        let prompt = judge_prompt(&answer.answer, &listed);
        let call = Call {
            model: &judge.model,
            prompt: &prompt,
            instructions: Some(JUDGE_INSTRUCTIONS),
            temperature: None,
            max_output_tokens: judge.max_output_tokens.unwrap_or(1024),
            web_search: false,
            max_searches: None,
            effort: None,
            location: None,
            language: None,
            search_context: None,
            surface: crate::surface::API,
        };
        endpoint.pacer.slot().await;
        let request = providers::request(endpoint.kind, &call, endpoint.key.as_deref());
        match client::send(&api, &endpoint, &request, &file.retries, stop).await {
            Ok((reply, _)) => {
                let ids: BTreeSet<&str> = listed.iter().map(|b| b.id.as_str()).collect();
                let labels = read_labels(&reply.text, &ids);
                if let Some(version) = &reply.version {
                    summary.versions.insert(version.clone());
                }
                let cost = crate::run::round6(judge.price.cost(reply.input_tokens, reply.output_tokens, 0.0));
                summary.cost += cost;
                if labels.is_empty() {
                    summary.failed += 1;
                    continue;
                }
                let (_, time) = journal::date_and_time(SystemTime::now());
                let line = ToneLine {
                    id: answer.id.clone(),
                    tone: labels,
                    origin: ToneOrigin {
                        origin: "juez".into(),
                        model: Some(judge.model.clone()),
                        version: reply.version.clone(),
                        file: None,
                        time,
                    },
                    cost_usd: cost,
                };
                let mut bytes = serde_json::to_vec(&line).map_err(|e| e.to_string())?;
                bytes.push(b'\n');
                std::io::Write::write_all(&mut out, &bytes).map_err(|e| e.to_string())?;
                out.sync_data().map_err(|e| e.to_string())?;
                summary.labelled += 1;
            }
            Err(client::Failure::Auth { status }) => {
                return Err(format!("el juez respondió HTTP {status}: revise la clave"));
            }
            Err(_) => summary.failed += 1,
        }
        tokio::time::sleep(Duration::ZERO).await;
    }
    merge(study)?;
    Ok(summary)
}

/// Writes the labels of `tono.jsonl` into `respuestas.jsonl` (labels already in an answer win).
pub fn merge(study: &Path) -> Result<usize, String> {
    let journal_lines = journal::whole_lines(&study.join(TONE_JOURNAL)).map_err(|e| e.to_string())?;
    let labels: BTreeMap<String, ToneLine> = journal_lines
        .iter()
        .filter_map(|l| serde_json::from_str::<ToneLine>(l).ok())
        .map(|l| (l.id.clone(), l))
        .collect();
    let mut answers = journal::answers(study)?;
    let mut merged = 0;
    for answer in &mut answers {
        if !answer.tone.is_empty() {
            continue;
        }
        if let Some(line) = labels.get(&answer.id) {
            answer.tone.clone_from(&line.tone);
            if let Some(collected) = answer.collection.as_mut() {
                collected.tone = Some(line.origin.clone());
            }
            merged += 1;
        }
    }
    if merged > 0 {
        journal::rewrite_answers(study, &answers).map_err(|e| e.to_string())?;
    }
    Ok(merged)
}

/// One line of a human labels file: `{"id": "R0001", "tono": {"claro": "pos"}}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HumanLine {
    id: String,
    #[serde(rename = "tono")]
    tone: BTreeMap<String, String>,
}

/// Imports people's labels (JSON Lines). They replace a judge's labels of the same answer; a
/// label for a brand the answer does not name, an unknown answer id or a label other than
/// pos/neu/neg is an error, and nothing is written unless every line is right.
pub fn import(study: &Path, labels_file: &Path) -> Result<usize, Vec<String>> {
    let shown = labels_file.display().to_string();
    let text = std::fs::read_to_string(labels_file).map_err(|e| vec![format!("{shown}: {e}")])?;
    let brands = journal::brand_list(&study.join("marcas.toml")).map_err(|e| vec![e])?;
    let mut answers = journal::answers(study).map_err(|e| vec![e])?;
    let by_id: BTreeMap<String, usize> = answers.iter().enumerate().map(|(i, a)| (a.id.clone(), i)).collect();
    let mut problems = Vec::new();
    let mut updates = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let place = format!("{shown}: línea {}", n + 1);
        let parsed: HumanLine = match serde_json::from_str(line) {
            Ok(parsed) => parsed,
            Err(e) => {
                problems.push(format!("{place}: {e}"));
                continue;
            }
        };
        let Some(&index) = by_id.get(&parsed.id) else {
            problems.push(format!("{place}: `{}` no está en respuestas.jsonl", parsed.id));
            continue;
        };
        let named: BTreeSet<&str> =
            brands_named(&brands, &answers[index].answer).into_iter().map(|b| brands[b].id.as_str()).collect();
        for (brand, label) in &parsed.tone {
            if !["pos", "neu", "neg"].contains(&label.as_str()) {
                problems.push(format!("{place}: tono.{brand}: `{label}`: se esperaba pos, neu o neg"));
            } else if !named.contains(brand.as_str()) {
                problems.push(format!("{place}: tono.{brand}: la respuesta `{}` no nombra esa marca", parsed.id));
            }
        }
        updates.push((index, parsed.tone));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let (_, time) = journal::date_and_time(SystemTime::now());
    let file_name = labels_file.file_name().map(|n| n.to_string_lossy().into_owned());
    for (index, tone) in &updates {
        let answer = &mut answers[*index];
        answer.tone.clone_from(tone);
        if let Some(collected) = answer.collection.as_mut() {
            collected.tone = Some(ToneOrigin {
                origin: "humano".into(),
                model: None,
                version: None,
                file: file_name.clone(),
                time: time.clone(),
            });
        }
    }
    journal::rewrite_answers(study, &answers).map_err(|e| vec![e.to_string()])?;
    Ok(updates.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brand(id: &str, name: &str, alias: &[&str], exclude: &[&str]) -> Brand {
        Brand {
            id: id.into(),
            name: name.into(),
            alias: alias.iter().map(|s| (*s).to_owned()).collect(),
            exclude: exclude.iter().map(|s| (*s).to_owned()).collect(),
            domains: Vec::new(),
        }
    }

    #[test]
    fn brands_are_found_as_content_readme_shows() {
        let brands = vec![
            brand("personal", "Personal", &["Personal Argentina"], &["uso personal", "préstamo personal"]),
            brand("claro", "Claro", &["Claro Argentina"], &["claro que", "más claro"]),
            brand("movistar", "Movistar", &[], &[]),
        ];
        let names =
            |text: &str| brands_named(&brands, text).into_iter().map(|b| brands[b].name.clone()).collect::<Vec<_>>();
        // The table of docs/src/publicar/marcas.md («Cómo se detectan las menciones»).
        assert_eq!(names("Claro que sí: Claro y Movistar."), ["Claro", "Movistar"]);
        assert_eq!(names("CLARO, que es la más grande"), ["Claro"]);
        assert_eq!(names("Claro que Movistar conviene"), ["Movistar"]);
        assert_eq!(names("Para uso personal, Personal."), ["Personal"]);
        assert_eq!(names("Personal Argentina y datos personales"), ["Personal"]);
        assert_eq!(names("préstamo personal en Claro"), ["Claro"]);
        assert_eq!(names("préstamo Personal Argentina"), ["Personal"]);
        assert_eq!(names("De los demás Claro es el más barato"), ["Claro"]);
        assert_eq!(names("abuso personal"), ["Personal"]);
    }

    #[test]
    fn the_judges_reply_is_read_strictly() {
        let ids: BTreeSet<&str> = ["claro", "movistar"].into_iter().collect();
        let labels =
            read_labels("Claro:\n```json\n{\"claro\": \"POS\", \"movistar\": \"malo\", \"otra\": \"neg\"}\n```", &ids);
        assert_eq!(labels, BTreeMap::from([("claro".to_owned(), "pos".to_owned())]));
        assert!(read_labels("no sé", &ids).is_empty());
    }
}
