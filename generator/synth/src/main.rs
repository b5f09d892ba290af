//! `synth`: writes the synthetic sample studies into a content folder, or corpora ten and a
//! hundred times larger for the benchmarks.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Parser)]
#[command(
    name = "synth",
    version,
    about = "Escribe los estudios sintéticos de demostración (o corpus más grandes para benchmarks)"
)]
struct Cli {
    /// Carpeta de contenido de destino; se escriben sus estudios (y, si no es la de origen,
    /// se copian servicio.toml y metricas.toml).
    #[arg(long = "salida", alias = "out", default_value = "content")]
    out: PathBuf,
    /// Carpeta de la que copiar servicio.toml y metricas.toml.
    #[arg(long = "contenido", alias = "content", default_value = "content")]
    content: PathBuf,
    /// Multiplicador de tamaño: 1 es el contenido de muestra; 10 y 100 para benchmarks.
    #[arg(long = "escala", default_value_t = 1)]
    scale: u32,
    /// Semilla del generador pseudoaleatorio.
    #[arg(long = "semilla", default_value_t = synth::DEFAULT_SEED)]
    seed: u64,
    /// Sin corridas anteriores: ni `anterior/`, ni `[corrida_anterior]`, ni hallazgos de
    /// cambio (la referencia del benchmark de construcción).
    #[arg(long = "sin-corrida-anterior")]
    no_previous_run: bool,
}

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
