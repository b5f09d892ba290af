//! `facilitador-local`: the local facilitator served over the x402 facilitator HTTP API
//! (`POST /verify`, `POST /settle`, `GET /supported`, `GET /health`), so the gate and the
//! tests can exercise the HTTP facilitator path with no chain. It moves no real money.

use std::path::PathBuf;
use std::sync::Arc;

use alloy_primitives::U256;
use anyhow::Result;
use clap::Parser;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate::facilitator::service::FacilitatorService;
use gate::http::server::{RunOptions, run};

#[derive(Debug, Parser)]
#[command(name = "facilitador-local", about = "Facilitador x402 local (sin cadena, sin dinero real) por HTTP.")]
struct Args {
    #[arg(long, default_value = "127.0.0.1:8402")]
    listen: String,
    /// Folder for the pid file and, unless --sin-libro, the ledger.
    #[arg(long, default_value = "./var/facilitador")]
    data: PathBuf,
    /// Opening balance of each new payer, in atomic USDC units.
    #[arg(long, default_value_t = 100_000_000)]
    saldo_inicial: u64,
    /// Keep balances and used nonces in memory only.
    #[arg(long)]
    sin_libro: bool,
    #[arg(long, default_value_t = 2)]
    threads: usize,
}

fn main() -> Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("GATE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
        .init();
    let args = Args::parse();
    std::fs::create_dir_all(&args.data)?;
    let config = LocalConfig {
        opening_balance: U256::from(args.saldo_inicial),
        ledger_file: (!args.sin_libro).then(|| args.data.join("libro-local.json")),
        ..LocalConfig::default()
    };
    tracing::info!("facilitador local (sin dinero real) en http://{}", args.listen);
    run(
        Arc::new(FacilitatorService(LocalFacilitator::new(config))),
        RunOptions { name: "facilitador", listen: &args.listen, threads: args.threads, data_dir: &args.data },
    )
}
