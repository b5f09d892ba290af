//! `facilitador-local`: the local facilitator served over the x402 facilitator HTTP API
//! (`POST /verify`, `POST /settle`, `GET /supported`, `GET /health`), so the gate and the
//! tests can exercise the HTTP facilitator path. With no chain it settles on its ledger and
//! moves no real money; with `--rpc` and `GATE_SETTLER_KEY` it submits each authorization to
//! that chain as a `transferWithAuthorization` transaction.

use std::sync::Arc;

use alloy_primitives::U256;
use anyhow::{Context, Result};
use gate::chain::settler::Settler;
use gate::facilitator::cli::Args;
use gate::facilitator::local::{ERC6492_FACTORIES_ENV, LocalConfig, LocalFacilitator, parse_factories};
use gate::facilitator::service::FacilitatorService;
use gate::settings::SETTLER_KEY_ENV;
use gate_http::{RunOptions, run};

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
