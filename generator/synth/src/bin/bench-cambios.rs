//! `bench-cambios`: how many "changed" verdicts a study's change tables give when nothing
//! changed, before and after the multiplicity control.
//!
//! For each sample study, `--pares` times: two runs of the same questions and the same models,
//! drawn by synth's answer engine from independent random streams (no brand weight, model or
//! source differs between them: every difference is the noise of asking again), compared as a
//! study and its previous run. Every "creció" or "cayó" is then a false alarm. Before: the
//! verdict each cell would have alone, its 95% interval without adjustment (what the tables
//! published before the control: the rounded interval excludes 0). After: the published
//! verdict, Benjamini–Hochberg at a 5% false discovery rate over all the study's change cells
//! (`generator::metrics::multiplicity`). With no true change, the false discovery rate is the
//! chance of any false "changed" in a study, which BH keeps at or below 5% when its conditions
//! hold: the column "pares con alguno" measures it. Deterministic: the same seed gives the same
//! table on any machine and thread count.

use std::process::ExitCode;
use std::time::Instant;

use rayon::prelude::*;

use generator::metrics::analysis::Cell;
use generator::metrics::{change, extract_facts};

use synth::cli::BenchCambios as Cli;

/// What one pair of runs gave: cells with a 95% interval, cells tested (enough questions),
/// false changes before and after.
#[derive(Clone, Copy, Default)]
struct Pair {
    cells: u64,
    tests: u64,
    before: u64,
    after: u64,
}

fn main() -> ExitCode {
    let Cli { pairs, seed, studies, detail } = cli::parse();
    let started = Instant::now();
    let samples = match synth::Samples::load() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {}", cli::error_line(e.as_ref()));
            return ExitCode::FAILURE;
        }
    };
    let slugs: Vec<String> =
        samples.slugs().into_iter().filter(|s| studies.is_empty() || studies.contains(s)).collect();
    println!("semilla {seed}, {pairs} pares de corridas sin cambio real por estudio; FDR de Benjamini–Hochberg: 5 %\n");
    println!(
        "| estudio | preguntas | celdas con intervalo | probadas (m) | falsos «cambió» por par, sin ajuste | con BH | pares con alguno, sin ajuste | con BH | por celda, sin ajuste | con BH |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut all: Vec<Pair> = Vec::new();
    for slug in &slugs {
        let results: Result<Vec<(usize, Pair)>, String> =
            (0..pairs).into_par_iter().map(|r| one_pair(&samples, slug, seed, r)).collect();
        let results = match results {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        for r in 0..detail {
            match samples.null_rerun(slug, seed, r) {
                Ok(study) => {
                    let (tables, _) = change::change_analysis(&study, &extract_facts(&study));
                    for line in false_alarms(&tables) {
                        eprintln!("{slug} {line}");
                    }
                }
                Err(e) => eprintln!("error: {e:#}"),
            }
        }
        let questions = results.first().map_or(0, |(q, _)| *q);
        let pairs: Vec<Pair> = results.into_iter().map(|(_, p)| p).collect();
        println!("{}", row(slug, &questions.to_string(), &pairs));
        all.extend(pairs);
    }
    println!("{}", row("todos", "", &all));
    println!("\n{:.1} s", started.elapsed().as_secs_f64());
    ExitCode::SUCCESS
}

/// One pair of runs of `slug`: its questions, and the tests and false changes of its tables.
fn one_pair(samples: &synth::Samples, slug: &str, seed: u64, replicate: u64) -> Result<(usize, Pair), String> {
    let study = samples.null_rerun(slug, seed, replicate).map_err(|e| format!("{slug}: {e:#}"))?;
    let facts = extract_facts(&study);
    let (tables, family) = change::change_analysis(&study, &facts);
    let family = family.ok_or_else(|| format!("{slug}: sin familia de pruebas"))?;
    let (mut cells, mut before) = (0, 0);
    for table in &tables {
        for row in &table.rows {
            for (column, cell) in table.columns.iter().zip(row) {
                if column.ends_with("_diferencia_ic95")
                    && let Cell::Interval(low, high) = cell
                {
                    cells += 1;
                    before += u64::from(*low > 0.0 || *high < 0.0);
                }
            }
        }
    }
    let pair = Pair { cells, tests: family.tests as u64, before, after: family.discoveries as u64 };
    Ok((study.questions.len(), pair))
}

/// The cells a change table gives as changed: table, brand, metric, both values, the 95% interval,
/// the p-value.
fn false_alarms(tables: &[generator::metrics::analysis::Table]) -> Vec<String> {
    let mut found = Vec::new();
    for t in tables {
        for row in &t.rows {
            let brand = match row.first() {
                Some(Cell::Text(b)) => b.as_str(),
                _ => "",
            };
            for metric in change::METRICS {
                let cell = |suffix: &str| t.cell(brand, &format!("{}{suffix}", metric.id())).cloned();
                if let Some(Cell::Text(verdict)) = cell("_veredicto")
                    && verdict != change::NO_CHANGE
                {
                    found.push(format!(
                        "{} {brand} {}: {:?} → {:?} (n {:?} → {:?}), 95 % {:?}, p {:?}, {verdict}",
                        t.id,
                        metric.id(),
                        cell("_anterior"),
                        cell("_actual"),
                        cell("_anterior_n"),
                        cell("_actual_n"),
                        cell("_diferencia_ic95"),
                        cell("_diferencia_p"),
                    ));
                }
            }
        }
    }
    found
}

fn row(name: &str, questions: &str, pairs: &[Pair]) -> String {
    let n = pairs.len().max(1) as f64;
    let sum = |f: fn(&Pair) -> u64| pairs.iter().map(f).sum::<u64>() as f64;
    let cells = sum(|p| p.cells);
    let any = |f: fn(&Pair) -> u64| pairs.iter().filter(|p| f(p) > 0).count() as f64 / n * 100.0;
    format!(
        "| {name} | {questions} | {:.0} | {:.0} | {:.2} | {:.3} | {:.1} % | {:.1} % | {:.2} % | {:.3} % |",
        cells / n,
        sum(|p| p.tests) / n,
        sum(|p| p.before) / n,
        sum(|p| p.after) / n,
        any(|p| p.before),
        any(|p| p.after),
        sum(|p| p.before) / cells.max(1.0) * 100.0,
        sum(|p| p.after) / cells.max(1.0) * 100.0,
    )
}
