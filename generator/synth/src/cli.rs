//! The `synth` command line as clap reads it: kept in the library so the book's command
//! reference and man page are generated from this very definition (`cargo run -p tests --bin referencia`).

use std::path::PathBuf;

/// What `synth`'s exit status means.
pub const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Escribió los estudios."),
    ("1", "Un error (el archivo que no se pudo leer o escribir)."),
    ("2", "La línea de comando está mal escrita."),
];

#[derive(clap::Parser)]
#[command(
    name = "synth",
    version,
    about = "Escribe los estudios sintéticos de demostración (o corpus más grandes para benchmarks)",
    after_help = cli::epilogue(&[], EXIT_STATUS)
)]
pub struct Cli {
    /// Carpeta de contenido de destino; se escriben sus estudios (y, si no es la de origen,
    /// se copian servicio.toml y metricas.toml).
    #[arg(long = "salida", alias = "out", value_name = "CARPETA", default_value = "content")]
    pub out: PathBuf,
    /// Carpeta de la que copiar servicio.toml y metricas.toml.
    #[arg(long = "contenido", alias = "content", value_name = "CARPETA", default_value = "content")]
    pub content: PathBuf,
    /// Multiplicador de tamaño: 1 es el contenido de muestra; 10 y 100 para benchmarks.
    #[arg(long = "escala", value_name = "N", default_value_t = 1)]
    pub scale: u32,
    /// Semilla del generador pseudoaleatorio.
    #[arg(long = "semilla", value_name = "SEMILLA", default_value_t = crate::DEFAULT_SEED)]
    pub seed: u64,
    /// Sin corridas anteriores: ni `anterior/`, ni `[corrida_anterior]`, ni hallazgos de
    /// cambio (la referencia del benchmark de construcción).
    #[arg(long = "sin-corrida-anterior")]
    pub no_previous_run: bool,
}

/// The `bench-cambios` command line (`src/bin/bench-cambios.rs`), here for the same reason.
#[derive(clap::Parser)]
#[command(
    name = "bench-cambios",
    about = "Falsas alarmas de cambio: dos corridas del mismo modelo sin cambio real, antes y después del control de multiplicidad"
)]
pub struct BenchCambios {
    /// Pares de corridas por estudio.
    #[arg(long = "pares", value_name = "PARES", default_value_t = 200)]
    pub pairs: u64,
    /// Semilla: fija las preguntas y los pares.
    #[arg(long = "semilla", value_name = "SEMILLA", default_value_t = crate::DEFAULT_SEED)]
    pub seed: u64,
    /// Solo estos estudios (se puede repetir); por defecto los nueve.
    #[arg(long = "estudio", value_name = "ESTUDIO")]
    pub studies: Vec<String>,
    /// Lista las celdas que los primeros N pares de cada estudio dan por cambiadas con el
    /// ajuste (falsas alarmas: tabla, marca, métrica, valores, bases, intervalo, p).
    #[arg(long = "detalle", value_name = "N", default_value_t = 0)]
    pub detail: u64,
}
