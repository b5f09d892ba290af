//! The committed PDF reports are exactly what `generator informes` renders from today's
//! content: re-rendered here and compared byte for byte. Needs typst, so it only runs with
//! `cargo test -p generator --features pdf --test informes_pdf`.

#![cfg(feature = "pdf")]

mod common;

use std::process::Command;

use common::{copy_tree, sample_dir};
use generator::render::report::pdf::render_reports;
use generator::render::site::Site;

#[test]
fn committed_reports_are_reproduced_byte_for_byte() {
    let checked = generator::check(&sample_dir()).unwrap_or_else(|p| panic!("content checks: {p}"));
    let site = Site::new(&checked.content);
    let (mut compared, mut with_changes) = (0, 0);
    let studies =
        checked.content.studies.iter().zip(&checked.tables).zip(&checked.changes).zip(&checked.change_families);
    for (((study, tables), changes), family) in studies {
        if study.reports.is_empty() {
            continue;
        }
        with_changes += usize::from(!changes.is_empty());
        let first = render_reports(&site, study, tables, changes, family.as_ref()).expect("reports render");
        let again = render_reports(&site, study, tables, changes, family.as_ref()).expect("reports render twice");
        let names: Vec<&str> = first.iter().map(|r| r.name.as_str()).collect();
        let committed: Vec<&str> = study.reports.iter().map(|(n, _)| n.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(sorted, committed, "{}: the committed reports are the rendered ones", study.slug);
        for (r, r2) in first.iter().zip(&again) {
            assert!(r.bytes == r2.bytes, "{} {}: two renders in one process differ", study.slug, r.name);
            let (_, bytes) = study.reports.iter().find(|(n, _)| *n == r.name).expect("committed");
            assert!(
                *bytes == r.bytes,
                "{} {}: committed PDF is stale; run `cargo run -p generator --features pdf -- informes`",
                study.slug,
                r.name
            );
            compared += 1;
        }
    }
    assert!(compared >= 10, "five studies × two languages, compared {compared}");
    assert!(with_changes >= 1, "a study compared with its previous run is among them");
}

#[test]
fn a_separate_process_renders_the_same_bytes() {
    let dir = tempfile::tempdir().expect("temp");
    let content = dir.path().join("content");
    copy_tree(&sample_dir(), &content);
    let status = Command::new(env!("CARGO_BIN_EXE_generator"))
        .args(["informes", "--content"])
        .arg(&content)
        .status()
        .expect("generator runs");
    assert!(status.success());
    let mut compared = 0;
    for entry in std::fs::read_dir(content.join("estudios")).expect("studies") {
        let study = entry.expect("entry").path();
        let reports = study.join("informes");
        if !reports.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&reports).expect("reports") {
            let path = file.expect("file").path();
            let original = sample_dir().join(path.strip_prefix(&content).expect("prefix"));
            assert!(
                std::fs::read(&path).expect("new") == std::fs::read(&original).expect("committed"),
                "{} differs from the committed file",
                original.display()
            );
            compared += 1;
        }
    }
    assert!(compared >= 8, "compared {compared}");
}

#[test]
fn without_reports_and_without_a_choice_it_says_what_to_do() {
    let dir = tempfile::tempdir().expect("temp");
    let content = dir.path().join("content");
    copy_tree(&sample_dir(), &content);
    for entry in std::fs::read_dir(content.join("estudios")).expect("studies") {
        let _ = std::fs::remove_dir_all(entry.expect("entry").path().join("informes"));
    }
    let out = Command::new(env!("CARGO_BIN_EXE_generator"))
        .args(["informes", "--content"])
        .arg(&content)
        .output()
        .expect("generator runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--estudio"));
    let out = Command::new(env!("CARGO_BIN_EXE_generator"))
        .args(["informes", "--estudio", "no-existe", "--content"])
        .arg(&content)
        .output()
        .expect("generator runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-existe"));
}
