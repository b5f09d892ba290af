//! `generator build`: the whole pipeline, as a flat list of named stages.
//!
//! load and validate → analyse (both in [`crate::check`]) → render documents → package
//! (ZIP, xlsx) → sheets with sizes and hashes → manifest → write. Studies are rendered and
//! packaged in parallel with rayon; results are collected into a sorted map, so the bytes
//! do not depend on the thread count. Everything is written into a staging folder next to
//! the output (see [`crate::output`]).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
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
use crate::render::{Site, html as pages, llms, openapi, to_json};
use crate::{manifest, paths};

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
        output.add(paths::sheet(&study.slug), to_json(&sheet)?)?;
        output
            .add(paths::study_page(&study.slug), pages::study_page(&site, &templates, &sheet, site.price_of(study))?)?;
        output.add(
            paths::payment_page(&study.slug),
            pages::payment_page(&site, &templates, &sheet, site.price_of(study))?,
        )?;
        output.add_written(paths::download(&paths::json_download(&study.slug)), &r.package)?;
        output.add_written(paths::download(&paths::zip_download(&study.slug)), &r.zip)?;
        output.add(paths::summary(&study.slug), r.summary)?;
    }
    render_service_documents(&site, &templates, &mut output)?;
    clock.done("documentos públicos");

    manifest::add_files(&site, &mut output)?;
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
                nombre: paths::json_download(&self.slug),
                bytes: self.package.len,
                sha256: self.package.sha256.clone(),
            },
            zip: ZipInfo {
                nombre: paths::zip_download(&self.slug),
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
        || staging.write_hashed(&paths::download(&paths::json_download(slug)), &package),
        || {
            let mut entries = entries;
            entries.push(ZipEntry { name: package_name, bytes: Cow::Borrowed(&package) });
            write_zip(entries, date)
        },
    );
    let package_file = package_file?;
    let zip = zip.with_context(context)?;
    let zip_file = staging.write_hashed(&paths::download(&paths::zip_download(slug)), &zip)?;
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
    output.add(paths::SERVICE_INDEX, to_json(&documents::service_index(site))?)?;
    let catalog = documents::catalog(site);
    output.add(paths::CATALOG, to_json(&catalog)?)?;
    output.add(paths::METRICS, to_json(&documents::metrics_document(site))?)?;
    output.add(paths::OPENAPI, to_json(&openapi::openapi(site))?)?;
    output.add(paths::DISCOVERY, to_json(&openapi::discovery(site))?)?;

    output.add(paths::LLMS_TXT, llms::llms_txt(site, templates, &catalog)?)?;
    output.add(paths::PRIVACY_PAGE, pages::privacy(site, templates)?)?;
    output.add(paths::HOME_PAGE, pages::home(site, templates, &catalog)?)?;
    output.add(paths::public_file(paths::STYLESHEET_URL), pages::STYLESHEET.to_vec())?;
    output.add(paths::public_file(paths::SCRIPT_URL), pages::SCRIPT.to_vec())?;
    Ok(())
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
