//! Tables computed on a tiny study whose numbers are worked out by hand in the comments.

use std::collections::BTreeMap;

use super::*;
use crate::model::{
    Answer, Backing, Brand, Dimension, Finding, ModelSpec, Question, Source, StudyFile, Tier, Tone, Weighting,
};

fn brand(id: &str, name: &str, alias: &[&str], domains: &[&str]) -> Brand {
    Brand {
        id: id.into(),
        name: name.into(),
        alias: alias.iter().map(|s| s.to_string()).collect(),
        exclude: Vec::new(),
        domains: domains.iter().map(|s| s.to_string()).collect(),
    }
}

fn question(id: &str, section: &str) -> Question {
    Question {
        id: id.into(),
        text: format!("¿Pregunta {id}?"),
        language: "es".into(),
        model: Tier::Standard,
        dimensions: BTreeMap::from([("seccion".to_owned(), section.to_owned())]),
    }
}

fn answer(id: &str, question: &str, model: &str, text: &str, urls: &[&str]) -> Answer {
    Answer {
        id: id.into(),
        question: question.into(),
        model: model.into(),
        version: format!("{model}-v1"),
        date: "2026-03-01".into(),
        answer: text.into(),
        sources: urls.iter().map(|u| Source { url: u.to_string(), title: "t".into() }).collect(),
        tone: BTreeMap::new(),
        repetition: None,
        collection: None,
        surface: None,
        consulted: None,
    }
}

fn spec(id: &str, kind: TableKind, metrics: &[Metric]) -> TableSpec {
    TableSpec {
        id: id.into(),
        name: id.to_lowercase(),
        title: id.into(),
        title_en: id.into(),
        kind,
        metrics: metrics.to_vec(),
        dimension: None,
        brand: None,
        filter: BTreeMap::new(),
        limit: None,
    }
}

/// Two models (m1, m2), three questions in two sections, brands Alfa, Beta, Gama.
///
/// | q  | sección | m1                      | m2              |
/// |----|---------|-------------------------|-----------------|
/// | q1 | a       | Alfa, Beta (cites alfa) | Beta            |
/// | q2 | a       | Beta, Alfa, Gama        | nothing         |
/// | q3 | b       | Alfa (ghost cites beta) | Alfa, Beta      |
fn fixture() -> Study {
    let mut answers = vec![
        answer("R1", "q1", "m1", "1. Alfa es buena. 2. BETA también.", &["https://www.alfa.com.ar/x"]),
        answer("R2", "q1", "m2", "Recomiendo Beta.", &["https://infobae.com/a"]),
        answer("R3", "q2", "m1", "Beta, luego Alfa y por último Gama.", &[]),
        answer("R4", "q2", "m2", "Depende: consultá a un asesor.", &["https://infobae.com/b"]),
        answer("R5", "q3", "m1", "Alfa sin dudas.", &["https://blog.beta.com/p"]),
        answer("R6", "q3", "m2", "Alfa o Beta.", &["https://alfa.com.ar"]),
    ];
    answers[0].tone = BTreeMap::from([("alfa".into(), Tone::Pos), ("beta".into(), Tone::Neg)]);
    answers[5].tone = BTreeMap::from([("alfa".into(), Tone::Neu)]);
    let model = |id: &str| ModelSpec { id: id.into(), name: id.into(), provider: "p".into(), level: Tier::Standard };
    Study {
        slug: "prueba".into(),
        design: StudyFile {
            name: "Prueba".into(),
            name_en: "Test".into(),
            description: "d".into(),
            description_en: "d".into(),
            industry: "i".into(),
            subindustry: "s".into(),
            country: vec!["Argentina".into()],
            language: vec!["es".into()],
            published: "2026-04-01".into(),
            price_usd: None,
            package_version: "1.0.0".into(),
            tags: vec![],
            how_to_cite: "c".into(),
            note: "n".into(),
            methodology: vec![],
            dimensions: vec![Dimension {
                id: "seccion".into(),
                label: "Sección".into(),
                label_en: "Section".into(),
                values: vec!["a".into(), "b".into()],
            }],
            models: vec![model("m1"), model("m2")],
            weighting: None,
            analyses: vec![],
            previous_run: None,
        },
        brands: vec![
            brand("alfa", "Alfa", &[], &["alfa.com.ar"]),
            brand("beta", "Beta", &[], &["beta.com"]),
            brand("gama", "Gama", &[], &[]),
        ],
        questions: vec![question("q1", "a"), question("q2", "a"), question("q3", "b")],
        answers,
        findings: vec![],
        reports: vec![],
        question_lines: Vec::new(),
        answer_lines: Vec::new(),
        previous: None,
    }
}

fn table(study: &mut Study, spec: TableSpec) -> Table {
    study.design.analyses = vec![spec];
    analyze(study).expect("table computes").remove(0)
}

fn num(t: &Table, row: &str, col: &str) -> Option<f64> {
    t.cell(row, col).and_then(Cell::as_f64)
}

#[test]
fn brands_table_hand_computed() {
    let mut s = fixture();
    let t = table(
        &mut s,
        spec(
            "A01",
            TableKind::Brands,
            &[Metric::Mention, Metric::Order, Metric::Citation, Metric::Prominence, Metric::Top1, Metric::Sov],
        ),
    );
    assert_eq!(
        t.value_columns().collect::<Vec<_>>(),
        ["marca", "mencion", "orden", "n_orden", "citacion", "protagonismo", "top1", "sov"]
    );
    // Each model weighs 1/2 and has 3 answers: every answer weighs 1/6.
    // Alfa: named in R1, R3, R5, R6 → 4/6. Positions 1, 2, 1, 1 → 5/4.
    assert_eq!(num(&t, "Alfa", "mencion"), Some(0.6667));
    assert_eq!(num(&t, "Alfa", "orden"), Some(1.25));
    assert_eq!(num(&t, "Alfa", "n_orden"), Some(4.0));
    // Cited in R1 and R6 → 2/6.
    assert_eq!(num(&t, "Alfa", "citacion"), Some(0.3333));
    // Points 10 + 8 + 10 + 10 = 38 over 6 answers.
    assert_eq!(num(&t, "Alfa", "protagonismo"), Some(6.3333));
    // Five answers name a brand; Alfa first in R1, R5, R6 → 3/5.
    assert_eq!(num(&t, "Alfa", "top1"), Some(0.6));
    // Mentions: R1 2, R2 1, R3 3, R5 1, R6 2 = 9; Alfa 4.
    assert_eq!(num(&t, "Alfa", "sov"), Some(0.4444));
    // Beside the rate: 6 answers; by question (weights 1/6) the sums named/answers are
    // 1/6 of 2/6, 1/6 of 2/6, 2/6 of 2/6, so V = ((−2)² + (−2)² + 4²)/36² = 24/1296 and
    // R(1−R)/V = 12 exceeds the 6 answers: n_ef = 6, Wilson on 6.
    assert_eq!(t.cell("Alfa", "mencion_n"), Some(&Cell::Int(6)));
    assert_eq!(num(&t, "Alfa", "mencion_n_ef"), Some(6.0));
    let (low, high) = crate::metrics::interval::wilson(2.0 / 3.0, 6.0);
    let round = |x: f64| crate::metrics::exact::round_float(x, 4);
    assert_eq!(t.cell("Alfa", "mencion_ic95"), Some(&Cell::Interval(round(low), round(high))));
    assert_eq!(t.uncertainty("Alfa", "mencion"), Some((Some(6), Some((round(low), round(high))))));
    assert!(t.is_companion("mencion_ic95") && !t.is_companion("n_orden") && !t.is_companion("mencion"));
    // Gama never first, named once; rows sorted by mention: Alfa, Beta, Gama.
    assert_eq!(t.row_keys().collect::<Vec<_>>(), ["Alfa", "Beta", "Gama"]);
    assert_eq!(num(&t, "Gama", "orden"), Some(3.0));
}

#[test]
fn brand_never_named_has_null_order() {
    let mut s = fixture();
    s.brands.push(brand("delta", "Delta", &[], &[]));
    let t = table(&mut s, spec("A01", TableKind::Brands, &[Metric::Mention, Metric::Order]));
    assert_eq!(t.cell("Delta", "orden"), Some(&Cell::Null));
    assert_eq!(t.cell("Delta", "mencion"), Some(&Cell::Num(0.0)));
    assert_eq!(t.row_keys().last(), Some("Delta"));
}

#[test]
fn weights_change_the_total_but_not_the_per_model_columns() {
    let mut s = fixture();
    let t = table(&mut s, spec("A02", TableKind::BrandByModel, &[Metric::Mention]));
    assert_eq!(t.value_columns().collect::<Vec<_>>(), ["marca", "m1", "m2", "total"]);
    // Beta: m1 2/3, m2 2/3.
    assert_eq!(num(&t, "Beta", "m1"), Some(0.6667));
    assert_eq!(num(&t, "Alfa", "m2"), Some(0.3333));
    assert_eq!(num(&t, "Alfa", "total"), Some(0.6667));
    s.design.weighting =
        Some(Weighting { source: "cuotas".into(), weights: BTreeMap::from([("m1".into(), 3.0), ("m2".into(), 1.0)]) });
    let t = table(&mut s, spec("A02", TableKind::BrandByModel, &[Metric::Mention]));
    // Alfa: 0.75 · 3/3 + 0.25 · 1/3.
    assert_eq!(num(&t, "Alfa", "total"), Some(0.8333));
    assert_eq!(num(&t, "Alfa", "m1"), Some(1.0));
    assert!(t.note.as_deref().is_some_and(|n| n.contains("cuota de mercado") && n.contains("cuotas")));
}

#[test]
fn dimension_tables_and_filters() {
    let mut s = fixture();
    let mut by_dim = spec("A03", TableKind::BrandByDimension, &[Metric::Prominence]);
    by_dim.dimension = Some("seccion".into());
    let t = table(&mut s, by_dim);
    assert_eq!(t.value_columns().collect::<Vec<_>>(), ["marca", "a", "b", "total"]);
    // Section b: R5 (Alfa 1st), R6 (Alfa 1st): 10.
    assert_eq!(num(&t, "Alfa", "b"), Some(10.0));

    let mut cross = spec("A04", TableKind::ModelByDimension, &[Metric::Mention]);
    cross.dimension = Some("seccion".into());
    cross.brand = Some("beta".into());
    let t = table(&mut s, cross);
    assert_eq!(t.row_keys().collect::<Vec<_>>(), ["m1", "m2", "total"]);
    // m2 in section a: R2 names Beta, R4 nothing → 1/2.
    assert_eq!(num(&t, "m2", "a"), Some(0.5));

    let mut filtered = spec("A05", TableKind::Brands, &[Metric::Mention]);
    filtered.filter = BTreeMap::from([("seccion".into(), "b".into())]);
    let t = table(&mut s, filtered);
    assert_eq!(num(&t, "Gama", "mencion"), Some(0.0));
    assert!(t.note.as_deref().is_some_and(|n| n.starts_with("Base: 2 respuestas (filtro: seccion = b)")));
}

#[test]
fn concentration_agreement_tone_and_sources() {
    let mut s = fixture();
    let t = table(&mut s, spec("A06", TableKind::Concentration, &[]));
    assert_eq!(t.cell("total", "lider"), Some(&Cell::Text("Alfa".into())));
    assert_eq!(num(&t, "total", "respuestas"), Some(6.0));
    // SoV 4/9, 4/9, 1/9 → (16 + 16 + 1) / 81 · 10,000 = 4074.0740…
    assert_eq!(num(&t, "total", "hhi_sov"), Some(4074.0741));
    assert_eq!(num(&t, "m2", "con_marca"), Some(0.6667));

    let t = table(&mut s, spec("A07", TableKind::Agreement, &[]));
    // q1: {A,B} vs {B}: J 1/2, top-1 differs. q2: {B,A,G} vs {}: J 0. q3: {A} vs {A,B}: J 1/2, match.
    assert_eq!(num(&t, "m1 vs m2", "jaccard"), Some(0.3333));
    assert_eq!(num(&t, "m1 vs m2", "top1_coincide"), Some(0.5));
    assert_eq!(num(&t, "m1 vs m2", "omitidas"), Some(0.0));

    let t = table(&mut s, spec("A08", TableKind::Tone, &[]));
    assert_eq!(t.row_keys().collect::<Vec<_>>(), ["Alfa", "Beta"]);
    assert_eq!(num(&t, "Alfa", "tono_neto"), Some(0.5));
    assert_eq!(num(&t, "Beta", "tono_neto"), Some(-1.0));

    let t = table(&mut s, spec("A09", TableKind::Sources, &[]));
    assert_eq!(t.row_keys().collect::<Vec<_>>(), ["alfa.com.ar", "infobae.com", "beta.com"]);
    assert_eq!(t.cell("beta.com", "marca"), Some(&Cell::Text("Beta".into())));
    assert_eq!(t.cell("infobae.com", "marca"), Some(&Cell::Null));
    assert_eq!(num(&t, "alfa.com.ar", "respuestas"), Some(2.0));
}

#[test]
fn findings_must_match_their_cells() {
    let mut s = fixture();
    s.design.analyses = vec![spec("A01", TableKind::Brands, &[Metric::Mention])];
    let finding = |value: f64, decimals: u32| Finding {
        id: "H1".into(),
        kind: "liderazgo".into(),
        section: "General".into(),
        text: "Alfa lidera".into(),
        text_en: "Alfa leads".into(),
        backing: vec![Backing {
            table: "A01".into(),
            row: "Alfa".into(),
            column: "mencion".into(),
            value,
            decimals,
            context: false,
            tie: false,
        }],
        evidence: vec!["R1".into()],
    };
    let tables = analyze(&s).expect("tables");
    let root = std::path::Path::new("content");
    s.findings = vec![finding(0.67, 2)];
    assert!(crate::validate::check_findings(root, &s, &tables).is_empty());
    s.findings = vec![finding(0.72, 2)];
    let problems = crate::validate::check_findings(root, &s, &tables);
    assert_eq!(problems.len(), 1);
    let text = problems.to_string();
    assert!(text.contains("hallazgos[0].respaldo[0].valor"), "{text}");
    assert!(text.contains("0.6667"), "{text}");
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let mut s = fixture();
    s.design.analyses = vec![spec("A01", TableKind::Brands, &Metric::ALL), spec("A02", TableKind::Agreement, &[])];
    let serial = analyze(&s).expect("tables");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("pool");
    let parallel: Vec<Vec<Table>> = pool.install(|| {
        use rayon::prelude::*;
        (0..8).into_par_iter().map(|_| analyze(&s).expect("tables")).collect()
    });
    assert!(parallel.iter().all(|t| *t == serial));
}
