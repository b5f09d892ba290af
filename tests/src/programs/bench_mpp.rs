//! The `bench-mpp` command line as clap reads it: kept in the library so the book's command
//! reference and man page are generated from this very definition (`cargo run -p tests --bin referencia`).

use std::path::PathBuf;

#[derive(clap::Parser)]
#[command(
    name = "bench-mpp",
    about = "Mide el 402 con x402 y MPP contra el 402 solo x402, y compras MPP contra compras x402 en una cadena local."
)]
pub struct Args {
    /// dist/ ya construido; sin él se construye content/ con el generator de al lado.
    #[arg(long, value_name = "CARPETA")]
    pub dist: Option<PathBuf>,
    /// Segundos de cada medición del 402.
    #[arg(long = "segundos", value_name = "SEGUNDOS", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
    pub seconds: u64,
    /// Rondas alternadas (402 y compras).
    #[arg(long = "rondas", value_name = "RONDAS", default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=20))]
    pub rounds: u64,
    /// Conexiones keep-alive concurrentes contra el 402.
    #[arg(long = "conexiones", value_name = "CONEXIONES", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub connections: u64,
    /// Compras por protocolo y por ronda (múltiplo de las 18 vistas: un desafío MPP por comprador y vista).
    #[arg(long = "compras", value_name = "COMPRAS", default_value_t = 36, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub purchases: u64,
    /// Compradores concurrentes en la cadena.
    #[arg(long = "compradores", value_name = "COMPRADORES", default_value_t = 6, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub buyers: u64,
}
