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
    #[arg(long = "preguntas", value_name = "N", default_value_t = 250)]
    pub questions: usize,
    /// Rondas de cada medición (se informa la mediana).
    #[arg(long = "rondas", value_name = "RONDAS", default_value_t = 3)]
    pub rounds: usize,
    /// Llamadas en paralelo por proveedor.
    #[arg(long = "concurrencia", value_name = "N", default_value_t = 8)]
    pub concurrency: u32,
    /// Segundos de cada medición de ritmo con límites publicados (0: no medir).
    #[arg(long = "segundos", value_name = "SEGUNDOS", default_value_t = 20)]
    pub seconds: u64,
    /// Carpeta donde crear los estudios de prueba (en disco: cada línea hace fsync).
    #[arg(long = "carpeta", value_name = "CARPETA", default_value = "target/bench-recolector")]
    pub folder: PathBuf,
}
