//! Stage 6, manifest: `gate.json`, what the gate needs to serve `dist/`, and the files that
//! describe the output as a whole.
//!
//! `gate.json` (its types are `contract::manifest`, which the gate reads) lists every public
//! route with its file, content type, size and ETag, every paid view with its 402
//! requirements, every download with its sha256, and the search index. Static hosts that
//! cannot run the gate read `_headers` and `_redirects` instead; `SHA256SUMS` lets anyone check
//! the whole output. Everything here is derived from the [`Output`] already built, so the
//! sizes and hashes it publishes are those of the bytes written.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use anyhow::{Context, Result};
use contract::manifest::{self, Download, Manifest, Route, Service, ViewOffer};
use contract::price::ListedPrice;
use contract::{CONTENT_SECURITY_POLICY, View};

use crate::output::Output;
use crate::paths;
use crate::previous::Carried;
use crate::render::site::{Site, to_json};
use crate::render::{croissant, offer, openapi, search};

const JSON: &str = "application/json; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";
/// The home page for people; `/` answers it to browsers and the JSON index to agents.
const HOME_PAGE_URL: &str = "/index.html";

/// The README that says what `dist/` holds (also committed as `dist/README.md`).
const DIST_README: &str = include_str!("../../templates/dist-README.md");

/// Adds `gate.json`, `_headers`, `_redirects`, `README.md` and, last, `SHA256SUMS` (the
/// sha256 of every other file) to the output.
pub fn add_files(site: &Site<'_>, carried: &Carried, output: &mut Output) -> Result<()> {
    let manifest = gate_manifest(site, carried, output)?;
    output.add(manifest::FILE, to_json(&manifest)?)?;
    output.add("public/_headers", cdn_headers(&manifest).into_bytes())?;
    output.add("public/_redirects", cdn_redirects(&manifest).into_bytes())?;
    output.add("README.md", DIST_README.as_bytes().to_vec())?;
    let sums = sha256_sums(output);
    output.add("SHA256SUMS", sums.into_bytes())
}

/// Public URL → (file, content type).
fn public_routes(site: &Site<'_>) -> Vec<(String, String, &'static str)> {
    let mut routes = vec![
        ("/".to_owned(), paths::SERVICE_INDEX.to_owned(), JSON),
        ("/index.json".to_owned(), paths::SERVICE_INDEX.to_owned(), JSON),
        (HOME_PAGE_URL.to_owned(), paths::HOME_PAGE.to_owned(), HTML),
        (paths::STYLESHEET_URL.to_owned(), paths::public_file(paths::STYLESHEET_URL), "text/css; charset=utf-8"),
        (paths::SCRIPT_URL.to_owned(), paths::public_file(paths::SCRIPT_URL), "text/javascript; charset=utf-8"),
        (
            paths::CHECKOUT_SCRIPT_URL.to_owned(),
            paths::public_file(paths::CHECKOUT_SCRIPT_URL),
            "text/javascript; charset=utf-8",
        ),
        (paths::FAVICON_URL.to_owned(), paths::public_file(paths::FAVICON_URL), "image/x-icon"),
        ("/catalogo".to_owned(), paths::CATALOG.to_owned(), JSON),
        ("/metricas".to_owned(), paths::METRICS.to_owned(), JSON),
        ("/openapi.json".to_owned(), paths::OPENAPI.to_owned(), JSON),
        ("/.well-known/x402".to_owned(), paths::DISCOVERY.to_owned(), JSON),
        (paths::MCP_SERVER_URL.to_owned(), paths::MCP_SERVER.to_owned(), JSON),
        ("/llms.txt".to_owned(), paths::LLMS_TXT.to_owned(), "text/plain; charset=utf-8"),
        ("/privacidad".to_owned(), paths::PRIVACY_PAGE.to_owned(), HTML),
        (paths::CROISSANT_CATALOG_URL.to_owned(), paths::CROISSANT_CATALOG.to_owned(), croissant::MEDIA_TYPE),
        (paths::MPP_DIRECTORY_URL.to_owned(), paths::MPP_DIRECTORY.to_owned(), JSON),
    ];
    for study in &site.content.studies {
        routes.push((format!("/estudio/{}/ficha", study.slug), paths::sheet(&study.slug), JSON));
        routes.push((paths::croissant_url(&study.slug), paths::croissant(&study.slug), croissant::MEDIA_TYPE));
        routes.push((paths::study_page_url(&study.slug), paths::study_page(&study.slug), HTML));
    }
    routes
}

/// A strong ETag from the content hash (lowercase hex sha256).
fn etag(sha256: &str) -> String {
    format!("\"{}\"", &sha256[..32])
}

/// Size and sha256 of a file the manifest points at; a missing one is a bug of this crate.
fn file_of<'o>(output: &'o Output, file: &str) -> Result<(u64, &'o str)> {
    output.get(file).with_context(|| format!("falta {file}"))
}

/// `gate.json`: the contract with the gate.
fn gate_manifest(site: &Site<'_>, carried: &Carried, output: &Output) -> Result<Manifest> {
    let mut routes = BTreeMap::new();
    for (url, file, kind) in public_routes(site) {
        let (bytes, sha256) = file_of(output, &file)?;
        let html = (url == "/").then(|| HOME_PAGE_URL.to_owned());
        routes.insert(
            url,
            Route {
                file: file.clone(),
                media_type: kind.to_owned(),
                etag: etag(sha256),
                bytes,
                cache: "public, max-age=300".to_owned(),
                html,
            },
        );
    }
    let mut downloads = BTreeMap::new();
    let mut studies = BTreeMap::new();
    for study in &site.content.studies {
        let names =
            carried.names.get(&study.slug).with_context(|| format!("{}: sin nombres de descarga", study.slug))?;
        for name in names {
            let file = paths::download(name);
            let (bytes, sha256) = file_of(output, &file)?;
            let kind = if name.ends_with(".zip") { "application/zip" } else { JSON };
            downloads.insert(
                name.clone(),
                Download { file, media_type: kind.to_owned(), bytes, sha256: sha256.to_owned(), previous_of: None },
            );
        }
        let view = |view: View, file: String| {
            let payment_required = openapi::payment_required(site, study, view);
            let payment_required_mcp = openapi::payment_required_mcp(site, study, view);
            (view, ViewOffer { file, payment_required, payment_required_mcp })
        };
        studies.insert(
            study.slug.clone(),
            manifest::Study {
                name: study.design.name.clone(),
                price: ListedPrice(site.price_of(study)),
                views: BTreeMap::from([
                    view(View::Full, paths::download(&names[0])),
                    view(View::Summary, paths::summary(&study.slug)),
                ]),
                downloads: names.to_vec(),
                page_402: paths::payment_page(&study.slug),
            },
        );
        file_of(output, &paths::payment_page(&study.slug))?;
    }
    // The files earlier builds sold, for the links and receipts already issued.
    for (name, kept) in &carried.kept {
        file_of(output, &kept.file)?;
        if downloads.insert(name.clone(), kept.clone()).is_some() {
            anyhow::bail!("la descarga {name} es a la vez de esta construcción y de una anterior");
        }
    }
    let service = &site.content.service;
    Ok(Manifest {
        format: manifest::FORMAT.to_owned(),
        service: Service {
            name: service.name.clone(),
            base_url: service.base_url.clone(),
            mode: service.mode,
            link_validity_days: service.link_validity_days,
            contact: service.contact.clone(),
            networks: offer::networks(service),
        },
        routes,
        studies,
        downloads,
        search: search::build_index(&site.content.studies),
    })
}

/// `_headers` (Netlify / Cloudflare Pages syntax): content types and CORS for every route,
/// and the pages' Content-Security-Policy. A static host cannot negotiate, so it serves `/`
/// as the home page (`index.html`) and the JSON index stays at `/index.json`.
fn cdn_headers(manifest: &Manifest) -> String {
    let mut text = String::from("# Encabezados para hosts estáticos (Netlify, Cloudflare Pages). Generado.\n");
    let mut seen = BTreeSet::new();
    for (url, route) in &manifest.routes {
        let route = route.html.as_ref().and_then(|alt| manifest.routes.get(alt)).unwrap_or(route);
        let file_url = served_url(route);
        for path in [url.as_str(), file_url.as_str()] {
            if !seen.insert(path.to_owned()) {
                continue;
            }
            let _ = writeln!(
                text,
                "{path}\n  Content-Type: {}\n  Cache-Control: {}\n  Access-Control-Allow-Origin: *\n  Access-Control-Expose-Headers: PAYMENT-REQUIRED, PAYMENT-RESPONSE\n  X-Content-Type-Options: nosniff",
                route.media_type, route.cache
            );
            if route.media_type.starts_with("text/html") {
                let _ = writeln!(text, "  Content-Security-Policy: {CONTENT_SECURITY_POLICY}");
            }
        }
    }
    text
}

/// `_redirects`: the extensionless URLs rewritten (status 200) to their files.
fn cdn_redirects(manifest: &Manifest) -> String {
    let mut text = String::from("# Reescrituras para hosts estáticos: URL sin extensión → archivo. Generado.\n");
    for (url, route) in &manifest.routes {
        let file_url = served_url(route);
        // "/" is the home page, `index.html`, which every static host serves by itself.
        if *url != file_url && url != "/" {
            let _ = writeln!(text, "{url} {file_url} 200");
        }
    }
    text
}

/// The URL under which a static host serves a route's file as it is (`public/` is its root).
fn served_url(route: &Route) -> String {
    format!("/{}", route.file.trim_start_matches("public/"))
}

/// `SHA256SUMS` in `sha256sum` format, every file but itself.
fn sha256_sums(output: &Output) -> String {
    output.hashes().map(|(path, sha256)| format!("{sha256}  {path}\n")).collect()
}
