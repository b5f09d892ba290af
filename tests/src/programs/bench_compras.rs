//! The `bench-compras` command line as clap reads it: kept in the library so the book's command
//! reference and man page are generated from this very definition (`cargo run -p tests --bin referencia`).

/// What the operator typed.
#[derive(clap::Parser)]
#[command(
    name = "bench-compras",
    about = "Mide compras pagadas por segundo contra vendedores x402 v2 (el gate, @x402/express, x402-axum) con firmas EIP-3009 nuevas."
)]
pub struct Args {
    /// URL base de un vendedor, p. ej. http://127.0.0.1:8080; repetible: se miden uno tras otro.
    #[arg(long = "url", value_name = "URL", required = true)]
    pub urls: Vec<String>,
    /// Ruta que responde 402: su PAYMENT-REQUIRED da la oferta que se firma, y es lo que se compra.
    #[arg(long = "ruta", value_name = "RUTA", default_value = "/estudio/banca-2026")]
    pub route: String,
    /// Compradores concurrentes, cada uno con su propia conexión.
    #[arg(long = "compradores", value_name = "COMPRADORES", default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub buyers: u64,
    /// Segundos de medición por vendedor (termina antes si se acaban las firmas preparadas).
    #[arg(long = "segundos", value_name = "SEGUNDOS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub seconds: u64,
    /// Firmas que se preparan por vendedor antes de medir: el tope de compras de cada medición.
    #[arg(long = "compras", value_name = "COMPRAS", default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub purchases: u64,
}
