//! Starting the real gate (and a real local facilitator over HTTP) in-process on ephemeral
//! ports, and signing real x402 payments with a secp256k1 key.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use alloy_primitives::{Address, B256, U256};
use alloy_signer_local::PrivateKeySigner;
use gate::app::Gate;
use gate::facilitator::Facilitator;
use gate::facilitator::http::HttpFacilitator;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate::facilitator::service::FacilitatorService;
use gate::links::LinkSigner;
use gate::x402::evm::{
    Authorization, Domain, client_authorization, domain_for, exact_payload_json, sign_authorization,
};
use gate::x402::header::encode_json;
use gate::x402::{PaymentPayload, PaymentRequirements};
use gate_http::{Running, spawn};
use serde_json::Value;

/// The public Anvil/Hardhat development key #0 (never for real funds).
pub const DEV_KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
/// Another development key (#2), for "signed by someone else" cases.
pub const OTHER_KEY: &str = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
/// The base URL `content/servicio.toml` builds into absolute links.
pub const BUILT_BASE_URL: &str = "http://127.0.0.1:8080";

pub fn signer(key: &str) -> PrivateKeySigner {
    key.parse().expect("key")
}

/// A running gate with its data folder.
pub struct TestGate {
    pub server: Running,
    pub data: tempfile::TempDir,
    pub local: Option<Arc<LocalFacilitator>>,
}

impl TestGate {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.url())
    }

    /// An absolute URL the gate issued (built for port 8080) pointed at this test server.
    pub fn local_url(&self, issued: &str) -> String {
        issued.replacen(BUILT_BASE_URL, &self.server.url(), 1)
    }
}

pub fn links() -> LinkSigner {
    LinkSigner::new(b"test-link-secret-0123456789abcdef-0123".to_vec(), 7 * 86_400).expect("links")
}

/// The gate over `dist` with an in-process local facilitator.
pub fn start_local(dist: &Path) -> TestGate {
    let local = Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let facilitator: Arc<dyn Facilitator> = Arc::new(SharedLocal(Arc::clone(&local)));
    let mut gate = start_with(dist, facilitator);
    gate.local = Some(local);
    gate
}

/// The gate over `dist` settling through any facilitator.
pub fn start_with(dist: &Path, facilitator: Arc<dyn Facilitator>) -> TestGate {
    let data = tempfile::tempdir().expect("data dir");
    let log = data.path().join(gate::sales::journal::JOURNAL_FILE);
    let gate = Gate::load(dist, facilitator, links(), Some(&log)).expect("gate loads dist/");
    let server = spawn(Arc::new(gate), 2).expect("gate starts");
    TestGate { server, data, local: None }
}

/// What a test gate runs with besides `dist/`: the default limits, the development receipt key
/// and the system clock.
pub fn services(
    facilitator: Arc<dyn Facilitator>,
    sales: impl Into<Arc<gate::sales::Sales>>,
    chains: gate::chain::Chains,
) -> gate::app::Services {
    gate::app::Services {
        facilitator,
        links: links(),
        sales: sales.into(),
        limiter: Arc::new(gate::payment::limits::Limiter::new(gate::payment::limits::RefusalLimits::default())),
        receipts: gate::x402::receipt::ReceiptKey::development(),
        clock: gate::clock::Clock::system(),
        chains,
    }
}

/// The gate over `dist` settling through `facilitator` and proving uncertain outcomes on
/// `chains`, with its journal in a temporary data folder.
pub fn start_with_chains(dist: &Path, facilitator: Arc<dyn Facilitator>, chains: gate::chain::Chains) -> TestGate {
    let data = tempfile::tempdir().expect("data dir");
    let log = data.path().join(gate::sales::journal::JOURNAL_FILE);
    let sales = gate::sales::Sales::open(&log, gate::sales::journal::DEFAULT_SEGMENT_BYTES).expect("journal opens");
    let gate = Gate::load_with(dist, services(facilitator, sales, chains)).expect("gate loads dist/");
    let server = spawn(Arc::new(gate), 2).expect("gate starts");
    TestGate { server, data, local: None }
}

/// The gate over `dist` settling through `facilitator`, with its sales in the shared
/// PostgreSQL record at `url` (its data folder holds nothing of the sales).
pub fn start_shared(dist: &Path, facilitator: Arc<dyn Facilitator>, url: &str) -> TestGate {
    let shared = gate::sales::postgres::Shared::connect(url).expect("the sales database answers");
    start_on(dist, facilitator, shared)
}

/// The gate over `dist` with its sales in an already connected shared record.
pub fn start_on(
    dist: &Path,
    facilitator: Arc<dyn Facilitator>,
    shared: Arc<gate::sales::postgres::Shared>,
) -> TestGate {
    let sales = gate::sales::Sales::open_shared(shared).expect("the shared record opens");
    start_on_sales(dist, facilitator, Arc::new(sales))
}

/// The gate over `dist` on a sales record the test keeps a handle to (its metrics, its record).
pub fn start_on_sales(dist: &Path, facilitator: Arc<dyn Facilitator>, sales: Arc<gate::sales::Sales>) -> TestGate {
    let data = tempfile::tempdir().expect("data dir");
    let services = services(facilitator, sales, gate::chain::Chains::new());
    let gate = Gate::load_with(dist, services).expect("gate loads dist/");
    let server = spawn(Arc::new(gate), 2).expect("gate starts");
    TestGate { server, data, local: None }
}

/// The local facilitator served over HTTP, and an HTTP facilitator client pointed at it.
pub fn start_facilitator_over_http() -> (Running, Arc<dyn Facilitator>) {
    let service = FacilitatorService(LocalFacilitator::new(LocalConfig::default()));
    let server = spawn(Arc::new(service), 1).expect("facilitator starts");
    let client = HttpFacilitator::new(&server.url(), None, Duration::from_secs(5)).expect("client");
    (server, Arc::new(client))
}

/// Lets a test keep a handle on the in-process local facilitator the gate uses.
pub struct SharedLocal(pub Arc<LocalFacilitator>);

#[async_trait::async_trait]
impl Facilitator for SharedLocal {
    fn name(&self) -> String {
        self.0.name()
    }
    async fn verify(
        &self,
        p: &PaymentPayload,
        r: &PaymentRequirements,
    ) -> Result<gate::x402::VerifyResponse, gate::facilitator::FacilitatorError> {
        self.0.verify(p, r).await
    }
    async fn settle(
        &self,
        p: &PaymentPayload,
        r: &PaymentRequirements,
    ) -> Result<gate::x402::SettlementResponse, gate::facilitator::FacilitatorError> {
        self.0.settle(p, r).await
    }
    async fn supported(&self) -> Result<gate::x402::SupportedResponse, gate::facilitator::FacilitatorError> {
        self.0.supported().await
    }
}

/// The local facilitator, watched: counts its `/settle` calls and, when armed, makes the next
/// settlement time out without settling (for the gate, an uncertain outcome).
pub struct WatchedLocal {
    pub local: LocalFacilitator,
    pub settles: std::sync::atomic::AtomicUsize,
    pub time_out_next: std::sync::atomic::AtomicBool,
}

impl WatchedLocal {
    pub fn new(local: LocalFacilitator) -> WatchedLocal {
        WatchedLocal { local, settles: Default::default(), time_out_next: Default::default() }
    }
}

#[async_trait::async_trait]
impl Facilitator for WatchedLocal {
    fn name(&self) -> String {
        self.local.name()
    }
    async fn verify(
        &self,
        p: &PaymentPayload,
        r: &PaymentRequirements,
    ) -> Result<gate::x402::VerifyResponse, gate::facilitator::FacilitatorError> {
        self.local.verify(p, r).await
    }
    async fn settle(
        &self,
        p: &PaymentPayload,
        r: &PaymentRequirements,
    ) -> Result<gate::x402::SettlementResponse, gate::facilitator::FacilitatorError> {
        use std::sync::atomic::Ordering;
        self.settles.fetch_add(1, Ordering::SeqCst);
        if self.time_out_next.swap(false, Ordering::SeqCst) {
            return Err(gate::facilitator::FacilitatorError::Timeout);
        }
        self.local.settle(p, r).await
    }
    async fn supported(&self) -> Result<gate::x402::SupportedResponse, gate::facilitator::FacilitatorError> {
        self.local.supported().await
    }
}

pub fn client() -> reqwest::Client {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    reqwest::Client::builder().timeout(Duration::from_secs(30)).build().expect("client")
}

pub fn now() -> u64 {
    gate::clock::now()
}

pub fn random_nonce() -> B256 {
    gate::x402::evm::random_nonce()
}

/// A `PAYMENT-SIGNATURE` value for an `accepts` entry, signed by `key`, after `tweak` may
/// change the authorization or the domain it is signed under.
pub fn signed_header(
    accepted: &Value,
    key: &PrivateKeySigner,
    tweak: impl FnOnce(&mut Authorization, &mut Domain),
) -> String {
    let payload = signed_payload(accepted, key, tweak);
    encode_json(&payload)
}

pub fn signed_payload(
    accepted: &Value,
    key: &PrivateKeySigner,
    tweak: impl FnOnce(&mut Authorization, &mut Domain),
) -> PaymentPayload {
    let requirements: PaymentRequirements = serde_json::from_value(accepted.clone()).expect("requirements");
    let mut domain = domain_for(&requirements).expect("domain");
    let mut auth = client_authorization(&requirements, key.address(), now(), random_nonce()).expect("auth");
    tweak(&mut auth, &mut domain);
    let signature = sign_authorization(key, &domain, &auth).expect("sign");
    PaymentPayload {
        x402_version: 2,
        resource: None,
        accepted: accepted.clone(),
        payload: exact_payload_json(&auth, &signature),
        extensions: None,
    }
}

/// `accepts[0]` of the 402 of a study view, from the built manifest.
pub fn accepted_of(dist: &Path, slug: &str, view: &str) -> Value {
    let manifest = super::read_json(&dist.join("gate.json"));
    manifest["estudios"][slug]["vistas"][view]["pago_requerido"]["accepts"][0].clone()
}

pub fn address(text: &str) -> Address {
    text.parse().expect("address")
}

pub fn units(n: u64) -> U256 {
    U256::from(n)
}

/// A file path inside a temp dir.
pub fn temp_file(dir: &Path, name: &str) -> PathBuf {
    dir.join(name)
}
