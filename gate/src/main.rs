//! `gate`: serves `dist/`, sells the studies over x402 v2 and guards the signed downloads.

use std::sync::Arc;

use anyhow::{Context, Result};
use gate::app::{Gate, Live, Services};
use gate::manifest;
use gate::payment::limits::Limiter;
use gate::sales::Sales;
use gate::sales::postgres::{Shared, URL_ENV as SALES_ENV};
use gate::sales::report::Resolution;
use gate::settings::{Args, Command, Env, PURCHASES_FILE, SalesAction, SalesArgs, Settings, TokenCdpArgs, VerifyArgs};
use gate::x402::receipt;
use gate_http::tls::Certificate;
use gate_http::{RunOptions, run_with_limits};

/// jemalloc instead of the system allocator: every request allocates and frees a few small
/// buffers on two threads, which glibc's allocator spends noticeably more time on.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() {
    let mut args: Args = cli::parse();
    let result = match args.command.take() {
        Some(Command::Sales(sales)) => {
            // stdout carries the report; warnings (a torn journal line) go to stderr.
            init_stderr_logging();
            match print_sales(&sales) {
                Ok(pending) if pending > 0 => std::process::exit(gate::sales::export::PENDING_EXIT_CODE),
                other => other.map(|_| ()),
            }
        }
        Some(Command::Verify(verify)) => {
            init_stderr_logging();
            match preflight(&verify) {
                Ok(true) => Ok(()),
                Ok(false) => std::process::exit(1),
                Err(e) => Err(e),
            }
        }
        Some(Command::TokenCdp(token)) => print_cdp_token(&token),
        None => {
            init_logging();
            start(args)
        }
    };
    if let Err(e) = result {
        eprintln!("gate: {}", cli::error_line(e.as_ref()));
        std::process::exit(1);
    }
}

fn log_filter() -> tracing_subscriber::EnvFilter {
    tracing_subscriber::EnvFilter::try_from_env("GATE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(gate_http::DEFAULT_LOG))
}

fn init_stderr_logging() {
    tracing_subscriber::fmt().with_env_filter(log_filter()).with_writer(std::io::stderr).with_ansi(false).init();
}

fn init_logging() {
    tracing_subscriber::fmt()
        .with_env_filter(log_filter())
        .with_target(true)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
        .init();
}

fn start(args: Args) -> Result<()> {
    let manifest = manifest::load(&args.dist)?;
    let settings = Settings::from_args(args, Env::from_process(), &manifest)?;
    std::fs::create_dir_all(&settings.data).with_context(|| format!("no se pudo crear {}", settings.data.display()))?;
    let (facilitator, chains) = settings.build_payment()?;
    let sales = Arc::new(match &settings.sales {
        Some(url) => Sales::open_shared(Shared::connect(url)?)?,
        None => Sales::open(&settings.data.join(PURCHASES_FILE), settings.journal_segment_bytes)?,
    });
    let clock = gate::clock::Clock::for_process();
    for network in chains.networks() {
        let name = chains.get(network).map(|c| c.name()).unwrap_or_default();
        tracing::info!("pagos en {network}: la prueba de lo que no sea un éxito con transacción se busca en {name}");
    }
    gate::payment::proof::reconcile_in_background(
        Arc::clone(&sales),
        chains.clone(),
        clock.clone(),
        settings.reconcile_every,
    );
    let services = Services {
        facilitator: Arc::clone(&facilitator),
        links: settings.links()?,
        sales,
        limiter: Arc::new(Limiter::new(settings.refusal_limits)),
        receipts: settings.receipt_key.clone(),
        clock,
        chains,
    };
    let gate = Gate::load_with(&settings.dist, services)?.with_mcp_hosts(&settings.mcp_hosts);
    let gate = fill_fee_payers(gate, facilitator.as_ref())?;
    tracing::info!(
        "gate: {} estudios, {} rutas libres ({} KB en memoria), modo {}, facilitador {}, {} hilos; abriendo {}",
        gate.manifest.studies.len(),
        gate.statics.len(),
        gate.statics.bytes() / 1024,
        settings.mode.as_str(),
        facilitator.name(),
        settings.threads,
        settings.listen,
    );
    tracing::info!("dinero: {}", settings.money_statement());
    // The public key only: buyers and third parties check receipts against it.
    let receipt_key = &settings.receipt_key;
    if settings.mode == contract::Mode::Local
        && std::env::var(receipt::KEY_ENV).ok().is_none_or(|v| v.trim().is_empty())
    {
        tracing::info!(
            "recibos firmados por {} con la clave de desarrollo de --datos/{}, solo para pruebas (defina {} para una propia); publicada en {}",
            receipt_key.did_key(),
            receipt::KEY_FILE,
            receipt::KEY_ENV,
            receipt::DID_DOCUMENT_PATH
        );
    } else {
        tracing::info!(
            "recibos firmados por {} ({}); publicada en {}",
            receipt_key.did_key(),
            receipt::KEY_ENV,
            receipt::DID_DOCUMENT_PATH
        );
    }
    let certificate = settings.tls.clone().map(Certificate::load).transpose()?;
    warn_if_https_without_tls(&gate.manifest.service.base_url, settings.mode, certificate.is_some());
    let live = Arc::new(Live::new(gate));
    live.reload_on_sighup(certificate.clone())?;
    if let Some(listen) = &settings.metrics_listen {
        gate::telemetry::serve(listen, Arc::clone(&live), settings.take_over)?;
    }
    run_with_limits(
        live,
        RunOptions {
            name: "gate",
            listen: &settings.listen,
            threads: settings.threads,
            data_dir: &settings.data,
            take_over: settings.take_over,
            tls: certificate,
        },
        settings.limits,
    )
}

/// Outside local mode an https `base_url` served over plain HTTP needs a TLS terminator in front:
/// say so at start, so the publisher does not find out from a buyer.
fn warn_if_https_without_tls(base_url: &str, mode: contract::Mode, tls: bool) {
    if !tls && mode != contract::Mode::Local && base_url.starts_with("https://") {
        tracing::warn!(
            "base_url es {base_url} pero el gate sirve HTTP sin TLS: ponga delante un terminador TLS \
             (y nómbrelo con --proxies) o sirva HTTPS con --certificado-tls y --clave-tls"
        );
    }
}

/// Reads the facilitator's `/supported` once, to fill Solana `feePayer` where offered.
fn fill_fee_payers(mut gate: Gate, facilitator: &dyn gate::facilitator::Facilitator) -> Result<Gate> {
    if !gate.offers_solana() {
        return Ok(gate);
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let supported = runtime
        .block_on(facilitator.supported())
        .context("no se pudo leer /supported del facilitador (hace falta para el feePayer de Solana)")?;
    for network in gate.apply_supported(&supported) {
        tracing::warn!("el facilitador no admite {network} (sin feePayer en /supported): no se ofrece esa red");
    }
    Ok(gate)
}

/// `gate ventas`: the journal (or the shared record) as a table, JSON or CSV, `conciliar` to
/// resolve a purchase, `importar` to load the journal of `--datos` into the shared record.
/// Returns how many purchases wait to be reconciled (the report only; 0 for the actions).
fn print_sales(args: &SalesArgs) -> Result<usize> {
    let url = args.sales_url.clone().or_else(|| std::env::var(SALES_ENV).ok()).filter(|url| !url.trim().is_empty());
    let shared = url.as_deref().map(Shared::connect).transpose()?;
    if let Some(SalesAction::Import) = &args.action {
        let shared = shared
            .with_context(|| format!("importar necesita la base de destino: --ventas postgres://… (o {SALES_ENV})"))?;
        let path = args.data.join(PURCHASES_FILE);
        if !path.exists() {
            anyhow::bail!("no hay diario de ventas en {}", path.display());
        }
        let contents = gate::sales::journal::read(&path)?;
        let added = shared.import(contents.records.clone())?;
        println!(
            "importado {} en {}: {} registros nuevos de {} ({} ya estaban)",
            path.display(),
            shared.target(),
            added,
            contents.records.len(),
            contents.records.len() as u64 - added
        );
        return Ok(0);
    }
    if let Some(SalesAction::Reconcile(c)) = &args.action {
        let Some(purchase) = &c.purchase else {
            return reconcile_from_chain(args, c, shared.as_deref()).map(|()| 0);
        };
        let resolution = match &c.settled_in {
            Some(transaction) => Resolution::Paid { transaction: transaction.clone() },
            None => Resolution::Unpaid,
        };
        let pending = match &shared {
            Some(shared) => gate::sales::report::reconcile_shared(shared, purchase, resolution, &c.note)?,
            None => gate::sales::report::reconcile(&args.data, purchase, resolution, &c.note)?,
        };
        println!(
            "conciliada: {} ({}, {}, pagador {}) como {}",
            pending.purchase,
            pending.study,
            pending.network,
            pending.payer,
            if c.settled_in.is_some() { "venta" } else { "sin pago" }
        );
        return Ok(0);
    }
    let period = gate::sales::period::Period::parse(args.from.as_deref(), args.until.as_deref())?;
    let report = match &shared {
        Some(shared) => gate::sales::report::report_shared(shared)?,
        None => gate::sales::report::report(&args.data)?,
    };
    let report = gate::sales::export::within(report, &period);
    let format = if args.json { "json" } else { args.format.as_deref().unwrap_or("tabla") };
    match format {
        "json" => println!("{}", serde_json::to_string_pretty(&report)?),
        "csv" => print!("{}", gate::sales::export::csv(&report)),
        _ => print!("{}", gate::sales::report::table(&report)),
    }
    let pending = report.pending.len();
    if pending > 0 {
        eprintln!(
            "gate ventas: {pending} compras inciertas por conciliar (gate ventas conciliar); sale con {}",
            gate::sales::export::PENDING_EXIT_CODE
        );
    }
    Ok(pending)
}

/// `gate ventas conciliar` with no purchase named: each uncertain purchase looked up on the
/// chain of its network and resolved when the chain decides (paid, canceled, expired unused).
fn reconcile_from_chain(args: &SalesArgs, c: &gate::settings::ReconcileArgs, shared: Option<&Shared>) -> Result<()> {
    use gate::chain::{Chains, evm::RpcChain, rpc_urls_from_env, rpc_urls_from_flags};
    use gate::payment::proof::Resolved;
    let mut urls = rpc_urls_from_env(Env::from_process().rpc.into_iter()).map_err(|e| anyhow::anyhow!(e))?;
    urls.extend(rpc_urls_from_flags(&c.rpc).map_err(|e| anyhow::anyhow!(e))?);
    if urls.is_empty() {
        anyhow::bail!(
            "conciliar sin nombrar una compra lo hace con la cadena: defina GATE_RPC_EIP155_<id> (o --rpc RED=URL), o nombre la compra con --liquidada o --sin-pago"
        );
    }
    let mut chains = Chains::new();
    for (network, url) in &urls {
        let chain = RpcChain::new(network, url, std::time::Duration::from_secs(10))
            .map_err(|e| anyhow::anyhow!("{network}: {e}"))?;
        chains = chains.with(network, Arc::new(chain));
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let (done, disputed) = runtime.block_on(gate::payment::proof::reconcile_record(&args.data, shared, &chains))?;
    for (purchase, why) in &disputed {
        println!("{purchase}: venta impugnada (la cadena no la confirma: {why})");
    }
    let (mut paid, mut void, mut open) = (0, 0, 0);
    for (purchase, resolved) in &done {
        let line = match &resolved {
            Resolved::Paid(transaction) => {
                paid += 1;
                format!("venta (pagada en {transaction})")
            }
            Resolved::Void(why) => {
                void += 1;
                format!("anulada ({why})")
            }
            Resolved::Open(why) => {
                open += 1;
                format!("sigue por conciliar ({why})")
            }
        };
        println!(
            "{} ({}, {}, pagador {}): {line}",
            purchase.purchase, purchase.study, purchase.network, purchase.payer
        );
    }
    println!(
        "conciliación con la cadena: {paid} pagadas, {void} anuladas, {open} siguen por conciliar, {} ventas impugnadas",
        disputed.len()
    );
    Ok(())
}

/// `gate verificar`: the go-live checks on stdout; `Ok(false)` when any failed.
fn preflight(args: &VerifyArgs) -> Result<bool> {
    let env = Env::from_process();
    let inputs = gate::preflight::Inputs {
        dist: &args.dist,
        data: &args.data,
        facilitator_url: args.facilitator.clone(),
        expected_mode: args.mode(),
        env: &env,
        rpc_flags: args.rpc.clone(),
        serving: gate::preflight::Serving {
            listen: args.listen.clone(),
            proxies: args.proxies.clone(),
            tls: args.tls_cert.is_some(),
        },
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let report = runtime.block_on(gate::preflight::run(inputs));
    print!("{report}");
    Ok(report.failures() == 0)
}

/// `gate token-cdp METHOD URL` (hidden): the JWT the gate would send, for the interop suite.
fn print_cdp_token(args: &TokenCdpArgs) -> Result<()> {
    let key = gate::facilitator::cdp::CdpKey::from_process_env()?.with_context(|| {
        format!("defina {} y {}", gate::facilitator::cdp::KEY_ID_ENV, gate::facilitator::cdp::KEY_SECRET_ENV)
    })?;
    let url = url::Url::parse(&args.url).with_context(|| format!("URL inválida: {:?}", args.url))?;
    println!("{}", key.token(&args.method, &url)?);
    Ok(())
}
