//! `facilitador-local`: the local facilitator served over the x402 facilitator HTTP API
//! (`POST /verify`, `POST /settle`, `GET /supported`, `GET /health`), so the gate and the
//! tests can exercise the HTTP facilitator path. With no chain it settles on its ledger and
//! moves no real money; with `--rpc` and `GATE_SETTLER_KEY` it submits each authorization to
//! that chain as a `transferWithAuthorization` transaction.

use std::path::PathBuf;
use std::sync::Arc;

use alloy_primitives::U256;
use anyhow::{Context, Result};
use gate::chain::settler::Settler;
use gate::facilitator::local::{ERC6492_FACTORIES_ENV, LocalConfig, LocalFacilitator, parse_factories};
use gate::facilitator::service::FacilitatorService;
use gate::settings::SETTLER_KEY_ENV;
use gate_http::{RunOptions, run};

#[derive(Debug, clap::Parser)]
#[command(name = "facilitador-local", about = "Facilitador x402 local (sin cadena, sin dinero real) por HTTP.")]
struct Args {
    /// Dirección IP:puerto donde escuchar.
    #[arg(long = "escuchar", alias = "listen", default_value = "127.0.0.1:8402")]
    listen: String,
    /// Carpeta del archivo pid y, salvo con --sin-libro, del libro de saldos y nonces.
    #[arg(long = "datos", alias = "data", default_value = "./var/facilitador")]
    data: PathBuf,
    /// Saldo inicial de cada pagador nuevo, en unidades atómicas de USDC (1 USDC = 1000000).
    #[arg(long = "saldo-inicial", default_value_t = 100_000_000)]
    initial_balance: u64,
    /// Guardar saldos y nonces usados solo en memoria.
    #[arg(long = "sin-libro")]
    no_ledger: bool,
    /// Hilos de trabajo.
    #[arg(long = "hilos", alias = "threads", default_value_t = 2)]
    threads: usize,
    /// RPC de la cadena donde liquidar (con la clave del liquidador en GATE_SETTLER_KEY, una
    /// cuenta con gas): cada autorización se envía como transferWithAuthorization y se responde
    /// con su recibo. Sin --rpc, el libro local.
    #[arg(long, value_name = "URL")]
    rpc: Option<String>,
    /// Segundos que una liquidación espera a que su transacción entre en un bloque antes de
    /// responder settlement_pending (con --rpc).
    #[arg(long = "espera", default_value_t = 20.0)]
    confirmation_wait: f64,
    /// Fábrica ERC-6492 que puede desplegar la billetera inteligente de un pagador antes de
    /// liquidar (con --rpc; se puede repetir, y GATE_FABRICAS_6492 agrega más separadas por
    /// comas). Siempre permitidas: las de Coinbase Smart Wallet.
    #[arg(long = "fabrica-6492", value_name = "DIRECCION")]
    factories: Vec<String>,
}

fn main() {
    if let Err(e) = run_facilitator() {
        eprintln!("facilitador-local: {}", cli::error_line(e.as_ref()));
        std::process::exit(1);
    }
}

fn run_facilitator() -> Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("GATE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(gate_http::DEFAULT_LOG)),
        )
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
        .init();
    let args: Args = cli::parse();
    std::fs::create_dir_all(&args.data).with_context(|| format!("no se pudo crear {}", args.data.display()))?;
    let config = match &args.rpc {
        Some(url) => {
            let key = std::env::var(SETTLER_KEY_ENV)
                .ok()
                .filter(|k| !k.trim().is_empty())
                .with_context(|| format!("--rpc necesita la clave del liquidador en {SETTLER_KEY_ENV}"))?;
            if !(0.0..=600.0).contains(&args.confirmation_wait) {
                anyhow::bail!("--espera: se esperan segundos entre 0 y 600");
            }
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            let settler = runtime
                .block_on(Settler::connect(url, &key, std::time::Duration::from_secs(10)))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            tracing::info!(
                "facilitador local en la cadena {} ({}), liquidador {}",
                settler.chain_id(),
                settler.rpc().describe(),
                settler.address()
            );
            let mut config = LocalConfig {
                settle_wait: std::time::Duration::from_secs_f64(args.confirmation_wait),
                ..LocalConfig::on_chain(Arc::new(settler))
            };
            let added = std::env::var(ERC6492_FACTORIES_ENV).unwrap_or_default();
            config
                .erc6492_factories
                .extend(parse_factories(&added).map_err(|e| anyhow::anyhow!("{ERC6492_FACTORIES_ENV}: {e}"))?);
            config.erc6492_factories.extend(
                parse_factories(&args.factories.join(",")).map_err(|e| anyhow::anyhow!("--fabrica-6492: {e}"))?,
            );
            config
        }
        None => {
            tracing::info!("facilitador local: sin cadena y sin dinero real");
            LocalConfig {
                opening_balance: U256::from(args.initial_balance),
                ledger_file: (!args.no_ledger).then(|| args.data.join("libro-local.json")),
                ..LocalConfig::default()
            }
        }
    };
    run(
        Arc::new(FacilitatorService(LocalFacilitator::new(config))),
        RunOptions {
            name: "facilitador",
            listen: &args.listen,
            threads: args.threads,
            data_dir: &args.data,
            take_over: false,
            tls: None,
        },
    )
}
