//! Smart-contract wallets buy on a real chain: anvil running Circle's FiatToken v2.2 at Base
//! Sepolia USDC's address (`tests::chain`), and Safe 1.5.0 deployed from
//! `@safe-global/safe-smart-account`'s compiled contracts (`cadena.mjs --safe`). A one-owner
//! Safe with Safe's `CompatibilityFallbackHandler` signs as its ERC-1271 `isValidSignature`
//! reads (the owner's EIP-712 signature of a `SafeMessage` holding the authorization's digest);
//! not yet deployed, the same signature wrapped by ERC-6492 with the factory call that deploys it.
//!
//! - a deployed Safe buys over HTTP and over MCP (ERC-1271), settled by the gate's embedded local
//!   facilitator on the chain, by the same facilitator over HTTP, and by the official
//!   `@x402/evm` facilitator: exactly the price moves from the Safe to payTo, once;
//! - a Safe not yet deployed, its counterfactual address funded, buys with ERC-6492: deployed
//!   during settlement, then the price moves;
//! - the same with MPP's `evm` credential;
//! - a wrong signature (a stranger's, or a 6492 wrapper of one) is refused and nothing moves;
//! - without an RPC, a smart wallet's signature gets `firma_de_contrato_sin_rpc` and nothing moves;
//! - a factory the facilitator does not allow is refused before anything is sent.
//!
//! Needs `npm ci` in `tests/chain` (`./tienda probar` runs it before the Rust tests).

mod common;

use std::sync::Arc;
use std::time::Duration;

use alloy_primitives::{Address, B256, U256};
use alloy_signer_local::PrivateKeySigner;
use common::built;
use common::gate::{SharedLocal, TestGate, accepted_of, client, signed_payload, start_with_chains};
use gate::chain::evm::RpcChain;
use gate::chain::settler::Settler;
use gate::chain::{Chain, Chains};
use gate::facilitator::Facilitator;
use gate::facilitator::http::HttpFacilitator;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate::facilitator::service::FacilitatorService;
use gate::sales::report::report;
use gate::x402::evm::{client_authorization, domain_for, exact_payload_json, random_nonce, signing_hash};
use gate::x402::header::encode_json;
use gate::x402::{PaymentPayload, PaymentRequirements};
use gate_http::{Running, spawn};
use serde_json::{Value, json};
use tests::chain::{ChainOptions, FacilitatorOptions, IndependentFacilitator, LocalChain, SafeWallet};

const NETWORK: &str = "eip155:84532";
/// USDC minted to each smart wallet.
const FUNDS: u64 = 50_000_000;

/// Which facilitator settles the smart wallet's payment on the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settles {
    /// The gate's embedded local facilitator, settling on the chain (what `GATE_SETTLER_KEY`
    /// and an RPC make of local mode).
    Embedded,
    /// The same facilitator served over HTTP (what `facilitador-local --rpc` serves).
    OursOverHttp,
    /// The official `@x402/evm` facilitator (`tests/chain/facilitador-x402.mjs`).
    Independent,
}

struct Store {
    gate: TestGate,
    _facilitator: Option<Running>,
    _independent: Option<IndependentFacilitator>,
}

fn chain() -> LocalChain {
    LocalChain::start(ChainOptions { buyers: 1, safe: true, ..ChainOptions::default() }).expect("chain")
}

fn reader(chain: &LocalChain) -> Chains {
    let reader = RpcChain::new(NETWORK, chain.rpc_url(), Duration::from_secs(10)).expect("rpc");
    Chains::new().with(NETWORK, Arc::new(reader) as Arc<dyn Chain>)
}

/// Our facilitator on `chain`, allowing Safe's proxy factory to deploy wallets (ERC-6492).
async fn our_facilitator(chain: &LocalChain) -> LocalFacilitator {
    let key = &chain.account("settler").private_key;
    let settler = Settler::connect(chain.rpc_url(), key, Duration::from_secs(10)).await.expect("settler");
    let mut config = LocalConfig { settle_wait: Duration::from_secs(20), ..LocalConfig::on_chain(Arc::new(settler)) };
    config.erc6492_factories.push(chain.safe_contracts().proxy_factory);
    LocalFacilitator::new(config)
}

/// A gate on `chain` (its RPC configured) settling through `settles`.
async fn store(chain: &LocalChain, settles: Settles) -> Store {
    let (facilitator, served, independent): (Arc<dyn Facilitator>, _, _) = match settles {
        Settles::Embedded => (Arc::new(our_facilitator(chain).await), None, None),
        Settles::OursOverHttp => {
            let running = spawn(Arc::new(FacilitatorService(our_facilitator(chain).await)), 1).expect("facilitator");
            let http = HttpFacilitator::new(&running.url(), None, Duration::from_secs(30)).expect("client");
            (Arc::new(http), Some(running), None)
        }
        Settles::Independent => {
            let options = FacilitatorOptions {
                confirmation_timeout: Duration::from_secs(20),
                factories: vec![chain.safe_contracts().proxy_factory],
                ..FacilitatorOptions::default()
            };
            let started = IndependentFacilitator::start_with(chain, options).expect("independent facilitator");
            let http = HttpFacilitator::new(started.url(), None, Duration::from_secs(30)).expect("client");
            (Arc::new(http), None, Some(started))
        }
    };
    let gate = start_with_chains(built(), facilitator, reader(chain));
    Store { gate, _facilitator: served, _independent: independent }
}

fn accepted(slug: &str, view: &str) -> Value {
    accepted_of(built(), slug, view)
}

fn price(accepted: &Value) -> U256 {
    U256::from_str_radix(accepted["amount"].as_str().expect("amount"), 10).expect("amount")
}

fn pay_to(accepted: &Value) -> Address {
    accepted["payTo"].as_str().expect("payTo").parse().expect("payTo")
}

/// How a smart wallet signs an authorization's digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Signs {
    /// ERC-1271: the owner's signature, as the deployed Safe checks it.
    Erc1271,
    /// ERC-6492: the same, wrapped with the factory call that deploys the Safe.
    Erc6492,
    /// A stranger's signature in the owner's place.
    Stranger,
    /// A stranger's, wrapped by ERC-6492.
    StrangerErc6492,
}

/// An x402 payment for `accepted` from `wallet`, signed as `signs` says.
fn payment(accepted: &Value, wallet: &SafeWallet, signs: Signs) -> PaymentPayload {
    let requirements: PaymentRequirements = serde_json::from_value(accepted.clone()).expect("requirements");
    let domain = domain_for(&requirements).expect("domain");
    let now = gate::clock::now();
    let auth = client_authorization(&requirements, wallet.address, now, random_nonce()).expect("authorization");
    let digest = signing_hash(&domain, &auth);
    let stranger = PrivateKeySigner::random();
    let signature = match signs {
        Signs::Erc1271 => wallet.sign(digest),
        Signs::Erc6492 => wallet.sign_erc6492(digest),
        Signs::Stranger => wallet.sign_with(&stranger, digest),
        Signs::StrangerErc6492 => wallet
            .sign_with(&stranger, digest)
            .map(|inner| gate::x402::evm::wrap_erc6492(wallet.factory, &wallet.factory_calldata, &inner)),
    }
    .expect("signature");
    PaymentPayload {
        x402_version: 2,
        resource: None,
        accepted: accepted.clone(),
        payload: exact_payload_json(&auth, &signature),
        extensions: None,
    }
}

fn nonce_of(payment: &PaymentPayload) -> B256 {
    payment.payload["authorization"]["nonce"].as_str().expect("nonce").parse().expect("nonce")
}

async fn buy_http(gate: &TestGate, slug: &str, view: &str, payment: &PaymentPayload) -> (u16, Value) {
    let response = client()
        .get(gate.url(&format!("/estudio/{slug}?vista={view}")))
        .header("PAYMENT-SIGNATURE", encode_json(payment))
        .send()
        .await
        .expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.expect("json"))
}

/// `comprar_estudio` over MCP with the payment in `_meta["x402/payment"]`: (isError, result).
async fn buy_mcp(gate: &TestGate, slug: &str, view: &str, payment: &PaymentPayload) -> (bool, Value) {
    let message = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "comprar_estudio", "arguments": {"slug": slug, "vista": view}, "_meta": {"x402/payment": payment}},
    });
    let response = client()
        .post(gate.url("/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(message.to_string())
        .send()
        .await
        .expect("mcp");
    let body: Value = response.json().await.expect("json");
    let result = body["result"].clone();
    (result["isError"] == true, result)
}

/// A Safe of a fresh owner with USDC, deployed by its factory or not.
async fn funded_safe(chain: &LocalChain, salt: u64, deployed: bool) -> SafeWallet {
    let wallet = chain.safe_wallet(PrivateKeySigner::random(), salt).await.expect("safe");
    if deployed {
        wallet.deploy(chain).await.expect("deploy");
    }
    chain.mint_usdc(wallet.address, U256::from(FUNDS)).await.expect("mint");
    assert_eq!(chain.rpc().has_code(wallet.address).await.expect("code"), deployed);
    wallet
}

/// Buys `slug`/`view` with `payment` over `over` and checks that exactly the price moved from
/// the wallet to payTo, once, by an authorization of the wallet.
async fn buys_once(chain: &LocalChain, gate: &TestGate, over: &str, slug: &str, view: &str, payment: &PaymentPayload) {
    let offer = &payment.accepted;
    let wallet: Address = payment.payload["authorization"]["from"].as_str().expect("from").parse().expect("from");
    let (wallet_before, receiver_before) =
        (chain.usdc_balance(wallet).await.expect("balance"), chain.usdc_balance(pay_to(offer)).await.expect("balance"));
    match over {
        "http" => {
            let (status, body) = buy_http(gate, slug, view, payment).await;
            assert_eq!(status, 200, "{slug}/{view} over HTTP: {body}");
            assert_eq!(body["pago"]["pagador"].as_str().map(str::to_lowercase), Some(format!("{wallet:#x}")));
        }
        _ => {
            let (error, result) = buy_mcp(gate, slug, view, payment).await;
            assert!(!error, "{slug}/{view} over MCP: {result}");
            assert_eq!(result["_meta"]["x402/payment-response"]["success"], true, "{result}");
        }
    }
    assert_eq!(
        wallet_before - chain.usdc_balance(wallet).await.expect("balance"),
        price(offer),
        "{over}: the price left the wallet"
    );
    assert_eq!(
        chain.usdc_balance(pay_to(offer)).await.expect("balance") - receiver_before,
        price(offer),
        "{over}: payTo received the price"
    );
    assert!(chain.authorization_state(wallet, nonce_of(payment)).await.expect("state"), "the wallet's nonce is used");
}

/// A deployed Safe buys over HTTP and over MCP with ERC-1271; a replay moves nothing.
async fn a_deployed_safe_buys(settles: Settles) {
    let chain = chain();
    let store = store(&chain, settles).await;
    let wallet = funded_safe(&chain, 1, true).await;
    let http = payment(&accepted("banca-2026", "resumen"), &wallet, Signs::Erc1271);
    buys_once(&chain, &store.gate, "http", "banca-2026", "resumen", &http).await;
    let mcp = payment(&accepted("banca-2026", "completo"), &wallet, Signs::Erc1271);
    buys_once(&chain, &store.gate, "mcp", "banca-2026", "completo", &mcp).await;
    let before = chain.usdc_balance(wallet.address).await.expect("balance");
    let (status, _) = buy_http(&store.gate, "banca-2026", "resumen", &http).await;
    assert_eq!(status, 200, "{settles:?}: a replay gets the study again");
    assert_eq!(
        chain.usdc_balance(wallet.address).await.expect("balance"),
        before,
        "{settles:?}: a replay moves nothing"
    );
    let sales = report(store.gate.data.path()).expect("gate ventas");
    assert_eq!(sales.sales.len(), 2, "{settles:?}");
    assert!(sales.pending.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deployed_safe_buys_over_http_and_mcp_with_erc1271_through_the_embedded_facilitator() {
    a_deployed_safe_buys(Settles::Embedded).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deployed_safe_buys_over_http_and_mcp_with_erc1271_through_our_facilitator_over_http() {
    a_deployed_safe_buys(Settles::OursOverHttp).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deployed_safe_buys_over_http_and_mcp_with_erc1271_through_the_official_x402_facilitator() {
    a_deployed_safe_buys(Settles::Independent).await;
}

/// A Safe not yet deployed buys with ERC-6492: deployed during settlement, then paid.
async fn an_undeployed_safe_buys(settles: Settles, over: &str) {
    let chain = chain();
    let store = store(&chain, settles).await;
    let wallet = funded_safe(&chain, 2, false).await;
    let bought = payment(&accepted("banca-2026", "resumen"), &wallet, Signs::Erc6492);
    buys_once(&chain, &store.gate, over, "banca-2026", "resumen", &bought).await;
    assert!(chain.rpc().has_code(wallet.address).await.expect("code"), "{settles:?}: deployed during settlement");
    // Deployed now, the same wallet's next ERC-6492 signature (its wrapper made before it knew)
    // and a plain ERC-1271 one both buy.
    let again = payment(&accepted("banca-2026", "completo"), &wallet, Signs::Erc6492);
    buys_once(&chain, &store.gate, over, "banca-2026", "completo", &again).await;
    let plain = payment(&accepted(common::SLUGS[1], "resumen"), &wallet, Signs::Erc1271);
    buys_once(&chain, &store.gate, over, common::SLUGS[1], "resumen", &plain).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undeployed_safe_buys_with_erc6492_deployed_while_settling_through_the_embedded_facilitator() {
    an_undeployed_safe_buys(Settles::Embedded, "http").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undeployed_safe_buys_over_mcp_with_erc6492_through_our_facilitator_over_http() {
    an_undeployed_safe_buys(Settles::OursOverHttp, "mcp").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undeployed_safe_buys_with_erc6492_through_the_official_x402_facilitator() {
    an_undeployed_safe_buys(Settles::Independent, "http").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_smart_wallet_signature_is_refused_and_nothing_moves() {
    let chain = chain();
    let store = store(&chain, Settles::Embedded).await;
    let deployed = funded_safe(&chain, 3, true).await;
    let undeployed = funded_safe(&chain, 4, false).await;
    let offer = accepted("banca-2026", "resumen");
    let receiver = chain.usdc_balance(pay_to(&offer)).await.expect("balance");
    for (wallet, signs) in [
        (&deployed, Signs::Stranger),
        (&deployed, Signs::StrangerErc6492),
        (&undeployed, Signs::StrangerErc6492),
        (&undeployed, Signs::Stranger),
    ] {
        let bad = payment(&offer, wallet, signs);
        let (status, body) = buy_http(&store.gate, "banca-2026", "resumen", &bad).await;
        assert_eq!(status, 402, "{signs:?}: {body}");
        assert_eq!(body["error"], "invalid_exact_evm_payload_signature", "{signs:?}: {body}");
        assert!(body.get("resumen").is_none(), "{signs:?}: no study");
        let (error, result) = buy_mcp(&store.gate, "banca-2026", "resumen", &bad).await;
        assert!(error, "{signs:?} over MCP: {result}");
        assert_eq!(
            chain.usdc_balance(wallet.address).await.expect("balance"),
            U256::from(FUNDS),
            "{signs:?}: nothing left the wallet"
        );
        assert!(!chain.authorization_state(wallet.address, nonce_of(&bad)).await.expect("state"), "{signs:?}");
    }
    let message = {
        let (_, body) =
            buy_http(&store.gate, "banca-2026", "resumen", &payment(&offer, &deployed, Signs::StrangerErc6492)).await;
        body["mensaje"].as_str().unwrap_or_default().to_owned()
    };
    assert!(message.contains("ERC-6492") && message.contains(&deployed.address.to_checksum(None)), "{message}");
    assert!(!chain.rpc().has_code(undeployed.address).await.expect("code"), "a refused 6492 deploys nothing");
    assert_eq!(chain.usdc_balance(pay_to(&offer)).await.expect("balance"), receiver, "payTo received nothing");
    let sales = report(store.gate.data.path()).expect("gate ventas");
    assert!(sales.sales.is_empty() && sales.pending.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_rpc_a_smart_wallet_signature_gets_a_clear_refusal_and_nothing_moves() {
    let chain = chain();
    let deployed = funded_safe(&chain, 5, true).await;
    let undeployed = funded_safe(&chain, 6, false).await;
    let offer = accepted("banca-2026", "resumen");
    // Local mode without an RPC: the embedded facilitator's ledger is the chain; and a gate with
    // no chain at all (testnet or mainnet without GATE_RPC_EIP155_<id>).
    let ledger = Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let local_mode = start_with_chains(
        built(),
        Arc::new(SharedLocal(Arc::clone(&ledger))),
        Chains::new().with(NETWORK, Arc::clone(&ledger) as Arc<dyn Chain>),
    );
    let no_chain = start_with_chains(built(), Arc::new(SharedLocal(Arc::clone(&ledger))), Chains::new());
    for gate in [&local_mode, &no_chain] {
        let wrapped = payment(&offer, &undeployed, Signs::Erc6492);
        let (status, body) = buy_http(gate, "banca-2026", "resumen", &wrapped).await;
        assert_eq!((status, body["error"].as_str()), (402, Some("firma_de_contrato_sin_rpc")), "{body}");
        let message = body["mensaje"].as_str().expect("mensaje");
        assert!(message.contains("ERC-6492") && message.contains("RPC") && message.contains(NETWORK), "{message}");
        let (error, result) = buy_mcp(gate, "banca-2026", "resumen", &wrapped).await;
        assert!(error, "{result}");
        assert!(result.to_string().contains("firma_de_contrato_sin_rpc"), "{result}");
        // A 65-byte signature that is not `from`'s stays the plain bad-signature refusal.
        let owners = payment(&offer, &deployed, Signs::Erc1271);
        let (status, body) = buy_http(gate, "banca-2026", "resumen", &owners).await;
        assert_eq!((status, body["error"].as_str()), (402, Some("invalid_exact_evm_payload_signature")), "{body}");
    }
    assert_eq!(ledger.settlements(), 0, "nothing settled");
    for wallet in [&deployed, &undeployed] {
        assert_eq!(chain.usdc_balance(wallet.address).await.expect("balance"), U256::from(FUNDS));
    }
    assert!(!chain.rpc().has_code(undeployed.address).await.expect("code"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_factory_the_facilitator_does_not_allow_deploys_nothing() {
    let chain = chain();
    let key = &chain.account("settler").private_key;
    let settler = Settler::connect(chain.rpc_url(), key, Duration::from_secs(10)).await.expect("settler");
    // The default list (Coinbase Smart Wallet's factories) does not hold this chain's Safe factory.
    let facilitator = LocalFacilitator::new(LocalConfig::on_chain(Arc::new(settler)));
    let gate = start_with_chains(built(), Arc::new(facilitator), reader(&chain));
    let wallet = funded_safe(&chain, 7, false).await;
    let bought = payment(&accepted("banca-2026", "resumen"), &wallet, Signs::Erc6492);
    let (status, body) = buy_http(&gate, "banca-2026", "resumen", &bought).await;
    assert_eq!((status, body["error"].as_str()), (402, Some("eip6492_factory_not_allowed")), "{body}");
    assert!(!chain.rpc().has_code(wallet.address).await.expect("code"), "nothing deployed");
    assert_eq!(chain.usdc_balance(wallet.address).await.expect("balance"), U256::from(FUNDS));
    let sales = report(gate.data.path()).expect("gate ventas");
    assert!(sales.sales.is_empty() && sales.pending.is_empty(), "a certain refusal");
}

/// Runs `tests/chain/cliente-safe.mjs` (the official `@x402/fetch` client with a viem smart
/// account for `wallet`) against `url`; returns the JSON line it prints.
async fn official_client(chain: &LocalChain, wallet: &SafeWallet, salt: u64, url: String) -> Value {
    let dir = tests::chain::chain_dir();
    let mut command = std::process::Command::new(std::env::var_os("NODE").unwrap_or_else(|| "node".into()));
    command
        .arg(dir.join("cliente-safe.mjs"))
        .arg("--chain")
        .arg(chain.json_path())
        .arg("--url")
        .arg(url)
        .arg("--owner-key")
        .arg(format!("{:#x}", wallet.owner.to_bytes()))
        .arg("--salt")
        .arg(salt.to_string())
        .current_dir(&dir);
    let output = tokio::task::spawn_blocking(move || command.output()).await.expect("join").expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "cliente-safe.mjs: {stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_str(stdout.trim().lines().last().unwrap_or_default()).expect("json line")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_x402_client_with_a_viem_smart_account_buys_undeployed_then_deployed() {
    let chain = chain();
    let store = store(&chain, Settles::Embedded).await;
    let salt = 8;
    let wallet = funded_safe(&chain, salt, false).await;
    let receiver = pay_to(&accepted("banca-2026", "resumen"));
    let mut paid = U256::ZERO;
    for (view, deployed_before, wrapped) in [("resumen", false, true), ("completo", true, false)] {
        let before = chain.usdc_balance(receiver).await.expect("balance");
        let url = store.gate.url(&format!("/estudio/banca-2026?vista={view}"));
        let answer = official_client(&chain, &wallet, salt, url).await;
        assert_eq!(answer["status"], 200, "{view}: {answer}");
        assert_eq!(answer["from"].as_str().map(str::to_lowercase), Some(format!("{:#x}", wallet.address)), "{answer}");
        assert_eq!(answer["deployedBefore"], deployed_before, "{answer}");
        assert_eq!(answer["erc6492"], wrapped, "{view}: viem wraps while undeployed only: {answer}");
        assert_eq!(answer["paymentResponse"]["success"], true, "{answer}");
        assert_eq!((answer["estudio"].as_str(), answer["vista"].as_str()), (Some("banca-2026"), Some(view)));
        let price = price(&accepted("banca-2026", view));
        assert_eq!(chain.usdc_balance(receiver).await.expect("balance") - before, price, "{view}: payTo got the price");
        paid += price;
    }
    assert!(chain.rpc().has_code(wallet.address).await.expect("code"));
    assert_eq!(chain.usdc_balance(wallet.address).await.expect("balance"), U256::from(FUNDS) - paid);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_safe_pays_with_an_mpp_evm_credential_deployed_or_not() {
    let chain = chain();
    let store = store(&chain, Settles::Embedded).await;
    let deployed = funded_safe(&chain, 9, true).await;
    let undeployed = funded_safe(&chain, 10, false).await;
    for (wallet, view, signs) in [(&deployed, "resumen", Signs::Erc1271), (&undeployed, "completo", Signs::Erc6492)] {
        let url = store.gate.url(&format!("/estudio/banca-2026?vista={view}"));
        let unpaid = client().get(&url).send().await.expect("402");
        assert_eq!(unpaid.status().as_u16(), 402);
        let header = unpaid.headers().get("www-authenticate").expect("challenge").to_str().expect("ascii").to_owned();
        let challenge = tests::mpp::parse_challenge(&header);
        let offer = accepted("banca-2026", view);
        let credential = tests::mpp::credential_value_of(&challenge, &offer, wallet.address, |domain, auth| {
            let digest = signing_hash(domain, auth);
            match signs {
                Signs::Erc6492 => wallet.sign_erc6492(digest),
                _ => wallet.sign(digest),
            }
            .expect("signature")
            .to_vec()
        });
        let before = chain.usdc_balance(wallet.address).await.expect("balance");
        let response = client()
            .get(&url)
            .header("Authorization", format!("Payment {}", tests::mpp::b64(&credential)))
            .send()
            .await
            .expect("paid");
        let status = response.status().as_u16();
        let receipt = response.headers().get("payment-receipt").map(|v| v.to_str().expect("ascii").to_owned());
        let body: Value = response.json().await.expect("json");
        assert_eq!(status, 200, "{signs:?}: {body}");
        let receipt = tests::mpp::b64_json(&receipt.expect("Payment-Receipt"));
        assert_eq!((receipt["method"].as_str(), receipt["status"].as_str()), (Some("evm"), Some("success")));
        assert_eq!(before - chain.usdc_balance(wallet.address).await.expect("balance"), price(&offer), "{signs:?}");
        assert!(chain.rpc().has_code(wallet.address).await.expect("code"));
    }
    let sales = report(store.gate.data.path()).expect("gate ventas");
    assert_eq!(sales.sales.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_rpc_that_does_not_answer_leaves_a_smart_wallet_payment_to_repeat_and_a_plain_key_still_buys() {
    // An RPC URL on a port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("port").local_addr().expect("address");
    let reader = RpcChain::new(NETWORK, &format!("http://{closed}"), Duration::from_secs(2)).expect("rpc");
    let ledger = Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let gate = start_with_chains(
        built(),
        Arc::new(SharedLocal(Arc::clone(&ledger))),
        Chains::new().with(NETWORK, Arc::new(reader) as Arc<dyn Chain>),
    );
    let offer = accepted("banca-2026", "resumen");
    let requirements: PaymentRequirements = serde_json::from_value(offer.clone()).expect("requirements");
    let wallet = Address::repeat_byte(0x5a);
    let auth = client_authorization(&requirements, wallet, gate::clock::now(), random_nonce()).expect("authorization");
    let smart = PaymentPayload {
        x402_version: 2,
        resource: None,
        accepted: offer.clone(),
        payload: exact_payload_json(&auth, &[0x11; 130]),
        extensions: None,
    };
    let (status, body) = buy_http(&gate, "banca-2026", "resumen", &smart).await;
    assert_eq!((status, body["error"].as_str()), (503, Some("cadena_no_disponible")), "{body}");
    assert!(body["mensaje"].as_str().is_some_and(|m| m.contains("no se cobró nada")), "{body}");
    assert_eq!(ledger.settlements(), 0);
    // A plain key's signature needs no RPC: it buys all the same.
    let key = PrivateKeySigner::random();
    let (status, body) = buy_http(&gate, "banca-2026", "resumen", &signed_payload(&offer, &key, |_, _| {})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ledger.settlements(), 1);
}
