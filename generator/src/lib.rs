//! The build-time generator: `content/` in, `dist/` out.
//!
//! The pipeline, one module per stage. A module imports the shared [`model`], [`problems`],
//! [`parallel`] and [`paths`] and the stages whose results it reads; no import goes the
//! other way (`validate` reads the metrics' tables for its last checks, so it comes after
//! `metrics` in the imports, though before it in the run):
//!
//! 1. [`load`]: read `content/` into the [`model`], collecting every parse problem.
//! 2. [`validate`]: the rules that span files (references, ids, dates, URLs, hosts).
//! 3. [`metrics`]: the brands each answer names and cites, the formulas, the analysis tables;
//!    then [`validate`] checks every finding's numbers against its table cells.
//! 4. [`render`]: the documents: JSON, HTML pages, `llms.txt`, OpenAPI and x402 discovery,
//!    the search index, the PDF reports' model.
//! 5. [`package`]: each study's paid files: full package, summary, ZIP (with the xlsx).
//!    [`previous`]: the paid files named against the build already in the output folder (a
//!    file whose bytes changed gets a new name; the one sold before is kept, and reported).
//! 6. [`manifest`]: `gate.json` for the gate, `_headers` and `_redirects` for static hosts,
//!    `SHA256SUMS`.
//! 7. [`output`]: every file hashed once, written into a staging folder that replaces the
//!    output only when the whole build succeeded.
//!
//! [`check`] runs stages 1 to 3 and is what `generator check` prints; [`build::build`] runs
//! the whole pipeline as a flat list of named stages, and packages each study before it
//! renders the study's free sheet, because the sheet publishes the size and sha256 of its
//! downloads. `informes` (cargo feature `pdf`) writes the PDF reports into `content/`.

pub mod build;
pub mod cli;
pub mod load;
pub mod manifest;
pub mod metrics;
pub mod model;
pub mod output;
pub mod package;
pub mod parallel;
pub mod paths;
pub mod previous;
pub mod problems;
pub mod render;
#[cfg(feature = "pdf")]
pub mod reports;
pub mod surfaces;
pub mod validate;

use std::path::Path;

use crate::metrics::analysis::Table;
use crate::metrics::mentions::AnswerBrands;
use crate::metrics::multiplicity::Family;
use crate::model::{Content, Study};
use crate::problems::Problems;

/// Loaded, validated content with every analysis table computed and every finding verified.
pub struct Checked {
    pub content: Content,
    /// Tables per study, in the order of `content.studies`.
    pub tables: Vec<Vec<Table>>,
    /// Change tables per study (same order; empty for a study without a previous run):
    /// `metrics::change`.
    pub changes: Vec<Vec<Table>>,
    /// Per study (same order), the family of its change tests (`None` without a previous
    /// run): how many, how many changes, the adjusted level (`metrics::multiplicity`).
    pub change_families: Vec<Option<Family>>,
    /// Brands named and cited per answer, per study (same orders), found once for the
    /// metrics and reused by the package.
    pub brands: Vec<Vec<AnswerBrands>>,
    /// What deserves a look but does not stop the build: comparisons in findings whose
    /// difference does not hold at 95%.
    pub warnings: Problems,
}

/// Loads, validates and analyses `root`; every problem found is returned at once.
///
/// Studies are independent: each one that parsed is validated, and each one that validated
/// is analysed and has its findings checked, in parallel. Each study is computed serially,
/// so the numbers do not depend on the thread count.
pub fn check(root: &Path) -> Result<Checked, Problems> {
    let loaded = load::load(root);
    let mut problems = loaded.problems.clone();
    if let (Some(service), Some(metrics)) = (&loaded.service, &loaded.metrics) {
        problems.extend(validate::validate_service(root, service, metrics));
    }
    let sizes: Vec<u64> = loaded.studies.iter().map(|study| study.answers.len() as u64).collect();
    let results: Vec<Result<StudyAnalysis, Problems>> =
        parallel::largest_first(&sizes, |i| analyse_study(root, &loaded.studies[i]));
    let mut tables = Vec::with_capacity(results.len());
    let mut changes = Vec::with_capacity(results.len());
    let mut change_families = Vec::with_capacity(results.len());
    let mut brands = Vec::with_capacity(results.len());
    let mut warnings = Problems::default();
    for result in results {
        match result {
            Ok(study) => {
                tables.push(study.tables);
                changes.push(study.changes);
                change_families.push(study.family);
                brands.push(study.brands);
                warnings.extend(study.warnings);
            }
            Err(found) => problems.extend(found),
        }
    }
    let content = loaded.into_content_with(problems)?;
    Ok(Checked { content, tables, changes, change_families, brands, warnings })
}

/// One study's tables, its change tables and their family of tests, the brands found in each
/// of its answers, and its warnings.
struct StudyAnalysis {
    tables: Vec<Table>,
    changes: Vec<Table>,
    family: Option<Family>,
    brands: Vec<AnswerBrands>,
    warnings: Problems,
}

/// Validates one study, then computes its tables and checks its findings against them.
/// Returns the tables and the brands found in each answer.
fn analyse_study(root: &Path, study: &Study) -> Result<StudyAnalysis, Problems> {
    validate::validate_study(root, study).into_result(())?;
    let brands = metrics::answer_brands(study);
    let facts = metrics::extract_facts_with(study, &brands);
    validate::check_tone_labels(root, study, &facts).into_result(())?;
    let tables = metrics::analysis::analyze_facts(study, &facts).map_err(|e| {
        let mut problems = Problems::default();
        let file = root.join(load::STUDIES_DIR).join(&study.slug).join(load::STUDY_FILE);
        problems.push(&file, "analisis", format!("{e:#}"));
        problems
    })?;
    let (changes, family) = metrics::change::change_analysis(study, &facts);
    let all: Vec<Table> = tables.iter().chain(&changes).cloned().collect();
    validate::check_findings(root, study, &all).into_result(())?;
    let mut warnings = validate::unsupported_comparisons(root, study, &tables);
    warnings.extend(validate::unsupported_changes(root, study, &changes));
    warnings.extend(validate::unrecorded_consulted(root, study));
    Ok(StudyAnalysis { tables, changes, family, brands, warnings })
}
