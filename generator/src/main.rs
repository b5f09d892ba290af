//! `generator`: the publisher's command line.
//!
//! Arguments are parsed in two steps (as in ripgrep): clap reads what the user typed
//! ([`Cli`]), then each command turns it into validated settings before doing any work.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use generator::build::{BuildError, BuildOptions};
use generator::cli::{Cli, Command};

/// A build allocates and frees hundreds of megabytes of strings and buffers. glibc's allocator
/// hands freed memory back to the system eagerly, so each reuse page-faults afresh (about a
/// seventh of a large build's time went to the kernel); jemalloc keeps it for reuse.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let cli: Cli = cli::parse();
    match cli.command {
        Command::Check { content } => check(&content),
        Command::Build { content, out, quiet, discard_previous } => {
            build(BuildOptions { content, out, quiet, discard_previous })
        }
        Command::Reports { content, studies, template } => reports(&content, &studies, template.as_deref()),
    }
}

#[cfg(feature = "pdf")]
fn reports(content: &Path, slugs: &[String], template: Option<&Path>) -> ExitCode {
    let started = Instant::now();
    match generator::reports::write_reports(content, slugs, template) {
        Ok(written) => {
            for study in &written {
                for r in &study.reports {
                    println!(
                        "  {}/{}/{}/{}/{} {:>8} bytes {:>7.1} ms",
                        content.display(),
                        generator::load::STUDIES_DIR,
                        study.slug,
                        generator::load::REPORTS_DIR,
                        r.name,
                        r.bytes.len(),
                        r.elapsed.as_secs_f64() * 1000.0
                    );
                }
            }
            let n: usize = written.iter().map(|s| s.reports.len()).sum();
            println!("Listo: {n} informes de {} estudios en {:.2} s", written.len(), started.elapsed().as_secs_f64());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}", cli::error_line(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}

#[cfg(not(feature = "pdf"))]
fn reports(_content: &Path, _slugs: &[String], _template: Option<&Path>) -> ExitCode {
    eprintln!("este generator se compiló sin informes PDF; usá: cargo run -p generator --features pdf -- informes");
    ExitCode::FAILURE
}

fn check(content: &Path) -> ExitCode {
    let started = Instant::now();
    match generator::check(content) {
        Ok(checked) => {
            eprint!("{}", checked.warnings.as_warnings());
            let studies = checked.content.studies.len();
            let answers: usize = checked.content.studies.iter().map(|s| s.answers.len()).sum();
            let tables: usize = checked.tables.iter().map(Vec::len).sum();
            let findings: usize = checked.content.studies.iter().map(|s| s.findings.len()).sum();
            println!(
                "{}: correcto — {studies} estudios, {answers} respuestas, {tables} tablas, {findings} hallazgos verificados ({} ms)",
                content.display(),
                started.elapsed().as_millis()
            );
            ExitCode::SUCCESS
        }
        Err(problems) => {
            eprintln!("{problems}");
            ExitCode::FAILURE
        }
    }
}

fn build(options: BuildOptions) -> ExitCode {
    let started = Instant::now();
    if !options.quiet {
        println!("generator build: {} → {}", options.content.display(), options.out.display());
    }
    match generator::build::build(&options) {
        Ok(summary) => {
            eprint!("{}", summary.warnings.as_warnings());
            for line in &summary.changed {
                eprintln!("aviso: {line}");
            }
            if !options.quiet {
                println!(
                    "Listo: {} estudios, {} respuestas, {} archivos, {:.1} MB en {:.2} s",
                    summary.studies,
                    summary.answers,
                    summary.files,
                    summary.bytes as f64 / 1e6,
                    started.elapsed().as_secs_f64()
                );
                println!(
                    "{} rutas públicas cambiaron (para purgar la caché): {}",
                    summary.purge.len(),
                    generator::build::purge_list_path(&options.out).display()
                );
            }
            ExitCode::SUCCESS
        }
        Err(BuildError::Content(problems)) => {
            eprintln!("{problems}");
            eprintln!("No se escribió nada: {} queda como estaba.", options.out.display());
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e}");
            eprintln!("No se escribió nada: {} queda como estaba.", options.out.display());
            ExitCode::FAILURE
        }
    }
}
