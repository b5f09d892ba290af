//! A real local chain for the tests: [`LocalChain::start`] runs `tests/chain/cadena.mjs`
//! (anvil, chain id 84532, Circle's FiatToken v2.2 at Base Sepolia USDC's own address with its
//! EIP-712 domain, USDC minted to the buyers), and stops anvil when dropped.
//! [`IndependentFacilitator::start`] runs `tests/chain/facilitador-x402.mjs`, the official
//! `@x402/evm` facilitator settling on that chain. [`Rpc`] is a small JSON-RPC client for what
//! the tests read and do on the chain; [`cancel_authorization`] is the payer's EIP-3009 cancel.
//! With [`ChainOptions::safe`], Safe 1.5.0 (`@safe-global/safe-smart-account`'s compiled
//! contracts) is deployed too, and [`SafeWallet`] is a smart wallet of one owner on it: deployed
//! by its factory, or not yet, signing as ERC-1271 and ERC-6492 say.
//!
//! Needs Node.js 20 or later (`$NODE`, else `node` on the `PATH`) and `npm ci` in
//! `tests/chain` (`./tienda probar` runs it before the Rust tests).

use std::borrow::Cow;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use alloy_sol_types::{Eip712Domain, SolCall, SolEvent, SolStruct, sol};
use anyhow::{Context, Result, bail};
use serde::Deserialize;
use serde_json::{Value, json};

sol! {
    /// FiatToken v2.2's calls and events the tests use.
    function balanceOf(address account) external view returns (uint256);
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool);
    function name() external view returns (string);
    function version() external view returns (string);
    function DOMAIN_SEPARATOR() external view returns (bytes32);
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external;
    function transferWithAuthorization(
        address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce,
        uint8 v, bytes32 r, bytes32 s
    ) external;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    /// EIP-3009's cancel message, signed by the authorizer.
    struct CancelAuthorization {
        address authorizer;
        bytes32 nonce;
    }

    function mint(address to, uint256 amount) external returns (bool);

    /// Safe 1.5.0: the setup a new proxy runs, and the factory that deploys one.
    function setup(
        address[] owners,
        uint256 threshold,
        address to,
        bytes data,
        address fallbackHandler,
        address paymentToken,
        uint256 payment,
        address paymentReceiver
    ) external;
    function createProxyWithNonce(address singleton, bytes initializer, uint256 saltNonce) external returns (address proxy);
    function getOwners() external view returns (address[]);

    /// What a Safe's owners sign for its ERC-1271 `isValidSignature` (CompatibilityFallbackHandler):
    /// the message is the 32-byte hash asked about.
    struct SafeMessage {
        bytes message;
    }
}

/// Base Sepolia USDC's `DOMAIN_SEPARATOR()` as the live contract answers it.
pub const BASE_SEPOLIA_DOMAIN_SEPARATOR: B256 =
    alloy_primitives::b256!("0x71f17a3b2ff373b803d70a5a07c046c1a2bc8e89c09ef722fcb047abe94c9818");

/// How long a start may take before it counts as failed (the first start after `npm ci
/// --ignore-scripts` compiles the contracts, a few seconds on a busy machine).
const START_TIMEOUT: Duration = Duration::from_secs(90);

/// `tests/chain`, where the scripts and their `node_modules` live.
pub fn chain_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("chain")
}

/// The Node.js to run the scripts with: `$NODE`, else `node` on the `PATH`.
fn node() -> PathBuf {
    std::env::var_os("NODE").map_or_else(|| PathBuf::from("node"), PathBuf::from)
}

fn check_installed() -> Result<()> {
    let dir = chain_dir();
    for package in ["@foundry-rs/anvil", "@x402/evm", "@x402/fetch", "@safe-global/safe-smart-account", "viem", "solc"]
    {
        if !dir.join("node_modules").join(package).join("package.json").is_file() {
            bail!("faltan los paquetes npm de {} ({package}): (cd tests/chain && npm ci)", dir.display());
        }
    }
    Ok(())
}

/// How the chain mines after its setup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mining {
    /// A block per transaction (anvil's default).
    Auto,
    /// A block every this many seconds (`--block-time`; Base makes one every 2 s).
    Interval(u64),
    /// Nothing is mined until [`Rpc::mine`] (automine off).
    Manual,
}

/// What [`LocalChain::start`] sets up.
#[derive(Debug, Clone)]
pub struct ChainOptions {
    pub mining: Mining,
    /// Buyers funded with USDC: Anvil accounts 0, 2, 3, then 10, 11, …
    pub buyers: usize,
    /// Whole USDC minted to each buyer.
    pub usdc_per_buyer: u64,
    /// anvil's port on 127.0.0.1 (0: any free port).
    pub port: u16,
    /// Deploy Safe 1.5.0 too (`cadena.mjs --safe`), for smart wallets.
    pub safe: bool,
}

impl Default for ChainOptions {
    fn default() -> Self {
        ChainOptions { mining: Mining::Auto, buyers: 3, usdc_per_buyer: 10_000, port: 0, safe: false }
    }
}

/// The description `cadena.mjs` writes (its `--json` file).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChainInfo {
    /// `http://127.0.0.1:PORT`.
    pub rpc: String,
    pub chain_id: u64,
    /// CAIP-2: `eip155:84532`.
    pub network: String,
    /// The USDC proxy: `0x036CbD53842c5426634e7929541eC2318f3dCF7e`.
    pub asset: Address,
    /// The FiatTokenV2_2 behind it.
    pub implementation: Address,
    pub eip712: Eip712Info,
    pub decimals: u8,
    pub anvil_pid: u32,
    pub accounts: Vec<Account>,
    /// Safe's contracts, with [`ChainOptions::safe`].
    #[serde(default)]
    pub safe: Option<SafeContracts>,
}

/// Safe's contracts as `cadena.mjs --safe` deployed them from the npm package's artifacts.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SafeContracts {
    /// `@safe-global/safe-smart-account`.
    pub package: String,
    /// `1.5.0`.
    pub version: String,
    pub singleton: Address,
    pub proxy_factory: Address,
    pub fallback_handler: Address,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Eip712Info {
    pub name: String,
    pub version: String,
    pub domain_separator: B256,
}

/// One account of Anvil's standard mnemonic with its role: `buyer`, `pay_to` (the payTo of
/// `content/servicio.toml`, ETH only), `settler` (for the project's own facilitator),
/// `independent_settler` (facilitador-x402.mjs), `sender` (sends transactions for others),
/// `proxy_admin`, `issuer` (owner, master minter, pauser, blacklister, minter),
/// `lost_and_found`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    pub role: String,
    pub index: u32,
    pub address: Address,
    pub private_key: String,
    /// Atomic units of USDC minted at the start.
    pub usdc: String,
}

impl Account {
    pub fn signer(&self) -> PrivateKeySigner {
        self.private_key.parse().expect("cadena.mjs writes valid keys")
    }
}

/// A script started with `--exit-on-stdin-close`: dropping its stdin stops it.
struct Script {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Script {
    /// Runs `node script args…` in `tests/chain` and waits for a stdout line starting with
    /// `ready`; returns the script and that line. stderr goes to `stderr_file`.
    fn start(script: &str, args: &[String], ready: &str, stderr_file: &Path) -> Result<(Script, String)> {
        check_installed()?;
        let stderr = std::fs::File::create(stderr_file)?;
        let mut child = Command::new(node())
            .arg(script)
            .args(args)
            .arg("--exit-on-stdin-close")
            .current_dir(chain_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .with_context(|| format!("no se pudo ejecutar {} {script} (¿Node.js 20 o posterior?)", node().display()))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().context("sin stdout")?;
        let (tx, rx) = mpsc::channel();
        // Reads every line until the script exits: its stdout never fills up.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send(line);
            }
        });
        let mut started = Script { child, stdin };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(line) if line.starts_with(ready) => return Ok((started, line)),
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() < deadline => {
                    if let Some(status) = started.child.try_wait()? {
                        bail!("{script} terminó al arrancar ({status}): {}", read_tail(stderr_file));
                    }
                }
                Err(_) => {
                    let _ = started.child.kill();
                    bail!("{script} no estuvo listo en {START_TIMEOUT:?}: {}", read_tail(stderr_file));
                }
            }
        }
    }

    /// Closes stdin (the script stops what it started and exits), then kills it if it lingers.
    fn stop(&mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let start = text.len().saturating_sub(4000);
    text.get(start..).unwrap_or(&text).to_owned()
}

/// A running anvil with USDC deployed; stopped on drop.
pub struct LocalChain {
    script: Script,
    info: ChainInfo,
    rpc: Rpc,
    json: PathBuf,
    dir: tempfile::TempDir,
}

impl LocalChain {
    /// Starts anvil with USDC and waits until it is ready (about a second).
    pub fn start(options: ChainOptions) -> Result<LocalChain> {
        let dir = tempfile::Builder::new().prefix("cadena-").tempdir()?;
        let json = dir.path().join("cadena.json");
        let mut args = vec![
            "--json".to_owned(),
            json.display().to_string(),
            "--port".to_owned(),
            options.port.to_string(),
            "--buyers".to_owned(),
            options.buyers.to_string(),
            "--usdc".to_owned(),
            options.usdc_per_buyer.to_string(),
        ];
        match options.mining {
            Mining::Auto => {}
            Mining::Interval(seconds) => args.extend(["--block-time".to_owned(), seconds.to_string()]),
            Mining::Manual => args.push("--no-mining".to_owned()),
        }
        if options.safe {
            args.push("--safe".to_owned());
        }
        let (script, _) = Script::start("cadena.mjs", &args, "listo", &dir.path().join("cadena.err"))?;
        let text = std::fs::read_to_string(&json).context("cadena.mjs no escribió su JSON")?;
        let info: ChainInfo = serde_json::from_str(&text).context("el JSON de cadena.mjs")?;
        let rpc = Rpc::new(&info.rpc);
        Ok(LocalChain { script, info, rpc, json, dir })
    }

    pub fn info(&self) -> &ChainInfo {
        &self.info
    }

    pub fn rpc(&self) -> &Rpc {
        &self.rpc
    }

    pub fn rpc_url(&self) -> &str {
        &self.info.rpc
    }

    /// The USDC contract (the proxy at Base Sepolia USDC's address).
    pub fn asset(&self) -> Address {
        self.info.asset
    }

    /// The JSON description (for other scripts: `facilitador-x402.mjs --chain`).
    pub fn json_path(&self) -> &Path {
        &self.json
    }

    /// A temporary folder that lives as long as the chain.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The accounts with a role, in index order.
    pub fn accounts(&self, role: &str) -> Vec<&Account> {
        self.info.accounts.iter().filter(|a| a.role == role).collect()
    }

    /// The one account with a role (panics for `buyer`, which has several: see [`Self::buyers`]).
    pub fn account(&self, role: &str) -> &Account {
        let found = self.accounts(role);
        assert_eq!(found.len(), 1, "una sola cuenta con el papel {role}");
        found[0]
    }

    pub fn buyers(&self) -> Vec<&Account> {
        self.accounts("buyer")
    }

    pub fn pay_to(&self) -> Address {
        self.account("pay_to").address
    }

    /// The EIP-712 domain the contract signs under (Base Sepolia USDC's).
    pub fn domain(&self) -> Eip712Domain {
        Eip712Domain::new(
            Some(Cow::Owned(self.info.eip712.name.clone())),
            Some(Cow::Owned(self.info.eip712.version.clone())),
            Some(U256::from(self.info.chain_id)),
            Some(self.info.asset),
            None,
        )
    }

    /// A USDC balance, in atomic units.
    pub async fn usdc_balance(&self, who: Address) -> Result<U256> {
        self.rpc.balance_of(self.info.asset, who).await
    }

    /// Whether an EIP-3009 nonce of an authorizer is used or canceled.
    pub async fn authorization_state(&self, authorizer: Address, nonce: B256) -> Result<bool> {
        self.rpc.authorization_state(self.info.asset, authorizer, nonce).await
    }
}

impl Drop for LocalChain {
    fn drop(&mut self) {
        self.script.stop();
        // If the script could not stop it, anvil is stopped here.
        if Path::new(&format!("/proc/{}", self.info.anvil_pid)).exists() {
            let _ = Command::new("kill").arg("-9").arg(self.info.anvil_pid.to_string()).status();
        }
    }
}

impl LocalChain {
    /// Mints `amount` atomic units of USDC to `to` (the issuer is the minter).
    pub async fn mint_usdc(&self, to: Address, amount: U256) -> Result<Receipt> {
        let call = mintCall { to, amount };
        let hash = self.rpc.send_transaction(self.account("issuer").address, self.asset(), &call.abi_encode()).await?;
        let receipt = self.rpc.wait_receipt(hash, Duration::from_secs(30)).await?;
        if !receipt.succeeded() {
            bail!("mint a {to} falló");
        }
        Ok(receipt)
    }

    /// Safe's contracts (the chain must have started with [`ChainOptions::safe`]).
    pub fn safe_contracts(&self) -> &SafeContracts {
        self.info.safe.as_ref().expect("la cadena se inició sin --safe")
    }

    /// A one-owner Safe of `owner` with `salt`, at the address its factory would deploy it to
    /// (asked of the factory by `eth_call`); not deployed until [`SafeWallet::deploy`].
    pub async fn safe_wallet(&self, owner: PrivateKeySigner, salt: u64) -> Result<SafeWallet> {
        let contracts = self.safe_contracts();
        let initializer = setupCall {
            owners: vec![owner.address()],
            threshold: U256::from(1),
            to: Address::ZERO,
            data: Bytes::new(),
            fallbackHandler: contracts.fallback_handler,
            paymentToken: Address::ZERO,
            payment: U256::ZERO,
            paymentReceiver: Address::ZERO,
        }
        .abi_encode();
        let create = createProxyWithNonceCall {
            singleton: contracts.singleton,
            initializer: Bytes::from(initializer),
            saltNonce: U256::from(salt),
        }
        .abi_encode();
        let answer = self.rpc.eth_call(contracts.proxy_factory, &create).await?;
        let address = createProxyWithNonceCall::abi_decode_returns(&answer)?;
        Ok(SafeWallet {
            address,
            owner,
            factory: contracts.proxy_factory,
            factory_calldata: Bytes::from(create),
            chain_id: self.info.chain_id,
        })
    }
}

/// A Safe 1.5.0 with one owner and Safe's `CompatibilityFallbackHandler` (its ERC-1271).
#[derive(Debug, Clone)]
pub struct SafeWallet {
    pub address: Address,
    pub owner: PrivateKeySigner,
    /// SafeProxyFactory.
    pub factory: Address,
    /// `createProxyWithNonce(singleton, setup(...), salt)`: what deploys this wallet.
    pub factory_calldata: Bytes,
    chain_id: u64,
}

impl SafeWallet {
    /// Deploys it by its factory (sent by the chain's `sender` account).
    pub async fn deploy(&self, chain: &LocalChain) -> Result<Receipt> {
        let sender = chain.account("sender").address;
        let tx = json!({"from": sender, "to": self.factory, "data": self.factory_calldata, "gas": "0x1e8480"});
        let hash: B256 = serde_json::from_value(chain.rpc().call("eth_sendTransaction", json!([tx])).await?)?;
        let receipt = chain.rpc().wait_receipt(hash, Duration::from_secs(30)).await?;
        if !receipt.succeeded() || !chain.rpc().has_code(self.address).await? {
            bail!("no se desplegó la Safe {}", self.address);
        }
        let owners = chain.rpc().eth_call(self.address, &getOwnersCall {}.abi_encode()).await?;
        let owners = getOwnersCall::abi_decode_returns(&owners)?;
        if owners != vec![self.owner.address()] {
            bail!("la Safe {} tiene dueños {owners:?}", self.address);
        }
        Ok(receipt)
    }

    /// The ERC-1271 signature of `digest` by `signer` (the owner, or anyone for a wrong one): an
    /// EIP-712 `SafeMessage { message: digest }` under the Safe's domain (chain id and the Safe's
    /// address), 65 bytes with v = 27/28, as Safe's `checkSignatures` reads an owner's.
    pub fn sign_with(&self, signer: &PrivateKeySigner, digest: B256) -> Result<Bytes> {
        let domain = Eip712Domain::new(None, None, Some(U256::from(self.chain_id)), Some(self.address), None);
        let message = SafeMessage { message: Bytes::copy_from_slice(digest.as_slice()) };
        let signature = signer.sign_hash_sync(&message.eip712_signing_hash(&domain))?;
        Ok(Bytes::from(signature.as_bytes().to_vec()))
    }

    /// [`Self::sign_with`] by the owner.
    pub fn sign(&self, digest: B256) -> Result<Bytes> {
        self.sign_with(&self.owner, digest)
    }

    /// The owner's signature wrapped by ERC-6492 with this wallet's factory call.
    pub fn sign_erc6492(&self, digest: B256) -> Result<Bytes> {
        Ok(gate::x402::evm::wrap_erc6492(self.factory, &self.factory_calldata, &self.sign(digest)?))
    }
}

/// What [`IndependentFacilitator::start_with`] sets.
#[derive(Debug, Clone)]
pub struct FacilitatorOptions {
    /// How long a settlement waits for its receipt before answering `settlement_pending`.
    pub confirmation_timeout: Duration,
    /// The settler's key (default: the chain's `independent_settler`).
    pub key: Option<String>,
    /// ERC-6492 factories it may call to deploy a payer's wallet (`--factory`).
    pub factories: Vec<Address>,
}

impl Default for FacilitatorOptions {
    fn default() -> Self {
        FacilitatorOptions { confirmation_timeout: Duration::from_secs(180), key: None, factories: Vec::new() }
    }
}

/// The official `@x402/evm` facilitator (`tests/chain/facilitador-x402.mjs`) settling on a
/// [`LocalChain`]; stopped on drop.
pub struct IndependentFacilitator {
    script: Script,
    url: String,
}

impl IndependentFacilitator {
    pub fn start(chain: &LocalChain) -> Result<IndependentFacilitator> {
        IndependentFacilitator::start_with(chain, FacilitatorOptions::default())
    }

    pub fn start_with(chain: &LocalChain, options: FacilitatorOptions) -> Result<IndependentFacilitator> {
        let mut args = vec![
            "--chain".to_owned(),
            chain.json_path().display().to_string(),
            "--confirmation-timeout-ms".to_owned(),
            options.confirmation_timeout.as_millis().max(1).to_string(),
        ];
        if let Some(key) = options.key {
            args.extend(["--key".to_owned(), key]);
        }
        for factory in options.factories {
            args.extend(["--factory".to_owned(), factory.to_checksum(None)]);
        }
        let stderr = chain.dir().join(format!("facilitador-{}.err", rand_suffix()));
        let (script, line) = Script::start("facilitador-x402.mjs", &args, "puerto ", &stderr)?;
        let port: u16 = line.trim_start_matches("puerto ").trim().parse().context("el puerto del facilitador")?;
        Ok(IndependentFacilitator { script, url: format!("http://127.0.0.1:{port}") })
    }

    /// Its base URL (`/verify`, `/settle`, `/supported` below it).
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for IndependentFacilitator {
    fn drop(&mut self) {
        self.script.stop();
    }
}

fn rand_suffix() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    format!("{}-{nanos}", std::process::id())
}

/// A transaction receipt, as far as the tests read it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Receipt {
    pub transaction_hash: B256,
    #[serde(deserialize_with = "quantity")]
    pub block_number: u64,
    /// `0x1` success, `0x0` reverted.
    pub status: String,
    pub from: Address,
    pub to: Option<Address>,
    pub logs: Vec<Log>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Log {
    pub address: Address,
    pub topics: Vec<B256>,
    pub data: Bytes,
    #[serde(default)]
    pub transaction_hash: Option<B256>,
}

fn quantity<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let text = String::deserialize(d)?;
    u64::from_str_radix(text.trim_start_matches("0x"), 16).map_err(serde::de::Error::custom)
}

impl Receipt {
    pub fn succeeded(&self) -> bool {
        self.status == "0x1"
    }

    fn events<E: SolEvent>(&self, asset: Address) -> Vec<E> {
        self.logs
            .iter()
            .filter(|l| l.address == asset)
            .filter_map(|l| E::decode_raw_log(l.topics.iter().copied(), &l.data).ok())
            .collect()
    }

    /// `Transfer(from, to, value)` logs of the asset.
    pub fn transfers(&self, asset: Address) -> Vec<(Address, Address, U256)> {
        self.events::<Transfer>(asset).into_iter().map(|e| (e.from, e.to, e.value)).collect()
    }

    /// `AuthorizationUsed(authorizer, nonce)` logs of the asset.
    pub fn authorizations_used(&self, asset: Address) -> Vec<(Address, B256)> {
        self.events::<AuthorizationUsed>(asset).into_iter().map(|e| (e.authorizer, e.nonce)).collect()
    }

    /// `AuthorizationCanceled(authorizer, nonce)` logs of the asset.
    pub fn authorizations_canceled(&self, asset: Address) -> Vec<(Address, B256)> {
        self.events::<AuthorizationCanceled>(asset).into_iter().map(|e| (e.authorizer, e.nonce)).collect()
    }
}

/// An address as a log topic (left-padded to 32 bytes), for [`Rpc::logs`] filters.
pub fn address_topic(address: Address) -> B256 {
    address.into_word()
}

/// The topic-0 of the three FiatToken events, for [`Rpc::logs`] filters.
pub fn event_topic(event: &str) -> B256 {
    match event {
        "Transfer" => Transfer::SIGNATURE_HASH,
        "AuthorizationUsed" => AuthorizationUsed::SIGNATURE_HASH,
        "AuthorizationCanceled" => AuthorizationCanceled::SIGNATURE_HASH,
        other => panic!("evento desconocido {other}"),
    }
}

/// A reqwest client (with the TLS provider reqwest's `rustls-no-provider` asks for installed).
pub fn http_client() -> reqwest::Client {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    reqwest::Client::new()
}

/// A JSON-RPC client over HTTP.
#[derive(Debug, Clone)]
pub struct Rpc {
    url: String,
    client: reqwest::Client,
}

impl Rpc {
    pub fn new(url: &str) -> Rpc {
        Rpc { url: url.to_owned(), client: http_client() }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// One call; an error answer becomes `Err` with the node's message.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let answer: Value = self
            .client
            .post(&self.url)
            .json(&body)
            .send()
            .await
            .with_context(|| format!("{method}: sin respuesta de {}", self.url))?
            .json()
            .await
            .with_context(|| format!("{method}: respuesta ilegible"))?;
        if let Some(error) = answer.get("error") {
            bail!("{method}: {error}");
        }
        Ok(answer.get("result").cloned().unwrap_or(Value::Null))
    }

    async fn quantity(&self, method: &str, params: Value) -> Result<u64> {
        let value = self.call(method, params).await?;
        let text = value.as_str().with_context(|| format!("{method}: {value} no es una cantidad"))?;
        Ok(u64::from_str_radix(text.trim_start_matches("0x"), 16)?)
    }

    pub async fn chain_id(&self) -> Result<u64> {
        self.quantity("eth_chainId", json!([])).await
    }

    pub async fn block_number(&self) -> Result<u64> {
        self.quantity("eth_blockNumber", json!([])).await
    }

    /// The latest block's timestamp.
    pub async fn block_timestamp(&self) -> Result<u64> {
        let block = self.call("eth_getBlockByNumber", json!(["latest", false])).await?;
        let text = block["timestamp"].as_str().context("el bloque no trae timestamp")?;
        Ok(u64::from_str_radix(text.trim_start_matches("0x"), 16)?)
    }

    /// `eth_call` at the latest block.
    pub async fn eth_call(&self, to: Address, data: &[u8]) -> Result<Bytes> {
        let value = self.call("eth_call", json!([{"to": to, "data": Bytes::copy_from_slice(data)}, "latest"])).await?;
        Ok(serde_json::from_value(value)?)
    }

    async fn view<C: SolCall>(&self, to: Address, call: C) -> Result<C::Return> {
        let out = self.eth_call(to, &call.abi_encode()).await?;
        C::abi_decode_returns(&out).map_err(|e| anyhow::anyhow!("{}: {e}", C::SIGNATURE))
    }

    pub async fn balance_of(&self, asset: Address, who: Address) -> Result<U256> {
        self.view(asset, balanceOfCall { account: who }).await
    }

    pub async fn authorization_state(&self, asset: Address, authorizer: Address, nonce: B256) -> Result<bool> {
        self.view(asset, authorizationStateCall { authorizer, nonce }).await
    }

    pub async fn name(&self, asset: Address) -> Result<String> {
        self.view(asset, nameCall {}).await
    }

    pub async fn version(&self, asset: Address) -> Result<String> {
        self.view(asset, versionCall {}).await
    }

    pub async fn domain_separator(&self, asset: Address) -> Result<B256> {
        self.view(asset, DOMAIN_SEPARATORCall {}).await
    }

    /// Whether `who` has contract code.
    pub async fn has_code(&self, who: Address) -> Result<bool> {
        let code = self.call("eth_getCode", json!([who, "latest"])).await?;
        Ok(code.as_str().is_some_and(|c| c != "0x"))
    }

    /// ETH balance in wei.
    pub async fn eth_balance(&self, who: Address) -> Result<U256> {
        let value = self.call("eth_getBalance", json!([who, "latest"])).await?;
        Ok(serde_json::from_value(value)?)
    }

    /// Sends a transaction from one of anvil's unlocked accounts; returns its hash (mined or not).
    pub async fn send_transaction(&self, from: Address, to: Address, data: &[u8]) -> Result<B256> {
        let tx = json!({"from": from, "to": to, "data": Bytes::copy_from_slice(data), "gas": "0x30d40"});
        let value = self.call("eth_sendTransaction", json!([tx])).await?;
        Ok(serde_json::from_value(value)?)
    }

    /// The receipt, or `None` while the transaction is not mined (or unknown).
    pub async fn receipt(&self, hash: B256) -> Result<Option<Receipt>> {
        let value = self.call("eth_getTransactionReceipt", json!([hash])).await?;
        if value.is_null() { Ok(None) } else { Ok(Some(serde_json::from_value(value)?)) }
    }

    /// Polls for the receipt until it comes or `timeout` passes.
    pub async fn wait_receipt(&self, hash: B256, timeout: Duration) -> Result<Receipt> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(receipt) = self.receipt(hash).await? {
                return Ok(receipt);
            }
            if Instant::now() >= deadline {
                bail!("la transacción {hash} no se minó en {timeout:?}");
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// The transaction as the node knows it (`None`: unknown, e.g. dropped).
    pub async fn transaction(&self, hash: B256) -> Result<Option<Value>> {
        let value = self.call("eth_getTransactionByHash", json!([hash])).await?;
        Ok(if value.is_null() { None } else { Some(value) })
    }

    /// Logs of an address between two blocks, filtered by topics (`None`: any).
    pub async fn logs(
        &self,
        address: Address,
        topics: &[Option<B256>],
        from_block: u64,
        to_block: u64,
    ) -> Result<Vec<Log>> {
        let filter = json!({
            "address": address,
            "topics": topics,
            "fromBlock": format!("{from_block:#x}"),
            "toBlock": format!("{to_block:#x}"),
        });
        Ok(serde_json::from_value(self.call("eth_getLogs", json!([filter])).await?)?)
    }

    /// Turns automine on or off.
    pub async fn set_automine(&self, on: bool) -> Result<()> {
        self.call("evm_setAutomine", json!([on])).await.map(drop)
    }

    /// Mines a block every `seconds` (0: none; automine goes off).
    pub async fn set_interval_mining(&self, seconds: u64) -> Result<()> {
        self.call("evm_setIntervalMining", json!([seconds])).await.map(drop)
    }

    /// Mines one block now with whatever is pending.
    pub async fn mine(&self) -> Result<()> {
        self.call("evm_mine", json!([])).await.map(drop)
    }

    /// The next block's timestamp (then mine, or wait for a transaction).
    pub async fn set_next_block_timestamp(&self, timestamp: u64) -> Result<()> {
        self.call("evm_setNextBlockTimestamp", json!([timestamp])).await.map(drop)
    }

    /// Moves the chain's clock forward.
    pub async fn increase_time(&self, seconds: u64) -> Result<()> {
        self.call("evm_increaseTime", json!([seconds])).await.map(drop)
    }

    /// Saves the chain's state; [`Self::revert`] goes back to it (once).
    pub async fn snapshot(&self) -> Result<String> {
        let id = self.call("evm_snapshot", json!([])).await?;
        Ok(id.as_str().context("evm_snapshot sin id")?.to_owned())
    }

    /// Goes back to a [`Self::snapshot`]; false when the id is unknown.
    pub async fn revert(&self, id: &str) -> Result<bool> {
        Ok(self.call("evm_revert", json!([id])).await?.as_bool().unwrap_or(false))
    }

    /// Sets an account's ETH balance (wei).
    pub async fn set_eth_balance(&self, who: Address, wei: U256) -> Result<()> {
        self.call("anvil_setBalance", json!([who, wei])).await.map(drop)
    }

    /// Removes a pending transaction from the pool: it will never be mined.
    pub async fn drop_transaction(&self, hash: B256) -> Result<()> {
        self.call("anvil_dropTransaction", json!([hash])).await.map(drop)
    }
}

/// The payer's signature over `CancelAuthorization(authorizer, nonce)` under the chain's
/// domain, as `(v, r, s)`.
pub fn sign_cancel(chain: &LocalChain, authorizer: &PrivateKeySigner, nonce: B256) -> Result<(u8, B256, B256)> {
    let message = CancelAuthorization { authorizer: authorizer.address(), nonce };
    let digest = message.eip712_signing_hash(&chain.domain());
    let signature = authorizer.sign_hash_sync(&digest)?;
    let v = 27 + u8::from(signature.v());
    Ok((v, B256::from(signature.r().to_be_bytes::<32>()), B256::from(signature.s().to_be_bytes::<32>())))
}

/// Signs and submits `cancelAuthorization(authorizer, nonce, v, r, s)` for the payer, sent by
/// the chain's `sender` account (anyone may submit it); returns the transaction's hash without
/// waiting for it to be mined.
pub async fn submit_cancel_authorization(
    chain: &LocalChain,
    authorizer: &PrivateKeySigner,
    nonce: B256,
) -> Result<B256> {
    let (v, r, s) = sign_cancel(chain, authorizer, nonce)?;
    let call = cancelAuthorizationCall { authorizer: authorizer.address(), nonce, v, r, s };
    chain.rpc().send_transaction(chain.account("sender").address, chain.asset(), &call.abi_encode()).await
}

/// Submits a buyer's signed EIP-3009 authorization itself, as anyone may, from the chain's
/// `sender` account: `payload` is an x402 `exact` EVM payload (`{signature, authorization}`).
/// Returns the transaction's hash without waiting for it to be mined. A front-runner does this
/// with an authorization it saw on its way to the gate.
pub async fn submit_authorization(chain: &LocalChain, payload: &Value) -> Result<B256> {
    let authorization = &payload["authorization"];
    let field = |name: &str| authorization[name].as_str().with_context(|| format!("authorization.{name}"));
    let number = |name: &str| -> Result<U256> { Ok(U256::from_str_radix(field(name)?, 10)?) };
    let signature: Bytes = payload["signature"].as_str().context("signature")?.parse()?;
    if signature.len() != 65 {
        bail!("una firma de 65 bytes (r, s, v)");
    }
    let call = transferWithAuthorizationCall {
        from: field("from")?.parse()?,
        to: field("to")?.parse()?,
        value: number("value")?,
        validAfter: number("validAfter")?,
        validBefore: number("validBefore")?,
        nonce: field("nonce")?.parse()?,
        v: signature[64],
        r: B256::from_slice(&signature[..32]),
        s: B256::from_slice(&signature[32..64]),
    };
    chain.rpc().send_transaction(chain.account("sender").address, chain.asset(), &call.abi_encode()).await
}

/// [`submit_authorization`], then its receipt (the chain must be mining), which must be a success.
pub async fn front_run(chain: &LocalChain, payload: &Value) -> Result<Receipt> {
    let hash = submit_authorization(chain, payload).await?;
    let receipt = chain.rpc().wait_receipt(hash, Duration::from_secs(30)).await?;
    if !receipt.succeeded() {
        bail!("transferWithAuthorization {hash} falló en la cadena");
    }
    Ok(receipt)
}

/// [`submit_cancel_authorization`], then its receipt (the chain must be mining), which must
/// be a success.
pub async fn cancel_authorization(chain: &LocalChain, authorizer: &PrivateKeySigner, nonce: B256) -> Result<Receipt> {
    let hash = submit_cancel_authorization(chain, authorizer, nonce).await?;
    let receipt = chain.rpc().wait_receipt(hash, Duration::from_secs(30)).await?;
    if !receipt.succeeded() {
        bail!("cancelAuthorization {hash} falló en la cadena");
    }
    Ok(receipt)
}
