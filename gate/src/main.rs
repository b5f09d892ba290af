//! `gate`: serves `dist/`, sells the studies over x402 v2 and guards the signed downloads.

use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Parser;
use gate::manifest::Manifest;
use gate::router::Gate;
use gate::server::{RunOptions, run};
use gate::settings::{Args, Env, PURCHASES_FILE, Settings};

fn main() {
    init_logging();
    if let Err(e) = start() {
        eprintln!("gate: {e:#}");
        std::process::exit(1);
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("GATE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt().with_env_filter(filter).with_target(true).with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout())).init();
}

fn start() -> Result<()> {
    let args = Args::parse();
    let manifest = Manifest::load(&args.dist)?;
    let settings = Settings::from_args(args, Env::from_process(), &manifest)?;
    std::fs::create_dir_all(&settings.data)
        .with_context(|| format!("no se pudo crear {}", settings.data.display()))?;
    let facilitator = settings.build_facilitator()?;
    let gate = Gate::load(
        &settings.dist,
        Arc::clone(&facilitator),
        settings.links()?,
        Some(&settings.data.join(PURCHASES_FILE)),
    )?
    .with_mcp_hosts(&settings.mcp_hosts);
    let gate = fill_fee_payers(gate, &settings)?;
    tracing::info!(
        "gate: {} estudios, {} rutas libres ({} KB en memoria), modo {}, facilitador {}, escuchando en http://{} con {} hilos",
        gate.manifest.estudios.len(),
        gate.statics.len(),
        gate.statics.bytes() / 1024,
        settings.mode.as_str(),
        facilitator.name(),
        settings.listen,
        settings.threads,
    );
    if settings.mode == gate::manifest::Mode::Local {
        tracing::info!("modo local: un facilitador local verifica las firmas; no se mueve dinero real");
    }
    run(
        Arc::new(gate),
        RunOptions { name: "gate", listen: &settings.listen, threads: settings.threads, data_dir: &settings.data },
    )
}

/// Reads the facilitator's `/supported` once, to fill Solana `feePayer` where offered.
fn fill_fee_payers(gate: Gate, settings: &Settings) -> Result<Gate> {
    let has_solana = gate.shop.offers().any(|o| o.required.accepts.iter().any(|a| a.network.starts_with("solana:")));
    if !has_solana {
        return Ok(gate);
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let facilitator = settings.build_facilitator()?;
    let supported = runtime
        .block_on(facilitator.supported())
        .context("no se pudo leer /supported del facilitador (hace falta para el feePayer de Solana)")?;
    let dist = gate.dist.clone();
    let mut shop = gate::payment::Shop::new(
        &dist,
        &gate.manifest,
        facilitator,
        settings.links()?,
        Some(&settings.data.join(PURCHASES_FILE)),
    )?;
    shop.apply_fee_payers(&supported);
    Ok(gate.with_shop(shop))
}
