//! Repetitions native to the content model, checked by hand: the same six answers, written once as
//! 2 questions × 3 repetitions and once as 6 questions × 1 answer. The mention rate is the same
//! (3/6), but with repetitions the answers to one question are one cluster, so the interval widens
//! as it should; and two answers with the same repetition of one (question, model) are refused.

#![allow(clippy::unwrap_used)] // helpers of the tests panic on failure, like the tests

use std::path::Path;

use generator::metrics::analysis::Cell;

const STUDY: &str = r#"nombre = "Repeticiones"
nombre_en = "Repetitions"
descripcion = "Caso verificado a mano."
descripcion_en = "Hand-checked case."
industria = "Telecomunicaciones"
subindustria = "Telefonía móvil"
pais = ["Argentina"]
idioma = ["es"]
publicado = "2026-04-15"
version_paquete = "1.0.0"
tags = []
como_citar = "Prueba."
nota = "Prueba."
dimensiones = []

[[metodologia]]
titulo = "Diseño"
texto = "Prueba."

[[modelos]]
id = "gpt-5-mini"
nombre = "GPT-5 mini"
proveedor = "OpenAI"
nivel = "estándar"

[[analisis]]
id = "A01"
nombre = "visibilidad"
titulo = "Visibilidad"
titulo_en = "Visibility"
tipo = "marcas"
metricas = ["mencion"]
"#;

const BRANDS: &str = "[[marcas]]\nid = \"movistar\"\nnombre = \"Movistar\"\ndominios = [\"movistar.com.ar\"]\n";

fn repo() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A content folder with one study whose answers are `answers` (JSON lines) to `questions`.
fn content(root: &Path, questions: &[&str], answers: &[String]) -> generator::Checked {
    write(root, questions, answers);
    generator::check(root).unwrap_or_else(|p| panic!("{p}"))
}

fn write(root: &Path, questions: &[&str], answers: &[String]) {
    let study = root.join("estudios/repeticiones-2026");
    std::fs::create_dir_all(&study).unwrap();
    for file in ["servicio.toml", "metricas.toml"] {
        std::fs::copy(repo().join("tests/muestra").join(file), root.join(file)).unwrap();
    }
    std::fs::write(study.join("estudio.toml"), STUDY).unwrap();
    std::fs::write(study.join("marcas.toml"), BRANDS).unwrap();
    std::fs::write(study.join("hallazgos.toml"), "").unwrap();
    let questions: String = questions
        .iter()
        .map(|q| format!("{{\"id\":\"{q}\",\"texto\":\"¿Qué compañía me conviene?\",\"idioma\":\"es\",\"modelo\":\"estándar\"}}\n"))
        .collect();
    std::fs::write(study.join("preguntas.jsonl"), questions).unwrap();
    std::fs::write(study.join("respuestas.jsonl"), answers.join("\n") + "\n").unwrap();
}

fn answer(id: &str, question: &str, repetition: Option<u32>, names_movistar: bool) -> String {
    let text = if names_movistar { "Movistar tiene los mejores planes." } else { "Depende de la zona." };
    let repetition = repetition.map(|r| format!(",\"repeticion\":{r}")).unwrap_or_default();
    format!(
        "{{\"id\":\"{id}\",\"pregunta\":\"{question}\",\"modelo\":\"gpt-5-mini\",\"version\":\"gpt-5-mini-2025-08-07\",\"fecha\":\"2026-04-02\",\"respuesta\":\"{text}\"{repetition}}}"
    )
}

fn mention(checked: &generator::Checked) -> (f64, f64, (f64, f64)) {
    let table = checked.tables[0].iter().find(|t| t.id == "A01").unwrap();
    let num = |c: &str| match table.cell("Movistar", c) {
        Some(Cell::Num(v)) => *v,
        other => panic!("{c}: {other:?}"),
    };
    let interval = match table.cell("Movistar", "mencion_ic95") {
        Some(Cell::Interval(low, high)) => (*low, *high),
        other => panic!("{other:?}"),
    };
    (num("mencion"), num("mencion_n_ef"), interval)
}

/// Wilson's interval for a rate `r` with `n` answers, z = 1.959964 (`docs/src/publicar/metricas.md`).
fn wilson(r: f64, n: f64) -> (f64, f64) {
    let z: f64 = 1.959964;
    let center = (r + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (r * (1.0 - r) / n + z * z / (4.0 * n * n)).sqrt();
    ((center - half).max(0.0), (center + half).min(1.0))
}

#[test]
fn repeated_answers_that_agree_widen_the_interval() {
    // P1 asked three times: Movistar every time. P2 asked three times: never.
    let repeated = tempfile::tempdir().unwrap();
    let answers: Vec<String> = (1..=3)
        .flat_map(|r| {
            [answer(&format!("P1-r{r}"), "P1", Some(r), true), answer(&format!("P2-r{r}"), "P2", Some(r), false)]
        })
        .collect();
    let (rate, n_ef, interval) = mention(&content(repeated.path(), &["P1", "P2"], &answers));
    // By hand: R = 3/6 = 0.5; each answer weighs c = 1/6. Cluster P1 adds 3·c·(1 − 0.5) = 0.25,
    // cluster P2 adds 3·c·(0 − 0.5) = −0.25; V = (0.25² + 0.25²) / (6·c)² = 0.125;
    // n_ef = min(R(1 − R)/V, n_kish) = min(0.25/0.125, 6) = 2.
    assert_eq!(rate, 0.5);
    assert!((n_ef - 2.0).abs() < 1e-9, "n_ef {n_ef}");
    let expected = wilson(0.5, 2.0);
    assert!(
        (interval.0 - expected.0).abs() < 1e-4 && (interval.1 - expected.1).abs() < 1e-4,
        "{interval:?} vs {expected:?}"
    );

    // The same six answers as six questions of one answer each: six clusters.
    let separate = tempfile::tempdir().unwrap();
    let questions = ["P1", "P2", "P3", "P4", "P5", "P6"];
    let answers: Vec<String> =
        questions.iter().enumerate().map(|(i, q)| answer(&format!("R{i}"), q, None, i % 2 == 0)).collect();
    let (rate_s, n_ef_s, interval_s) = mention(&content(separate.path(), &questions, &answers));
    // V = 6 · (c · 0.5)² / 1 = 6 · (1/12)² = 1/24; n_ef = 0.25 · 24 = 6.
    assert_eq!(rate_s, 0.5);
    assert!((n_ef_s - 6.0).abs() < 1e-9, "n_ef {n_ef_s}");
    let expected = wilson(0.5, 6.0);
    assert!((interval_s.0 - expected.0).abs() < 1e-4 && (interval_s.1 - expected.1).abs() < 1e-4);

    // Wilson with n = 2 is [0.0945, 0.9055]; with n = 6, [0.1876, 0.8124].
    assert_eq!((interval, interval_s), ((0.0945, 0.9055), (0.1876, 0.8124)));
    assert!(interval.1 - interval.0 > interval_s.1 - interval_s.0 + 0.18);
}

#[test]
fn one_answer_per_question_model_and_repetition() {
    let root = tempfile::tempdir().unwrap();
    let answers =
        [answer("A", "P1", Some(1), true), answer("B", "P1", Some(2), true), answer("C", "P1", Some(2), false)];
    let study = root.path().join("estudios/repeticiones-2026");
    write(root.path(), &["P1"], &answers);
    let problems = generator::check(root.path()).err().expect("a repeated repetition is refused").to_string();
    assert!(problems.contains("ya tiene respuesta de `gpt-5-mini` en la repetición 2, en la línea 2"), "{problems}");
    // Without `repeticion`, a second answer is refused with the advice to number them.
    let answers = [answer("A", "P1", None, true), answer("B", "P1", None, true)];
    std::fs::write(study.join("respuestas.jsonl"), answers.join("\n") + "\n").unwrap();
    let problems = generator::check(root.path()).err().expect("refused").to_string();
    assert!(problems.contains("numere las repeticiones con `repeticion`"), "{problems}");
}
