//! `synth`: writes the synthetic sample studies into a content folder, or corpora ten and a
//! hundred times larger for the benchmarks.

use std::process::ExitCode;
use std::time::Instant;
use synth::cli::Cli;

fn main() -> ExitCode {
    let Cli { out, content, scale, seed, no_previous_run } = cli::parse();
    if scale == 0 {
        eprintln!("--escala debe ser al menos 1");
        return ExitCode::FAILURE;
    }
    let started = Instant::now();
    let result = synth::copy_service_files(&content, &out).and_then(|()| {
        synth::run(&synth::SynthOptions { out: out.clone(), scale, seed, without_previous: no_previous_run })
    });
    match result {
        Ok(()) => {
            println!(
                "{}: estudios sintéticos escritos (escala {scale}, semilla {seed}) en {:.2} s",
                out.display(),
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}", cli::error_line(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}
