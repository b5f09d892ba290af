//! `generator check` as a publisher runs it: on the real content, and on a broken copy.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{content_dir, copy_tree};

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
fn the_real_content_passes() {
    let output = check(&content_dir());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("correcto — 9 estudios"), "{stdout}");
}

#[test]
fn a_broken_copy_lists_every_problem_with_its_place() {
    let work = tempfile::tempdir().expect("temp");
    let content = work.path().join("content");
    copy_tree(&content_dir(), &content);
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

    let cosmetica = questions.display().to_string();
    assert!(stderr.contains(&format!("{cosmetica}: línea 3: JSON inválido")), "bad JSON line:\n{stderr}");
    let banca = answers.display().to_string();
    assert!(
        stderr.contains(&format!("{banca}: línea 2, campo `pregunta`: `P-NO-EXISTE` no está en preguntas.jsonl")),
        "unknown question:\n{stderr}"
    );
    assert!(
        stderr.contains(&format!("{banca}: línea 3, campo `modelo`: `gpt-9-turbo` no está en `modelos`")),
        "unknown model:\n{stderr}"
    );
    assert!(
        stderr.contains(&format!("{banca}: línea 5, campo `id`: `{first_id}` está repetido")),
        "duplicate id:\n{stderr}"
    );
    let seguros = findings.display().to_string();
    assert!(stderr.contains(&seguros) && stderr.contains(".valor: el hallazgo"), "finding off by 0.05:\n{stderr}");
    assert!(stderr.lines().last().is_some_and(|l| l.ends_with("problemas")), "a count closes the list:\n{stderr}");
    assert!(n_questions > 3);
}

#[test]
fn missing_files_and_type_errors_are_located() {
    let work = tempfile::tempdir().expect("temp");
    let content = work.path().join("content");
    copy_tree(&content_dir(), &content);
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
