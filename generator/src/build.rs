//! `generator build`: the whole pipeline, as a flat list of named stages.
//!
//! load and validate → analyse (both in [`crate::check`]) → render documents → package
//! (ZIP, xlsx) → sheets with sizes and hashes → manifest → write. Studies are rendered and
//! packaged in parallel with rayon; results are collected into a sorted map, so the bytes
//! do not depend on the thread count. Everything is written into a staging folder next to
//! the output (see [`crate::output`]).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use contract::View;
use contract::manifest::{self, Download, Manifest, Route, Service, ViewOffer};
use contract::price::ListedPrice;
use serde::Serialize;

use crate::metrics::analysis::Table;
use crate::metrics::mentions::AnswerBrands;
use crate::model::Study;
use crate::output::{Output, Staging, WrittenFile};
use crate::package::xlsx;
use crate::package::zip::{ZipEntry, write_zip};
use crate::problems::Problems;
use crate::render::json::{self as documents, FileInfo, Files, ZipInfo};
use crate::render::templates::Templates;
use crate::render::{Site, html as pages, llms, offer, openapi, search, to_json};

/// Settings of one build, already validated by the command line.
pub struct BuildOptions {
    pub content: PathBuf,
    pub out: PathBuf,
    pub quiet: bool,
}

/// Why a build failed: problems in the content (each located), or anything else.
#[derive(Debug)]
pub enum BuildError {
    Content(Problems),
    Other(anyhow::Error),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Content(problems) => write!(f, "{problems}"),
            BuildError::Other(e) => write!(f, "{e:#}"),
        }
    }
}

impl From<anyhow::Error> for BuildError {
    fn from(e: anyhow::Error) -> Self {
        BuildError::Other(e)
    }
}

/// What a successful build produced.
#[derive(Debug)]
pub struct BuildSummary {
    pub studies: usize,
    pub answers: usize,
    pub files: usize,
    pub bytes: u64,
    pub stages: Vec<(&'static str, Duration)>,
}

/// Downloadable file names of a study.
pub fn json_download(slug: &str) -> String {
    format!("{slug}.json")
}

pub fn zip_download(slug: &str) -> String {
    format!("{slug}.zip")
}

const DOWNLOADS_DIR: &str = "private/descargas";

/// Runs the whole build.
pub fn build(options: &BuildOptions) -> Result<BuildSummary, BuildError> {
    let mut clock = Stages::new(options.quiet);

    let checked = crate::check(&options.content).map_err(BuildError::Content)?;
    clock.done("cargar, validar y calcular");

    let site = Site::new(&checked.content);
    let templates = Templates::new()?;
    let studies: Vec<(&Study, &[Table])> =
        checked.content.studies.iter().zip(checked.tables.iter().map(Vec::as_slice)).collect();
    let staging = Staging::create(&options.out)?;

    let sizes: Vec<u64> = studies.iter().map(|(study, _)| study.answers.len() as u64).collect();
    let rendered: Vec<RenderedStudy> = crate::parallel::largest_first(&sizes, |i| {
        let (study, tables) = studies[i];
        render_study(&site, &templates, &staging, study, tables, &checked.brands[i])
    })
    .into_iter()
    .collect::<Result<_>>()?;
    clock.done("paquetes, xlsx y ZIP por estudio");

    let mut output = Output::default();
    for (r, (study, tables)) in rendered.into_iter().zip(&studies) {
        let files = r.files();
        let sheet = documents::sheet(&site, study, tables, Some(files));
        output.add(format!("public/estudio/{}/ficha.json", study.slug), to_json(&sheet)?)?;
        output.add(
            pages::study_page_file(&study.slug),
            pages::study_page(&site, &templates, &sheet, site.price_of(study))?,
        )?;
        output.add(
            pages::payment_page_file(&study.slug),
            pages::payment_page(&site, &templates, &sheet, site.price_of(study))?,
        )?;
        output.add_written(package_path(&study.slug), &r.package)?;
        output.add_written(zip_path(&study.slug), &r.zip)?;
        output.add(format!("private/estudio/{}/resumen.json", study.slug), r.summary)?;
    }
    render_service_documents(&site, &templates, &mut output)?;
    clock.done("documentos públicos");

    let manifest = build_manifest(&site, &output)?;
    output.add(manifest::FILE, to_json(&manifest)?)?;
    output.add("public/_headers", cdn_headers(&manifest).into_bytes())?;
    output.add("public/_redirects", cdn_redirects(&manifest).into_bytes())?;
    output.add("README.md", DIST_README.as_bytes().to_vec())?;
    let sums = sha256_sums(&output);
    output.add("SHA256SUMS", sums.into_bytes())?;
    clock.done("manifiesto y sumas");

    output.write_into(&staging)?;
    staging.replace_output()?;
    clock.done("escribir");

    Ok(BuildSummary {
        studies: studies.len(),
        answers: studies.iter().map(|(s, _)| s.answers.len()).sum(),
        files: output.count(),
        bytes: output.total_bytes(),
        stages: clock.stages,
    })
}

fn package_path(slug: &str) -> String {
    format!("{DOWNLOADS_DIR}/{}", json_download(slug))
}

fn zip_path(slug: &str) -> String {
    format!("{DOWNLOADS_DIR}/{}", zip_download(slug))
}

/// The README that says what `dist/` holds (also committed as `dist/README.md`).
pub const DIST_README: &str = include_str!("../../templates/dist-README.md");

/// One study's paid outputs: the package and the ZIP are already in the staging folder.
struct RenderedStudy {
    slug: String,
    package: WrittenFile,
    summary: Vec<u8>,
    zip: WrittenFile,
    zip_entries: Vec<String>,
}

impl RenderedStudy {
    fn files(&self) -> Files {
        Files {
            json: FileInfo {
                nombre: json_download(&self.slug),
                bytes: self.package.len,
                sha256: self.package.sha256.clone(),
            },
            zip: ZipInfo {
                nombre: zip_download(&self.slug),
                bytes: self.zip.len,
                sha256: self.zip.sha256.clone(),
                contiene: self.zip_entries.clone(),
            },
        }
    }
}

/// Package JSON, summary JSON and the ZIP of one study; the package and the ZIP are hashed
/// and written into the staging folder here. The package and the xlsx are built at the same
/// time (rayon `join`), so one large study keeps both threads busy.
fn render_study(
    site: &Site<'_>,
    templates: &Templates,
    staging: &Staging,
    study: &Study,
    tables: &[Table],
    brands: &[AnswerBrands],
) -> Result<RenderedStudy> {
    let context = || format!("estudio {}", study.slug);
    let editor = &site.content.service.editor;
    let date = &study.design.publicado;
    let (package, xlsx) = rayon::join(
        || to_json(&documents::package(site, study, tables, brands)),
        || xlsx::study_xlsx(study, tables, editor, date),
    );
    let package = package.with_context(context)?;
    let xlsx = xlsx.with_context(context)?;
    let summary = to_json(&documents::summary(site, study, tables)).with_context(context)?;

    let slug = &study.slug;
    let package_name = format!("{slug}/{slug}.json");
    let mut entries = vec![ZipEntry { name: format!("{slug}/{slug}.xlsx"), bytes: Cow::Owned(xlsx) }];
    for (name, bytes) in &study.reports {
        entries.push(ZipEntry { name: format!("{slug}/informes/{name}"), bytes: Cow::Borrowed(bytes) });
    }
    let readme_name = format!("{slug}/README.md");
    let mut names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
    names.push(package_name.clone());
    names.push(readme_name.clone());
    names.sort();
    let readme = templates.render("README.md.j2", &readme_context(site, study, tables, &names))?;
    entries.push(ZipEntry { name: readme_name, bytes: Cow::Owned(readme) });

    let (package_file, zip) = rayon::join(
        || staging.write_hashed(&package_path(slug), &package),
        || {
            let mut entries = entries;
            entries.push(ZipEntry { name: package_name, bytes: Cow::Borrowed(&package) });
            write_zip(entries, date)
        },
    );
    let package_file = package_file?;
    let zip = zip.with_context(context)?;
    let zip_file = staging.write_hashed(&zip_path(slug), &zip)?;
    Ok(RenderedStudy { slug: slug.clone(), package: package_file, summary, zip: zip_file, zip_entries: names })
}

#[derive(Serialize)]
struct ReadmeContext<'a> {
    servicio: &'a crate::model::ServiceSettings,
    ficha: documents::Sheet,
    contiene: &'a [String],
    descripciones: BTreeMap<&'a str, String>,
    descriptions: BTreeMap<&'a str, String>,
}

fn readme_context<'a>(site: &Site<'a>, study: &Study, tables: &[Table], names: &'a [String]) -> ReadmeContext<'a> {
    let mut es = BTreeMap::new();
    let mut en = BTreeMap::new();
    for name in names {
        let (d_es, d_en) = if name.ends_with(".json") {
            (
                "Paquete completo en JSON: ficha, diseño, tablas, hallazgos, métricas y todas las respuestas."
                    .to_owned(),
                "Full package as JSON: sheet, design, tables, findings, metrics and every answer.".to_owned(),
            )
        } else if name.ends_with(".xlsx") {
            (
                "Planilla: índice, una hoja por tabla de análisis, preguntas y respuestas.".to_owned(),
                "Spreadsheet: index, one sheet per analysis table, questions and answers.".to_owned(),
            )
        } else if name.ends_with("README.md") {
            ("Este archivo.".to_owned(), "This file.".to_owned())
        } else {
            ("Informe en PDF.".to_owned(), "PDF report.".to_owned())
        };
        es.insert(name.as_str(), d_es);
        en.insert(name.as_str(), d_en);
    }
    ReadmeContext {
        servicio: &site.content.service,
        ficha: documents::sheet(site, study, tables, None),
        contiene: names,
        descripciones: es,
        descriptions: en,
    }
}

/// Service index, catalog, metrics, openapi, llms.txt, discovery and privacy page.
fn render_service_documents(site: &Site<'_>, templates: &Templates, output: &mut Output) -> Result<()> {
    output.add("public/index.json", to_json(&documents::service_index(site))?)?;
    let catalog = documents::catalog(site);
    output.add("public/catalogo.json", to_json(&catalog)?)?;
    output.add("public/metricas.json", to_json(&documents::metrics_document(site))?)?;
    output.add("public/openapi.json", to_json(&openapi::openapi(site))?)?;
    output.add("public/.well-known/x402.json", to_json(&openapi::discovery(site))?)?;

    output.add("public/llms.txt", llms::llms_txt(site, templates, &catalog)?)?;
    output.add("public/privacidad.html", pages::privacy(site, templates)?)?;
    output.add("public/index.html", pages::home(site, templates, &catalog)?)?;
    output.add(format!("public{}", pages::STYLESHEET_URL), pages::STYLESHEET.to_vec())?;
    output.add(format!("public{}", pages::SCRIPT_URL), pages::SCRIPT.to_vec())?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Manifest: the contract with the gate

/// Public URL → (file, content type).
fn public_routes(site: &Site<'_>) -> Vec<(String, String, &'static str)> {
    const JSON: &str = "application/json; charset=utf-8";
    let mut routes = vec![
        ("/".to_owned(), "public/index.json".to_owned(), JSON),
        ("/index.json".to_owned(), "public/index.json".to_owned(), JSON),
        (HOME_HTML.to_owned(), "public/index.html".to_owned(), HTML),
        (pages::STYLESHEET_URL.to_owned(), format!("public{}", pages::STYLESHEET_URL), "text/css; charset=utf-8"),
        (pages::SCRIPT_URL.to_owned(), format!("public{}", pages::SCRIPT_URL), "text/javascript; charset=utf-8"),
        ("/catalogo".to_owned(), "public/catalogo.json".to_owned(), JSON),
        ("/metricas".to_owned(), "public/metricas.json".to_owned(), JSON),
        ("/openapi.json".to_owned(), "public/openapi.json".to_owned(), JSON),
        ("/.well-known/x402".to_owned(), "public/.well-known/x402.json".to_owned(), JSON),
        ("/llms.txt".to_owned(), "public/llms.txt".to_owned(), "text/plain; charset=utf-8"),
        ("/privacidad".to_owned(), "public/privacidad.html".to_owned(), HTML),
    ];
    for study in &site.content.studies {
        routes.push((
            format!("/estudio/{}/ficha", study.slug),
            format!("public/estudio/{}/ficha.json", study.slug),
            JSON,
        ));
        routes.push((pages::study_page_url(&study.slug), pages::study_page_file(&study.slug), HTML));
    }
    routes
}

const HTML: &str = "text/html; charset=utf-8";
/// The home page for people; `/` answers it to browsers and the JSON index to agents.
const HOME_HTML: &str = "/index.html";

/// A strong ETag from the content hash (lowercase hex sha256).
fn etag(sha256: &str) -> String {
    format!("\"{}\"", &sha256[..32])
}

fn build_manifest(site: &Site<'_>, output: &Output) -> Result<Manifest> {
    let mut rutas = BTreeMap::new();
    for (url, file, tipo) in public_routes(site) {
        let (bytes, sha256) = output.get(&file).with_context(|| format!("falta {file}"))?;
        let html = (url == "/").then(|| HOME_HTML.to_owned());
        rutas.insert(
            url,
            Route {
                archivo: file.clone(),
                tipo: tipo.to_owned(),
                etag: etag(sha256),
                bytes,
                cache: "public, max-age=300".to_owned(),
                html,
            },
        );
    }
    let mut descargas = BTreeMap::new();
    let mut estudios = BTreeMap::new();
    for study in &site.content.studies {
        let names = [json_download(&study.slug), zip_download(&study.slug)];
        for name in &names {
            let file = format!("{DOWNLOADS_DIR}/{name}");
            let (bytes, sha256) = output.get(&file).with_context(|| format!("falta {file}"))?;
            let tipo = if name.ends_with(".zip") { "application/zip" } else { "application/json; charset=utf-8" };
            descargas.insert(
                name.clone(),
                Download { archivo: file, tipo: tipo.to_owned(), bytes, sha256: sha256.to_owned() },
            );
        }
        let view = |view: View, file: String| {
            (view, ViewOffer { archivo: file, pago_requerido: openapi::payment_required(site, study, view) })
        };
        estudios.insert(
            study.slug.clone(),
            manifest::Study {
                nombre: study.design.nombre.clone(),
                precio: ListedPrice(site.price_of(study)),
                vistas: BTreeMap::from([
                    view(View::Completo, package_path(&study.slug)),
                    view(View::Resumen, format!("private/estudio/{}/resumen.json", study.slug)),
                ]),
                descargas: names.to_vec(),
                pagina_402: pages::payment_page_file(&study.slug),
            },
        );
        let page = pages::payment_page_file(&study.slug);
        output.get(&page).with_context(|| format!("falta {page}"))?;
    }
    let service = &site.content.service;
    Ok(Manifest {
        formato: manifest::FORMAT.to_owned(),
        servicio: Service {
            nombre: service.nombre.clone(),
            base_url: service.base_url.clone(),
            modo: service.modo,
            vigencia_enlaces_dias: service.vigencia_enlaces_dias,
            contacto: service.contacto.clone(),
            redes: offer::networks(service),
        },
        rutas,
        estudios,
        descargas,
        busqueda: search::build_index(&site.content.studies),
    })
}

/// `_headers` (Netlify / Cloudflare Pages syntax): content types and CORS for every route,
/// and the pages' Content-Security-Policy. A static host cannot negotiate, so it serves `/`
/// as the home page (`index.html`) and the JSON index stays at `/index.json`.
fn cdn_headers(manifest: &Manifest) -> String {
    let mut text = String::from("# Encabezados para hosts estáticos (Netlify, Cloudflare Pages). Generado.\n");
    let mut seen = std::collections::BTreeSet::new();
    for (url, route) in &manifest.rutas {
        let route = route.html.as_ref().and_then(|alt| manifest.rutas.get(alt)).unwrap_or(route);
        let file_url = format!("/{}", route.archivo.trim_start_matches("public/"));
        for path in [url.as_str(), file_url.as_str()] {
            if !seen.insert(path.to_owned()) {
                continue;
            }
            let _ = writeln!(
                text,
                "{path}\n  Content-Type: {}\n  Cache-Control: {}\n  Access-Control-Allow-Origin: *\n  Access-Control-Expose-Headers: PAYMENT-REQUIRED, PAYMENT-RESPONSE\n  X-Content-Type-Options: nosniff",
                route.tipo, route.cache
            );
            if route.tipo.starts_with("text/html") {
                let _ = writeln!(text, "  Content-Security-Policy: {}", pages::CONTENT_SECURITY_POLICY);
            }
        }
    }
    text
}

/// `_redirects`: the extensionless URLs rewritten (status 200) to their files.
fn cdn_redirects(manifest: &Manifest) -> String {
    let mut text = String::from("# Reescrituras para hosts estáticos: URL sin extensión → archivo. Generado.\n");
    for (url, route) in &manifest.rutas {
        let file_url = format!("/{}", route.archivo.trim_start_matches("public/"));
        // "/" is the home page, `index.html`, which every static host serves by itself.
        if *url != file_url && url != "/" {
            let _ = writeln!(text, "{url} {file_url} 200");
        }
    }
    text
}

/// `SHA256SUMS` in `sha256sum` format, every file but itself.
fn sha256_sums(output: &Output) -> String {
    output.hashes().map(|(path, sha256)| format!("{sha256}  {path}\n")).collect()
}

/// Stage timing, printed one line a stage as in Zola.
struct Stages {
    quiet: bool,
    last: Instant,
    stages: Vec<(&'static str, Duration)>,
}

impl Stages {
    fn new(quiet: bool) -> Stages {
        Stages { quiet, last: Instant::now(), stages: Vec::new() }
    }

    fn done(&mut self, name: &'static str) {
        let elapsed = self.last.elapsed();
        self.last = Instant::now();
        if !self.quiet {
            println!("  {name:.<40} {:>8.1} ms", elapsed.as_secs_f64() * 1000.0);
        }
        self.stages.push((name, elapsed));
    }
}
