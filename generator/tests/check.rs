//! `generator check` as a publisher runs it: on the sample content, and on a broken copy.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{copy_tree, sample_dir};

fn check(content: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_generator"))
        .arg("check")
        .arg("--content")
        .arg(content)
        .output()
        .expect("generator runs")
}

/// Replaces line `n` (1-based) of a file.
fn edit_line(path: &Path, n: usize, edit: impl FnOnce(&str) -> String) {
    let text = std::fs::read_to_string(path).expect("read");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[n - 1] = edit(&lines[n - 1]);
    std::fs::write(path, lines.join("\n") + "\n").expect("write");
}

fn field(line: &str, name: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(line).expect("json line");
    value[name].as_str().expect("string field").to_owned()
}

#[test]
fn the_sample_content_passes() {
    let output = check(&sample_dir());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("correcto — 9 estudios"), "{stdout}");
}

#[test]
fn a_broken_copy_lists_every_problem_with_its_place() {
    let work = tempfile::tempdir().expect("temp");
    let content = work.path().join("content");
    copy_tree(&sample_dir(), &content);
    let study = |slug: &str, file: &str| content.join("estudios").join(slug).join(file);

    // 1. A bad JSON line in one study's questions.
    let questions = study("cosmetica-2026", "preguntas.jsonl");
    let n_questions = std::fs::read_to_string(&questions).expect("read").lines().count();
    edit_line(&questions, 3, |line| line.replacen('}', "", 1));

    // 2-4. Another study's answers: unknown question, unknown model, duplicate id.
    let answers = study("banca-2026", "respuestas.jsonl");
    edit_line(&answers, 2, |line| {
        line.replacen(&format!("\"pregunta\":\"{}\"", field(line, "pregunta")), "\"pregunta\":\"P-NO-EXISTE\"", 1)
    });
    edit_line(&answers, 3, |line| {
        line.replacen(&format!("\"modelo\":\"{}\"", field(line, "modelo")), "\"modelo\":\"gpt-9-turbo\"", 1)
    });
    let first_id = field(std::fs::read_to_string(&answers).expect("read").lines().next().expect("line"), "id");
    edit_line(&answers, 5, |line| {
        line.replacen(&format!("\"id\":\"{}\"", field(line, "id")), &format!("\"id\":\"{first_id}\""), 1)
    });

    // 5. A finding value off by 0.05 in a third study.
    let findings = study("seguros-automotores-2026", "hallazgos.toml");
    let text = std::fs::read_to_string(&findings).expect("read");
    let line = text.lines().position(|l| l.trim_start().starts_with("valor = ")).expect("a backed finding") + 1;
    edit_line(&findings, line, |l| {
        let value: f64 = l.trim_start().trim_start_matches("valor = ").parse().expect("number");
        format!("valor = {}", value + 0.05)
    });

    let output = check(&content);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "broken content must fail");
    assert_eq!(output.status.code(), Some(1));

    let cosmetics = questions.display().to_string();
    assert!(stderr.contains(&format!("{cosmetics}: línea 3: JSON inválido")), "bad JSON line:\n{stderr}");
    let banking = answers.display().to_string();
    assert!(
        stderr.contains(&format!("{banking}: línea 2, campo `pregunta`: `P-NO-EXISTE` no está en preguntas.jsonl")),
        "unknown question:\n{stderr}"
    );
    assert!(
        stderr.contains(&format!("{banking}: línea 3, campo `modelo`: `gpt-9-turbo` no está en `modelos`")),
        "unknown model:\n{stderr}"
    );
    assert!(
        stderr.contains(&format!("{banking}: línea 5, campo `id`: `{first_id}` está repetido")),
        "duplicate id:\n{stderr}"
    );
    let insurance = findings.display().to_string();
    assert!(stderr.contains(&insurance) && stderr.contains(".valor: el hallazgo"), "finding off by 0.05:\n{stderr}");
    assert!(stderr.lines().last().is_some_and(|l| l.ends_with("problemas")), "a count closes the list:\n{stderr}");
    assert!(n_questions > 3);
}

#[test]
fn missing_files_and_type_errors_are_located() {
    let work = tempfile::tempdir().expect("temp");
    let content = work.path().join("content");
    copy_tree(&sample_dir(), &content);
    std::fs::remove_file(content.join("estudios/farma-2026/marcas.toml")).expect("remove");
    let service = content.join("servicio.toml");
    let text = std::fs::read_to_string(&service).expect("read");
    std::fs::write(&service, text.replace("vigencia_enlaces_dias = 7", "vigencia_enlaces_dias = \"siete\""))
        .expect("write");

    let output = check(&content);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("farma-2026/marcas.toml: falta el archivo"), "{stderr}");
    assert!(stderr.contains("servicio.toml: línea") && stderr.contains("campo `vigencia_enlaces_dias`"), "{stderr}");
}

/// Appends a finding comparing two brands' mention rates in `table` (both values as the
/// table publishes them) to a study's findings; `empate` marks the second backing.
fn append_comparison(findings: &Path, table: &str, a: (&str, f64), b: (&str, f64), tie: bool) {
    let mut text = std::fs::read_to_string(findings).expect("read");
    text.push_str(&format!(
        "\n[[hallazgos]]\nid = \"H99\"\ntipo = \"brecha\"\nseccion = \"Prueba\"\ntexto = \"t\"\ntexto_en = \"t\"\nevidencia = []\n\n\
         [[hallazgos.respaldo]]\ntabla = \"{table}\"\nfila = \"{}\"\ncolumna = \"mencion\"\nvalor = {}\ndecimales = 4\n\n\
         [[hallazgos.respaldo]]\ntabla = \"{table}\"\nfila = \"{}\"\ncolumna = \"mencion\"\nvalor = {}\ndecimales = 4\n{}",
        a.0,
        a.1,
        b.0,
        b.1,
        if tie { "empate = true\n" } else { "" }
    ));
    std::fs::write(findings, text).expect("write");
}

#[test]
fn a_comparison_the_intervals_do_not_support_is_a_warning() {
    let work = tempfile::tempdir().expect("temp");
    let content = work.path().join("content");
    copy_tree(&sample_dir(), &content);
    // The two brands of farma-2026's brand table with the closest mention rates, whose
    // intervals overlap; and the first and last brands, whose intervals do not.
    let checked = generator::check(&content).unwrap_or_else(|p| panic!("{p}"));
    let study = checked.content.studies.iter().position(|s| s.slug == "farma-2026").expect("farma");
    let table = checked.tables[study].iter().find(|t| t.id == "A01").expect("A01");
    let rows: Vec<(String, f64, (f64, f64))> = table
        .row_keys()
        .filter_map(|k| {
            let value = table.cell(k, "mencion")?.as_f64()?;
            let (_, ic95) = table.uncertainty(k, "mencion")?;
            Some((k.to_owned(), value, ic95?))
        })
        .collect();
    let close = rows
        .windows(2)
        .filter(|w| w[0].2.0 <= w[1].2.1 && w[1].2.0 <= w[0].2.1)
        .min_by(|x, y| (x[0].1 - x[1].1).total_cmp(&(y[0].1 - y[1].1)))
        .expect("two brands with overlapping intervals");
    let (first, last) = (rows.first().expect("rows"), rows.last().expect("rows"));
    assert!(first.2.0 > last.2.1, "the leader and the last brand differ at 95%");
    let findings = content.join("estudios/farma-2026/hallazgos.toml");
    let original = std::fs::read_to_string(&findings).expect("read");

    // A claimed difference that does not hold: a warning, and the check still succeeds.
    append_comparison(&findings, "A01", (&close[0].0, close[0].1), (&close[1].0, close[1].1), false);
    let output = check(&content);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "warnings do not fail the check:\n{stderr}");
    let warning = stderr.lines().find(|l| l.contains("(H99)")).unwrap_or_else(|| panic!("no warning:\n{stderr}"));
    assert!(warning.starts_with("aviso: ") && warning.contains("afirma una diferencia"), "{warning}");
    assert!(warning.contains("no se sostiene al 95 %"), "{warning}");

    // The same pair declared a tie: supported, no warning.
    std::fs::write(&findings, &original).expect("write");
    append_comparison(&findings, "A01", (&close[0].0, close[0].1), (&close[1].0, close[1].1), true);
    let stderr = String::from_utf8_lossy(&check(&content).stderr).into_owned();
    assert!(!stderr.contains("(H99)"), "{stderr}");

    // A tie claimed between values that do differ: a warning.
    std::fs::write(&findings, &original).expect("write");
    append_comparison(&findings, "A01", (&first.0, first.1), (&last.0, last.1), true);
    let stderr = String::from_utf8_lossy(&check(&content).stderr).into_owned();
    let warning = stderr.lines().find(|l| l.contains("(H99)")).unwrap_or_else(|| panic!("no warning:\n{stderr}"));
    assert!(warning.contains("afirma un empate") && warning.contains("se sostiene al 95 %"), "{warning}");
}

#[test]
fn names_ending_like_interval_columns_are_reserved() {
    let work = tempfile::tempdir().expect("temp");
    let content = work.path().join("content");
    copy_tree(&sample_dir(), &content);
    let design = content.join("estudios/farma-2026/estudio.toml");
    let text = std::fs::read_to_string(&design).expect("read");
    // The first `id = "…"` after `[[modelos]]` is a model id; rename it everywhere.
    let models = text.find("[[modelos]]").expect("models");
    let id = text[models..]
        .lines()
        .find_map(|l| l.trim().strip_prefix("id = \"").and_then(|rest| rest.strip_suffix('"')))
        .expect("a model id")
        .to_owned();
    let renamed = format!("{id}_n");
    std::fs::write(&design, text.replace(&format!("\"{id}\""), &format!("\"{renamed}\""))).expect("write");
    let answers = content.join("estudios/farma-2026/respuestas.jsonl");
    let lines = std::fs::read_to_string(&answers).expect("read");
    std::fs::write(&answers, lines.replace(&format!("\"modelo\":\"{id}\""), &format!("\"modelo\":\"{renamed}\"")))
        .expect("write");
    let output = check(&content);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains(&format!("`{renamed}` es un nombre reservado de las tablas")), "{stderr}");
}

/// Appends a finding H98 backed by one change cell `<metric>_diferencia`.
fn append_change_claim(findings: &Path, table: &str, row: &str, value: f64, tie: bool) {
    let mut text = std::fs::read_to_string(findings).expect("read");
    text.push_str(&format!(
        "\n[[hallazgos]]\nid = \"H98\"\ntipo = \"cambio\"\nseccion = \"Prueba\"\ntexto = \"t\"\ntexto_en = \"t\"\nevidencia = []\n\n\
         [[hallazgos.respaldo]]\ntabla = \"{table}\"\nfila = \"{row}\"\ncolumna = \"mencion_diferencia\"\nvalor = {value}\ndecimales = 4\n{}",
        if tie { "empate = true\n" } else { "" }
    ));
    std::fs::write(findings, text).expect("write");
}

#[test]
fn a_change_its_verdict_does_not_bear_out_is_a_warning() {
    use generator::metrics::analysis::Cell;
    use generator::metrics::change::{GREW, NO_CHANGE};

    let work = tempfile::tempdir().expect("temp");
    let content = work.path().join("content");
    copy_tree(&sample_dir(), &content);
    let checked = generator::check(&content).unwrap_or_else(|p| panic!("{p}"));
    // The sample content claims no change the data do not bear out.
    assert!(!checked.warnings.to_string().contains("afirma un cambio"), "{}", checked.warnings);
    let slug = "seguros-automotores-2026";
    let study = checked.content.studies.iter().position(|s| s.slug == slug).expect("seguros");
    let table = checked.changes[study].iter().find(|t| t.id == "cambio_total").expect("cambio_total");
    let cells: Vec<(String, f64, String)> = table
        .row_keys()
        .filter_map(|k| {
            let d = table.cell(k, "mencion_diferencia")?.as_f64()?;
            match table.cell(k, "mencion_veredicto")? {
                Cell::Text(v) => Some((k.to_owned(), d, v.clone())),
                _ => None,
            }
        })
        .collect();
    let noise = cells.iter().find(|c| c.2 == NO_CHANGE && c.1 != 0.0).expect("a change within the noise");
    let grew = cells.iter().find(|c| c.2 == GREW).expect("a brand that grew");
    let findings = content.join(format!("estudios/{slug}/hallazgos.toml"));
    let original = std::fs::read_to_string(&findings).expect("read");

    // A change claimed where the interval holds 0: a warning; the check still succeeds.
    append_change_claim(&findings, "cambio_total", &noise.0, noise.1, false);
    let output = check(&content);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "warnings do not fail the check:\n{stderr}");
    let warning = stderr.lines().find(|l| l.contains("(H98)")).unwrap_or_else(|| panic!("no warning:\n{stderr}"));
    assert!(warning.starts_with("aviso: ") && warning.contains("afirma un cambio"), "{warning}");
    assert!(warning.contains(NO_CHANGE), "{warning}");

    // The same cell claimed as no change (empate): no warning.
    std::fs::write(&findings, &original).expect("write");
    append_change_claim(&findings, "cambio_total", &noise.0, noise.1, true);
    let stderr = String::from_utf8_lossy(&check(&content).stderr).into_owned();
    assert!(!stderr.contains("(H98)"), "{stderr}");

    // A real rise claimed as a rise: no warning; claimed as no change: a warning.
    std::fs::write(&findings, &original).expect("write");
    append_change_claim(&findings, "cambio_total", &grew.0, grew.1, false);
    let stderr = String::from_utf8_lossy(&check(&content).stderr).into_owned();
    assert!(!stderr.contains("(H98)"), "{stderr}");
    std::fs::write(&findings, &original).expect("write");
    append_change_claim(&findings, "cambio_total", &grew.0, grew.1, true);
    let stderr = String::from_utf8_lossy(&check(&content).stderr).into_owned();
    assert!(stderr.lines().any(|l| l.contains("(H98)") && l.contains("afirma un cambio")), "{stderr}");

    // A change the 95% interval bears out alone, which the study's family of tests does not:
    // claimed as a rise, a warning that names the adjusted interval.
    let alone = table
        .row_keys()
        .find(|k| {
            let excludes_zero =
                matches!(table.cell(k, "mencion_diferencia_ic95"), Some(Cell::Interval(l, _)) if *l > 0.0);
            excludes_zero && table.cell(k, "mencion_veredicto") == Some(&Cell::Text(NO_CHANGE.into()))
        })
        .expect("a rise at 95% that the multiplicity control does not keep");
    let d = table.cell(alone, "mencion_diferencia").and_then(Cell::as_f64).expect("difference");
    std::fs::write(&findings, &original).expect("write");
    append_change_claim(&findings, "cambio_total", alone, d, false);
    let stderr = String::from_utf8_lossy(&check(&content).stderr).into_owned();
    let warning = stderr.lines().find(|l| l.contains("(H98)")).unwrap_or_else(|| panic!("no warning:\n{stderr}"));
    assert!(warning.contains("intervalo ajustado por multiplicidad") && warning.contains(NO_CHANGE), "{warning}");

    // A change table the study does not have is an error.
    std::fs::write(&findings, &original).expect("write");
    append_change_claim(&findings, "cambio_gpt-9", &grew.0, grew.1, false);
    let output = check(&content);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("ni una tabla de cambio"));
}
