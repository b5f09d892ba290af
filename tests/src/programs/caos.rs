//! The `caos` command line as clap reads it: kept in the library so the book's command
//! reference and man page are generated from this very definition (`cargo run -p tests --bin referencia`).

use std::path::PathBuf;

#[derive(clap::Parser, Debug)]
#[command(
    name = "caos",
    about = "Muchos compradores contra uno o dos gates en una cadena local mientras se inyecta cada falla de dinero; al final, las invariantes leídas de la cadena y del registro de ventas."
)]
pub struct Args {
    /// Segundos de compras con fallas (después, unos 30 s de cierre y comprobación).
    #[arg(long = "segundos", value_name = "SEGUNDOS", default_value_t = 60)]
    pub seconds: u64,
    /// Semilla de todas las decisiones al azar (sin ella, una nueva, que se imprime).
    #[arg(long = "semilla", value_name = "SEMILLA")]
    pub seed: Option<u64>,
    /// Compradores a la vez (cada uno con su cuenta en la cadena).
    #[arg(long = "compradores", value_name = "COMPRADORES", default_value_t = 8)]
    pub buyers: usize,
    /// Gates: 1 (diario en archivo) o 2 (registro compartido en PostgreSQL).
    #[arg(long = "gates", value_name = "CANTIDAD", default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub gates: u8,
    /// Los gates sin RPC: sin prueba de la cadena, lo dudoso queda por conciliar.
    #[arg(long = "sin-rpc")]
    pub without_rpc: bool,
    /// Carpeta de trabajo (dist, datos, registros de los gates); por defecto una temporal, que se
    /// conserva si algo falla.
    #[arg(long = "salida", value_name = "CARPETA")]
    pub out: Option<PathBuf>,
}
