//! The `facilitador-local` command line as clap reads it: kept in the library so the book's
//! command reference and man page are generated from this very definition (`cargo run -p tests --bin referencia`).

use std::path::PathBuf;

/// The environment variables `facilitador-local` reads.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    ("GATE_LOG", "Filtro de registros de tracing (por defecto info,pingora_core=warn,rustls=error)."),
    ("GATE_SETTLER_KEY", "Con --rpc: clave de la cuenta que envía transferWithAuthorization a la cadena."),
    ("GATE_FABRICAS_6492", "Con --rpc: más fábricas ERC-6492 permitidas, separadas por comas (como --fabrica-6492)."),
];

/// What `facilitador-local`'s exit status means.
pub const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Se detuvo limpio."),
    ("1", "Un error al arrancar o al servir."),
    ("2", "La línea de comando está mal escrita."),
];

#[derive(Debug, clap::Parser)]
#[command(
    name = "facilitador-local",
    about = "Facilitador x402 local (sin cadena, sin dinero real) por HTTP.",
    after_help = cli::epilogue(ENVIRONMENT, EXIT_STATUS)
)]
pub struct Args {
    /// Dirección IP:puerto donde escuchar.
    #[arg(long = "escuchar", alias = "listen", value_name = "IP:PUERTO", default_value = "127.0.0.1:8402")]
    pub listen: String,
    /// Carpeta del archivo pid y, salvo con --sin-libro, del libro de saldos y nonces.
    #[arg(long = "datos", alias = "data", value_name = "CARPETA", default_value = "./var/facilitador")]
    pub data: PathBuf,
    /// Saldo inicial de cada pagador nuevo, en unidades atómicas de USDC (1 USDC = 1000000).
    #[arg(long = "saldo-inicial", value_name = "UNIDADES", default_value_t = 100_000_000)]
    pub initial_balance: u64,
    /// Guardar saldos y nonces usados solo en memoria.
    #[arg(long = "sin-libro")]
    pub no_ledger: bool,
    /// Hilos de trabajo.
    #[arg(long = "hilos", alias = "threads", value_name = "N", default_value_t = 2)]
    pub threads: usize,
    /// RPC de la cadena donde liquidar (con la clave del liquidador en GATE_SETTLER_KEY, una
    /// cuenta con gas): cada autorización se envía como transferWithAuthorization y se responde
    /// con su recibo. Sin --rpc, el libro local.
    #[arg(long, value_name = "URL")]
    pub rpc: Option<String>,
    /// Segundos que una liquidación espera a que su transacción entre en un bloque antes de
    /// responder settlement_pending (con --rpc).
    #[arg(long = "espera", value_name = "SEGUNDOS", default_value_t = 20.0)]
    pub confirmation_wait: f64,
    /// Fábrica ERC-6492 que puede desplegar la billetera inteligente de un pagador antes de
    /// liquidar (con --rpc; se puede repetir, y GATE_FABRICAS_6492 agrega más separadas por
    /// comas). Siempre permitidas: las de Coinbase Smart Wallet.
    #[arg(long = "fabrica-6492", value_name = "DIRECCION")]
    pub factories: Vec<String>,
}
