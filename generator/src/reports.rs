//! `generator informes`: the PDF reports of the chosen studies, written into `content/`.
//!
//! The reports are committed content, not build output: typesetting needs typst (cargo
//! feature `pdf`), which the plain build never compiles. This command checks the content as
//! `build` does, renders each chosen study's reports ([`crate::render::report::pdf`]) and
//! writes them into `content/estudios/<slug>/informes/`, from where `build` copies them into
//! the study's ZIP.

use std::path::Path;

use anyhow::{Result, anyhow, bail};

use crate::load::{REPORTS_DIR, STUDIES_DIR};
use crate::metrics::analysis::Table;
use crate::metrics::multiplicity::Family;
use crate::model::Study;
use crate::render::report::pdf::{RenderedReport, TEMPLATE, render_reports_with};
use crate::render::site::Site;

/// What `generator informes` writes: per study, its reports.
pub struct WrittenReports {
    pub slug: String,
    pub reports: Vec<RenderedReport>,
}

/// Renders the reports of the chosen studies (by default, the studies that already have
/// reports) and writes them into `content/estudios/<slug>/informes/`.
/// `template` replaces the built-in layout when given.
pub fn write_reports(content: &Path, slugs: &[String], template: Option<&Path>) -> Result<Vec<WrittenReports>> {
    let template = match template {
        Some(path) => std::fs::read_to_string(path).map_err(|e| anyhow!("no se pudo leer {}: {e}", path.display()))?,
        None => TEMPLATE.to_owned(),
    };
    let checked = crate::check(content).map_err(|problems| anyhow!("{problems}"))?;
    let site = Site::new(&checked.content);
    let studies: Vec<StudyTables<'_>> = checked
        .content
        .studies
        .iter()
        .zip(checked.tables.iter().map(Vec::as_slice))
        .zip(checked.changes.iter().map(Vec::as_slice))
        .zip(&checked.change_families)
        .map(|(((study, tables), changes), family)| (study, tables, changes, family.as_ref()))
        .collect();
    let mut written = Vec::new();
    for &(study, tables, changes, family) in chosen_studies(content, &studies, slugs)? {
        let reports = render_reports_with(&template, &site, study, tables, changes, family)?;
        write_study_reports(content, study, &reports)?;
        written.push(WrittenReports { slug: study.slug.clone(), reports });
    }
    Ok(written)
}

/// A study with its analysis tables, its change tables and their family of tests.
type StudyTables<'a> = (&'a Study, &'a [Table], &'a [Table], Option<&'a Family>);

/// The studies named in `slugs` (each must exist), or, when none is named, those that already
/// have reports.
fn chosen_studies<'a>(
    content: &Path,
    studies: &'a [StudyTables<'a>],
    slugs: &[String],
) -> Result<Vec<&'a StudyTables<'a>>> {
    for slug in slugs {
        if !studies.iter().any(|(s, _, _, _)| s.slug == *slug) {
            bail!("no hay un estudio `{slug}` en {}", content.display());
        }
    }
    let chosen: Vec<_> = if slugs.is_empty() {
        studies.iter().filter(|(s, _, _, _)| !s.reports.is_empty()).collect()
    } else {
        studies.iter().filter(|(s, _, _, _)| slugs.contains(&s.slug)).collect()
    };
    if chosen.is_empty() {
        bail!("ningún estudio tiene informes todavía: elegí cuáles con --estudio SLUG");
    }
    Ok(chosen)
}

/// Writes a study's reports into its `informes/` folder.
fn write_study_reports(content: &Path, study: &Study, reports: &[RenderedReport]) -> Result<()> {
    let dir = content.join(STUDIES_DIR).join(&study.slug).join(REPORTS_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| anyhow!("no se pudo crear {}: {e}", dir.display()))?;
    for r in reports {
        let path = dir.join(&r.name);
        std::fs::write(&path, &r.bytes).map_err(|e| anyhow!("no se pudo escribir {}: {e}", path.display()))?;
    }
    Ok(())
}
