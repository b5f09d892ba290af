//! The build-time generator: `content/` in, `dist/` out.
//!
//! A flat pipeline, one module per stage: [`load`] → [`validate`] → [`metrics`] (brand
//! detection, formulas and analysis tables) → render → package → manifest. [`check`] runs
//! the stages that need no output folder and is what `generator check` prints.

pub mod build;
pub mod load;
pub mod manifest;
pub mod metrics;
pub mod model;
pub mod output;
pub mod package;
pub mod parallel;
pub mod paths;
pub mod problems;
pub mod render;
pub mod synth;
pub mod validate;

/// The old paths of [`metrics::analysis`] and [`metrics::mentions`], which `synth` still uses
/// (`crate::analysis::analyze`, `crate::mentions::BrandMatcher`, ...) until it moves to its own
/// crate; nothing else in the generator goes through them.
pub use metrics::{analysis, mentions};

use std::path::Path;

use crate::metrics::analysis::Table;
use crate::metrics::mentions::AnswerBrands;
use crate::model::{Content, Study};
use crate::problems::Problems;

/// Loaded, validated content with every analysis table computed and every finding verified.
pub struct Checked {
    pub content: Content,
    /// Tables per study, in the order of `content.studies`.
    pub tables: Vec<Vec<Table>>,
    /// Brands named and cited per answer, per study (same orders), found once for the
    /// metrics and reused by the package.
    pub brands: Vec<Vec<AnswerBrands>>,
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
    let mut brands = Vec::with_capacity(results.len());
    for result in results {
        match result {
            Ok((t, b)) => {
                tables.push(t);
                brands.push(b);
            }
            Err(found) => problems.extend(found),
        }
    }
    let content = loaded.into_content_with(problems)?;
    Ok(Checked { content, tables, brands })
}

/// One study's tables, and the brands found in each of its answers.
type StudyAnalysis = (Vec<Table>, Vec<AnswerBrands>);

/// Validates one study, then computes its tables and checks its findings against them.
/// Returns the tables and the brands found in each answer.
fn analyse_study(root: &Path, study: &Study) -> Result<StudyAnalysis, Problems> {
    validate::validate_study(root, study).into_result(())?;
    let brands = metrics::answer_brands(study);
    let facts = metrics::extract_facts_with(study, &brands);
    validate::check_tone_labels(root, study, &facts).into_result(())?;
    let tables = analysis::analyze_facts(study, &facts).map_err(|e| {
        let mut problems = Problems::default();
        let file = root.join(load::STUDIES_DIR).join(&study.slug).join(load::STUDY_FILE);
        problems.push(&file, "analisis", format!("{e:#}"));
        problems
    })?;
    validate::check_findings(root, study, &tables).into_result((tables, brands))
}
