//! `generator build`: the whole pipeline, as a flat list of named stages.
//!
//! Each stage is one call below, timed and printed as one line (as Zola does): load, validate
//! and compute ([`crate::check`]) → package every study and store its paid files → name them
//! against the build already in the output folder ([`crate::previous`]: a file whose bytes
//! changed gets a new name, the sold one is kept) → render the free documents (the sheets
//! publish the packages' sizes and hashes) → manifest and sums → write. Studies are packaged in parallel, largest first; every result lands in a sorted map,
//! so the bytes do not depend on the thread count.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::output::{Output, Staging, WrittenFile};
use crate::previous::{self, Carried};
use crate::problems::Problems;
use crate::render::json::{FileInfo, Files, ZipInfo};
use crate::render::templates::Templates;
use crate::render::{self, site::Site};
use crate::{Checked, manifest, package, parallel, paths};

/// Settings of one build, already validated by the command line.
pub struct BuildOptions {
    pub content: PathBuf,
    pub out: PathBuf,
    pub quiet: bool,
    /// Do not keep the paid files of the build already in `out` (`--descartar-anteriores`).
    pub discard_previous: bool,
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
    /// Warnings of the check (they do not stop the build).
    pub warnings: Problems,
    /// One line per study whose paid files changed since the build in the output folder, or
    /// that is no longer sold (its earlier files are kept).
    pub changed: Vec<String>,
    /// The public paths whose bytes changed since the previous build (all on a first one),
    /// as written to [`purge_list_path`] for a cache's purge.
    pub purge: Vec<String>,
}

/// Runs the whole build.
pub fn build(options: &BuildOptions) -> Result<BuildSummary, BuildError> {
    let mut clock = Stages::new(options.quiet);

    let checked = crate::check(&options.content).map_err(BuildError::Content)?;
    clock.done("cargar, validar y calcular");

    let site = Site::new(&checked.content);
    let templates = Templates::new()?;
    let previous = previous::read(&options.out, options.discard_previous)?;
    let staging = Staging::create(&options.out)?;
    let stored = package_studies(&site, &templates, &checked, &staging)?;
    clock.done("paquetes, xlsx y ZIP por estudio");

    let mut output = Output::default();
    let carried = name_paid_files(&checked, &stored, &previous, &staging)?;
    previous.copy_kept(&carried.kept, &staging, &mut output)?;
    clock.done("archivos vendidos antes");

    render_studies(&site, &templates, &checked, stored, &carried, &mut output)?;
    output.add_all(render::service_files(&site, &templates)?)?;
    clock.done("documentos públicos");

    manifest::add_files(&site, &carried, &mut output)?;
    clock.done("manifiesto y sumas");

    output.write_into(&staging)?;
    staging.replace_output()?;
    let purge = write_purge_list(&options.out, &previous)?;
    clock.done("escribir");

    let studies = &checked.content.studies;
    Ok(BuildSummary {
        studies: studies.len(),
        answers: studies.iter().map(|s| s.answers.len()).sum(),
        files: output.count(),
        bytes: output.total_bytes(),
        stages: clock.stages,
        warnings: checked.warnings.clone(),
        changed: carried.warnings,
        purge,
    })
}

/// Where `generator build --out dist` writes the public paths a cache must purge: beside the
/// output folder (`dist.purgar.txt`), never in it, so the gate never serves it.
pub fn purge_list_path(out: &Path) -> PathBuf {
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "dist".to_owned());
    out.with_file_name(format!("{name}.purgar.txt"))
}

/// Compares the routes of the build just written with the previous build's and writes the
/// public paths whose bytes changed, one a line (every path on a first build).
fn write_purge_list(out: &Path, previous: &previous::Previous) -> Result<Vec<String>> {
    let path = out.join(contract::manifest::FILE);
    let text = std::fs::read(&path).with_context(|| format!("no se pudo leer {}", path.display()))?;
    let written: contract::manifest::Manifest =
        serde_json::from_slice(&text).with_context(|| format!("{}: manifiesto ilegible", path.display()))?;
    let changed = previous::changed_paths(&previous.route_etags(), &previous::route_etags(&written));
    let list = purge_list_path(out);
    let text: String = changed.iter().map(|url| format!("{url}\n")).collect();
    std::fs::write(&list, text).with_context(|| format!("no se pudo escribir {}", list.display()))?;
    Ok(changed)
}

/// Names each study's paid files against the previous build, moving a staged file to its new
/// name when the previous build sold other bytes under the plain one.
fn name_paid_files(
    checked: &Checked,
    stored: &[StoredStudy],
    previous: &previous::Previous,
    staging: &Staging,
) -> Result<Carried> {
    let current: BTreeMap<String, [(String, String); 2]> = checked
        .content
        .studies
        .iter()
        .zip(stored)
        .map(|(study, stored)| {
            let slug = &study.slug;
            let files = [
                (paths::json_download(slug), stored.package.sha256.clone()),
                (paths::zip_download(slug), stored.zip.sha256.clone()),
            ];
            (slug.clone(), files)
        })
        .collect();
    let carried = previous.carry(&current, checked.content.service.link_validity_days);
    for (slug, files) in &current {
        for ((plain, _), name) in files.iter().zip(&carried.names[slug]) {
            if plain != name {
                staging.rename(&paths::download(plain), &paths::download(name))?;
            }
        }
    }
    Ok(carried)
}

/// One study's paid files once stored in the staging folder.
struct StoredStudy {
    package: WrittenFile,
    zip: WrittenFile,
    zip_entries: Vec<String>,
    /// The summary view: small, written with the other files at the end.
    summary: Vec<u8>,
}

/// Packages every study (in parallel, largest first) and writes its package and ZIP into the
/// staging folder at once, so no more than one study per thread is held in memory.
fn package_studies(
    site: &Site<'_>,
    templates: &Templates,
    checked: &Checked,
    staging: &Staging,
) -> Result<Vec<StoredStudy>> {
    let studies = &checked.content.studies;
    let sizes: Vec<u64> = studies.iter().map(|study| study.answers.len() as u64).collect();
    parallel::largest_first(&sizes, |i| {
        let study = &studies[i];
        let (tables, changes, family) = (&checked.tables[i], &checked.changes[i], checked.change_families[i].as_ref());
        let paid = package::study(site, templates, study, tables, changes, family, &checked.brands[i])?;
        let (package, zip) = rayon::join(
            || staging.write_hashed(&paths::package(&study.slug), &paid.package),
            || staging.write_hashed(&paths::zip(&study.slug), &paid.zip),
        );
        Ok(StoredStudy { package: package?, zip: zip?, zip_entries: paid.zip_entries, summary: paid.summary })
    })
    .into_iter()
    .collect()
}

/// Records each study's paid files in the output and renders its free sheet and pages, which
/// publish the paid files' sizes and hashes.
fn render_studies(
    site: &Site<'_>,
    templates: &Templates,
    checked: &Checked,
    stored: Vec<StoredStudy>,
    carried: &Carried,
    output: &mut Output,
) -> Result<()> {
    for ((study, tables), stored) in checked.content.studies.iter().zip(&checked.tables).zip(stored) {
        let slug = &study.slug;
        let [json_name, zip_name] = carried.names.get(slug).cloned().unwrap_or_default();
        let downloads = Files {
            json: FileInfo {
                name: json_name.clone(),
                bytes: stored.package.len,
                sha256: stored.package.sha256.clone(),
            },
            zip: ZipInfo {
                name: zip_name.clone(),
                bytes: stored.zip.len,
                sha256: stored.zip.sha256.clone(),
                contains: stored.zip_entries,
            },
        };
        output.add_all(render::study_files(site, templates, study, tables, downloads)?)?;
        output.add_written(paths::download(&json_name), &stored.package)?;
        output.add_written(paths::download(&zip_name), &stored.zip)?;
        output.add(paths::summary(slug), stored.summary)?;
    }
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
