//! The `bench-recolector` command line as clap reads it: kept in the library so the book's command
//! reference and man page are generated from this very definition (`cargo run -p tests --bin referencia`).

use std::path::PathBuf;

use clap::Parser;

#[derive(Parser)]
#[command(
    name = "bench-recolector",
    about = "Mide el costo propio del recolector por llamada y su ritmo con los límites publicados"
)]
pub struct Cli {
    /// Preguntas del estudio de prueba (× 4 modelos × 2 repeticiones llamadas).
    #[arg(long = "preguntas", default_value_t = 250)]
    pub questions: usize,
    /// Rondas de cada medición (se informa la mediana).
    #[arg(long = "rondas", default_value_t = 3)]
    pub rounds: usize,
    /// Llamadas en paralelo por proveedor.
    #[arg(long = "concurrencia", default_value_t = 8)]
    pub concurrency: u32,
    /// Segundos de cada medición de ritmo con límites publicados (0: no medir).
    #[arg(long = "segundos", default_value_t = 20)]
    pub seconds: u64,
    /// Carpeta donde crear los estudios de prueba (en disco: cada línea hace fsync).
    #[arg(long = "carpeta", default_value = "target/bench-recolector")]
    pub folder: PathBuf,
}
