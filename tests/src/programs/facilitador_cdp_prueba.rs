//! The `facilitador-cdp-prueba` command line as clap reads it: kept in the library so the book's command
//! reference and man page are generated from this very definition (`cargo run -p tests --bin referencia`).

use std::path::PathBuf;

#[derive(Debug, clap::Parser)]
#[command(
    name = "facilitador-cdp-prueba",
    about = "Imita al facilitador de Coinbase CDP (JWT por pedido) sobre el facilitador local, para pruebas. No mueve dinero."
)]
pub struct Args {
    #[arg(long, value_name = "IP:PUERTO", default_value = "127.0.0.1:8403", help = "Dirección IP:puerto.")]
    pub listen: String,
    #[arg(long, value_name = "CARPETA", default_value = "./var/facilitador-cdp", help = "Carpeta del archivo pid.")]
    pub data: PathBuf,
}
