//! The `soak` command line as clap reads it: kept in the library so the book's command
//! reference and man page are generated from this very definition (`cargo run -p tests --bin referencia`).

/// What the operator typed.
#[derive(clap::Parser)]
#[command(
    name = "soak",
    about = "Tráfico mixto contra el gate de release durante un rato, con muchas conexiones: estados inesperados, p99 por ruta y memoria."
)]
pub struct Args {
    /// Segundos de carga medidos, después del calentamiento.
    #[arg(long = "segundos", value_name = "SEGUNDOS", default_value_t = 60)]
    pub seconds: u64,
    /// Conexiones simultáneas.
    #[arg(long = "conexiones", value_name = "CONEXIONES", default_value_t = 100)]
    pub connections: usize,
    /// Segundos de calentamiento antes de medir (pools y búferes llegan a su tamaño de trabajo).
    #[arg(long = "calentamiento", value_name = "CALENTAMIENTO", default_value_t = 5)]
    pub warmup: u64,
    /// Segundos entre dos muestras de la memoria del gate.
    #[arg(long = "muestras", value_name = "MUESTRAS", default_value_t = 30)]
    pub samples: u64,
}
