//! The `bench-limits` command line as clap reads it: kept in the library so the book's command
//! reference and man page are generated from this very definition (`cargo run -p tests --bin referencia`).

/// What the operator typed.
#[derive(clap::Parser)]
#[command(
    name = "bench-limits",
    about = "Mide el limitador de intentos rechazados contra el algoritmo anterior (recorrido de toda la tabla) con clientes IPv6 /64 distintos."
)]
pub struct Args {
    /// Clientes /64 distintos, cada uno con un intento rechazado.
    #[arg(long = "rechazos", value_name = "RECHAZOS", default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub refusals: u64,
    /// Veces que se repite cada medición (se informa la mejor).
    #[arg(long = "rondas", value_name = "RONDAS", default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub rounds: u64,
}
