//! The real-chain harness proves itself: anvil runs Circle's USDC at Base Sepolia USDC's
//! address with Base Sepolia's EIP-712 domain; a payment signed exactly as the gate's buyer
//! client signs it, for the requirement the gate's 402 offers, settles through the official
//! `@x402/evm` facilitator and moves exactly the price from buyer to `payTo`, once; and the
//! payer's `cancelAuthorization` marks a nonce used while moving nothing (why "nonce used" is
//! never proof of payment); with automine off a settlement comes back `settlement_pending` and
//! its receipt proves it once mined, and a dropped transaction never is. Needs `npm ci` in
//! `tests/chain` (see `tests/chain/README.md`).

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use alloy_primitives::{Address, B256, U256};
use alloy_signer_local::PrivateKeySigner;
use gate::x402::evm::{client_authorization, domain_for, exact_payload_json, random_nonce, sign_authorization};
use gate::x402::header::decode_json;
use gate::x402::{PaymentPayload, PaymentRequirements, X402_VERSION};
use serde_json::{Value, json};
use tests::chain::{
    BASE_SEPOLIA_DOMAIN_SEPARATOR, ChainOptions, FacilitatorOptions, IndependentFacilitator, LocalChain, Mining,
    address_topic, cancel_authorization, event_topic, http_client, submit_cancel_authorization,
};

/// Base Sepolia USDC.
const USDC: Address = alloy_primitives::address!("0x036CbD53842c5426634e7929541eC2318f3dCF7e");
/// USD 0.99 in USDC's atomic units.
const PRICE: u64 = 990_000;

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("clock after 1970").as_secs()
}

/// The requirement the gate's 402 offers for a study, from `content/servicio.toml` through the
/// generator's own function (what the build writes into `gate.json`).
fn requirement() -> PaymentRequirements {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("muestra/servicio.toml");
    let text = std::fs::read_to_string(&file).expect("tests/muestra/servicio.toml");
    let service: generator::model::ServiceSettings = toml::from_str(&text).expect("servicio.toml parses");
    let accepts = generator::render::offer::accepts(&service, service.price_usd);
    let requirement = accepts.into_iter().find(|a| a.network == "eip155:84532").expect("Base Sepolia is offered");
    assert_eq!(requirement.amount, PRICE.to_string());
    assert_eq!(requirement.asset, USDC.to_checksum(None));
    requirement
}

/// The decoded `PAYMENT-REQUIRED` of a 402 offering `requirement`.
fn payment_required(requirement: &PaymentRequirements) -> Value {
    json!({
        "x402Version": X402_VERSION,
        "resource": {"url": "http://127.0.0.1/estudio/prueba?vista=completo", "mimeType": "application/json"},
        "accepts": [requirement],
    })
}

/// What the gate sends a facilitator: the payload and its own requirement.
async fn post(
    facilitator: &IndependentFacilitator,
    path: &str,
    payload: &PaymentPayload,
    requirement: &PaymentRequirements,
) -> Value {
    let body = json!({"x402Version": X402_VERSION, "paymentPayload": payload, "paymentRequirements": requirement});
    let response = http_client()
        .post(format!("{}/{path}", facilitator.url()))
        .json(&body)
        .send()
        .await
        .expect("the facilitator answers");
    assert_eq!(response.status().as_u16(), 200, "{path}");
    response.json().await.expect("JSON")
}

/// A payload signed like the gate's buyer client with a chosen nonce.
fn payload_with_nonce(requirement: &PaymentRequirements, signer: &PrivateKeySigner, nonce: B256) -> PaymentPayload {
    let domain = domain_for(requirement).expect("domain");
    let auth = client_authorization(requirement, signer.address(), now(), nonce).expect("authorization");
    let signature = sign_authorization(signer, &domain, &auth).expect("signature");
    PaymentPayload {
        x402_version: X402_VERSION,
        resource: Some(json!({"url": "http://127.0.0.1/estudio/prueba?vista=completo"})),
        accepted: serde_json::to_value(requirement).expect("requirement as JSON"),
        payload: exact_payload_json(&auth, &signature),
        extensions: None,
    }
}

#[tokio::test]
async fn the_chain_is_base_sepolia_with_circles_usdc() {
    let started = std::time::Instant::now();
    let chain = LocalChain::start(ChainOptions::default()).expect("the chain starts");
    eprintln!("cadena lista en {:?}", started.elapsed());
    assert!(started.elapsed() < Duration::from_secs(20), "slow start: {:?}", started.elapsed());
    let rpc = chain.rpc();
    assert_eq!(rpc.chain_id().await.expect("chain id"), 84532);
    assert_eq!(chain.info().network, "eip155:84532");
    assert_eq!(chain.asset(), USDC);
    assert_eq!(rpc.name(USDC).await.expect("name"), "USDC");
    assert_eq!(rpc.version(USDC).await.expect("version"), "2");
    let separator = rpc.domain_separator(USDC).await.expect("DOMAIN_SEPARATOR");
    assert_eq!(separator, BASE_SEPOLIA_DOMAIN_SEPARATOR);
    assert_eq!(separator, chain.domain().separator(), "computed from (USDC, 2, 84532, asset)");
    // The domain the gate's 402 advertises is the contract's.
    let offered = domain_for(&requirement()).expect("domain of the offer");
    assert_eq!((offered.name.as_str(), offered.version.as_str()), ("USDC", "2"));
    assert_eq!((offered.chain_id, offered.verifying_contract), (84532, USDC));

    // Roles: the payTo of content/servicio.toml holds ETH and no USDC; buyers hold USDC.
    let pay_to = chain.pay_to();
    assert_eq!(pay_to.to_checksum(None), requirement().pay_to);
    assert_eq!(chain.usdc_balance(pay_to).await.expect("balance"), U256::ZERO);
    assert!(rpc.eth_balance(pay_to).await.expect("ETH") > U256::ZERO);
    let buyers = chain.buyers();
    assert_eq!(buyers.len(), 3);
    // Buyer 0 is Anvil's account 0: the development key `./tienda servir` buys with.
    assert_eq!(buyers[0].address, alloy_primitives::address!("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"));
    for buyer in &buyers {
        assert_eq!(chain.usdc_balance(buyer.address).await.expect("balance"), U256::from(10_000_000_000u64));
        assert_eq!(buyer.signer().address(), buyer.address);
    }

    // Dropped: anvil is gone.
    let anvil = chain.info().anvil_pid;
    let stopping = std::time::Instant::now();
    drop(chain);
    eprintln!("cadena parada en {:?}", stopping.elapsed());
    assert!(!Path::new(&format!("/proc/{anvil}")).exists(), "anvil {anvil} still runs");
}

#[tokio::test]
async fn a_payment_signed_like_the_buyer_client_settles_once_through_the_official_facilitator() {
    let chain = LocalChain::start(ChainOptions::default()).expect("the chain starts");
    let facilitator = IndependentFacilitator::start(&chain).expect("the facilitator starts");
    let requirement = requirement();
    let pay_to: Address = requirement.pay_to.parse().expect("payTo");
    let buyer = chain.buyers()[0].signer();

    let supported: Value =
        reqwest::get(format!("{}/supported", facilitator.url())).await.expect("supported").json().await.expect("JSON");
    assert!(
        supported["kinds"].as_array().expect("kinds").iter().any(|k| k["network"] == "eip155:84532"),
        "{supported}"
    );

    // Signed exactly as the gate's buyer client signs a 402.
    let header = gate::buyer::payment_header_from(&payment_required(&requirement), &buyer, now()).expect("signed");
    let payload: PaymentPayload = decode_json(&header).expect("PAYMENT-SIGNATURE decodes");
    let nonce: B256 = payload.payload["authorization"]["nonce"].as_str().expect("nonce").parse().expect("hex");

    let buyer_before = chain.usdc_balance(buyer.address()).await.expect("balance");
    let verified = post(&facilitator, "verify", &payload, &requirement).await;
    assert_eq!(verified["isValid"], true, "{verified}");
    let settled = post(&facilitator, "settle", &payload, &requirement).await;
    assert_eq!(settled["success"], true, "{settled}");
    assert_eq!(settled["network"], "eip155:84532");
    let payer: Address = settled["payer"].as_str().expect("payer").parse().expect("address");
    assert_eq!(payer, buyer.address());
    let hash: B256 = settled["transaction"].as_str().expect("transaction").parse().expect("hash");

    assert_eq!(chain.usdc_balance(buyer.address()).await.expect("balance"), buyer_before - U256::from(PRICE));
    assert_eq!(chain.usdc_balance(pay_to).await.expect("balance"), U256::from(PRICE));
    assert!(chain.authorization_state(buyer.address(), nonce).await.expect("state"));

    let receipt = chain.rpc().receipt(hash).await.expect("receipt").expect("mined");
    assert!(receipt.succeeded());
    assert_eq!(receipt.from, chain.account("independent_settler").address);
    assert_eq!(receipt.authorizations_used(USDC), vec![(buyer.address(), nonce)]);
    assert_eq!(receipt.transfers(USDC), vec![(buyer.address(), pay_to, U256::from(PRICE))]);
    assert!(receipt.authorizations_canceled(USDC).is_empty());
    assert_eq!(receipt.to, Some(USDC));

    // The same proof found by its topics alone, as a gate would look for an unknown transaction.
    let latest = chain.rpc().block_number().await.expect("block");
    let topics = [Some(event_topic("AuthorizationUsed")), Some(address_topic(buyer.address())), Some(nonce)];
    let logs = chain.rpc().logs(USDC, &topics, 0, latest).await.expect("eth_getLogs");
    assert_eq!(logs.len(), 1);
    assert_eq!(logs[0].transaction_hash, Some(hash));

    // Again: refused on chain, nothing moves.
    let again = post(&facilitator, "settle", &payload, &requirement).await;
    assert_eq!(again["success"], false, "{again}");
    assert_eq!(chain.usdc_balance(buyer.address()).await.expect("balance"), buyer_before - U256::from(PRICE));
    assert_eq!(chain.usdc_balance(pay_to).await.expect("balance"), U256::from(PRICE));
}

#[tokio::test]
async fn cancel_authorization_uses_the_nonce_and_moves_nothing() {
    let chain = LocalChain::start(ChainOptions::default()).expect("the chain starts");
    let facilitator = IndependentFacilitator::start(&chain).expect("the facilitator starts");
    let requirement = requirement();
    let pay_to = chain.pay_to();
    let buyer = chain.buyers()[1].signer();
    let before = chain.usdc_balance(buyer.address()).await.expect("balance");

    let nonce = random_nonce();
    assert!(!chain.authorization_state(buyer.address(), nonce).await.expect("state"));
    let receipt = cancel_authorization(&chain, &buyer, nonce).await.expect("canceled");
    assert_eq!(receipt.from, chain.account("sender").address, "anyone may submit the payer's cancel");
    assert_eq!(receipt.authorizations_canceled(USDC), vec![(buyer.address(), nonce)]);
    assert!(receipt.transfers(USDC).is_empty());
    assert!(receipt.authorizations_used(USDC).is_empty());
    assert!(chain.authorization_state(buyer.address(), nonce).await.expect("state"), "the nonce reads as used");
    assert_eq!(chain.usdc_balance(buyer.address()).await.expect("balance"), before);
    assert_eq!(chain.usdc_balance(pay_to).await.expect("balance"), U256::ZERO);

    // A payment signed with that nonce can never settle.
    let payload = payload_with_nonce(&requirement, &buyer, nonce);
    let settled = post(&facilitator, "settle", &payload, &requirement).await;
    assert_eq!(settled["success"], false, "{settled}");
    assert_eq!(chain.usdc_balance(buyer.address()).await.expect("balance"), before);
    assert_eq!(chain.usdc_balance(pay_to).await.expect("balance"), U256::ZERO);
}

#[tokio::test]
async fn without_automine_a_transaction_waits_for_a_block_or_is_dropped() {
    let chain = LocalChain::start(ChainOptions { mining: Mining::Manual, ..ChainOptions::default() }).expect("starts");
    let rpc = chain.rpc();
    let buyer = chain.buyers()[2].signer();

    // Pending, then mined by evm_mine.
    let nonce = random_nonce();
    let hash = submit_cancel_authorization(&chain, &buyer, nonce).await.expect("sent");
    assert!(rpc.receipt(hash).await.expect("receipt").is_none(), "nothing mines by itself");
    assert!(!chain.authorization_state(buyer.address(), nonce).await.expect("state"));
    rpc.mine().await.expect("evm_mine");
    let receipt = rpc.wait_receipt(hash, Duration::from_secs(5)).await.expect("mined");
    assert!(receipt.succeeded());
    assert!(chain.authorization_state(buyer.address(), nonce).await.expect("state"));

    // Pending, then dropped: never mined.
    let nonce = random_nonce();
    let hash = submit_cancel_authorization(&chain, &buyer, nonce).await.expect("sent");
    assert!(rpc.transaction(hash).await.expect("tx").is_some());
    rpc.drop_transaction(hash).await.expect("anvil_dropTransaction");
    rpc.mine().await.expect("evm_mine");
    assert!(rpc.receipt(hash).await.expect("receipt").is_none());
    assert!(rpc.transaction(hash).await.expect("tx").is_none());
    assert!(!chain.authorization_state(buyer.address(), nonce).await.expect("state"));

    // The chain's clock moves on demand (for validBefore tests).
    let before = rpc.block_timestamp().await.expect("timestamp");
    rpc.set_next_block_timestamp(before + 1000).await.expect("evm_setNextBlockTimestamp");
    rpc.mine().await.expect("evm_mine");
    assert_eq!(rpc.block_timestamp().await.expect("timestamp"), before + 1000);
}

#[tokio::test]
async fn with_a_block_time_transactions_wait_for_the_next_block() {
    let chain =
        LocalChain::start(ChainOptions { mining: Mining::Interval(1), ..ChainOptions::default() }).expect("starts");
    let buyer = chain.buyers()[0].signer();
    let first = chain.rpc().block_number().await.expect("block");
    let nonce = random_nonce();
    let hash = submit_cancel_authorization(&chain, &buyer, nonce).await.expect("sent");
    let receipt = chain.rpc().wait_receipt(hash, Duration::from_secs(10)).await.expect("mined within a few blocks");
    assert!(receipt.block_number > first);
    assert!(chain.authorization_state(buyer.address(), nonce).await.expect("state"));
}

#[tokio::test]
async fn a_settlement_left_pending_by_the_facilitator_is_proven_once_mined() {
    let chain = LocalChain::start(ChainOptions { mining: Mining::Manual, ..ChainOptions::default() }).expect("starts");
    let options =
        FacilitatorOptions { confirmation_timeout: Duration::from_millis(500), ..FacilitatorOptions::default() };
    let facilitator = IndependentFacilitator::start_with(&chain, options).expect("the facilitator starts");
    let requirement = requirement();
    let buyer = chain.buyers()[0].signer();
    let pay_to = chain.pay_to();
    let before = chain.usdc_balance(buyer.address()).await.expect("balance");
    let nonce = random_nonce();
    let payload = payload_with_nonce(&requirement, &buyer, nonce);

    // Nothing is mined: the facilitator broadcasts, waits 0.5 s and answers pending with the hash.
    let settled = post(&facilitator, "settle", &payload, &requirement).await;
    assert_eq!(settled["success"], false, "{settled}");
    assert_eq!(settled["errorReason"], "settlement_pending", "{settled}");
    let hash: B256 = settled["transaction"].as_str().expect("transaction").parse().expect("hash");
    assert!(chain.rpc().receipt(hash).await.expect("receipt").is_none());
    assert!(!chain.authorization_state(buyer.address(), nonce).await.expect("state"));
    assert_eq!(chain.usdc_balance(pay_to).await.expect("balance"), U256::ZERO);

    // Mined: the receipt is the proof.
    chain.rpc().mine().await.expect("evm_mine");
    let receipt = chain.rpc().wait_receipt(hash, Duration::from_secs(5)).await.expect("mined");
    assert!(receipt.succeeded());
    assert_eq!(receipt.authorizations_used(USDC), vec![(buyer.address(), nonce)]);
    assert_eq!(receipt.transfers(USDC), vec![(buyer.address(), pay_to, U256::from(PRICE))]);
    assert_eq!(chain.usdc_balance(buyer.address()).await.expect("balance"), before - U256::from(PRICE));
    assert_eq!(chain.usdc_balance(pay_to).await.expect("balance"), U256::from(PRICE));
}
