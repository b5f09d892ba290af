//! Command line and environment, in two steps: what the user typed ([`Args`]), then validated
//! settings ([`Settings`]) with every default decided and every secret read.
//!
//! The mode (`local`, `testnet`, `mainnet`) is not a flag: it comes from `dist/gate.json`, which
//! the generator wrote from the same `servicio.toml` setting every document reports, so the
//! 402 and the documents can never disagree. The gate picks its facilitator from it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::chain::evm::RpcChain;
use crate::chain::settler::Settler;
use crate::chain::{Chain, Chains, rpc_urls_from_env, rpc_urls_from_flags};
use crate::facilitator::Facilitator;
use crate::facilitator::cdp::{CDP_FACILITATOR, CdpKey, KEY_ID_ENV, KEY_SECRET_ENV};
use crate::facilitator::http::HttpFacilitator;
use crate::facilitator::local::{ERC6492_FACTORIES_ENV, LocalConfig, LocalFacilitator, parse_factories};
use crate::links::{LinkSigner, SECRET_ENV, load_secret};
use crate::manifest::{Manifest, Mode};
use crate::mcp::AllowedHosts;
use crate::payment::limits::RefusalLimits;
use crate::x402::receipt::{
    KEY_ENV as RECEIPT_KEY_ENV, PREVIOUS_KEYS_ENV as PREVIOUS_RECEIPT_KEYS_ENV, ReceiptKey,
    load_key as load_receipt_key, parse_previous as parse_previous_receipt_keys,
};
use gate_http::client::TrustedProxies;
use gate_http::tls::TlsFiles;

/// Public facilitator for Base Sepolia and Solana devnet.
pub const TESTNET_FACILITATOR: &str = "https://x402.org/facilitator";
pub const FACILITATOR_URL_ENV: &str = "GATE_FACILITATOR_URL";
/// `Name: value` header sent to the facilitator (e.g. `Authorization: Bearer …`).
pub const FACILITATOR_AUTH_ENV: &str = "GATE_FACILITATOR_AUTH";
pub const FACILITATOR_TIMEOUT_ENV: &str = "GATE_FACILITATOR_TIMEOUT";
/// The key of the account that submits `transferWithAuthorization` when the embedded local
/// facilitator settles on a chain (local mode with an RPC for its network).
pub const SETTLER_KEY_ENV: &str = "GATE_SETTLER_KEY";
/// Seconds an RPC call may take.
const RPC_TIMEOUT: Duration = Duration::from_secs(10);
/// Ledger of the embedded local facilitator, in the data folder.
pub const LOCAL_LEDGER_FILE: &str = "libro-local.json";
/// Sales journal, in the data folder (see [`crate::journal`]).
pub const PURCHASES_FILE: &str = crate::sales::journal::JOURNAL_FILE;

mod args;
mod redact;

pub use args::{
    Args, Command, ENVIRONMENT, EXIT_STATUS, ReconcileArgs, SalesAction, SalesArgs, TokenCdpArgs, VerifyArgs,
};
pub use redact::redacted_url;
use redact::{HIDDEN, auth_shown, hidden, url_shown};

/// Validated settings.
pub struct Settings {
    pub dist: PathBuf,
    pub listen: String,
    pub data: PathBuf,
    pub threads: usize,
    pub mode: Mode,
    pub facilitator: FacilitatorChoice,
    pub link_secret: Vec<u8>,
    pub link_lifetime_seconds: u64,
    /// The publisher's key that signs offers and receipts ([`crate::x402::receipt`]).
    pub receipt_key: ReceiptKey,
    /// Extra hosts for the MCP Host/Origin allow-list.
    pub mcp_hosts: Vec<String>,
    pub limits: gate_http::Limits,
    pub refusal_limits: RefusalLimits,
    pub journal_segment_bytes: u64,
    /// Take the socket over from a running gate (`--relevo`).
    pub take_over: bool,
    /// The shared sales record's URL (`--ventas` or `GATE_VENTAS`); the file journal in
    /// `data` when `None`.
    pub sales: Option<String>,
    /// The certificate and key to serve HTTPS with (`--certificado-tls`, `--clave-tls`).
    pub tls: Option<TlsFiles>,
    /// RPC URLs by CAIP-2 network (`--rpc`, `GATE_RPC_EIP155_<id>`): where payments are proven.
    pub rpc_urls: std::collections::BTreeMap<String, String>,
    /// The embedded local facilitator's settler key ([`SETTLER_KEY_ENV`]): with an RPC for its
    /// network, it settles on that chain.
    pub settler_key: Option<String>,
    /// Where the Prometheus metrics are served (`--escuchar-metricas`), apart from buyers.
    pub metrics_listen: Option<String>,
    /// How often uncertain purchases are reconciled with the chain.
    pub reconcile_every: Duration,
}

/// Which facilitator settles payments. Its `Debug` hides the credentials (see [`redacted_url`]).
#[derive(Clone, PartialEq)]
pub enum FacilitatorChoice {
    /// The embedded local facilitator with its ledger file.
    Local { ledger: PathBuf },
    Http {
        url: String,
        /// A static `Name: value` header ([`FACILITATOR_AUTH_ENV`]).
        auth: Option<(String, String)>,
        /// A CDP Secret API key: a JWT minted for each request.
        cdp: Option<CdpKey>,
        timeout: Duration,
    },
}

/// Environment values the gate reads, gathered so settings can be tested without the process env.
/// Its `Debug` hides every secret among them (see [`redacted_url`]).
#[derive(Default, Clone)]
pub struct Env {
    pub link_secret: Option<String>,
    pub receipt_key: Option<String>,
    /// Public halves of receipt keys replaced by a rotation ([`PREVIOUS_RECEIPT_KEYS_ENV`]).
    pub receipt_keys_previous: Option<String>,
    pub facilitator_url: Option<String>,
    pub facilitator_auth: Option<String>,
    pub facilitator_timeout: Option<String>,
    pub cdp_key_id: Option<String>,
    pub cdp_key_secret: Option<String>,
    pub mcp_hosts: Option<String>,
    /// The shared sales record's URL ([`crate::sales::postgres::URL_ENV`]).
    pub sales: Option<String>,
    /// The `GATE_RPC_EIP155_<id>` variables as found (name, value).
    pub rpc: Vec<(String, String)>,
    pub settler_key: Option<String>,
}

impl Env {
    pub fn from_process() -> Env {
        Env {
            link_secret: std::env::var(SECRET_ENV).ok(),
            receipt_key: std::env::var(RECEIPT_KEY_ENV).ok(),
            receipt_keys_previous: std::env::var(PREVIOUS_RECEIPT_KEYS_ENV).ok(),
            facilitator_url: std::env::var(FACILITATOR_URL_ENV).ok(),
            facilitator_auth: std::env::var(FACILITATOR_AUTH_ENV).ok(),
            facilitator_timeout: std::env::var(FACILITATOR_TIMEOUT_ENV).ok(),
            cdp_key_id: std::env::var(KEY_ID_ENV).ok(),
            cdp_key_secret: std::env::var(KEY_SECRET_ENV).ok(),
            mcp_hosts: std::env::var(crate::mcp::HOSTS_ENV).ok(),
            sales: std::env::var(crate::sales::postgres::URL_ENV).ok(),
            rpc: std::env::vars().filter(|(name, _)| name.starts_with(crate::chain::RPC_ENV_PREFIX)).collect(),
            settler_key: std::env::var(SETTLER_KEY_ENV).ok().filter(|k| !k.trim().is_empty()),
        }
    }
}

impl std::fmt::Debug for FacilitatorChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FacilitatorChoice::Local { ledger } => f.debug_struct("Local").field("ledger", ledger).finish(),
            FacilitatorChoice::Http { url, auth, cdp, timeout } => f
                .debug_struct("Http")
                .field("url", &redacted_url(url))
                .field("auth", &auth.as_ref().map(|(name, _)| (name, HIDDEN)))
                // `CdpKey`'s own `Debug` shows its id and algorithm, never the secret.
                .field("cdp", cdp)
                .field("timeout", timeout)
                .finish(),
        }
    }
}

impl std::fmt::Debug for Env {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Env {
            link_secret,
            receipt_key,
            receipt_keys_previous,
            facilitator_url,
            facilitator_auth,
            facilitator_timeout,
            cdp_key_id,
            cdp_key_secret,
            mcp_hosts,
            sales,
            rpc,
            settler_key,
        } = self;
        let rpc: Vec<(&str, String)> = rpc.iter().map(|(name, url)| (name.as_str(), redacted_url(url))).collect();
        f.debug_struct("Env")
            .field("link_secret", &hidden(link_secret))
            .field("receipt_key", &hidden(receipt_key))
            .field("receipt_keys_previous", receipt_keys_previous)
            .field("facilitator_url", &url_shown(facilitator_url))
            .field("facilitator_auth", &auth_shown(facilitator_auth))
            .field("facilitator_timeout", facilitator_timeout)
            .field("cdp_key_id", cdp_key_id)
            .field("cdp_key_secret", &hidden(cdp_key_secret))
            .field("mcp_hosts", mcp_hosts)
            .field("ventas", &url_shown(sales))
            .field("rpc", &rpc)
            .field("settler_key", &hidden(settler_key))
            .finish()
    }
}

impl Settings {
    pub fn from_args(args: Args, env: Env, manifest: &Manifest) -> Result<Settings> {
        if args.listen.parse::<SocketAddr>().is_err() {
            bail!("--escuchar {:?} no es una dirección IP:puerto (p. ej. 127.0.0.1:8080)", args.listen);
        }
        let threads = match args.threads {
            Some(0) => bail!("--hilos debe ser al menos 1"),
            Some(n) => n,
            None => std::thread::available_parallelism().map(usize::from).unwrap_or(1),
        };
        if args.max_connections == 0 {
            bail!("--max-conexiones debe ser al menos 1");
        }
        if !(args.read_timeout > 0.0 && args.read_timeout <= 3600.0) {
            bail!("--limite-lectura: se esperan segundos entre 0 y 3600");
        }
        for (flag, value) in [
            ("--fallos-por-cliente", args.refusals_per_client),
            ("--fallos-por-pagador", args.refusals_per_payer),
            ("--fallos-globales", args.refusals_in_all),
        ] {
            if value == 0 {
                bail!("{flag} debe ser al menos 1");
            }
        }
        if !(1..=86_400).contains(&args.refusal_window) {
            bail!("--ventana-fallos: se esperan segundos entre 1 y 86400");
        }
        if !(1..=4096).contains(&args.journal_max_mb) {
            bail!("--diario-max-mb: se esperan megabytes entre 1 y 4096");
        }
        let refusal_limits = RefusalLimits {
            per_client: args.refusals_per_client,
            per_payer: args.refusals_per_payer,
            global: args.refusals_in_all,
            window: Duration::from_secs(args.refusal_window),
        };
        let proxies = match &args.proxies {
            Some(list) => TrustedProxies::parse(list).map_err(|e| anyhow::anyhow!("--proxies: {e}"))?,
            None => TrustedProxies::default(),
        };
        let limits = gate_http::Limits {
            read_timeout: Duration::from_secs_f64(args.read_timeout),
            max_connections: args.max_connections,
            sendfile: !args.no_sendfile,
            proxies,
            ..gate_http::Limits::default()
        };
        let mode = manifest.service.mode;
        let facilitator = choose_facilitator(mode, args.facilitator, &args.data, &env)?;
        let link_secret = load_secret(env.link_secret, &args.data, mode == Mode::Local)?;
        let receipt_key = load_receipt_key(env.receipt_key, &args.data, mode == Mode::Local)?
            .with_previous(parse_previous_receipt_keys(env.receipt_keys_previous.as_deref())?);
        let mcp_hosts =
            args.mcp_hosts.or(env.mcp_hosts).map(|list| AllowedHosts::parse_list(&list)).unwrap_or_default();
        let mut rpc_urls = rpc_urls_from_env(env.rpc.iter().cloned()).map_err(|e| anyhow::anyhow!(e))?;
        rpc_urls.extend(rpc_urls_from_flags(&args.rpc).map_err(|e| anyhow::anyhow!(e))?);
        if !(1..=86_400).contains(&args.reconcile_every) {
            bail!("--conciliar-cada: se esperan segundos entre 1 y 86400");
        }
        let sales = args.sales_url.or(env.sales).filter(|url| !url.trim().is_empty());
        if let Some(url) = &sales {
            crate::sales::postgres::parse_url(url)?;
        }
        Ok(Settings {
            dist: args.dist,
            listen: args.listen,
            data: args.data,
            threads,
            mode,
            facilitator,
            link_secret,
            link_lifetime_seconds: u64::from(manifest.service.link_validity_days) * 86_400,
            receipt_key,
            mcp_hosts,
            limits,
            refusal_limits,
            journal_segment_bytes: args.journal_max_mb * 1024 * 1024,
            take_over: args.take_over,
            sales,
            tls: args.tls_cert.zip(args.tls_key).map(|(cert, key)| TlsFiles { cert, key }),
            rpc_urls,
            settler_key: env.settler_key,
            metrics_listen: args.metrics_listen,
            reconcile_every: Duration::from_secs(args.reconcile_every),
        })
    }

    pub fn links(&self) -> Result<LinkSigner> {
        LinkSigner::new(self.link_secret.clone(), self.link_lifetime_seconds)
    }

    /// Builds the facilitator the settings chose.
    pub fn build_facilitator(&self) -> Result<Arc<dyn Facilitator>> {
        build_facilitator(&self.facilitator)
    }

    /// The facilitator and the chains payments are proven on: one [`RpcChain`] per configured
    /// RPC; in local mode without an RPC, the embedded facilitator's ledger (the chain of local
    /// mode); in local mode with an RPC and [`SETTLER_KEY_ENV`], the embedded facilitator
    /// settles on that chain. Connects to the settler's RPC (blocking).
    pub fn build_payment(&self) -> Result<(Arc<dyn Facilitator>, Chains)> {
        let mut chains = Chains::new();
        for (network, url) in &self.rpc_urls {
            let chain = RpcChain::new(network, url, RPC_TIMEOUT).map_err(|e| anyhow::anyhow!("{network}: {e}"))?;
            chains = chains.with(network, Arc::new(chain));
        }
        let FacilitatorChoice::Local { ledger } = &self.facilitator else {
            return Ok((self.build_facilitator()?, chains));
        };
        if let Some(key) = &self.settler_key {
            let (network, url) = self.rpc_urls.iter().next().with_context(|| {
                format!("{SETTLER_KEY_ENV} necesita el RPC de la red donde liquidar (GATE_RPC_EIP155_<id> o --rpc)")
            })?;
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            let settler = runtime
                .block_on(Settler::connect(url, key, RPC_TIMEOUT))
                .map_err(|e| anyhow::anyhow!("{network}: {e}"))?;
            let mut config = LocalConfig::on_chain(Arc::new(settler));
            let added = std::env::var(ERC6492_FACTORIES_ENV).unwrap_or_default();
            config
                .erc6492_factories
                .extend(parse_factories(&added).map_err(|e| anyhow::anyhow!("{ERC6492_FACTORIES_ENV}: {e}"))?);
            let local = LocalFacilitator::new(config);
            return Ok((Arc::new(local), chains));
        }
        let local = Arc::new(LocalFacilitator::new(LocalConfig {
            ledger_file: Some(ledger.clone()),
            ..LocalConfig::default()
        }));
        for network in LocalConfig::default().networks {
            if chains.get(&network).is_none() {
                chains = chains.with(&network, Arc::clone(&local) as Arc<dyn Chain>);
            }
        }
        Ok((local, chains))
    }
}

impl Settings {
    /// What this gate really does with money, for the start-up log: who settles, where, and
    /// whether real money moves, from the facilitator chosen, the settler key and the RPCs.
    pub fn money_statement(&self) -> String {
        let networks: Vec<&str> = self.rpc_urls.keys().map(String::as_str).collect();
        money_statement(self.mode, &self.facilitator, self.settler_key.is_some(), &networks)
    }
}

/// [`Settings::money_statement`] from what decides it: the mode, the facilitator chosen,
/// whether a settler key makes the local facilitator settle on a chain, and the networks with
/// an RPC.
pub fn money_statement(mode: Mode, facilitator: &FacilitatorChoice, settler: bool, rpc: &[&str]) -> String {
    let offered = match mode {
        Mode::Mainnet => "USDC real en Base (y Solana si se ofrece)",
        Mode::Testnet => "USDC de prueba en Base Sepolia (y Solana devnet si se ofrece), sin valor",
        Mode::Local => "USDC de Base Sepolia según los requisitos que ofrece",
    };
    let settles = match (facilitator, settler) {
        (FacilitatorChoice::Local { .. }, true) => {
            let network = rpc.first().copied().unwrap_or("la red de su RPC");
            format!(
                "el facilitador local liquida cada pago en la cadena {network} por su RPC ({SETTLER_KEY_ENV} paga el gas): se mueve {offered} en esa cadena (de prueba si es Base Sepolia o una cadena local)"
            )
        }
        (FacilitatorChoice::Local { ledger }, false) => format!(
            "modo local: un facilitador local verifica las firmas y liquida en su libro ({}); no se mueve dinero real",
            ledger.display()
        ),
        (FacilitatorChoice::Http { url, .. }, _) => {
            format!("el facilitador {} liquida cada pago en la cadena: se mueve {offered}", redacted_url(url))
        }
    };
    let proof = match (rpc.is_empty(), facilitator, settler) {
        (true, FacilitatorChoice::Local { .. }, false) => {
            "; el libro local prueba lo que no sea un éxito con transacción".to_owned()
        }
        (true, _, _) => {
            "; sin RPC: solo un éxito con transacción entrega, lo dudoso queda por conciliar (gate ventas conciliar)"
                .to_owned()
        }
        (false, _, _) => {
            format!("; la cadena ({}, por RPC) prueba lo que no sea un éxito con transacción", rpc.join(", "))
        }
    };
    format!("{settles}{proof}")
}

/// Builds a chosen facilitator (reading nothing but the local ledger, if it is the local one).
pub fn build_facilitator(choice: &FacilitatorChoice) -> Result<Arc<dyn Facilitator>> {
    Ok(match choice {
        FacilitatorChoice::Local { ledger } => {
            Arc::new(LocalFacilitator::new(LocalConfig { ledger_file: Some(ledger.clone()), ..LocalConfig::default() }))
        }
        FacilitatorChoice::Http { url, auth, cdp, timeout } => {
            let http = HttpFacilitator::new(url, auth.clone(), *timeout)?;
            Arc::new(match cdp {
                Some(key) => http.with_cdp(key.clone()),
                None => http,
            })
        }
    })
}

/// The facilitator for a mode, from `--facilitador` (or [`FACILITATOR_URL_ENV`]), the CDP
/// keys and [`FACILITATOR_AUTH_ENV`]:
///
/// - with a URL, that facilitator, authenticated by the CDP keys or the static header if set
///   (so a stub or a proxy in front of CDP works);
/// - without one: the embedded local facilitator (local mode); CDP when both CDP keys are set,
///   else x402.org (testnet); CDP (mainnet), which refuses to start without its keys.
///
/// Only one of the two CDP keys, both a CDP key and a static header, or a malformed key is an
/// error that says what to fix.
pub fn choose_facilitator(
    mode: Mode,
    url_flag: Option<String>,
    data: &std::path::Path,
    env: &Env,
) -> Result<FacilitatorChoice> {
    let url = url_flag.or_else(|| env.facilitator_url.clone()).filter(|u| !u.is_empty());
    let timeout = match env.facilitator_timeout.as_deref() {
        None | Some("") => Duration::from_secs(30),
        Some(t) => Duration::from_secs_f64(
            t.parse::<f64>()
                .ok()
                .filter(|s| *s > 0.0 && *s <= 600.0)
                .with_context(|| format!("{FACILITATOR_TIMEOUT_ENV}={t:?}: se esperan segundos entre 0 y 600"))?,
        ),
    };
    let auth = env.facilitator_auth.as_deref().filter(|a| !a.is_empty()).map(parse_auth).transpose()?;
    let cdp = CdpKey::from_env_values(env.cdp_key_id.as_deref(), env.cdp_key_secret.as_deref())?;
    if cdp.is_some() && auth.is_some() {
        bail!(
            "{FACILITATOR_AUTH_ENV} y las claves de CDP ({KEY_ID_ENV}, {KEY_SECRET_ENV}) no van juntas: las claves de CDP ya firman un Authorization por pedido; quite una de las dos"
        );
    }
    Ok(match (mode, url, cdp) {
        (_, Some(url), cdp) => {
            url::Url::parse(&url).with_context(|| format!("URL del facilitador inválida: {url:?}"))?;
            FacilitatorChoice::Http { url, auth, cdp, timeout }
        }
        (Mode::Local, None, _) => FacilitatorChoice::Local { ledger: data.join(LOCAL_LEDGER_FILE) },
        (Mode::Testnet | Mode::Mainnet, None, Some(key)) => {
            FacilitatorChoice::Http { url: CDP_FACILITATOR.to_owned(), auth, cdp: Some(key), timeout }
        }
        (Mode::Testnet, None, None) => {
            FacilitatorChoice::Http { url: TESTNET_FACILITATOR.to_owned(), auth, cdp: None, timeout }
        }
        (Mode::Mainnet, None, None) => bail!(
            "modo mainnet sin facilitador: defina {KEY_ID_ENV} y {KEY_SECRET_ENV} (la clave secreta de API de Coinbase CDP) para liquidar con el facilitador de Coinbase ({CDP_FACILITATOR}), o {FACILITATOR_URL_ENV} (y {FACILITATOR_AUTH_ENV} si pide credenciales) para usar otro"
        ),
    })
}

/// `Name: value` → (name, value).
fn parse_auth(text: &str) -> Result<(String, String)> {
    let (name, value) =
        text.split_once(':').with_context(|| format!("{FACILITATOR_AUTH_ENV} debe tener la forma `Nombre: valor`"))?;
    let (name, value) = (name.trim(), value.trim());
    if name.is_empty() || value.is_empty() {
        bail!("{FACILITATOR_AUTH_ENV} debe tener la forma `Nombre: valor`");
    }
    Ok((name.to_owned(), value.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    #[test]
    fn the_start_line_says_what_really_moves_in_each_configuration() {
        let ledger = FacilitatorChoice::Local { ledger: PathBuf::from("var/libro-local.json") };
        let http = FacilitatorChoice::Http {
            url: "https://facilitador.example/x402?key=secreto".into(),
            auth: None,
            cdp: None,
            timeout: Duration::from_secs(30),
        };
        let local = money_statement(Mode::Local, &ledger, false, &[]);
        assert!(local.contains("no se mueve dinero real") && local.contains("libro local prueba"), "{local}");
        // The case: local mode, a facilitator URL and an RPC never says "no real money".
        let testnet_usdc = money_statement(Mode::Local, &http, false, &["eip155:84532"]);
        assert!(!testnet_usdc.contains("no se mueve dinero real"), "{testnet_usdc}");
        assert!(
            testnet_usdc.contains("se mueve USDC") && testnet_usdc.contains("eip155:84532, por RPC"),
            "{testnet_usdc}"
        );
        assert!(!testnet_usdc.contains("secreto"), "the URL's key is not logged: {testnet_usdc}");
        let mainnet = money_statement(Mode::Mainnet, &http, false, &[]);
        assert!(mainnet.contains("USDC real en Base") && mainnet.contains("sin RPC"), "{mainnet}");
        let on_chain = money_statement(Mode::Local, &ledger, true, &["eip155:84532"]);
        assert!(on_chain.contains("en la cadena eip155:84532") && !on_chain.contains("no se mueve"), "{on_chain}");
    }

    #[test]
    fn auth_header_form() {
        assert_eq!(parse_auth("Authorization: Bearer x").unwrap(), ("Authorization".into(), "Bearer x".into()));
        assert!(parse_auth("Bearer").is_err());
        assert!(parse_auth(": x").is_err());
    }

    /// A throwaway Ed25519 test key (base64 of seed and public key).
    const ED25519: &str = "JetAxgMcbLDk08BTLAzu6+cpeo1FhDdqLCuvfjQONcL05JeVALtDwq3l+hylUK+FoiMDR25l/AQ6gexC+o4UOw==";

    fn cdp_env() -> Env {
        Env { cdp_key_id: Some("kid".into()), cdp_key_secret: Some(ED25519.into()), ..Env::default() }
    }

    fn choose(mode: Mode, url: Option<&str>, env: &Env) -> Result<FacilitatorChoice> {
        choose_facilitator(mode, url.map(str::to_owned), std::path::Path::new("/datos"), env)
    }

    fn url_and_key(choice: FacilitatorChoice) -> (String, Option<String>) {
        match choice {
            FacilitatorChoice::Http { url, cdp, .. } => (url, cdp.map(|k| k.id().to_owned())),
            FacilitatorChoice::Local { .. } => ("local".into(), None),
        }
    }

    #[test]
    fn mainnet_defaults_to_cdp_with_its_keys_and_refuses_to_start_without_a_facilitator() {
        let (url, key) = url_and_key(choose(Mode::Mainnet, None, &cdp_env()).unwrap());
        assert_eq!((url.as_str(), key.as_deref()), (CDP_FACILITATOR, Some("kid")));
        let error = choose(Mode::Mainnet, None, &Env::default()).unwrap_err().to_string();
        for named in [KEY_ID_ENV, KEY_SECRET_ENV, FACILITATOR_URL_ENV] {
            assert!(error.contains(named), "{error}");
        }
        // A URL with the keys: the keys authenticate to it (a stub or a proxy in front of CDP).
        let (url, key) = url_and_key(choose(Mode::Mainnet, Some("http://127.0.0.1:9/x"), &cdp_env()).unwrap());
        assert_eq!((url.as_str(), key.as_deref()), ("http://127.0.0.1:9/x", Some("kid")));
        let (url, key) = url_and_key(choose(Mode::Mainnet, Some("https://f.example"), &Env::default()).unwrap());
        assert_eq!((url.as_str(), key), ("https://f.example", None));
    }

    #[test]
    fn other_modes_keep_their_defaults() {
        assert_eq!(url_and_key(choose(Mode::Local, None, &cdp_env()).unwrap()).0, "local");
        assert_eq!(url_and_key(choose(Mode::Testnet, None, &Env::default()).unwrap()).0, TESTNET_FACILITATOR);
        assert_eq!(url_and_key(choose(Mode::Testnet, None, &cdp_env()).unwrap()).0, CDP_FACILITATOR);
    }

    #[test]
    fn half_a_key_a_bad_key_or_two_kinds_of_auth_are_refused() {
        let only_id = Env { cdp_key_secret: None, ..cdp_env() };
        let error = choose(Mode::Mainnet, None, &only_id).unwrap_err().to_string();
        assert!(error.starts_with(&format!("falta {KEY_SECRET_ENV}")), "{error}");
        let only_secret = Env { cdp_key_id: None, ..cdp_env() };
        let error = choose(Mode::Mainnet, Some("https://f.example"), &only_secret).unwrap_err().to_string();
        assert!(error.starts_with(&format!("falta {KEY_ID_ENV}")), "{error}");
        let bad = Env {
            cdp_key_secret: Some("-----BEGIN EC PRIVATE KEY-----\\nAAAA\\n-----END EC PRIVATE KEY-----".into()),
            ..cdp_env()
        };
        let error = format!("{:#}", choose(Mode::Mainnet, None, &bad).unwrap_err());
        assert!(error.contains("EC P-256"), "{error}");
        let both = Env { facilitator_auth: Some("Authorization: Bearer x".into()), ..cdp_env() };
        let error = choose(Mode::Mainnet, None, &both).unwrap_err().to_string();
        assert!(error.contains(FACILITATOR_AUTH_ENV) && error.contains(KEY_ID_ENV), "{error}");
    }
    #[test]
    fn debug_output_never_shows_a_secret() {
        let secrets = [
            "enlace-secreto-0123456789abcdef",
            "recibo-secreto-0123456789abcdef",
            "token-secreto-del-facilitador",
            "clave-pg-secreta",
            "usuario-pg",
            "clave-rpc-secreta",
            "clave-url-secreta",
            "clave-liquidador-secreta",
            &ED25519[..24],
        ];
        let env = Env {
            link_secret: Some(secrets[0].into()),
            receipt_key: Some(secrets[1].into()),
            // Public keys, not secrets: shown.
            receipt_keys_previous: Some("did:key:z6MkPublica".into()),
            facilitator_url: Some("https://f.example/v2/clave-url-secreta?token=clave-url-secreta".into()),
            facilitator_auth: Some("Authorization: Bearer token-secreto-del-facilitador".into()),
            facilitator_timeout: Some("5".into()),
            cdp_key_id: Some("kid".into()),
            cdp_key_secret: Some(ED25519.into()),
            mcp_hosts: Some("tienda.example".into()),
            sales: Some("postgres://usuario-pg:clave-pg-secreta@db.example:5432/ventas".into()),
            rpc: vec![("GATE_RPC_EIP155_8453".into(), "https://base.example/v2/clave-rpc-secreta".into())],
            settler_key: Some("clave-liquidador-secreta".into()),
        };
        let with_auth = FacilitatorChoice::Http {
            url: "https://rpc.example/v2/clave-rpc-secreta".into(),
            auth: Some(("Authorization".into(), "Bearer token-secreto-del-facilitador".into())),
            cdp: None,
            timeout: Duration::from_secs(5),
        };
        let with_cdp = choose(Mode::Mainnet, Some("https://usuario-pg:clave-url-secreta@f.example/x"), &cdp_env())
            .expect("choice");
        let serve = Args::try_parse_from([
            "gate",
            "--ventas",
            "postgres://usuario-pg:clave-pg-secreta@db.example/ventas",
            "--facilitador",
            "https://f.example/clave-url-secreta",
            "--rpc",
            "eip155:8453=https://base.example/v2/clave-rpc-secreta",
        ])
        .expect("args");
        let sales =
            Args::try_parse_from(["gate", "ventas", "--ventas", "postgres://usuario-pg:clave-pg-secreta@db.example/v"])
                .expect("args");
        let verify = Args::try_parse_from([
            "gate",
            "verificar",
            "--facilitador",
            "https://f.example/?key=clave-url-secreta",
            "--rpc",
            "eip155:8453=https://base.example/?key=clave-rpc-secreta",
        ])
        .expect("args");
        let reconcile = Args::try_parse_from([
            "gate",
            "ventas",
            "conciliar",
            "--rpc",
            "eip155:8453=https://base.example/v2/clave-rpc-secreta",
        ])
        .expect("args");
        let shown = [
            format!("{env:?}"),
            format!("{env:#?}"),
            format!("{with_auth:?}"),
            format!("{with_auth:#?}"),
            format!("{with_cdp:?}"),
            format!("{with_cdp:#?}"),
            format!("{serve:?}"),
            format!("{serve:#?}"),
            format!("{sales:?}"),
            format!("{sales:#?}"),
            format!("{verify:?}"),
            format!("{verify:#?}"),
            format!("{reconcile:?}"),
            format!("{reconcile:#?}"),
        ];
        for text in &shown {
            for secret in secrets {
                assert!(!text.contains(secret), "{secret} in {text}");
            }
            assert!(text.contains(HIDDEN), "{text}");
        }
        // What is not secret still shows: where things are, that they are set.
        assert!(shown[0].contains("db.example:5432") && shown[0].contains("Authorization: [oculto]"), "{}", shown[0]);
        assert!(shown[2].contains("https://rpc.example/[oculto]"), "{}", shown[2]);
        assert!(shown[4].contains("kid") && shown[4].contains("f.example"), "{}", shown[4]);
        assert!(shown[6].contains("db.example"), "{}", shown[6]);
    }

    #[test]
    fn urls_keep_only_scheme_host_and_port() {
        assert_eq!(redacted_url("postgres://u:p@db:5432/ventas?sslmode=require"), "postgres://db:5432/[oculto]");
        assert_eq!(redacted_url("https://x402.org/facilitator"), "https://x402.org/[oculto]");
        assert_eq!(redacted_url("http://127.0.0.1:8545"), "http://127.0.0.1:8545");
        assert_eq!(redacted_url("http://127.0.0.1:8545/"), "http://127.0.0.1:8545/");
        assert_eq!(redacted_url("https://h.example?apikey=k"), "https://h.example/[oculto]");
        assert_eq!(redacted_url("no es una URL:clave"), HIDDEN);
    }
}
