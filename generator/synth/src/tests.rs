//! Tests of the synthetic corpus: determinism, sizes, references, that the brands the engine
//! meant to name are exactly the ones the real matcher finds, and that every finding is
//! backed by its table cell.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::*;
use generator::metrics::mentions::BrandMatcher;

fn models() -> Vec<Model> {
    models::models().expect("modelos.toml loads")
}

fn all_industries() -> Vec<Industry> {
    industries(&models()).expect("the industry files load")
}

fn generate_all(scale: u32, seed: u64) -> Vec<Generated> {
    let models = models();
    all_industries().iter().map(|i| generate(i, &models, scale, seed).expect("generar")).collect()
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let a = generate_all(1, DEFAULT_SEED);
    let b = generate_all(1, DEFAULT_SEED);
    let c = generate_all(1, DEFAULT_SEED + 1);
    for ((x, y), z) in a.iter().zip(&b).zip(&c) {
        let (fx, fy, fz) = (study_files(x).expect("x"), study_files(y).expect("y"), study_files(z).expect("z"));
        assert_eq!(fx, fy, "{}: misma semilla, bytes distintos", x.study.slug);
        let answers = |f: &[(&str, Vec<u8>)]| f.iter().find(|(n, _)| *n == "respuestas.jsonl").map(|(_, b)| b.clone());
        assert_ne!(answers(&fx), answers(&fz), "{}: otra semilla, mismas respuestas", x.study.slug);
    }
}

#[test]
fn sizes_at_scale_one_and_ten() {
    let studies = generate_all(1, DEFAULT_SEED);
    // Nine studies in slug order (which ones: tests/contenido.rs, against content/).
    let slugs: Vec<&str> = studies.iter().map(|g| g.study.slug.as_str()).collect();
    assert_eq!(slugs.len(), 9);
    assert!(slugs.is_sorted_by(|a, b| a < b), "{slugs:?}");
    let mut total = 0;
    for g in &studies {
        let n = g.study.questions.len();
        assert!((40..=200).contains(&n), "{}: {n} preguntas", g.study.slug);
        let api = g.study.answers.iter().filter(|a| a.surface() == "api").count();
        assert_eq!(api, 3 * n, "{}: tres respuestas de la API por pregunta", g.study.slug);
        let standard = g.study.questions.iter().filter(|q| q.model == Tier::Standard).count();
        let consumer = if g.study.slug == "cosmetica-2026" { standard } else { 0 };
        assert_eq!(
            g.study.answers.len(),
            api + consumer,
            "{}: y una por pregunta estándar en cada superficie de consumo",
            g.study.slug
        );
        assert!((8..=16).contains(&g.study.brands.len()), "{}: marcas", g.study.slug);
        total += g.study.answers.len();
    }
    assert!(total >= 3000, "{total} respuestas en total");
    // Scale 10: ten times the questions, so ten times the answers (three per question).
    for ind in all_industries() {
        let one = pick_questions(&ind, 1, DEFAULT_SEED).len();
        let ten = pick_questions(&ind, 10, DEFAULT_SEED).len();
        assert_eq!(ten, 10 * one, "{}", ind.slug);
    }
    let rheuma = all_industries().into_iter().find(|i| i.slug == "reumatologia-2026").expect("reumatologia");
    let g = generate(&rheuma, &models(), 10, DEFAULT_SEED).expect("escala 10");
    assert_eq!(g.study.answers.len(), 10 * 3 * rheuma.n_questions);
}

#[test]
fn answers_reference_questions_and_models_of_their_tier() {
    for g in generate_all(1, DEFAULT_SEED) {
        let s = &g.study;
        let questions: BTreeMap<&str, &Question> = s.questions.iter().map(|q| (q.id.as_str(), q)).collect();
        assert_eq!(questions.len(), s.questions.len(), "{}: ids de pregunta repetidos", s.slug);
        let models: BTreeMap<&str, Tier> = s.design.models.iter().map(|m| (m.id.as_str(), m.level)).collect();
        // Six API models; cosmética adds Google's AI Overviews, a consumer surface.
        let consumer = usize::from(s.slug == "cosmetica-2026");
        assert_eq!(models.len(), 6 + consumer, "{}", s.slug);
        let mut ids = BTreeSet::new();
        let mut pairs = BTreeSet::new();
        let mut by_question: BTreeMap<&str, usize> = BTreeMap::new();
        let (start, end) =
            (s.answers.iter().map(|a| a.date.as_str()).min(), s.answers.iter().map(|a| a.date.as_str()).max());
        assert!(
            start.is_some_and(|f| f.starts_with("2026-")) && end < Some(s.design.published.as_str()),
            "{}: fechas",
            s.slug
        );
        for a in &s.answers {
            assert!(ids.insert(a.id.as_str()), "{}: {} repetida", s.slug, a.id);
            let q = questions.get(a.question.as_str()).unwrap_or_else(|| panic!("{}: {} sin pregunta", s.slug, a.id));
            assert_eq!(models.get(a.model.as_str()), Some(&q.model), "{}: {} de otro nivel", s.slug, a.id);
            assert!(
                pairs.insert((a.question.as_str(), a.model.as_str())),
                "{}: {} duplica pregunta y modelo",
                s.slug,
                a.id
            );
            *by_question.entry(a.question.as_str()).or_default() += 1;
            assert!(a.sources.len() <= 6);
        }
        for q in &s.questions {
            let expected = 3 + if q.model == Tier::Standard { consumer } else { 0 };
            assert_eq!(by_question.get(q.id.as_str()), Some(&expected), "{} {}", s.slug, q.id);
        }
        let tiers: BTreeSet<Tier> = s.questions.iter().map(|q| q.model).collect();
        assert_eq!(tiers.len(), 2, "{}: hay que mezclar los dos niveles", s.slug);
        for d in &s.design.dimensions {
            // The surface is each answer's; the other dimensions, each question's.
            let used: BTreeSet<&str> = if d.id == "superficie" {
                s.answers.iter().map(|a| a.surface()).collect()
            } else {
                s.questions.iter().filter_map(|q| q.dimension(&d.id)).collect()
            };
            for v in &d.values {
                assert!(used.contains(v.as_str()), "{}: el valor {v} de {} no se usa", s.slug, d.id);
            }
            assert!(used.iter().all(|v| d.values.iter().any(|x| x == v)), "{}: {}", s.slug, d.id);
        }
    }
}

#[test]
fn the_matcher_finds_exactly_the_brands_the_engine_wrote() {
    for g in generate_all(1, DEFAULT_SEED) {
        let s = &g.study;
        let matcher = BrandMatcher::new(&s.brands);
        let mut brandless = 0;
        for (a, order) in s.answers.iter().zip(&g.orders) {
            let found = matcher.brands_in_text(&a.answer);
            assert_eq!(&found, order, "{} {}: orden detectado distinto\n{}", s.slug, a.id, a.answer);
            let labelled: BTreeSet<&str> = a.tone.keys().map(String::as_str).collect();
            let named: BTreeSet<&str> = found.iter().map(|&b| s.brands[b].id.as_str()).collect();
            assert_eq!(labelled, named, "{} {}: tono de marcas no nombradas", s.slug, a.id);
            let word_count = a.answer.split_whitespace().count();
            assert!((45..=380).contains(&word_count), "{} {}: {word_count} palabras", s.slug, a.id);
            brandless += usize::from(found.is_empty());
        }
        let rate = brandless as f64 / s.answers.len() as f64;
        assert!((0.05..=0.6).contains(&rate), "{}: {rate} sin marca", s.slug);
    }
}

#[test]
fn findings_are_backed_by_their_cells() {
    for g in generate_all(1, DEFAULT_SEED) {
        let s = &g.study;
        let tables = generator::metrics::analysis::analyze(s).expect("analyze");
        assert!((6..=13).contains(&tables.len()), "{}: tablas", s.slug);
        // Findings about change are backed by the change tables (and claim what they show).
        let facts = generator::metrics::extract_facts(s);
        let changes = generator::metrics::change::change_tables(s, &facts);
        let all: Vec<_> = tables.iter().chain(&changes).cloned().collect();
        let problems = generator::validate::check_findings(Path::new("content"), s, &all);
        assert!(problems.is_empty(), "{}: {:?}", s.slug, problems.iter().collect::<Vec<_>>());
        let warnings = generator::validate::unsupported_changes(Path::new("content"), s, &changes);
        assert!(warnings.is_empty(), "{}: {:?}", s.slug, warnings.iter().collect::<Vec<_>>());
        if s.slug == "reumatologia-2026" {
            assert!(s.findings.is_empty());
            continue;
        }
        let change_count = s.findings.iter().filter(|f| f.kind == "cambio").count();
        assert_eq!(change_count > 0, s.previous.is_some(), "{}: hallazgos de cambio", s.slug);
        let findings: Vec<_> = s.findings.iter().filter(|f| f.kind != "cambio").collect();
        assert!((5..=10).contains(&findings.len()), "{}: {} hallazgos", s.slug, findings.len());
        let kinds: BTreeSet<&str> = findings.iter().map(|f| f.kind.as_str()).collect();
        let sections: BTreeSet<&str> = findings.iter().map(|f| f.section.as_str()).collect();
        assert!(kinds.len() >= 4 && (2..=4).contains(&sections.len()), "{}", s.slug);
        let ids: BTreeSet<&str> = s.answers.iter().map(|a| a.id.as_str()).collect();
        for f in &s.findings {
            assert!(!f.backing.is_empty(), "{} {}: sin respaldo", s.slug, f.id);
            assert!((1..=3).contains(&f.evidence.len()), "{} {}: evidencia", s.slug, f.id);
            assert!(f.evidence.iter().all(|e| ids.contains(e.as_str())));
        }
    }
}

/// Every comparison a finding makes says what the 95% intervals support: a difference only
/// where they do not overlap (and the text says so), a tie within the margin of error where
/// they do; so `generator check` has nothing to warn about in the sample content.
#[test]
fn findings_claim_only_the_differences_that_hold_at_95() {
    use generator::metrics::compare::{Claim, comparisons};

    let (mut differences, mut ties) = (0, 0);
    for g in generate_all(1, DEFAULT_SEED) {
        let s = &g.study;
        let tables = generator::metrics::analysis::analyze(s).expect("analyze");
        let warnings = generator::validate::unsupported_comparisons(Path::new("content"), s, &tables);
        assert!(warnings.is_empty(), "{}: {:?}", s.slug, warnings.iter().collect::<Vec<_>>());
        for f in &s.findings {
            for c in comparisons(s, f, &tables) {
                let (es, en) = match c.claims {
                    Claim::Difference => {
                        differences += 1;
                        ("significativa al 95 %", "significant at 95%")
                    }
                    Claim::Tie => {
                        ties += 1;
                        ("margen de error", "margin of error")
                    }
                };
                assert!(
                    f.text.contains(es) && f.text_en.contains(en),
                    "{} {}: {}\n{}",
                    s.slug,
                    f.id,
                    f.text,
                    f.text_en
                );
            }
        }
    }
    // The sample has both kinds, so the test is not vacuous.
    assert!(differences > 0 && ties > 0, "{differences} diferencias, {ties} empates");
}

#[test]
fn written_files_load_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    run(&SynthOptions { out: dir.path().to_path_buf(), scale: 1, seed: DEFAULT_SEED, without_previous: false })
        .expect("run");
    for ind in all_industries() {
        let mut problems = generator::problems::Problems::default();
        let study = generator::load::load_study(&dir.path().join("estudios").join(&ind.slug), &mut problems);
        assert!(problems.is_empty(), "{}: {:?}", ind.slug, problems.iter().collect::<Vec<_>>());
        let study = study.expect("cargado");
        assert_eq!(study.questions.len(), ind.n_questions);
    }
}

#[test]
fn seeds_mix_like_splitmix64_and_differ_by_study_and_part() {
    // The first output of splitmix64 from state 0.
    assert_eq!(mix(0), 0xE220_A839_7B1D_CDAF);
    let a = seed_for(DEFAULT_SEED, "banca-2026", 0);
    assert_eq!(a, seed_for(DEFAULT_SEED, "banca-2026", 0));
    assert_ne!(a, seed_for(DEFAULT_SEED, "banca-2026", 1));
    assert_ne!(a, seed_for(DEFAULT_SEED, "farma-2026", 0));
    assert_ne!(a, seed_for(DEFAULT_SEED + 1, "banca-2026", 0));
}

/// Each question has its own random stream, so answers do not depend on the order (or the
/// thread) in which questions are generated: one answer can be rewritten alone.
#[test]
fn every_question_draws_from_its_own_stream() {
    use rand::SeedableRng;

    let models = models();
    let ind = all_industries().into_iter().find(|i| i.slug == "cosmetica-2026").expect("cosmetica");
    let g = generate(&ind, &models, 1, DEFAULT_SEED).expect("generar");
    let questions = pick_questions(&ind, 1, DEFAULT_SEED);
    for qi in [0, 17, questions.len() - 1] {
        let (q, base) = &questions[qi];
        let first = models.iter().find(|m| m.tier == q.model).expect("a model of the tier");
        let mut rng = ChaCha8Rng::seed_from_u64(seed_for(DEFAULT_SEED, &ind.slug, qi as u64));
        let b = engine::answer_question(&ind, base, first, &mut rng);
        let a = &g.study.answers[3 * qi];
        assert_eq!((a.question.as_str(), a.model.as_str()), (q.id.as_str(), first.id.as_str()));
        assert_eq!(a.answer, b.answer, "question {qi}");
    }
}

#[test]
fn service_files_are_copied_to_another_folder_only() {
    let from_dir = tempfile::tempdir().expect("tempdir");
    let to_dir = tempfile::tempdir().expect("tempdir");
    for name in ["servicio.toml", "metricas.toml"] {
        std::fs::write(from_dir.path().join(name), format!("# {name}\n")).expect("write");
    }
    let dest = to_dir.path().join("corpus");
    copy_service_files(from_dir.path(), &dest).expect("copy");
    assert_eq!(std::fs::read_to_string(dest.join("metricas.toml")).expect("copied"), "# metricas.toml\n");
    assert!(dest.join("servicio.toml").is_file());
    // The same folder: nothing to copy, and no error even without the files.
    let empty = tempfile::tempdir().expect("tempdir");
    copy_service_files(empty.path(), empty.path()).expect("same folder");
    assert!(copy_service_files(empty.path(), &empty.path().join("otra")).is_err(), "missing files fail");
}

#[test]
fn without_previous_runs_the_same_studies_are_first_runs() {
    let with = tempfile::tempdir().expect("tempdir");
    let without = tempfile::tempdir().expect("tempdir");
    run(&SynthOptions { out: with.path().to_path_buf(), scale: 1, seed: DEFAULT_SEED, without_previous: false })
        .expect("run");
    run(&SynthOptions { out: without.path().to_path_buf(), scale: 1, seed: DEFAULT_SEED, without_previous: true })
        .expect("run");
    let mut had_previous = 0;
    for ind in all_industries() {
        let (a, b) = (with.path().join("estudios").join(&ind.slug), without.path().join("estudios").join(&ind.slug));
        let read = |p: &std::path::Path| std::fs::read(p).expect("file");
        // This run's questions and answers are the same bytes either way.
        for file in ["preguntas.jsonl", "respuestas.jsonl", "marcas.toml"] {
            assert!(read(&a.join(file)) == read(&b.join(file)), "{}: {file}", ind.slug);
        }
        assert!(!b.join("anterior").exists(), "{}: no anterior/", ind.slug);
        let mut problems = generator::problems::Problems::default();
        let study = generator::load::load_study(&b, &mut problems).expect("loads");
        assert!(problems.is_empty(), "{}: {:?}", ind.slug, problems.iter().collect::<Vec<_>>());
        assert!(study.design.previous_run.is_none() && study.previous.is_none());
        assert!(
            study.findings.iter().all(|f| f.backing.iter().all(|r| !r.table.starts_with("cambio_"))),
            "{}: no change findings",
            ind.slug
        );
        if a.join("anterior").is_dir() {
            had_previous += 1;
            // Its change findings (when it has findings at all) are left out.
            let findings = String::from_utf8(read(&a.join("hallazgos.toml"))).expect("utf-8");
            assert_eq!(
                findings.contains("cambio_"),
                read(&a.join("hallazgos.toml")) != read(&b.join("hallazgos.toml"))
            );
        } else {
            assert!(read(&a.join("estudio.toml")) == read(&b.join("estudio.toml")), "{}", ind.slug);
            assert!(read(&a.join("hallazgos.toml")) == read(&b.join("hallazgos.toml")), "{}", ind.slug);
        }
    }
    assert!(had_previous >= 3, "{had_previous} studies with a previous run");
}

/// Every answer records what its provider consulted (the links its surface shows): every
/// source it cites, and more (pages of brands it names and does not cite, media it read), so
/// "consulted, not cited" has something to measure.
#[test]
fn consulted_sources_hold_the_cited_ones_and_more() {
    let (mut consulted_not_cited, mut read_more, mut recorded) = (0, 0, 0);
    for g in generate_all(1, DEFAULT_SEED) {
        let matcher = BrandMatcher::new(&g.study.brands);
        for a in &g.study.answers {
            let consulted = a.consulted.as_ref().unwrap_or_else(|| panic!("{} {}: consulted", g.study.slug, a.id));
            let surface = if a.model == "google-ai-overview" { "google_ai_overview" } else { "api" };
            assert_eq!(a.surface.as_deref(), Some(surface), "{} {}", g.study.slug, a.id);
            let urls: BTreeSet<&str> = consulted.iter().map(|s| s.url.as_str()).collect();
            assert_eq!(urls.len(), consulted.len(), "{} {}: no URL twice", g.study.slug, a.id);
            for cited in &a.sources {
                assert!(
                    urls.contains(cited.url.as_str()),
                    "{} {}: {} cited, not consulted",
                    g.study.slug,
                    a.id,
                    cited.url
                );
            }
            (read_more, recorded) = (read_more + consulted.len() - a.sources.len(), recorded + 1);
            let cited = matcher.brands_cited(a.sources.iter().map(|s| s.url.as_str()));
            let read = matcher.brands_cited(consulted.iter().map(|s| s.url.as_str()));
            consulted_not_cited += read.iter().filter(|b| !cited.contains(b)).count();
        }
        if g.study.slug == "cosmetica-2026" {
            let surfaces = g.study.design.dimensions.iter().find(|d| d.id == "superficie").expect("superficie");
            assert_eq!(surfaces.values, ["api", "google_ai_overview"]);
            assert!(g.study.design.models.iter().any(|m| m.id == "google-ai-overview"));
        }
    }
    assert!(consulted_not_cited > 500, "{consulted_not_cited} brands consulted and not cited");
    assert!(read_more >= 3 * recorded, "{read_more} sources read and not cited in {recorded} answers");
}
