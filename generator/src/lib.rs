//! The build-time generator: `content/` in, `dist/` out.
//!
//! A flat pipeline, one module per stage: [`load`] → [`validate`] → [`metrics`] and
//! [`analysis`] → render → package → manifest. [`check`] runs the stages that need no output
//! folder and is what `generator check` prints.

pub mod analysis;
pub mod build;
pub mod documents;
pub mod fold;
pub mod load;
pub mod mentions;
pub mod metrics;
pub mod model;
pub mod offer;
pub mod openapi;
pub mod package;
pub mod problems;
pub mod search;
pub mod synth;
pub mod templates;
pub mod validate;

use std::path::Path;

use rayon::prelude::*;

use crate::analysis::Table;
use crate::model::{Content, Study};
use crate::problems::Problems;

/// A study with its computed tables.
pub struct AnalyzedStudy<'a> {
    pub study: &'a Study,
    pub tables: Vec<Table>,
}

/// Loaded, validated content with every analysis table computed and every finding verified.
pub struct Checked {
    pub content: Content,
    /// Tables per study, in the order of `content.studies`.
    pub tables: Vec<Vec<Table>>,
}

impl Checked {
    pub fn studies(&self) -> impl Iterator<Item = AnalyzedStudy<'_>> {
        self.content
            .studies
            .iter()
            .zip(&self.tables)
            .map(|(study, tables)| AnalyzedStudy { study, tables: tables.clone() })
    }
}

/// Loads, validates and analyses `root`; every problem found is returned at once.
pub fn check(root: &Path) -> Result<Checked, Problems> {
    let content = load::load(root)?;
    validate::validate(root, &content).into_result(())?;
    // Studies are independent: analyse them in parallel; each one is computed serially, so
    // the numbers do not depend on the thread count.
    let results: Vec<(Result<Vec<Table>, anyhow::Error>, Problems)> = content
        .studies
        .par_iter()
        .map(|study| match analysis::analyze(study) {
            Ok(tables) => {
                let problems = validate::check_findings(root, study, &tables);
                (Ok(tables), problems)
            }
            Err(e) => (Err(e), Problems::default()),
        })
        .collect();
    let mut problems = Problems::default();
    let mut tables = Vec::with_capacity(results.len());
    for (study, (result, found)) in content.studies.iter().zip(results) {
        problems.extend(found);
        match result {
            Ok(t) => tables.push(t),
            Err(e) => {
                let file = root.join(load::STUDIES_DIR).join(&study.slug).join(load::STUDY_FILE);
                problems.push(&file, "analisis", format!("{e:#}"));
            }
        }
    }
    problems.into_result(Checked { content, tables })
}
