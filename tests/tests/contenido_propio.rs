//! The publisher's own content: whatever studies the content folder holds (`content/`, or the
//! folder named by `TIENDA_CONTENIDO`), it checks and builds, two builds give the same bytes,
//! every price the documents state is the study's own, and every study sells through the real
//! gate (in local mode, on a copy), both views, with both files downloaded and their sha256
//! checked. These tests name no study and no figure, so they pass with any valid content; the
//! tests about the sample's figures read `tests/muestra/` instead ([`common::sample_dir`]).
//!
//! The same checks run on two folders made from the sample: one study priced apart from the
//! service's default (what a publisher who replaced the samples with one study has), and two
//! studies at different prices. `./tienda probar` also runs this binary with `TIENDA_CONTENIDO`
//! set to a one-study folder, with the independent recomputation.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::gate::*;
use common::{copy_tree, publisher_content, read_json, sample_dir, sha256_hex};
use gate::facilitator::local::{LocalConfig, LocalFacilitator};

/// A copy of `content` that sells in local mode at the address the test gate rewrites
/// ([`BUILT_BASE_URL`]): the publisher's `modo` and `base_url` replaced, nothing else.
fn local_copy(content: &Path, into: &Path) -> PathBuf {
    let copy = into.join("content");
    copy_tree(content, &copy);
    let settings = copy.join("servicio.toml");
    let text = std::fs::read_to_string(&settings).expect("servicio.toml");
    let mut top_level = true;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            top_level &= !line.trim_start().starts_with('[');
            let key = line.split('=').next().unwrap_or_default().trim();
            match (top_level, key) {
                (true, "modo") => "modo = \"local\"".to_owned(),
                (true, "base_url") => format!("base_url = \"{BUILT_BASE_URL}\""),
                _ => line.to_owned(),
            }
        })
        .collect();
    std::fs::write(&settings, lines.join("\n") + "\n").expect("write servicio.toml");
    copy
}

/// The studies of a content folder: every folder of `estudios/` with an `estudio.toml`.
fn study_slugs(content: &Path) -> Vec<String> {
    let mut slugs: Vec<String> = std::fs::read_dir(content.join("estudios"))
        .expect("estudios/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("estudio.toml").is_file())
        .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    slugs.sort();
    slugs
}

/// `precio_usd` of a TOML file, as a number.
fn price_in(file: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let value: toml::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    value.get("precio_usd").and_then(|p| p.as_str()).map(|p| p.parse().expect("precio_usd is a decimal"))
}

/// Slug → the price the content gives it: its own `precio_usd`, or the service's.
fn prices_of(content: &Path) -> BTreeMap<String, f64> {
    let default = price_in(&content.join("servicio.toml")).expect("servicio.toml states precio_usd");
    study_slugs(content)
        .into_iter()
        .map(|slug| {
            let own = price_in(&content.join("estudios").join(&slug).join("estudio.toml"));
            (slug, own.unwrap_or(default))
        })
        .collect()
}

/// The first decimal number in `text` after `marker`.
fn number_after(text: &str, marker: &str) -> Option<f64> {
    let rest = &text[text.find(marker)? + marker.len()..];
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    digits.trim_end_matches('.').parse().ok()
}

/// Builds `content` twice into fresh folders, checks both give the same bytes and every file
/// its sum, and returns the first.
fn build_twice(content: &Path, work: &Path) -> PathBuf {
    let (first, second) = (work.join("dist"), work.join("dist-2"));
    common::build_into(content, &first);
    common::build_into(content, &second);
    let sums = std::fs::read_to_string(first.join("SHA256SUMS")).expect("SHA256SUMS");
    assert_eq!(sums, std::fs::read_to_string(second.join("SHA256SUMS")).expect("SHA256SUMS"), "two builds differ");
    for line in sums.lines() {
        let (sha, file) = line.split_once("  ").expect("sha256sum format");
        let bytes = std::fs::read(first.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(sha256_hex(&bytes), sha, "{file}");
    }
    first
}

/// Every price `gate.json`, the catalog, the sheets, `llms.txt`, `index.json` and
/// `openapi.json` state is each study's own.
fn prices_stated_are_the_studies_own(dist: &Path, prices: &BTreeMap<String, f64>) {
    let manifest = read_json(&dist.join("gate.json"));
    let same = prices.values().all(|p| Some(p) == prices.values().next());
    for (slug, price) in prices {
        let listed: f64 =
            manifest["estudios"][slug]["precio_usd"].as_str().expect("precio_usd").parse().expect("number");
        assert_eq!(listed, *price, "gate.json: {slug}");
        let sheet = read_json(&dist.join(format!("public/estudio/{slug}/ficha.json")));
        assert_eq!(sheet["precio_usd"].as_f64(), Some(*price), "ficha de {slug}");
        assert_eq!(sheet["como_comprar"]["precio_usd"].as_f64(), Some(*price), "ficha de {slug}: como_comprar");
        let catalog = read_json(&dist.join("public/catalogo.json"));
        let entry = catalog["estudios"].as_array().expect("estudios").iter().find(|e| e["slug"] == slug.as_str());
        assert_eq!(entry.and_then(|e| e["precio_usd"].as_f64()), Some(*price), "catálogo: {slug}");
    }
    let llms = std::fs::read_to_string(dist.join("public/llms.txt")).expect("llms.txt");
    let openapi = read_json(&dist.join("public/openapi.json"));
    let guidance = openapi["info"]["x-guidance"].as_str().expect("x-guidance");
    let index = read_json(&dist.join("public/index.json"));
    if same {
        let price = *prices.values().next().expect("a study");
        assert_eq!(number_after(&llms, "Precio de cada estudio: "), Some(price), "llms.txt");
        assert_eq!(number_after(&llms, "Each study is sold whole for "), Some(price), "llms.txt (en)");
        assert_eq!(number_after(guidance, "Cómo comprar un estudio ("), Some(price), "x-guidance");
        assert_eq!(number_after(guidance, "How to buy a study ("), Some(price), "x-guidance (en)");
        assert_eq!(index["precio_usd"].as_f64(), Some(price), "index.json");
        assert_eq!(index["como_comprar"]["precio_usd"].as_f64(), Some(price), "index.json: como_comprar");
    } else {
        assert!(!llms.contains("Precio de cada estudio:"), "llms.txt states one price for all");
        assert!(index["como_comprar"].get("precio_usd").is_none(), "index.json: one price for all");
        for (slug, price) in prices {
            let line = llms.lines().find(|l| l.contains(&format!("({slug}):"))).expect("the study's catalog line");
            assert_eq!(number_after(line, "Precio: "), Some(*price), "llms.txt: {line}");
            assert_eq!(number_after(guidance, &format!("{slug} ")), Some(*price), "x-guidance: {slug}");
            assert_eq!(index["como_comprar"]["precios_usd"][slug].as_f64(), Some(*price), "index.json: {slug}");
        }
    }
    assert_eq!(
        openapi["x-x402"]["prices_usd"].as_object().map(|m| m.len()),
        Some(prices.len()),
        "x-x402.prices_usd lists every study"
    );
}

/// Buys every study of `dist` in both views through the real gate, downloads both files of
/// each purchase through its signed links and checks their sha256; the local ledger must have
/// moved exactly each study's price, twice.
async fn every_study_sells(dist: &Path, prices: &BTreeMap<String, f64>) {
    let local =
        Arc::new(LocalFacilitator::new(LocalConfig { opening_balance: units(u64::MAX / 2), ..LocalConfig::default() }));
    let gate = start_with(dist, Arc::new(SharedLocal(Arc::clone(&local))));
    let client = client();
    let key = signer(DEV_KEY);
    let out = tempfile::tempdir().expect("out");
    let mut paid: u64 = 0;
    for (slug, price) in prices {
        for view in ["completo", "resumen"] {
            let url = gate.url(&format!("/estudio/{slug}?vista={view}"));
            let unpaid = client.get(&url).header("Accept", "application/json").send().await.expect("402");
            assert_eq!(unpaid.status().as_u16(), 402, "{slug} {view}");
            let unpaid: serde_json::Value = unpaid.json().await.expect("JSON 402");
            assert_eq!(
                unpaid["como_comprar"]["precio_usd"].as_f64(),
                Some(*price),
                "{slug} {view}: the 402's como_comprar"
            );
            let purchase = gate::buyer::buy(&client, &url, &key, now()).await.expect("purchase");
            assert_eq!(purchase.status, 200, "{slug} {view}: {}", purchase.body);
            let accepted = &purchase.payment_required.as_ref().expect("402 first").accepts[0];
            let amount: u64 = accepted.amount.parse().expect("atomic units");
            assert_eq!(amount as f64 / 1e6, *price, "{slug} {view}: the 402 asks the study's price");
            paid += amount;
            for kind in ["json", "zip"] {
                let file = &purchase.body["acceso"]["descargas"][kind];
                let done = gate::buyer::download_verified(
                    &client,
                    &gate.local_url(file["url"].as_str().expect("url")),
                    file["sha256"].as_str().expect("sha256"),
                    &out.path().join(format!("{slug}-{view}.{kind}")),
                )
                .await
                .unwrap_or_else(|e| panic!("{slug} {view} {kind}: {e:#}"));
                assert_eq!(Some(done.bytes), file["bytes"].as_u64(), "{slug} {view} {kind}");
            }
        }
    }
    assert_eq!(local.settlements(), 2 * prices.len());
    let pay_to =
        read_json(&dist.join("gate.json"))["servicio"]["redes"][0]["pagar_a"].as_str().expect("pagar_a").to_owned();
    let before = units(u64::MAX / 2);
    assert_eq!(local.balance("eip155:84532", address(&pay_to)) - before, units(paid), "the payee got every price");
}

/// Every check above on one content folder.
async fn publisher_checks(content: &Path) {
    assert!(content.join("estudios").is_dir(), "{}: no estudios/ folder", content.display());
    let checked = generator::check(content).unwrap_or_else(|p| panic!("{}: generator check:\n{p}", content.display()));
    let slugs = study_slugs(content);
    assert!(!slugs.is_empty(), "{}: no study", content.display());
    let checked_slugs: Vec<String> = checked.content.studies.iter().map(|s| s.slug.clone()).collect();
    assert_eq!(checked_slugs, slugs, "every study folder is a study of the build");
    let work = tempfile::tempdir().expect("work");
    let local = local_copy(content, work.path());
    let dist = build_twice(&local, work.path());
    let prices = prices_of(content);
    prices_stated_are_the_studies_own(&dist, &prices);
    every_study_sells(&dist, &prices).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_publishers_content_builds_states_its_prices_and_sells_every_study() {
    publisher_checks(&publisher_content()).await;
}

/// A content folder made from the sample: its settings, and the named studies with the given
/// own prices (`None`: the service's default).
fn from_sample(dir: &Path, studies: &[(&str, Option<&str>)]) -> PathBuf {
    let content = dir.join("propio");
    let sample = sample_dir();
    for file in ["servicio.toml", "metricas.toml"] {
        std::fs::create_dir_all(&content).expect("mkdir");
        std::fs::copy(sample.join(file), content.join(file)).expect("copy");
    }
    for (slug, price) in studies {
        let study = content.join("estudios").join(slug);
        copy_tree(&sample.join("estudios").join(slug), &study);
        if let Some(price) = price {
            let file = study.join("estudio.toml");
            let text = std::fs::read_to_string(&file).expect("estudio.toml");
            std::fs::write(&file, format!("precio_usd = \"{price}\"\n{text}")).expect("write");
        }
    }
    content
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_study_priced_apart_from_the_default_is_stated_at_its_own_price() {
    let dir = tempfile::tempdir().expect("dir");
    let content = from_sample(dir.path(), &[("farma-2026", Some("2.50"))]);
    assert_eq!(prices_of(&content), BTreeMap::from([("farma-2026".to_owned(), 2.5)]));
    publisher_checks(&content).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_studies_at_two_prices_are_each_stated_at_their_own() {
    let dir = tempfile::tempdir().expect("dir");
    let content = from_sample(dir.path(), &[("cosmetica-2026", Some("1.49")), ("farma-2026", None)]);
    assert_eq!(
        prices_of(&content),
        BTreeMap::from([("cosmetica-2026".to_owned(), 1.49), ("farma-2026".to_owned(), 0.99)])
    );
    publisher_checks(&content).await;
}
