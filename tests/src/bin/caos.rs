//! `caos`: many buyers for a bounded time against one or two real gates on a real chain while
//! everything that can go wrong with money does, then an invariant checker that reads only the
//! chain and the sales record.
//!
//! The chain is anvil running Circle's USDC (`tests::chain`), mining a block every second, so
//! transactions wait in a mempool. The project's facilitator submits every authorization on it,
//! behind a proxy ([`tests::faults::FaultProxy`]) that, at random, times out before or after the
//! transfer is sent, answers 5xx, says `settlement_pending`, words "nonce used" as other
//! facilitators do, and lies with another sale's transaction or an unrelated one. Beside it,
//! pending transactions are dropped from the mempool, buyers repeat their requests, cancel their
//! authorization after an uncertain answer, or have it submitted on chain by someone else first
//! (front-running), and the gates are killed (`SIGKILL` or `SIGTERM`) and started again.
//!
//! At the end the faults stop, the buyers finish, the chain mines what is pending and moves past
//! every authorization's end, the gates stop, and the record is reconciled with the chain as a
//! publisher would (`gate ventas conciliar` with an RPC). Then, from the chain's payments to
//! payTo and the record (`gate ventas`) alone:
//!
//! 1. every sale delivered and not disputed was paid by its own authorization on chain;
//! 2. every payment to payTo is a sale in the record or listed to reconcile (nothing paid is
//!    missing from `gate ventas`);
//! 3. no authorization paid twice: no two sales credit one transaction that did not pay both,
//!    and no authorization a buyer was told had charged nothing moved money;
//! 4. no disputed sale was delivered after its dispute.
//!
//! Every random choice comes from one seed (printed with the command that replays it); the
//! interleaving of concurrent buyers is the machine's. Exit status 1 on any violation.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use alloy_primitives::{Address, B256, U256};
use alloy_signer_local::PrivateKeySigner;
use alloy_sol_types::{SolCall, sol};
use anyhow::{Context, Result, bail};
use clap::Parser;
use gate::chain::evm::RpcChain;
use gate::chain::settler::Settler;
use gate::chain::{Chain, Chains};
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate::facilitator::service::FacilitatorService;
use gate::sales::journal::{Event, Record};
use gate::x402::PaymentRequirements;
use gate::x402::evm::{client_authorization, domain_for, exact_payload_json, sign_authorization};
use gate::x402::header::encode_json;
use gate_http::spawn;
use parking_lot::Mutex;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use tests::chain::{ChainOptions, LocalChain, Mining, submit_authorization, submit_cancel_authorization};
use tests::faults::{Fault, FaultProxy};
use tests::programs::caos::Args;

sol! {
    function transfer(address to, uint256 value) external returns (bool);
}

const NETWORK: &str = "eip155:84532";
/// How long each authorization is valid: short, so what no repeat resolves expires in the run.
const VALIDITY_SECONDS: u64 = 40;
/// The gate's patience with the facilitator (`GATE_FACILITATOR_TIMEOUT`).
const FACILITATOR_TIMEOUT_SECONDS: u64 = 3;
/// How long the facilitator waits for a receipt before answering `settlement_pending`.
const SETTLE_WAIT: Duration = Duration::from_secs(3);

/// What the buyers saw, by purchase key (`network|payer|nonce`, lowercase).
#[derive(Default)]
struct Seen {
    /// Purchases a buyer got the study for (200).
    delivered: BTreeSet<String>,
    /// Purchases a buyer was refused with a 402 (nothing charged for that authorization), and the code.
    refused: BTreeMap<String, String>,
    /// Purchases still uncertain when their buyer gave up (the authorization expired).
    abandoned: BTreeSet<String>,
    /// Answers by status and code, for the summary.
    answers: BTreeMap<String, u64>,
}

/// Counts of what the driver did besides the proxy's faults.
#[derive(Default)]
struct Counts {
    purchases: AtomicU64,
    repeats: AtomicU64,
    cancels: AtomicU64,
    front_runs: AtomicU64,
    drops: AtomicU64,
    kills: AtomicU64,
    stops: AtomicU64,
}

fn main() {
    let args = Args::parse();
    let seed = args.seed.unwrap_or_else(|| {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        now.as_nanos() as u64 ^ u64::from(std::process::id())
    });
    let command = format!(
        "caos --segundos {} --semilla {seed} --compradores {} --gates {}{}",
        args.seconds,
        args.buyers,
        args.gates,
        if args.without_rpc { " --sin-rpc" } else { "" }
    );
    eprintln!("caos: {command}");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(4).enable_all().build().expect("runtime");
    match runtime.block_on(run(&args, seed)) {
        Ok(violations) if violations.is_empty() => {
            eprintln!("caos: 0 violaciones de las invariantes (semilla {seed}; repetir: {command})");
        }
        Ok(violations) => {
            for violation in &violations {
                eprintln!("caos: VIOLACIÓN: {violation}");
            }
            eprintln!("caos: {} violaciones (semilla {seed}; repetir: {command})", violations.len());
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("caos: error: {e:#} (semilla {seed}; repetir: {command})");
            std::process::exit(2);
        }
    }
}

/// The binaries built beside this one.
fn sibling(name: &str) -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let path = exe.parent().context("carpeta del binario")?.join(name);
    if !path.is_file() {
        bail!("falta {}: compile el espacio de trabajo (cargo build --workspace)", path.display());
    }
    Ok(path)
}

async fn run(args: &Args, seed: u64) -> Result<Vec<String>> {
    let keep = args.out.clone();
    let temporary = tempfile::tempdir()?;
    let work = keep.clone().unwrap_or_else(|| temporary.path().to_owned());
    std::fs::create_dir_all(&work)?;
    let dist = work.join("dist");
    let content = Path::new(env!("CARGO_MANIFEST_DIR")).join("muestra");
    let built = Command::new(sibling("generator")?)
        .args(["build", "--contenido"])
        .arg(&content)
        .arg("--salida")
        .arg(&dist)
        .arg("--silencioso")
        .status()?;
    if !built.success() {
        bail!("generator build falló");
    }
    let manifest: Value = serde_json::from_slice(&std::fs::read(dist.join("gate.json"))?)?;
    let offers = offers(&manifest);
    let started = Instant::now();

    let chain = LocalChain::start(ChainOptions {
        mining: Mining::Interval(1),
        buyers: args.buyers,
        ..ChainOptions::default()
    })?;
    let settler = Settler::connect(chain.rpc_url(), &chain.account("settler").private_key, Duration::from_secs(10))
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let config = LocalConfig { settle_wait: SETTLE_WAIT, ..LocalConfig::on_chain(Arc::new(settler)) };
    let facilitator = spawn(Arc::new(FacilitatorService(LocalFacilitator::new(config))), 2)?;
    let proxy = FaultProxy::new(&facilitator.url(), Duration::from_millis(300));
    let proxy_server = spawn(Arc::clone(&proxy), 2)?;
    let unrelated = unrelated_transactions(&chain).await?;
    proxy.choose_with(Some(chooser(seed, Arc::clone(&unrelated))));

    let database = if args.gates == 2 { Some(tests::postgres::Postgres::start()?) } else { None };
    let gates: Vec<Arc<GateProcess>> = (0..args.gates)
        .map(|i| {
            GateProcess::start(GateSetup {
                index: i,
                dist: dist.clone(),
                data: work.join(format!("gate-{i}")),
                facilitator: proxy_server.url(),
                rpc: (!args.without_rpc).then(|| chain.rpc_url().to_owned()),
                sales: database.as_ref().map(|db| db.url()),
            })
            .map(Arc::new)
        })
        .collect::<Result<_>>()?;
    eprintln!(
        "caos: cadena {}, {} gates, {} compradores, {} s",
        chain.rpc_url(),
        gates.len(),
        args.buyers,
        args.seconds
    );

    let seen = Arc::new(Mutex::new(Seen::default()));
    let counts = Arc::new(Counts::default());
    let faults_on = Arc::new(AtomicBool::new(true));
    let deadline = Instant::now() + Duration::from_secs(args.seconds);
    let chain = Arc::new(chain);
    let mut tasks = Vec::new();
    for (index, buyer) in chain.buyers().iter().enumerate().take(args.buyers) {
        let buyer = Buyer {
            index,
            signer: buyer.signer(),
            rng: ChaCha8Rng::seed_from_u64(seed ^ (0x5eed_0000 + index as u64)),
            chain: Arc::clone(&chain),
            gates: gates.clone(),
            offers: offers.clone(),
            seen: Arc::clone(&seen),
            counts: Arc::clone(&counts),
            unrelated: Arc::clone(&unrelated),
            http: reqwest::Client::builder().timeout(Duration::from_secs(20)).build()?,
        };
        tasks.push(tokio::spawn(buyer.run(deadline)));
    }
    let restarts = tokio::spawn(restart_gates(gates.clone(), seed, deadline, Arc::clone(&counts)));
    let drops = tokio::spawn(drop_transactions(Arc::clone(&chain), seed, Arc::clone(&faults_on), Arc::clone(&counts)));

    for task in tasks {
        task.await?;
    }
    // The end: no more faults; whatever a repeat could not resolve waits for the reconciliation.
    faults_on.store(false, Ordering::SeqCst);
    proxy.choose_with(None);
    restarts.await?;
    drops.await?;
    let buying = started.elapsed();
    finish_chain(&chain).await?;
    for gate in &gates {
        gate.stop();
    }
    let (records, report) = reconcile_and_read(&chain, &gates, database.as_ref()).await?;
    let payments = chain_payments(&chain, &manifest).await?;
    let seen = std::mem::take(&mut *seen.lock());
    let violations = check(&payments, &records, &report, &seen);

    summary(&counts, &proxy, &seen, &report, &payments, buying, &violations);
    if !violations.is_empty() && keep.is_none() {
        let kept = temporary.keep();
        eprintln!("caos: carpeta de trabajo conservada en {}", kept.display());
    }
    drop(facilitator);
    Ok(violations)
}

/// Each study × view's `accepts[0]`, from the manifest.
fn offers(manifest: &Value) -> Vec<(String, String, Value)> {
    let mut offers = Vec::new();
    if let Some(studies) = manifest["estudios"].as_object() {
        for (slug, study) in studies {
            for view in ["completo", "resumen"] {
                let accepted = &study["vistas"][view]["pago_requerido"]["accepts"][0];
                if accepted.is_object() {
                    offers.push((slug.clone(), view.to_owned(), accepted.clone()));
                }
            }
        }
    }
    offers
}

/// A few real transactions that pay nothing to anyone's sale (plain USDC transfers between two
/// buyers): what a lying facilitator names besides another sale's transaction.
async fn unrelated_transactions(chain: &LocalChain) -> Result<Arc<Mutex<Vec<String>>>> {
    let buyers = chain.buyers();
    let mut hashes = Vec::new();
    for i in 0..4u64 {
        let call = transferCall { to: buyers[1].address, value: U256::from(1 + i) }.abi_encode();
        let hash = chain.rpc().send_transaction(buyers[0].address, chain.asset(), &call).await?;
        hashes.push(hash);
    }
    let mut mined = Vec::new();
    for hash in hashes {
        chain.rpc().wait_receipt(hash, Duration::from_secs(30)).await?;
        mined.push(format!("{hash:#x}"));
    }
    Ok(Arc::new(Mutex::new(mined)))
}

/// The proxy's seeded fault for each settlement.
fn chooser(seed: u64, unrelated: Arc<Mutex<Vec<String>>>) -> tests::faults::Chooser {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xfa17);
    let wordings = [
        "invalid_exact_evm_payload_authorization_nonce_used",
        "invalid_exact_evm_nonce_already_used",
        "nonce_already_used",
        "authorization_used",
    ];
    Box::new(move || {
        let roll: u32 = rng.random_range(0..100);
        match roll {
            0..=49 => Fault::Pass,
            50..=55 => Fault::TimeoutBefore,
            56..=63 => Fault::TimeoutAfter,
            64..=68 => Fault::StatusBefore([500, 502, 503][rng.random_range(0..3)]),
            69..=74 => Fault::StatusAfter([500, 502, 504][rng.random_range(0..3)]),
            75..=82 => Fault::PendingAfter,
            83..=90 => Fault::Reword(wordings[rng.random_range(0..wordings.len())].to_owned()),
            91..=94 => Fault::Lie(None),
            _ => {
                let pool = unrelated.lock();
                Fault::Lie(pool.get(rng.random_range(0..pool.len().max(1))).cloned())
            }
        }
    })
}

/// What a gate process is started with.
#[derive(Clone)]
struct GateSetup {
    index: u8,
    dist: PathBuf,
    data: PathBuf,
    facilitator: String,
    rpc: Option<String>,
    sales: Option<String>,
}

/// One gate, as a process that can be killed and started again on the same port and data.
struct GateProcess {
    setup: GateSetup,
    port: u16,
    child: Mutex<Option<Child>>,
}

impl GateProcess {
    fn start(setup: GateSetup) -> Result<GateProcess> {
        std::fs::create_dir_all(&setup.data)?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let gate = GateProcess { setup, port, child: Mutex::new(None) };
        gate.spawn()?;
        Ok(gate)
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn spawn(&self) -> Result<()> {
        let log = std::fs::OpenOptions::new().create(true).append(true).open(self.setup.data.with_extension("log"))?;
        let mut command = Command::new(sibling("gate")?);
        command
            .arg("--dist")
            .arg(&self.setup.dist)
            .arg("--datos")
            .arg(&self.setup.data)
            .args(["--escuchar", &format!("127.0.0.1:{}", self.port), "--facilitador", &self.setup.facilitator])
            .args(["--conciliar-cada", "2", "--hilos", "2"])
            // Every buyer comes from 127.0.0.1: the per-address and global budgets of refused
            // attempts would turn the whole run into 429s within a minute (a deployment sees one
            // address per buyer). Each buyer keeps its own payer limit, over a one-minute window.
            .args(["--fallos-por-cliente", "1000000", "--fallos-globales", "1000000", "--ventana-fallos", "60"])
            .env("GATE_FACILITATOR_TIMEOUT", FACILITATOR_TIMEOUT_SECONDS.to_string())
            .env("GATE_LINK_SECRET", "caos-clave-de-enlaces-0123456789abcdef-0123")
            .env("GATE_LOG", "info")
            .env_remove("GATE_VENTAS")
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        if let Some(rpc) = &self.setup.rpc {
            command.env(format!("GATE_RPC_EIP155_{}", NETWORK.trim_start_matches("eip155:")), rpc);
        }
        if let Some(sales) = &self.setup.sales {
            command.env("GATE_VENTAS", sales);
        }
        let child = command.spawn().context("gate")?;
        *self.child.lock() = Some(child);
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if started.elapsed() > Duration::from_secs(30) {
                bail!("el gate {} no escucha en {} tras 30 s", self.setup.index, self.port);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// Kills the process (`SIGKILL` when `hard`, else `SIGTERM`) and waits for it.
    fn kill(&self, hard: bool) {
        if let Some(mut child) = self.child.lock().take() {
            let signal = if hard { "-KILL" } else { "-TERM" };
            let _ = Command::new("kill").args([signal, &child.id().to_string()]).status();
            let _ = child.wait();
        }
    }

    fn stop(&self) {
        self.kill(false);
    }
}

impl Drop for GateProcess {
    fn drop(&mut self) {
        self.kill(true);
    }
}

/// Kills a gate now and then, at random, and starts it again.
async fn restart_gates(gates: Vec<Arc<GateProcess>>, seed: u64, deadline: Instant, counts: Arc<Counts>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x4e57);
    loop {
        let wait = Duration::from_millis(rng.random_range(6_000..15_000));
        if Instant::now() + wait >= deadline {
            return;
        }
        tokio::time::sleep(wait).await;
        let gate = Arc::clone(&gates[rng.random_range(0..gates.len())]);
        let hard = rng.random_bool(0.6);
        let restarted = tokio::task::spawn_blocking(move || {
            gate.kill(hard);
            gate.spawn()
        })
        .await;
        match restarted {
            Ok(Ok(())) => {
                let counter = if hard { &counts.kills } else { &counts.stops };
                counter.fetch_add(1, Ordering::Relaxed);
            }
            Ok(Err(e)) => eprintln!("caos: no se pudo reiniciar un gate: {e:#}"),
            Err(e) => eprintln!("caos: {e}"),
        }
    }
}

/// Drops a pending transaction from the mempool now and then, while the faults are on.
async fn drop_transactions(chain: Arc<LocalChain>, seed: u64, on: Arc<AtomicBool>, counts: Arc<Counts>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xd209);
    while on.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(rng.random_range(1_500..4_000))).await;
        if !rng.random_bool(0.5) {
            continue;
        }
        let Ok(pool) = chain.rpc().call("txpool_content", json!([])).await else { continue };
        let mut pending: Vec<B256> = Vec::new();
        if let Some(by_sender) = pool["pending"].as_object() {
            for transactions in by_sender.values() {
                for transaction in transactions.as_object().into_iter().flat_map(|t| t.values()) {
                    if let Some(hash) = transaction["hash"].as_str().and_then(|h| h.parse().ok()) {
                        pending.push(hash);
                    }
                }
            }
        }
        pending.sort();
        if pending.is_empty() {
            continue;
        }
        let victim = pending[rng.random_range(0..pending.len())];
        if chain.rpc().drop_transaction(victim).await.is_ok() {
            counts.drops.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// One buyer: buys, repeats, cancels, gets front-run, until the deadline.
struct Buyer {
    index: usize,
    signer: PrivateKeySigner,
    rng: ChaCha8Rng,
    chain: Arc<LocalChain>,
    gates: Vec<Arc<GateProcess>>,
    offers: Vec<(String, String, Value)>,
    seen: Arc<Mutex<Seen>>,
    counts: Arc<Counts>,
    unrelated: Arc<Mutex<Vec<String>>>,
    http: reqwest::Client,
}

/// How one answer ends a purchase for its buyer.
enum Answer {
    Delivered,
    /// Refused with nothing charged for this authorization (402), with the code.
    Refused(String),
    /// Try the same request again (uncertain, in progress, a gate restarting).
    Again,
}

impl Buyer {
    async fn run(mut self, deadline: Instant) {
        while Instant::now() < deadline {
            if let Err(e) = self.buy_one().await {
                eprintln!("caos: comprador {}: {e:#}", self.index);
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }

    async fn buy_one(&mut self) -> Result<()> {
        let (slug, view, accepted) = self.offers[self.rng.random_range(0..self.offers.len())].clone();
        let requirements: PaymentRequirements = serde_json::from_value(accepted.clone())?;
        let domain = domain_for(&requirements)?;
        let now = gate::clock::now();
        let mut nonce = [0u8; 32];
        self.rng.fill(&mut nonce);
        let mut authorization = client_authorization(&requirements, self.signer.address(), now, B256::from(nonce))?;
        authorization.valid_before = now + VALIDITY_SECONDS;
        let signature = sign_authorization(&self.signer, &domain, &authorization)?;
        let payload = exact_payload_json(&authorization, &signature);
        let payment = gate::x402::PaymentPayload {
            x402_version: 2,
            resource: None,
            accepted,
            payload: payload.clone(),
            extensions: None,
        };
        let header = encode_json(&payment);
        let key = format!("{NETWORK}|{:#x}|{:#x}", self.signer.address(), authorization.nonce).to_lowercase();
        self.counts.purchases.fetch_add(1, Ordering::Relaxed);
        if self.rng.random_bool(0.05) {
            // Someone saw the authorization on its way and submitted it first.
            self.counts.front_runs.fetch_add(1, Ordering::Relaxed);
            let _ = submit_authorization(&self.chain, &payload).await;
        }
        let path = format!("/estudio/{slug}?vista={view}");
        let mut cancelled = false;
        loop {
            let gate = &self.gates[self.rng.random_range(0..self.gates.len())];
            match self.ask(&gate.url(), &path, &header).await {
                Answer::Delivered => {
                    self.seen.lock().delivered.insert(key.clone());
                    if self.rng.random_bool(0.1) {
                        // The buyer lost the answer and repeats: the study again, no charge.
                        self.counts.repeats.fetch_add(1, Ordering::Relaxed);
                        let gate = &self.gates[self.rng.random_range(0..self.gates.len())];
                        let _ = self.ask(&gate.url(), &path, &header).await;
                    }
                    return Ok(());
                }
                Answer::Refused(code) => {
                    self.seen.lock().refused.insert(key, code);
                    return Ok(());
                }
                Answer::Again => {
                    if gate::clock::now() + 2 >= authorization.valid_before {
                        self.seen.lock().abandoned.insert(key);
                        return Ok(());
                    }
                    if !cancelled && self.rng.random_bool(0.1) {
                        // Uncertain: this buyer cancels the authorization on chain, then repeats.
                        cancelled = true;
                        self.counts.cancels.fetch_add(1, Ordering::Relaxed);
                        if let Ok(hash) =
                            submit_cancel_authorization(&self.chain, &self.signer, authorization.nonce).await
                        {
                            self.unrelated.lock().push(format!("{hash:#x}"));
                        }
                    }
                    tokio::time::sleep(Duration::from_millis(self.rng.random_range(300..1_500))).await;
                }
            }
        }
    }

    async fn ask(&self, gate: &str, path: &str, header: &str) -> Answer {
        let sent = self.http.get(format!("{gate}{path}")).header("PAYMENT-SIGNATURE", header).send().await;
        let Ok(response) = sent else {
            self.note("sin_conexion");
            return Answer::Again;
        };
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap_or_default();
        let code = body["error"].as_str().unwrap_or_default().to_owned();
        self.note(format!("{status} {code}").trim());
        match status {
            200 => Answer::Delivered,
            402 => Answer::Refused(code),
            // A facilitator never reached: nothing charged; a new authorization is the buyer's call.
            503 if code == "facilitador_no_disponible" => Answer::Refused(code),
            _ => Answer::Again,
        }
    }

    fn note(&self, what: &str) {
        *self.seen.lock().answers.entry(what.to_owned()).or_default() += 1;
    }
}

/// Mines what is pending, then moves the chain past every authorization's end.
async fn finish_chain(chain: &LocalChain) -> Result<()> {
    tokio::time::sleep(Duration::from_secs(SETTLE_WAIT.as_secs() + 2)).await;
    for _ in 0..5 {
        chain.rpc().mine().await?;
    }
    chain.rpc().increase_time(VALIDITY_SECONDS + 60).await?;
    chain.rpc().mine().await?;
    Ok(())
}

/// Reconciles the record with the chain (as `gate ventas conciliar` with an RPC) and reads it:
/// every record in order, and `gate ventas`'s report.
async fn reconcile_and_read(
    chain: &LocalChain,
    gates: &[Arc<GateProcess>],
    database: Option<&tests::postgres::Postgres>,
) -> Result<(Vec<Record>, gate::sales::report::Report)> {
    let reader =
        RpcChain::new(NETWORK, chain.rpc_url(), Duration::from_secs(10)).map_err(|e| anyhow::anyhow!("{e}"))?;
    let chains = Chains::new().with(NETWORK, Arc::new(reader) as Arc<dyn Chain>);
    let data = gates[0].setup.data.clone();
    match database {
        Some(db) => {
            let shared = gate::sales::postgres::Shared::connect(&db.url())?;
            gate::payment::proof::reconcile_record(&data, Some(&shared), &chains).await?;
            let records = shared.read()?.records;
            Ok((records, gate::sales::report::report_shared(&shared)?))
        }
        None => {
            gate::payment::proof::reconcile_record(&data, None, &chains).await?;
            let records = gate::sales::journal::read(&data.join(gate::sales::journal::JOURNAL_FILE))?.records;
            Ok((records, gate::sales::report::report(&data)?))
        }
    }
}

/// Every payment by authorization to payTo on the chain, by purchase key.
async fn chain_payments(chain: &LocalChain, manifest: &Value) -> Result<BTreeMap<String, String>> {
    let network = manifest["servicio"]["redes"]
        .as_array()
        .and_then(|n| n.iter().find(|n| n["caip2"] == NETWORK))
        .cloned()
        .unwrap_or_default();
    let pay_to: Address =
        network["pay_to"].as_str().or(network["payTo"].as_str()).map_or(Ok(chain.pay_to()), str::parse)?;
    let reader =
        RpcChain::new(NETWORK, chain.rpc_url(), Duration::from_secs(10)).map_err(|e| anyhow::anyhow!("{e}"))?;
    let latest = reader.rpc().latest().await.map_err(|e| anyhow::anyhow!("{e}"))?;
    let payments =
        reader.payments_to(chain.asset(), pay_to, 0, latest.number).await.map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(payments
        .into_iter()
        .map(|p| (format!("{NETWORK}|{:#x}|{:#x}", p.payer, p.nonce).to_lowercase(), format!("{:#x}", p.transaction)))
        .collect())
}

/// The invariants, from the chain's payments, the record and what the buyers were told.
fn check(
    payments: &BTreeMap<String, String>,
    records: &[Record],
    report: &gate::sales::report::Report,
    seen: &Seen,
) -> Vec<String> {
    let mut violations = Vec::new();
    let key = |k: &str| k.to_lowercase();
    let sales: BTreeMap<String, &gate::sales::ledger::Sale> =
        report.sales.iter().map(|s| (key(&s.purchase), s)).collect();
    let pending: BTreeSet<String> = report.pending.iter().map(|p| key(&p.purchase)).collect();
    // 1. Every sale delivered and not disputed was paid by its own authorization.
    for (purchase, sale) in &sales {
        if sale.disputed.is_none() && sale.delivered && !payments.contains_key(purchase) {
            violations.push(format!(
                "venta entregada sin pago de su autorización en la cadena: {purchase} ({})",
                sale.transaction
            ));
        }
    }
    for purchase in &seen.delivered {
        match sales.get(purchase) {
            Some(sale) if sale.disputed.is_some() => {}
            Some(_) if payments.contains_key(purchase) => {}
            Some(_) => violations.push(format!("un comprador recibió {purchase}, que la cadena no muestra pagado")),
            None => violations.push(format!("un comprador recibió {purchase}, que no es una venta del registro")),
        }
    }
    // 2. Every payment to payTo is a sale or listed to reconcile.
    for (purchase, transaction) in payments {
        if !sales.contains_key(purchase) && !pending.contains(purchase) {
            violations.push(format!("pago a payTo que `gate ventas` no muestra: {purchase} en {transaction}"));
        }
    }
    // 3. No authorization paid twice: a transaction credits one sale unless it paid each.
    let mut by_transaction: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (purchase, sale) in &sales {
        by_transaction.entry(sale.transaction.to_lowercase()).or_default().push(purchase);
    }
    for (transaction, purchases) in by_transaction.iter().filter(|(t, p)| !t.is_empty() && p.len() > 1) {
        for purchase in purchases {
            if payments.get(*purchase) != Some(transaction) {
                violations.push(format!("la transacción {transaction} acredita {purchases:?} y no pagó {purchase}"));
            }
        }
    }
    for (purchase, code) in &seen.refused {
        if let Some(transaction) = payments.get(purchase) {
            violations.push(format!(
                "a un comprador se le dijo que no se cobró nada ({code}) y su autorización pagó a payTo: {purchase} en {transaction}"
            ));
        }
    }
    // 4. No disputed sale delivered after its dispute.
    let mut disputed: BTreeSet<String> = BTreeSet::new();
    for record in records {
        let purchase = key(&record.purchase);
        match &record.event {
            Event::Disputed(_) => {
                disputed.insert(purchase);
            }
            Event::Delivered(_) | Event::Redelivered(_) if disputed.contains(&purchase) => {
                violations.push(format!("venta impugnada entregada después de su impugnación: {purchase}"));
            }
            _ => {}
        }
    }
    violations
}

fn summary(
    counts: &Counts,
    proxy: &FaultProxy,
    seen: &Seen,
    report: &gate::sales::report::Report,
    payments: &BTreeMap<String, String>,
    buying: Duration,
    violations: &[String],
) {
    let count = |c: &AtomicU64| c.load(Ordering::Relaxed);
    let faults = proxy.counts();
    let injected: u64 = faults.iter().filter(|(k, _)| **k != "ninguna").map(|(_, v)| v).sum();
    let summary = json!({
        "segundos_de_compras": buying.as_secs(),
        "compras": count(&counts.purchases),
        "entregadas_a_compradores": seen.delivered.len(),
        "rechazadas_sin_cobro": seen.refused.len(),
        "abandonadas_inciertas": seen.abandoned.len(),
        "liquidaciones": faults.values().sum::<u64>(),
        "fallas_del_facilitador": faults,
        "fallas_inyectadas": injected,
        "repeticiones": count(&counts.repeats),
        "cancelaciones": count(&counts.cancels),
        "adelantadas": count(&counts.front_runs),
        "descartadas_del_mempool": count(&counts.drops),
        "gates_matados": count(&counts.kills),
        "gates_detenidos": count(&counts.stops),
        "respuestas": seen.answers,
        "registro": {
            "ventas": report.totals.general.sales,
            "impugnadas": report.sales.iter().filter(|s| s.disputed.is_some()).count(),
            "por_conciliar": report.pending.len(),
            "conciliadas_sin_pago": report.reconciled_without_payment.len(),
        },
        "pagos_a_payto_en_la_cadena": payments.len(),
        "violaciones": violations.len(),
    });
    println!("{}", serde_json::to_string_pretty(&summary).unwrap_or_default());
}
