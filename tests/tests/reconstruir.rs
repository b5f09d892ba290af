//! Rebuilding a study that was already sold: the real generator builds twice into one `dist/`
//! with one study changed in between. The build names the change (study, old and new sha256),
//! the new files take new names, and the sold ones stay in `dist/` under their old names: a
//! link issued before the rebuild still downloads, through the real gate over the rebuilt
//! `dist/`, the very bytes its purchase and receipt named, while a new purchase gets the new
//! files. `--descartar-anteriores` drops them and gives what a fresh build gives.

mod common;

use std::path::Path;

use common::gate::*;
use common::{copy_tree, read_json, sample_dir};
use generator::build::{BuildOptions, BuildSummary, build};
use serde_json::Value;

const CHANGED: &str = "farma-2026";
const UNCHANGED: &str = "cosmetica-2026";

fn build_into(content: &Path, out: &Path, discard_previous: bool) -> BuildSummary {
    let options = BuildOptions { content: content.to_owned(), out: out.to_owned(), quiet: true, discard_previous };
    build(&options).unwrap_or_else(|e| panic!("build failed: {e}"))
}

/// Buys `slug` (full view) and returns the purchase's answer.
async fn buy(gate: &TestGate, slug: &str) -> Value {
    let url = gate.url(&format!("/estudio/{slug}?vista=completo"));
    let purchase = gate::buyer::buy(&client(), &url, &signer(DEV_KEY), now()).await.expect("purchase");
    assert_eq!(purchase.status, 200, "{}", purchase.body);
    purchase.body
}

/// Downloads both files of a purchase through its signed links, checking the sha256 it named.
async fn download_both(gate: &TestGate, body: &Value, into: &Path) {
    for kind in ["json", "zip"] {
        let file = &body["acceso"]["descargas"][kind];
        let dest = into.join(format!("{}-{kind}", file["sha256"].as_str().expect("sha256")));
        gate::buyer::download_verified(
            &client(),
            &gate.local_url(file["url"].as_str().expect("url")),
            file["sha256"].as_str().expect("sha256"),
            &dest,
        )
        .await
        .unwrap_or_else(|e| panic!("{kind} of {}: {e:#}", body["estudio"]));
    }
}

fn sha_of(body: &Value, kind: &str) -> String {
    body["acceso"]["descargas"][kind]["sha256"].as_str().expect("sha256").to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebuilt_study_keeps_its_sold_files_for_the_links_already_issued() {
    let work = tempfile::tempdir().expect("work");
    let content = work.path().join("content");
    for file in ["servicio.toml", "metricas.toml"] {
        std::fs::create_dir_all(&content).expect("mkdir");
        std::fs::copy(sample_dir().join(file), content.join(file)).expect("copy");
    }
    for slug in [CHANGED, UNCHANGED] {
        copy_tree(&sample_dir().join("estudios").join(slug), &content.join("estudios").join(slug));
    }
    let dist = work.path().join("dist");
    let first = build_into(&content, &dist, false);
    assert!(first.changed.is_empty(), "{:?}", first.changed);
    let fresh_sums = std::fs::read_to_string(dist.join("SHA256SUMS")).expect("sums");

    // A purchase before the rebuild: its links and receipt name the first build's files.
    let before = {
        let gate = start_local(&dist);
        let body = buy(&gate, CHANGED).await;
        assert!(body["liquidacion"]["recibo"].is_object() || body["liquidacion"]["recibo"].is_string(), "{body}");
        body
    };
    let unchanged_before = read_json(&dist.join("gate.json"))["descargas"][format!("{UNCHANGED}.zip")].clone();

    // The same content again: nothing changed, nothing kept, the same bytes.
    let again = build_into(&content, &dist, false);
    assert!(again.changed.is_empty(), "{:?}", again.changed);
    assert_eq!(std::fs::read_to_string(dist.join("SHA256SUMS")).expect("sums"), fresh_sums);

    // The publisher edits the study and rebuilds into the same dist/.
    let settings = content.join("estudios").join(CHANGED).join("estudio.toml");
    let text = std::fs::read_to_string(&settings).expect("estudio.toml");
    assert!(text.contains("version_paquete = \"1.0.0\""));
    std::fs::write(&settings, text.replace("version_paquete = \"1.0.0\"", "version_paquete = \"1.0.1\""))
        .expect("edit");
    let rebuilt = build_into(&content, &dist, false);
    assert_eq!(rebuilt.changed.len(), 2, "the JSON package and the ZIP: {:?}", rebuilt.changed);
    for (warning, kind) in rebuilt.changed.iter().zip(["json", "zip"]) {
        let old = sha_of(&before, kind);
        assert!(warning.contains(CHANGED) && warning.contains(&old), "{warning}");
        assert!(warning.contains("--descartar-anteriores") && warning.contains("7 días"), "{warning}");
    }
    let manifest = read_json(&dist.join("gate.json"));
    let downloads = manifest["descargas"].as_object().expect("descargas");
    for kind in ["json", "zip"] {
        let plain = format!("{CHANGED}.{kind}");
        let kept = &downloads[&plain];
        assert_eq!(kept["sha256"], sha_of(&before, kind), "{plain} keeps the sold bytes");
        assert_eq!(kept["anterior_de"], CHANGED);
        let current = manifest["estudios"][CHANGED]["descargas"].as_array().expect("names");
        assert!(!current.contains(&Value::from(plain.clone())), "new purchases get the new file");
    }
    let new_names: Vec<String> = manifest["estudios"][CHANGED]["descargas"]
        .as_array()
        .expect("names")
        .iter()
        .map(|n| n.as_str().expect("name").to_owned())
        .collect();
    for (name, kind) in new_names.iter().zip(["json", "zip"]) {
        let sha = downloads[name]["sha256"].as_str().expect("sha256");
        assert_eq!(name, &format!("{CHANGED}.{}.{kind}", &sha[..12]));
        assert!(rebuilt.changed.iter().any(|w| w.contains(name.as_str()) && w.contains(sha)), "{:?}", rebuilt.changed);
        assert!(downloads[name].get("anterior_de").is_none());
    }
    assert_eq!(downloads[&format!("{UNCHANGED}.zip")], unchanged_before, "an unchanged study keeps its name and bytes");
    let sums = std::fs::read_to_string(dist.join("SHA256SUMS")).expect("sums");
    for kind in ["json", "zip"] {
        assert!(sums.contains(&format!("{}  private/descargas/{CHANGED}.{kind}\n", sha_of(&before, kind))), "{sums}");
    }

    // The gate over the rebuilt dist/: the old links open the old bytes, a new purchase gets
    // the new ones under the new names.
    let gate = start_local(&dist);
    let files = tempfile::tempdir().expect("files");
    download_both(&gate, &before, files.path()).await;
    let after = buy(&gate, CHANGED).await;
    for (kind, name) in ["json", "zip"].into_iter().zip(&new_names) {
        assert_ne!(sha_of(&after, kind), sha_of(&before, kind), "{kind}");
        assert_eq!(after["acceso"]["descargas"][kind]["archivo"], name.as_str());
    }
    download_both(&gate, &after, files.path()).await;
    drop(gate);

    // Another rebuild keeps carrying the sold files; discarding them gives a fresh build.
    let carried = build_into(&content, &dist, false);
    assert!(carried.changed.is_empty(), "{:?}", carried.changed);
    assert_eq!(std::fs::read_to_string(dist.join("SHA256SUMS")).expect("sums"), sums);
    let discarded = build_into(&content, &dist, true);
    assert!(discarded.changed.is_empty());
    let fresh = work.path().join("fresh");
    build_into(&content, &fresh, false);
    let discarded_sums = std::fs::read_to_string(dist.join("SHA256SUMS")).expect("sums");
    assert_eq!(discarded_sums, std::fs::read_to_string(fresh.join("SHA256SUMS")).expect("sums"));
    assert!(!discarded_sums.contains(&sha_of(&before, "zip")));
    assert!(!std::fs::read_to_string(dist.join("gate.json")).expect("gate.json").contains("anterior_de"));
}

#[test]
fn a_study_no_longer_in_the_content_keeps_its_sold_files_and_is_named() {
    let work = tempfile::tempdir().expect("work");
    let content = work.path().join("content");
    for file in ["servicio.toml", "metricas.toml"] {
        std::fs::create_dir_all(&content).expect("mkdir");
        std::fs::copy(sample_dir().join(file), content.join(file)).expect("copy");
    }
    for slug in [CHANGED, UNCHANGED] {
        copy_tree(&sample_dir().join("estudios").join(slug), &content.join("estudios").join(slug));
    }
    let dist = work.path().join("dist");
    build_into(&content, &dist, false);
    let sold = read_json(&dist.join("gate.json"))["descargas"][format!("{CHANGED}.zip")].clone();
    std::fs::remove_dir_all(content.join("estudios").join(CHANGED)).expect("remove");
    let rebuilt = build_into(&content, &dist, false);
    assert_eq!(rebuilt.changed.len(), 1, "{:?}", rebuilt.changed);
    assert!(rebuilt.changed[0].contains(CHANGED) && rebuilt.changed[0].contains("ya no está"), "{:?}", rebuilt.changed);
    let manifest = read_json(&dist.join("gate.json"));
    assert!(manifest["estudios"].get(CHANGED).is_none());
    assert_eq!(manifest["descargas"][format!("{CHANGED}.zip")]["sha256"], sold["sha256"]);
    assert_eq!(manifest["descargas"][format!("{CHANGED}.zip")]["anterior_de"], CHANGED);
    // A tampered kept file stops the next build, naming it.
    std::fs::write(dist.join(format!("private/descargas/{CHANGED}.zip")), b"otro").expect("tamper");
    let options = BuildOptions { content: content.clone(), out: dist.clone(), quiet: true, discard_previous: false };
    let error = build(&options).expect_err("tampered").to_string();
    assert!(error.contains(&format!("{CHANGED}.zip")) && error.contains("sha256"), "{error}");
}
