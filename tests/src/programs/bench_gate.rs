//! The `bench-gate` command line as clap reads it: kept in the library so the book's command
//! reference and man page are generated from this very definition (`cargo run -p tests --bin referencia`).

/// What the operator typed.
#[derive(clap::Parser)]
#[command(
    name = "bench-gate",
    about = "Mide el gate de release contra nginx con wrk (archivo chico, 402, búsquedas, descarga), compras pagadas y memoria."
)]
pub struct Args {
    /// Segundos de cada corrida de wrk.
    #[arg(long = "segundos", value_name = "SEGUNDOS", default_value_t = 10)]
    pub seconds: u64,
    /// Rondas alternadas (cada caso una vez por ronda); se informa la mediana.
    #[arg(long = "rondas", value_name = "RONDAS", default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    pub rounds: u64,
    /// Solo las compras pagadas (8 y 64 compradores), sin wrk ni nginx.
    #[arg(long = "solo-compras")]
    pub purchases_only: bool,
}
