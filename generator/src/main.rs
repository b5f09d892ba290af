//! `generator`: the publisher's command line.
//!
//! Arguments are parsed in two steps (as in ripgrep): clap reads what the user typed
//! ([`Cli`]), then each command turns it into validated settings before doing any work.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "generator", version, about = "Construye dist/ a partir de content/ (estudios de visibilidad en IA)")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Valida content/ y calcula todas las tablas sin escribir nada.
    Check {
        /// Carpeta de contenido.
        #[arg(long, default_value = "content")]
        content: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { content } => check(&content),
    }
}

fn check(content: &std::path::Path) -> ExitCode {
    let started = Instant::now();
    match generator::check(content) {
        Ok(checked) => {
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
