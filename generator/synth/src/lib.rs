//! `synth`: the seeded synthetic corpus behind the nine sample studies.
//!
//! The store needs sample studies that read like the real thing (Argentine and Southern Cone
//! consumer questions, assistant-style answers, realistic brands, domains and sources) and
//! benchmark corpora ten and a hundred times larger. Both come from this program: one data
//! file per industry (`industrias/*.toml`, read by [`industry`]), one shared answer engine
//! ([`engine`]), and findings computed from the real analysis tables
//! ([`generator::metrics::analysis`]) so every number they quote is backed.
//!
//! Output is a pure function of `(seed, scale)`: ChaCha8 seeded per question, `BTreeMap`s,
//! no clock, no hash-map iteration. Everything is written through the serde types of
//! [`generator::model`], the same ones the generator's loader reads.
//!
//! The generator does not depend on this crate: synth writes content, the generator reads it.

pub mod cli;
mod design;
mod engine;
mod findings;
mod industry;
mod loading;
mod models;
mod previous;

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use generator::model::{Answer, Brand, BrandsFile, FindingsFile, Question, Study, StudyFile, Tier};

use crate::industry::{BaseQuestion, Industry};
use crate::loading::industries;
use crate::models::Model;

/// Options of `synth`.
pub struct SynthOptions {
    /// Folder that receives `estudios/<slug>/` (normally `content`).
    pub out: PathBuf,
    /// 1 = the committed sample; 10 and 100 = benchmark corpora with ~10× / ~100× answers.
    pub scale: u32,
    pub seed: u64,
    /// Leaves the previous runs out (no `anterior/`, no `[corrida_anterior]`, no change
    /// findings): the same corpus as a first run, for the build benchmark's reference.
    pub without_previous: bool,
}

/// The seed of the committed sample content.
pub const DEFAULT_SEED: u64 = 2026;

/// Writes the nine studies under `<out>/estudios/`, replacing their folders.
pub fn run(opts: &SynthOptions) -> Result<()> {
    anyhow::ensure!(opts.scale >= 1, "synth: la escala debe ser 1 o más");
    let models = models::models()?;
    let industries = industries(&models)?;
    let dir = opts.out.join("estudios");
    fs::create_dir_all(&dir).with_context(|| format!("no se pudo crear {}", dir.display()))?;
    industries
        .par_iter()
        .map(|ind| {
            let mut generated = generate(ind, &models, opts.scale, opts.seed)?;
            if opts.without_previous {
                without_previous(&mut generated.study);
            }
            write_study(&dir.join(&ind.slug), &generated)
        })
        .collect::<Result<()>>()
}

/// Takes a study's previous run out: its spec, its questions and answers, and the findings
/// backed by change tables. This run's answers and other findings stay as they are (the
/// previous run is drawn after them, from its own seeds).
fn without_previous(study: &mut Study) {
    study.design.previous_run = None;
    study.previous = None;
    study.findings.retain(|f| !f.backing.iter().any(|b| generator::metrics::change::is_change_table(&b.table)));
}

/// One study, generated, with what the files need.
pub(crate) struct Generated {
    pub study: Study,
    /// Per answer, the brand indexes in the order the engine wrote them (checked by tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub orders: Vec<Vec<usize>>,
}

/// A stable 64-bit mix (splitmix64), so per-question seeds do not depend on the platform.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

pub(crate) fn seed_for(seed: u64, slug: &str, part: u64) -> u64 {
    // FNV-1a over the slug: stable across runs and platforms.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in slug.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    mix(seed ^ mix(h ^ mix(part)))
}

pub(crate) fn width(n: usize, min_width: usize) -> usize {
    n.to_string().len().max(min_width)
}

/// Picks and numbers the questions of a study: `n_questions × scale` of them.
fn pick_questions(ind: &Industry, scale: u32, seed: u64) -> Vec<(Question, BaseQuestion)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed_for(seed, &ind.slug, u64::MAX));
    let repeats = ind.dimensions.iter().any(|d| d.id == "repeticion");
    let reps = if repeats { 2 } else { 1 };
    let total = ind.n_questions * scale as usize / reps;
    let mut order: Vec<usize> = (0..ind.questions.len()).collect();
    order.shuffle(&mut rng);
    let mut chosen: Vec<(usize, usize)> = Vec::with_capacity(total);
    let mut round = 0;
    while chosen.len() < total {
        for &i in &order {
            if chosen.len() == total {
                break;
            }
            chosen.push((round, i));
        }
        round += 1;
    }
    chosen.sort_unstable();
    let w = width(total * reps, 3);
    let mut out = Vec::with_capacity(total * reps);
    for (_, i) in chosen {
        let base = &ind.questions[i];
        let tier = if rng.random_bool(0.5) { Tier::Standard } else { Tier::Advanced };
        for r in 1..=reps {
            // The language is the question's own field, never one of its dimensions.
            let mut dims: BTreeMap<String, String> = base.dims.iter().cloned().collect();
            if repeats {
                dims.insert("repeticion".into(), r.to_string());
            }
            let q = Question {
                id: format!("P{:0w$}", out.len() + 1),
                text: base.text.clone(),
                language: base.language.clone(),
                model: tier,
                dimensions: dims,
            };
            out.push((q, base.clone()));
        }
    }
    out
}

/// Salt of the streams that draw what each API answer consulted besides what it cites.
const CONSULTED_SALT: u64 = 0xC0_25_17_ED_0F_0E_5A_17;
/// Salt of the streams of the consumer surfaces' answers.
const CONSUMER_SALT: u64 = 0x5E_4F_AC_E0_A1_0E_2C_26;

/// Generates one study: questions, answers, then the findings from its computed tables.
pub(crate) fn generate(ind: &Industry, models: &[Model], scale: u32, seed: u64) -> Result<Generated> {
    let questions = pick_questions(ind, scale, seed);
    let nq = questions.len();
    let consumer = consumer_models(ind)?;
    let (answers, orders) = run_answers(ind, models, &consumer, &questions, seed);
    let all_models: Vec<Model> = models.iter().chain(&consumer).cloned().collect();
    let design = design::design(ind, &all_models, nq, answers.len(), seed);
    let mut study = Study {
        slug: ind.slug.clone(),
        design,
        brands: brands(ind),
        questions: questions.iter().map(|(q, _)| q.clone()).collect(),
        answers,
        findings: Vec::new(),
        reports: Vec::new(),
        question_lines: Vec::new(),
        answer_lines: Vec::new(),
        previous: None,
    };
    if let Some(prev) = &ind.previous {
        let (spec, previous) = previous::generate(ind, prev, models, &study, &questions, seed);
        study.design.previous_run = Some(spec);
        study.previous = Some(Box::new(previous));
    }
    if ind.with_findings {
        let tables =
            generator::metrics::analysis::analyze(&study).with_context(|| format!("{}: análisis", ind.slug))?;
        study.findings = findings::findings(ind, &study, &tables, &orders);
        if let Some(prev) = &ind.previous {
            let changes = previous::change_findings(prev, &study);
            study.findings.extend(changes);
        }
    }
    Ok(Generated { study, orders })
}

/// The sample studies' data (industries and models), loaded once, to draw runs of them.
pub struct Samples {
    models: Vec<Model>,
    industries: Vec<Industry>,
}

impl Samples {
    pub fn load() -> Result<Samples> {
        let models = models::models()?;
        let industries = industries(&models)?;
        Ok(Samples { models, industries })
    }

    /// The slugs of the sample studies, in order.
    pub fn slugs(&self) -> Vec<String> {
        self.industries.iter().map(|i| i.slug.clone()).collect()
    }

    /// Two runs of a sample study asked the same questions of the same models, with no change
    /// in between: the questions of `seed` (scale 1), each run's answers from streams of its
    /// own (`replicate` picks the pair), no findings, no analysis tables. What differs between
    /// the runs is only the noise of asking again, so every "changed" verdict of its change
    /// tables is a false alarm (the simulation of `bench-cambios`).
    pub fn null_rerun(&self, slug: &str, seed: u64, replicate: u64) -> Result<Study> {
        let ind =
            self.industries.iter().find(|i| i.slug == slug).with_context(|| format!("no hay un estudio `{slug}`"))?;
        let questions = pick_questions(ind, 1, seed);
        let consumer = consumer_models(ind)?;
        let run = |stream: u64| run_answers(ind, &self.models, &consumer, &questions, stream).0;
        let salt = mix(replicate.wrapping_mul(2).wrapping_add(1) ^ 0x0005_1A17_0A2D_2026);
        let (now, before) = (run(mix(seed ^ salt)), run(mix(seed ^ salt ^ 0x000B_EF0E)));
        let all_models: Vec<Model> = self.models.iter().chain(&consumer).cloned().collect();
        let mut design = design::design(ind, &all_models, questions.len(), now.len(), seed);
        design.analyses = Vec::new();
        let study = |design: StudyFile, answers: Vec<Answer>, previous: Option<Box<Study>>| Study {
            slug: ind.slug.clone(),
            design,
            brands: brands(ind),
            questions: questions.iter().map(|(q, _)| q.clone()).collect(),
            answers,
            findings: Vec::new(),
            reports: Vec::new(),
            question_lines: Vec::new(),
            answer_lines: Vec::new(),
            previous,
        };
        let previous = study(design.clone(), before, None);
        design.previous_run = Some(generator::model::PreviousRunSpec {
            description: "La misma corrida, repetida".into(),
            description_en: "The same run, repeated".into(),
            models: design.models.clone(),
            weighting: design.weighting.clone(),
        });
        Ok(study(design, now, Some(Box::new(previous))))
    }
}

/// Every answer of one run of a study (`models` asked through their APIs, then the consumer
/// surfaces), from the streams of `seed`, numbered; and the brands each names, in the order
/// the engine wrote them.
fn run_answers(
    ind: &Industry,
    models: &[Model],
    consumer: &[Model],
    questions: &[(Question, BaseQuestion)],
    seed: u64,
) -> (Vec<Answer>, Vec<Vec<usize>>) {
    let nq = questions.len();
    // The API models answer first; the consumer surfaces, a collection of their own, after.
    let by_question: Vec<Vec<(Answer, Vec<usize>)>> = questions
        .par_iter()
        .enumerate()
        .map(|(qi, (q, base))| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed_for(seed, &ind.slug, qi as u64));
            let mut consulted_rng = ChaCha8Rng::seed_from_u64(seed_for(seed ^ CONSULTED_SALT, &ind.slug, qi as u64));
            models
                .iter()
                .filter(|m| m.tier == q.model)
                .map(|m| {
                    let (mut answer, order) = draft_answer(ind, m, q, base, qi, nq, &mut rng);
                    answer.consulted =
                        Some(engine::sources::consulted(ind, base, &answer.sources, &order, &mut consulted_rng));
                    (answer, order)
                })
                .collect()
        })
        .collect();
    let on_surfaces: Vec<Vec<(Answer, Vec<usize>)>> = questions
        .par_iter()
        .enumerate()
        .map(|(qi, (q, base))| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed_for(seed ^ CONSUMER_SALT, &ind.slug, qi as u64));
            let mut consulted_rng =
                ChaCha8Rng::seed_from_u64(seed_for(seed ^ CONSUMER_SALT ^ CONSULTED_SALT, &ind.slug, qi as u64));
            consumer
                .iter()
                .filter(|m| m.tier == q.model)
                .map(|m| {
                    // The links the surface shows: the ones its text points to, and more.
                    let (mut answer, order) = draft_answer(ind, m, q, base, qi, nq, &mut rng);
                    answer.consulted =
                        Some(engine::sources::consulted(ind, base, &answer.sources, &order, &mut consulted_rng));
                    (answer, order)
                })
                .collect()
        })
        .collect();
    let total: usize = by_question.iter().chain(&on_surfaces).map(Vec::len).sum();
    let w = width(total, 5);
    let mut answers = Vec::with_capacity(total);
    let mut orders = Vec::with_capacity(total);
    for (answer, order) in by_question.into_iter().chain(on_surfaces).flatten() {
        let mut answer = answer;
        answer.id = format!("R{:0w$}", answers.len() + 1);
        answers.push(answer);
        orders.push(order);
    }
    (answers, orders)
}

/// One answer of `m` to question `qi` of `nq` (its id comes later) and the brands in the
/// order the engine wrote them. An API model's answer says `superficie = "api"`; a consumer
/// surface's, its own.
fn draft_answer(
    ind: &Industry,
    m: &Model,
    q: &Question,
    base: &BaseQuestion,
    qi: usize,
    nq: usize,
    rng: &mut ChaCha8Rng,
) -> (Answer, Vec<usize>) {
    let base_day = (qi as u64 * u64::from(ind.days) / nq as u64) as u32;
    let b = engine::answer_question(ind, base, m, rng);
    let day = (base_day + rng.random_range(0..=1)).min(ind.days - 1);
    let version = if ind.version_change && day < ind.days / 2 { &m.versions[0] } else { &m.versions[1] };
    let answer = Answer {
        id: String::new(),
        question: q.id.clone(),
        model: m.id.clone(),
        version: version.clone(),
        date: design::date(ind.start, day),
        answer: b.answer,
        sources: b.sources,
        tone: b.tone,
        repetition: None,
        collection: None,
        surface: Some(m.surface.clone().unwrap_or_else(|| generator::model::API_SURFACE.to_owned())),
        consulted: None,
    };
    (answer, b.order)
}

/// The consumer surfaces the industry file lists (`consumo`), from `modelos.toml`.
fn consumer_models(ind: &Industry) -> Result<Vec<Model>> {
    if ind.consumer.is_empty() {
        return Ok(Vec::new());
    }
    let known = models::consumer_models()?;
    ind.consumer
        .iter()
        .map(|id| {
            known.iter().find(|m| m.id == *id).cloned().with_context(|| {
                format!("{}: consumo: `{id}` no es una superficie de [[consumo]] en modelos.toml", ind.slug)
            })
        })
        .collect()
}

fn brands(ind: &Industry) -> Vec<Brand> {
    ind.brands
        .iter()
        .map(|m| Brand {
            id: m.id.clone(),
            name: m.name.clone(),
            alias: m.alias.iter().map(|s| s.trim_start_matches('~').to_owned()).collect(),
            exclude: m.exclude.clone(),
            domains: m.domains.clone(),
        })
        .collect()
}

/// The five files of a study, as bytes: (file name, contents).
pub(crate) fn study_files(g: &Generated) -> Result<Vec<(&'static str, Vec<u8>)>> {
    let s = &g.study;
    let study = toml::to_string_pretty(&s.design).context("serializando estudio.toml")?;
    let brands =
        toml::to_string_pretty(&BrandsFile { brands: s.brands.clone() }).context("serializando marcas.toml")?;
    let findings = toml::to_string_pretty(&FindingsFile { findings: s.findings.clone() })
        .context("serializando hallazgos.toml")?;
    let mut questions = Vec::new();
    for q in &s.questions {
        serde_json::to_writer(&mut questions, q).context("serializando preguntas.jsonl")?;
        questions.push(b'\n');
    }
    let mut answers = Vec::with_capacity(s.answers.len() * 1500);
    for a in &s.answers {
        serde_json::to_writer(&mut answers, a).context("serializando respuestas.jsonl")?;
        answers.push(b'\n');
    }
    let mut files = vec![
        ("estudio.toml", study.into_bytes()),
        ("marcas.toml", brands.into_bytes()),
        ("preguntas.jsonl", questions),
        ("respuestas.jsonl", answers),
        ("hallazgos.toml", findings.into_bytes()),
    ];
    if let Some(previous) = &s.previous {
        files.push(("anterior/preguntas.jsonl", jsonl(&previous.questions)?));
        files.push(("anterior/respuestas.jsonl", jsonl(&previous.answers)?));
    }
    Ok(files)
}

/// One JSON object a line.
fn jsonl<T: serde::Serialize>(items: &[T]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for item in items {
        serde_json::to_writer(&mut out, item).context("serializando la corrida anterior")?;
        out.push(b'\n');
    }
    Ok(out)
}

/// Copies the hand-written service files (`servicio.toml`, `metricas.toml`) from `from` to
/// `to` when writing a corpus outside the content folder; nothing when both are the same folder.
pub fn copy_service_files(from: &Path, to: &Path) -> Result<()> {
    let same = match (from.canonicalize(), to.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Ok(());
    }
    fs::create_dir_all(to).with_context(|| format!("no se pudo crear {}", to.display()))?;
    for name in [generator::load::SERVICE_FILE, generator::load::METRICS_FILE] {
        fs::copy(from.join(name), to.join(name))
            .with_context(|| format!("no se pudo copiar {} a {}", from.join(name).display(), to.display()))?;
    }
    Ok(())
}

fn write_study(dir: &Path, g: &Generated) -> Result<()> {
    if dir.exists() {
        fs::remove_dir_all(dir).with_context(|| format!("no se pudo borrar {}", dir.display()))?;
    }
    fs::create_dir_all(dir).with_context(|| format!("no se pudo crear {}", dir.display()))?;
    for (name, bytes) in study_files(g)? {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).with_context(|| format!("no se pudo crear {}", parent.display()))?;
        }
        let file = fs::File::create(&path).with_context(|| format!("no se pudo crear {}", path.display()))?;
        let mut w = BufWriter::new(file);
        w.write_all(&bytes).with_context(|| format!("no se pudo escribir {}", path.display()))?;
        w.flush().with_context(|| format!("no se pudo escribir {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
