//! The gate behind the fronts operators put in front of it, each from Debian's package with
//! Debian's own main configuration and the guide's file of `deploy/frentes/`: nginx (reverse
//! proxy and `proxy_cache`), Caddy, HAProxy, Varnish and Apache, in front of a real gate on
//! loopback ports, over the sample content built with the front's address as `base_url`.
//! Through each: every unpaid 402 passes (no 502: its head fits nginx's default 4 KB
//! `proxy_buffer_size`), a study is bought with a real signed payment, search and MCP answer, a
//! download resumes with `Range`, and the official clients (`@x402/fetch`, the MCP TypeScript
//! SDK, from `tests/interop`) buy; through nginx and Varnish free pages come from the cache on
//! the second request, the 402 and the paid answer never do. An nginx with a bare `proxy_pass`
//! and no other setting passes the same 402s. Besides: what each answer tells a cache, and the
//! list of public paths `generator build` writes for a purge.
//!
//! Needs Debian's `nginx`, `caddy`, `haproxy`, `varnish` and `apache2` packages and
//! `tests/interop/node_modules` (`./tienda probar` installs them).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::frentes::*;
use common::gate::*;
use common::{SLUGS, built};
use serde_json::Value;

fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response.headers().get(name).map(|v| v.to_str().expect("ascii").to_owned())
}

/// Every unpaid 402, JSON and HTML, passes `front` whole: 402, the `PAYMENT-REQUIRED` the gate
/// sends, never nginx's 502.
async fn every_402_passes(front: &str, gate: &TestGate) {
    let client = client();
    for slug in SLUGS {
        for accept in ["application/json", "text/html,application/xhtml+xml,*/*;q=0.8"] {
            let path = format!("/estudio/{slug}?vista=completo");
            let through = client.get(format!("{front}{path}")).header("Accept", accept).send().await.expect("front");
            assert_eq!(through.status(), 402, "{path} {accept} through nginx");
            let direct = client.get(gate.url(&path)).header("Accept", accept).send().await.expect("gate");
            let strip = |v: Option<String>| {
                let decoded: Value = gate::x402::header::decode_json(&v.expect("PAYMENT-REQUIRED")).expect("decodes");
                decoded["accepts"].clone()
            };
            assert_eq!(strip(header(&through, "payment-required")), strip(header(&direct, "payment-required")));
            assert_eq!(header(&through, "cache-control").as_deref(), Some("no-store"));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_402_passes_a_default_nginx_with_no_buffer_setting() {
    let gate = start_local(built());
    let nginx = start_nginx(free_port(), |_, port| bare_site(&gate, port));
    every_402_passes(&nginx.url, &gate).await;
}

/// Through `front`: every 402 passes, search and MCP answer, a study is bought with a real
/// signed payment, its ZIP resumes with `Range`. The paid study's URL.
async fn walk_through(front: &str, gate: &TestGate, dist: &Path) -> String {
    let client = client();
    every_402_passes(front, gate).await;

    // Search answers through the front.
    let search = client.get(format!("{front}/buscar?q=banca")).send().await.expect("search");
    assert_eq!(search.status(), 200);
    let found: Value = search.json().await.expect("JSON");
    assert_eq!(found["resultados"][0]["slug"], "banca-2026", "{found}");

    // MCP lists its tools through the front.
    let list = client
        .post(format!("{front}/mcp"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .await
        .expect("mcp");
    assert_eq!(list.status(), 200);
    let tools: Value = list.json().await.expect("JSON-RPC");
    assert!(tools["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{tools}");

    // A study bought with a real signed payment through the front.
    let slug = "banca-2026";
    let accepted = accepted_of(dist, slug, "completo");
    let paid_path = format!("{front}/estudio/{slug}?vista=completo");
    let paid = client
        .get(&paid_path)
        .header("PAYMENT-SIGNATURE", signed_header(&accepted, &signer(DEV_KEY), |_, _| {}))
        .send()
        .await
        .expect("paid request");
    assert_eq!(paid.status(), 200);
    assert!(header(&paid, "payment-response").is_some());
    assert_eq!(header(&paid, "cache-control").as_deref(), Some("private, no-store"));
    assert_ne!(header(&paid, "x-cache").as_deref(), Some("HIT"));
    let body: Value = paid.json().await.expect("study");
    assert_eq!(body["estudio"], slug);

    // The ZIP, downloaded in two parts: the second resumes with Range through the front.
    let issued = body["acceso"]["descargas"]["zip"]["url"].as_str().expect("zip link");
    assert!(issued.starts_with(front), "the link names the front: {issued}");
    let link = issued.to_owned();
    let whole = client.get(&link).send().await.expect("download");
    assert_eq!(whole.status(), 200);
    let whole = whole.bytes().await.expect("bytes");
    let half = whole.len() / 2;
    let rest = client.get(&link).header("Range", format!("bytes={half}-")).send().await.expect("range");
    assert_eq!(rest.status(), 206);
    assert_eq!(header(&rest, "content-range"), Some(format!("bytes {half}-{}/{}", whole.len() - 1, whole.len())));
    assert_eq!(rest.bytes().await.expect("rest"), whole.slice(half..));
    paid_path
}

/// Through a caching `front`: free pages come from the cache on the second request (`X-Cache:
/// HIT`), `/` by `Accept`; the 402 and the paid answer never do.
async fn only_free_pages_are_cached(front: &str, paid_path: &str, dist: &Path) {
    let client = client();
    // Free pages: the second request is served from nginx's cache.
    for path in ["/catalogo", "/estudio/banca-2026/ficha", "/buscar?q=banca", "/llms.txt"] {
        let first = client.get(format!("{front}{path}")).send().await.expect("first");
        assert_eq!(first.status(), 200, "{path}");
        let second = client.get(format!("{front}{path}")).send().await.expect("second");
        assert_eq!(header(&second, "x-cache").as_deref(), Some("HIT"), "{path}: the second from the cache");
    }
    // `/` varies by Accept: the cached HTML page never answers a JSON client, nor the reverse.
    for accept in ["text/html", "application/json", "text/html", "application/json"] {
        let home = client.get(format!("{front}/")).header("Accept", accept).send().await.expect("home");
        assert_eq!(home.status(), 200);
        let content_type = header(&home, "content-type").unwrap_or_default();
        assert!(content_type.starts_with(accept), "{accept}: {content_type}");
    }
    // The 402 and the paid answer are never cached, however often asked.
    let accepted = accepted_of(dist, "banca-2026", "completo");
    for _ in 0..3 {
        let unpaid = client.get(paid_path).send().await.expect("402");
        assert_eq!(unpaid.status(), 402);
        assert_ne!(header(&unpaid, "x-cache").as_deref(), Some("HIT"));
        let paid = client
            .get(paid_path)
            .header("PAYMENT-SIGNATURE", signed_header(&accepted, &signer(DEV_KEY), |_, _| {}))
            .send()
            .await
            .expect("paid");
        assert_eq!(paid.status(), 200);
        assert_ne!(header(&paid, "x-cache").as_deref(), Some("HIT"));
    }
}

/// The sample content built for a store whose public address is `url` (the front's), as an
/// operator builds it: signed links and resource URLs name the front.
fn built_for(url: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp");
    let content = dir.path().join("contenido");
    common::copy_tree(&common::sample_dir(), &content);
    let service = content.join("servicio.toml");
    let text = std::fs::read_to_string(&service).expect("servicio.toml");
    let replaced: String = text
        .lines()
        .map(|line| if line.starts_with("base_url") { format!("base_url = \"{url}\"\n") } else { format!("{line}\n") })
        .collect();
    std::fs::write(&service, replaced).expect("servicio.toml");
    let dist = dir.path().join("dist");
    common::build_into(&content, &dist);
    (dir, dist)
}

/// `tests/interop`, where the official clients' scripts and their `node_modules` live.
fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("interop")
}

/// The official clients buy through `front`: `@x402/fetch` every study in both views (its ZIP
/// through the signed link, against the sheet's sha256) and the MCP TypeScript SDK every tool
/// and a purchase with x402's MCP binding, as `tests/interop/run.sh` runs them on the gate.
fn official_clients_buy_through(front: &str) {
    let dir = interop_dir();
    let bin = dir.join("node_modules/.bin");
    assert!(
        bin.join("node").exists(),
        "falta tests/interop/node_modules: (cd tests/interop && npm ci) (./tienda probar lo hace)"
    );
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    for script in ["x402-fetch.mjs", "mcp-sdk.mjs"] {
        let output = Command::new(bin.join("node"))
            .arg(script)
            .arg(front)
            .current_dir(&dir)
            .env("PATH", &path)
            .output()
            .expect("node");
        assert!(
            output.status.success(),
            "{script} through {front}:\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// A store behind a front started by `start`: its dist built for the front's address, the gate
/// over it, the front; every check of [`walk_through`] and the official clients' purchases.
async fn store_behind(
    start: impl FnOnce(&TestGate, u16) -> Front,
) -> (Front, TestGate, tempfile::TempDir, PathBuf, String) {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let (dir, dist) = built_for(&url);
    let gate = start_trusting_the_front(&dist);
    let front = start(&gate, port);
    assert_eq!(front.url, url);
    let paid_path = walk_through(&front.url, &gate, &dist).await;
    let through = front.url.clone();
    tokio::task::spawn_blocking(move || official_clients_buy_through(&through)).await.expect("clients");
    each_buyer_is_counted_by_the_address_the_front_forwards(&front.url).await;
    (front, gate, dir, dist, paid_path)
}

/// The gate as the guide starts it behind a front on the same machine: `--proxies 127.0.0.1`,
/// so it reads the buyer's address from the front's `X-Forwarded-For`.
fn start_trusting_the_front(dist: &Path) -> TestGate {
    use gate::facilitator::Facilitator;
    use gate::facilitator::local::{LocalConfig, LocalFacilitator};
    let local = std::sync::Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let facilitator: std::sync::Arc<dyn Facilitator> = std::sync::Arc::new(SharedLocal(std::sync::Arc::clone(&local)));
    let data = tempfile::tempdir().expect("data dir");
    let log = data.path().join(gate::sales::journal::JOURNAL_FILE);
    let gate = gate::app::Gate::load(dist, facilitator, links(), Some(&log)).expect("gate loads dist/");
    let limits = gate_http::Limits {
        proxies: gate_http::client::TrustedProxies::parse("127.0.0.1").expect("proxies"),
        ..gate_http::Limits::default()
    };
    let server = gate_http::spawn_with_limits(std::sync::Arc::new(gate), 2, limits).expect("gate starts");
    TestGate { server, data, local: Some(local) }
}

/// Two buyers on other loopback addresses (127.0.0.2 and 127.0.0.3) reach the gate through the
/// front: the one who sends 21 bad payments gets 429 on the 21st (the default budget of refused
/// attempts per client is 20), the other is not limited. Were the gate counting the front's
/// address, both would be one client.
async fn each_buyer_is_counted_by_the_address_the_front_forwards(front: &str) {
    let from = |ip: [u8; 4]| {
        reqwest::Client::builder()
            .local_address(std::net::IpAddr::from(ip))
            .timeout(Duration::from_secs(30))
            .build()
            .expect("client")
    };
    let bad_payment = |client: &reqwest::Client| {
        client
            .get(format!("{front}/estudio/banca-2026?vista=resumen"))
            .header("PAYMENT-SIGNATURE", "no-es-base64")
            .send()
    };
    let first = from([127, 0, 0, 2]);
    let mut statuses = Vec::new();
    for _ in 0..21 {
        statuses.push(bad_payment(&first).await.expect("bad payment").status().as_u16());
    }
    assert!(statuses[..20].iter().all(|s| *s == 400), "{front}: {statuses:?}");
    assert_eq!(statuses[20], 429, "{front}: the 21st refused attempt of 127.0.0.2 is limited");
    let other = bad_payment(&from([127, 0, 0, 3])).await.expect("bad payment").status().as_u16();
    assert_eq!(other, 400, "{front}: 127.0.0.3 is another buyer");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_study_is_bought_searched_and_downloaded_through_the_guides_nginx_and_only_free_pages_are_cached() {
    let (front, _gate, _dir, dist, paid_path) =
        store_behind(|gate, port| start_nginx(port, |dir, port| guide_site(gate, dir, port))).await;
    only_free_pages_are_cached(&front.url, &paid_path, &dist).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_study_is_bought_searched_and_downloaded_through_the_guides_varnish_and_only_free_pages_are_cached() {
    let (front, _gate, _dir, dist, paid_path) = store_behind(start_varnish).await;
    only_free_pages_are_cached(&front.url, &paid_path, &dist).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_study_is_bought_searched_and_downloaded_through_the_guides_caddy() {
    store_behind(start_caddy).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_study_is_bought_searched_and_downloaded_through_the_guides_haproxy() {
    store_behind(start_haproxy).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_study_is_bought_searched_and_downloaded_through_the_guides_apache() {
    store_behind(start_apache).await;
}

/// What every answer tells a cache, on the gate itself: free paths `public` with a max-age
/// (`/` with `Vary: Accept`), the 402 `no-store`, paid and personal answers `private, no-store`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_says_what_a_cache_may_keep() {
    let dist = built();
    let gate = start_local(dist);
    let client = client();
    let mut free: Vec<String> = [
        "/",
        "/catalogo",
        "/metricas",
        "/openapi.json",
        "/llms.txt",
        "/.well-known/x402",
        "/server.json",
        "/privacidad",
        "/index.html",
        "/index.json",
        "/favicon.ico",
        "/buscar?q=banca",
    ]
    .map(str::to_owned)
    .to_vec();
    for slug in SLUGS {
        free.push(format!("/estudio/{slug}/ficha"));
        free.push(format!("/estudios/{slug}"));
    }
    for path in &free {
        let answer = client.get(gate.url(path)).send().await.expect("free");
        assert_eq!(answer.status(), 200, "{path}");
        let cache = header(&answer, "cache-control").unwrap_or_default();
        let max_age = cache.strip_prefix("public, max-age=").and_then(|s| s.parse::<u32>().ok());
        assert!(max_age.is_some_and(|s| s > 0), "{path}: {cache}");
    }
    let home = client.get(gate.url("/")).send().await.expect("home");
    assert_eq!(header(&home, "vary").as_deref(), Some("Accept"));

    let path = "/estudio/banca-2026?vista=resumen";
    for accept in ["application/json", "text/html"] {
        let unpaid = client.get(gate.url(path)).header("Accept", accept).send().await.expect("402");
        assert_eq!(unpaid.status(), 402);
        assert_eq!(header(&unpaid, "cache-control").as_deref(), Some("no-store"), "{accept}");
    }
    let accepted = accepted_of(dist, "banca-2026", "resumen");
    let paid = client
        .get(gate.url(path))
        .header("PAYMENT-SIGNATURE", signed_header(&accepted, &signer(DEV_KEY), |_, _| {}))
        .send()
        .await
        .expect("paid");
    assert_eq!(paid.status(), 200);
    assert_eq!(header(&paid, "cache-control").as_deref(), Some("private, no-store"));
    let body: Value = paid.json().await.expect("study");
    let link = gate.local_url(body["acceso"]["descargas"]["json"]["url"].as_str().expect("link"));
    let download = client.get(link).send().await.expect("download");
    assert_eq!(download.status(), 200);
    assert_eq!(header(&download, "cache-control").as_deref(), Some("private, no-store"));
    let mcp = client
        .post(gate.url("/mcp"))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"comprar_estudio","arguments":{"slug":"banca-2026"}}}"#)
        .send()
        .await
        .expect("mcp");
    assert_eq!(mcp.status(), 200);
    assert_eq!(header(&mcp, "cache-control").as_deref(), Some("private, no-store"));
}

/// `generator build` writes beside `dist/` the public paths whose bytes changed since the build
/// it replaces, for a cache's purge: every route on a first build, none on the same content
/// again, and after a price change the pages that state the price but not the unchanged style
/// sheet; `/buscar` (every cached search) whenever any changed.
#[test]
fn a_build_lists_the_public_paths_a_cache_must_purge() {
    let dir = tempfile::tempdir().expect("temp");
    let content = dir.path().join("contenido");
    common::copy_tree(&common::sample_dir(), &content);
    let out = dir.path().join("dist");
    let list = dir.path().join("dist.purgar.txt");
    let read = || -> Vec<String> {
        std::fs::read_to_string(&list).expect("dist.purgar.txt").lines().map(str::to_owned).collect()
    };

    common::build_into(&content, &out);
    let routes: Vec<String> =
        common::read_json(&out.join("gate.json"))["rutas"].as_object().expect("routes").keys().cloned().collect();
    let mut first = routes.clone();
    first.push("/buscar".to_owned());
    assert_eq!(read(), first, "a first build: every public path");
    assert!(!out.join("dist.purgar.txt").exists() && !out.join("public/dist.purgar.txt").exists(), "never served");

    common::build_into(&content, &out);
    assert!(read().is_empty(), "the same content again: nothing to purge");

    let service = content.join("servicio.toml");
    let text = std::fs::read_to_string(&service).expect("servicio.toml");
    std::fs::write(&service, text.replace("precio_usd = \"0.99\"", "precio_usd = \"1.49\"")).expect("price");
    common::build_into(&content, &out);
    let changed = read();
    for path in ["/", "/catalogo", "/estudio/banca-2026/ficha", "/estudios/banca-2026", "/llms.txt", "/buscar"] {
        assert!(changed.iter().any(|c| c == path), "{path} states the price: {changed:?}");
    }
    assert!(!changed.iter().any(|c| c == "/recursos/estilo.css"), "the style sheet did not change: {changed:?}");
    assert!(changed.len() < first.len());
}

/// A store whose gate can load a new `dist/` (as SIGHUP does) behind a front started by `start`;
/// its content folder, to build again.
async fn reloadable_store_behind(
    start: StartFront,
) -> (Front, TestGate, std::sync::Arc<gate::app::Live>, tempfile::TempDir, PathBuf) {
    let port = free_port();
    let (dir, dist) = built_for(&format!("http://127.0.0.1:{port}"));
    let facilitator: std::sync::Arc<dyn gate::facilitator::Facilitator> = std::sync::Arc::new(
        gate::facilitator::local::LocalFacilitator::new(gate::facilitator::local::LocalConfig::default()),
    );
    let data = tempfile::tempdir().expect("data dir");
    let log = data.path().join(gate::sales::journal::JOURNAL_FILE);
    let loaded = gate::app::Gate::load(&dist, facilitator, links(), Some(&log)).expect("gate loads dist/");
    let live = std::sync::Arc::new(gate::app::Live::new(loaded));
    let server = gate_http::spawn(std::sync::Arc::clone(&live), 2).expect("gate starts");
    let gate = TestGate { server, data, local: None };
    let front = start(&gate, port);
    (front, gate, live, dir, dist)
}

/// Through a caching front: the catalog comes from the cache; a new build (a new price) loaded
/// by the gate is not seen until the paths of `dist.purgar.txt` are purged with `purge`, then it
/// is.
async fn a_new_build_is_seen_after_the_purge(start: StartFront, purge: impl AsyncFnOnce(&Front, Vec<String>)) {
    let (front, _gate, live, dir, dist) = reloadable_store_behind(start).await;
    let client = client();
    let catalog = format!("{}/catalogo", front.url);
    let old = client.get(&catalog).send().await.expect("catalog").text().await.expect("body");
    let cached = client.get(&catalog).send().await.expect("catalog");
    assert_eq!(header(&cached, "x-cache").as_deref(), Some("HIT"));
    assert!(old.contains("0.99") && !old.contains("1.49"));

    let content = dir.path().join("contenido");
    let service = content.join("servicio.toml");
    let text = std::fs::read_to_string(&service).expect("servicio.toml");
    std::fs::write(&service, text.replace("precio_usd = \"0.99\"", "precio_usd = \"1.49\"")).expect("price");
    common::build_into(&content, &dist);
    live.reload().expect("the gate loads the new build");
    let stale = client.get(&catalog).send().await.expect("catalog").text().await.expect("body");
    assert_eq!(stale, old, "before the purge the cache still states the old price");

    let list = std::fs::read_to_string(dir.path().join("dist.purgar.txt")).expect("dist.purgar.txt");
    let paths: Vec<String> = list.lines().map(str::to_owned).collect();
    assert!(paths.iter().any(|p| p == "/catalogo"), "{paths:?}");
    purge(&front, paths).await;
    let fresh = client.get(&catalog).send().await.expect("catalog");
    assert_ne!(header(&fresh, "x-cache").as_deref(), Some("HIT"));
    let fresh = fresh.text().await.expect("body");
    assert!(fresh.contains("1.49") && !fresh.contains("\"0.99\""), "the new build after the purge");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_build_is_seen_through_nginx_after_emptying_its_cache() {
    let start: StartFront = |gate, port| start_nginx(port, |dir, port| guide_site(gate, dir, port));
    // nginx's open-source cache has no purge call: the guide empties its cache folder.
    a_new_build_is_seen_after_the_purge(start, async |front: &Front, _paths: Vec<String>| {
        for entry in std::fs::read_dir(front.dir().join("cache")).expect("cache folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) }.expect("purge");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_build_is_seen_through_varnish_after_purging_the_listed_paths() {
    a_new_build_is_seen_after_the_purge(start_varnish, async |front: &Front, paths: Vec<String>| {
        let client = client();
        for path in paths {
            // /buscar is a prefix (every cached search): BAN; every other line is one path.
            let method = if path == "/buscar" { "BAN" } else { "PURGE" };
            let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
            let answer = client.request(method, format!("{}{path}", front.url)).send().await.expect("purge");
            assert_eq!(answer.status(), 200, "{path}");
        }
    })
    .await;
}
