//! The `bench-build` command line as clap reads it: kept in the library so the book's command
//! reference and man page are generated from this very definition (`cargo run -p tests --bin referencia`).

/// What the operator typed.
#[derive(clap::Parser)]
#[command(
    name = "bench-build",
    about = "Mide la construcción (2 hilos y 1) contra zip -r -6 más sha256sum sobre los mismos archivos, en corpus de varias escalas."
)]
pub struct Args {
    /// Escalas del corpus sintético, separadas por comas (1 es el contenido de muestra).
    #[arg(long = "escalas", value_name = "ESCALAS", default_value = "1,10,100", value_delimiter = ',')]
    pub scales: Vec<u32>,
    /// Compara la construcción con las corridas anteriores de synth contra la misma sin ellas.
    #[arg(long = "corrida-anterior")]
    pub previous_run: bool,
}
