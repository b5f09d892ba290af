//! The Machine Payments Protocol beside x402 on the same 402, on a real chain (anvil running
//! Circle's USDC, the project's facilitator settling there, balances read from the token).
//!
//! The credential is built exactly as `mppx` builds its `evm` `charge` `authorization`
//! credential ([`tests::mpp`]).
//!
//! Needs `npm ci` in `tests/chain`.

mod common;

use std::sync::Arc;
use std::time::Duration;

use alloy_primitives::{Address, B256, U256};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::gate::{TestGate, accepted_of, client, links};
use common::{SLUGS, built};
use gate::chain::evm::RpcChain;
use gate::chain::settler::Settler;
use gate::chain::{Chain, Chains};
use gate::facilitator::http::HttpFacilitator;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate::facilitator::service::FacilitatorService;
use gate::sales::report::report;
use gate::x402::header::encode_json;
use gate_http::{Running, spawn};
use serde_json::{Map, Value, json};
use tests::chain::{ChainOptions, LocalChain};
use tests::mpp::{b64, b64_json, credential, parse_challenge, str_of, unix_of};

const NETWORK: &str = "eip155:84532";

struct Store {
    gate: TestGate,
    /// The gate's clock, to let its challenges expire.
    clock: gate::clock::Clock,
    _facilitator: Running,
}

async fn store(chain: &LocalChain) -> Store {
    let key = &chain.account("settler").private_key;
    let settler = Settler::connect(chain.rpc_url(), key, Duration::from_secs(10)).await.expect("settler");
    let config = LocalConfig { settle_wait: Duration::from_secs(20), ..LocalConfig::on_chain(Arc::new(settler)) };
    let facilitator =
        spawn(Arc::new(FacilitatorService(LocalFacilitator::new(config))), 1).expect("facilitator starts");
    let http = HttpFacilitator::new(&facilitator.url(), None, Duration::from_secs(3)).expect("client");
    let reader = RpcChain::new(NETWORK, chain.rpc_url(), Duration::from_secs(10)).expect("rpc");
    let chains = Chains::new().with(NETWORK, Arc::new(reader) as Arc<dyn Chain>);
    let data = tempfile::tempdir().expect("data dir");
    let log = data.path().join(gate::sales::journal::JOURNAL_FILE);
    let sales = gate::sales::Sales::open(&log, gate::sales::journal::DEFAULT_SEGMENT_BYTES).expect("journal opens");
    let clock = gate::clock::Clock::system();
    let services = gate::app::Services {
        facilitator: Arc::new(http),
        links: links(),
        sales: Arc::new(sales),
        limiter: Arc::new(gate::payment::limits::Limiter::new(gate::payment::limits::RefusalLimits::default())),
        receipts: gate::x402::receipt::ReceiptKey::development(),
        clock: clock.clone(),
        chains,
    };
    let loaded = gate::app::Gate::load_with(built(), services).expect("gate loads dist/");
    let server = spawn(Arc::new(loaded), 2).expect("gate starts");
    Store { gate: TestGate { server, data, local: None }, clock, _facilitator: facilitator }
}

/// GET the study without paying: (status, headers, body).
async fn unpaid(store: &Store, slug: &str, view: &str) -> (u16, reqwest::header::HeaderMap, Value) {
    let response =
        client().get(store.gate.url(&format!("/estudio/{slug}?vista={view}"))).send().await.expect("request");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.json().await.expect("json"))
}

/// The MPP challenge of a study view's 402.
async fn challenge(store: &Store, slug: &str, view: &str) -> Map<String, Value> {
    let (status, headers, _) = unpaid(store, slug, view).await;
    assert_eq!(status, 402);
    let header = headers.get("www-authenticate").expect("WWW-Authenticate").to_str().expect("ascii");
    parse_challenge(header)
}

struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Value,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The problem type's last segment.
    fn problem(&self) -> &str {
        self.body["type"].as_str().and_then(|t| t.rsplit('/').next()).unwrap_or_default()
    }
}

async fn pay(store: &Store, slug: &str, view: &str, authorization: &str, x402: Option<&str>) -> Answer {
    let mut request =
        client().get(store.gate.url(&format!("/estudio/{slug}?vista={view}"))).header("Authorization", authorization);
    if let Some(x402) = x402 {
        request = request.header("PAYMENT-SIGNATURE", x402);
    }
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response.json().await.expect("json body");
    Answer { status, headers, body }
}

/// Every refusal: a 402 (or 400) with a problem body, `no-store`, and (402) a fresh challenge
/// and the x402 offer beside it.
fn assert_refused(answer: &Answer, status: u16, problem: &str, what: &str) {
    assert_eq!(answer.status, status, "{what}: {}", answer.body);
    assert_eq!(answer.problem(), problem, "{what}: {}", answer.body);
    assert_eq!(answer.header("content-type"), Some("application/problem+json"), "{what}");
    assert_eq!(answer.header("cache-control"), Some("no-store"), "{what}");
    assert!(answer.header("payment-receipt").is_none(), "{what}: no receipt on a refusal");
    assert!(answer.header("payment-required").is_some(), "{what}: x402 stays offered");
    assert_eq!(answer.body["status"], status, "{what}");
    if status == 402 {
        let fresh = answer.header("www-authenticate").expect("a fresh challenge");
        assert!(fresh.starts_with("Payment "), "{what}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mpp_credentials_buy_once_on_chain_and_every_bad_one_is_refused() {
    let chain = LocalChain::start(ChainOptions { buyers: 2, ..ChainOptions::default() }).expect("chain");
    let store = store(&chain).await;
    let buyer = chain.buyers()[0].signer();
    let (slug, other_slug) = (SLUGS[0], SLUGS[1]);
    let accepted = accepted_of(built(), slug, "completo");
    let price = U256::from_str_radix(accepted["amount"].as_str().expect("amount"), 10).expect("amount");
    let receiver = chain.pay_to();

    // The unpaid 402 keeps x402's body and header and appends the MPP challenge: same price,
    // asset, network and payTo.
    let (status, headers, body) = unpaid(&store, slug, "completo").await;
    assert_eq!(status, 402);
    assert!(headers.get("payment-required").is_some());
    assert_eq!(body["x402"]["accepts"][0], accepted);
    assert_eq!(headers.get("cache-control").and_then(|v| v.to_str().ok()), Some("no-store"));
    let offered = parse_challenge(headers["www-authenticate"].to_str().expect("ascii"));
    assert_eq!(str_of(&offered, "method"), "evm");
    assert_eq!(str_of(&offered, "intent"), "charge");
    assert_eq!(str_of(&offered, "realm"), "127.0.0.1:8080");
    assert!(unix_of(str_of(&offered, "expires")) > gate::clock::now());
    let request = b64_json(str_of(&offered, "request"));
    assert_eq!(request["amount"], accepted["amount"]);
    assert_eq!(request["methodDetails"]["chainId"], 84532);
    assert_eq!(request["methodDetails"]["credentialTypes"], json!(["authorization"]));
    let asset: Address = accepted["asset"].as_str().expect("asset").parse().expect("asset");
    assert_eq!(request["currency"].as_str().expect("currency").parse::<Address>().expect("currency"), asset);
    assert_eq!(request["recipient"].as_str().expect("recipient").parse::<Address>().expect("recipient"), receiver);

    // A purchase: 200, a receipt naming the on-chain transaction, the price moved once.
    let before =
        (chain.usdc_balance(buyer.address()).await.expect("b"), chain.usdc_balance(receiver).await.expect("b"));
    let paid = credential(&offered, &accepted, &buyer);
    let answer = pay(&store, slug, "completo", &paid, None).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.header("cache-control"), Some("private, no-store"));
    let receipt = b64_json(answer.header("payment-receipt").expect("Payment-Receipt"));
    assert_eq!(receipt["status"], "success");
    assert_eq!(receipt["method"], "evm");
    let transaction: B256 = receipt["reference"].as_str().expect("reference").parse().expect("a tx hash");
    let mined = chain.rpc().receipt(transaction).await.expect("rpc").expect("the reference is a mined transaction");
    assert!(mined.succeeded());
    assert_eq!(mined.transfers(asset), vec![(buyer.address(), receiver, price)]);
    let after = (chain.usdc_balance(buyer.address()).await.expect("b"), chain.usdc_balance(receiver).await.expect("b"));
    assert_eq!(before.0 - after.0, price);
    assert_eq!(after.1 - before.1, price);

    // The same credential again: the study again with the same receipt, nothing moved.
    let again = pay(&store, slug, "completo", &paid, None).await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(b64_json(again.header("payment-receipt").expect("receipt"))["reference"], receipt["reference"]);
    assert_eq!(chain.usdc_balance(buyer.address()).await.expect("b"), after.0, "a replay moves nothing");

    // The journal says the sale came by MPP.
    let sales = report(store.gate.data.path()).expect("gate ventas");
    assert_eq!(sales.sales.len(), 1);
    assert_eq!(sales.sales[0].protocol.as_str(), "mpp");

    // The wallet that bought through MPP signs in (x402 sign-in-with-x) and gets it again, free.
    let (_, headers, _) = unpaid(&store, slug, "completo").await;
    let required: Value =
        gate::x402::header::decode_json(headers["payment-required"].to_str().expect("ascii")).expect("decodes");
    let declaration = required["extensions"][gate::x402::siwx::SIGN_IN_WITH_X].clone();
    let proof = gate::x402::siwx::sign(&declaration, None, &buyer).expect("signed");
    let response = client()
        .get(store.gate.url(&format!("/estudio/{slug}?vista=completo")))
        .header(gate::x402::siwx::HEADER, gate::x402::siwx::encode_header(&proof))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 200, "an MPP buyer signs in");
    let again: Value = response.json().await.expect("json");
    assert!(again.get("acceso").is_some(), "{again}");
    assert_eq!(chain.usdc_balance(buyer.address()).await.expect("b"), after.0, "a sign-in moves nothing");

    // Refusals, each with its problem and nothing moved.
    let fresh = challenge(&store, slug, "completo").await;
    let mut tampered = fresh.clone();
    let mut cheaper = b64_json(str_of(&fresh, "request"));
    cheaper["amount"] = json!("1");
    tampered.insert("request".into(), json!(b64(&cheaper)));
    let answer = pay(&store, slug, "completo", &credential(&tampered, &accepted, &buyer), None).await;
    assert_refused(&answer, 402, "invalid-challenge", "tampered request");

    let mut expired = fresh.clone();
    expired.insert("expires".into(), json!("2020-01-01T00:00:00Z"));
    let answer = pay(&store, slug, "completo", &credential(&expired, &accepted, &buyer), None).await;
    assert_refused(&answer, 402, "invalid-challenge", "an expires moved back");

    let mut elsewhere = fresh.clone();
    elsewhere.insert("realm".into(), json!("tienda.example.com"));
    let answer = pay(&store, slug, "completo", &credential(&elsewhere, &accepted, &buyer), None).await;
    assert_refused(&answer, 402, "invalid-challenge", "another realm");

    let for_summary = challenge(&store, slug, "resumen").await;
    let answer = pay(&store, slug, "completo", &credential(&for_summary, &accepted, &buyer), None).await;
    assert_refused(&answer, 402, "invalid-challenge", "a credential for another view");
    let for_other = challenge(&store, other_slug, "completo").await;
    let answer = pay(&store, slug, "completo", &credential(&for_other, &accepted, &buyer), None).await;
    assert_refused(&answer, 402, "invalid-challenge", "a credential for another study");

    let x402 = encode_json(&common::gate::signed_payload(&accepted, &buyer, |_, _| {}));
    let answer = pay(&store, slug, "completo", &credential(&fresh, &accepted, &buyer), Some(&x402)).await;
    assert_refused(&answer, 400, "malformed-credential", "both credentials");

    let answer = pay(&store, slug, "completo", "Payment %%%not-base64url%%%", None).await;
    assert_refused(&answer, 402, "malformed-credential", "not base64url");
    let answer = pay(&store, slug, "completo", &format!("Payment {}", URL_SAFE_NO_PAD.encode("{not json")), None).await;
    assert_refused(&answer, 402, "malformed-credential", "not JSON");
    let answer = pay(&store, slug, "completo", &format!("Payment {}", b64(&json!({"challenge": 1}))), None).await;
    assert_refused(&answer, 402, "malformed-credential", "JSON of the wrong shape");

    // A nonce not bound to the challenge.
    let mut wire = b64_json(credential(&fresh, &accepted, &buyer).trim_start_matches("Payment "));
    wire["payload"]["nonce"] = json!(format!("{:#x}", B256::repeat_byte(7)));
    let answer = pay(&store, slug, "completo", &format!("Payment {}", b64(&wire)), None).await;
    assert_refused(&answer, 402, "verification-failed", "a nonce not bound to the challenge");

    // A challenge that expired on the gate's clock (last: the clock stays moved).
    let late = credential(&fresh, &accepted, &buyer);
    store.clock.advance(301);
    let answer = pay(&store, slug, "completo", &late, None).await;
    assert_refused(&answer, 402, "invalid-challenge", "an expired challenge");

    assert_eq!(chain.usdc_balance(buyer.address()).await.expect("b"), after.0, "no refusal moved anything");
    assert_eq!(report(store.gate.data.path()).expect("ventas").sales.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_concurrent_copies_of_one_credential_settle_once() {
    let chain = LocalChain::start(ChainOptions { buyers: 1, ..ChainOptions::default() }).expect("chain");
    let store = Arc::new(store(&chain).await);
    let buyer = chain.buyers()[0].signer();
    let slug = SLUGS[2];
    let accepted = accepted_of(built(), slug, "resumen");
    let price = U256::from_str_radix(accepted["amount"].as_str().expect("amount"), 10).expect("amount");
    let before = chain.usdc_balance(buyer.address()).await.expect("b");
    let paid = credential(&challenge(&store, slug, "resumen").await, &accepted, &buyer);
    let mut tasks = Vec::new();
    for _ in 0..20 {
        let (store, paid) = (Arc::clone(&store), paid.clone());
        tasks.push(tokio::spawn(async move { pay(&store, slug, "resumen", &paid, None).await.status }));
    }
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.expect("task"));
    }
    assert!(statuses.contains(&200), "{statuses:?}");
    assert!(statuses.iter().all(|s| [200, 409, 503].contains(s)), "{statuses:?}");
    assert_eq!(before - chain.usdc_balance(buyer.address()).await.expect("b"), price, "one transfer: {statuses:?}");
    let sales = report(store.gate.data.path()).expect("gate ventas");
    assert_eq!(sales.sales.len(), 1);
}

/// `tests/mppx`, where the official client's script and its `node_modules` live.
fn mppx_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mppx")
}

/// Runs a script of `tests/mppx` with `env` and returns the JSON line it prints last.
async fn run_mppx(script: &str, env: Vec<(&'static str, String)>) -> Value {
    let dir = mppx_dir();
    let mut command = std::process::Command::new(std::env::var_os("NODE").unwrap_or_else(|| "node".into()));
    command.arg(dir.join(script)).current_dir(&dir).envs(env);
    let output = tokio::task::spawn_blocking(move || command.output()).await.expect("join").expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{script}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_str(stdout.trim().lines().last().unwrap_or_default()).expect("json line")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_mppx_client_buys_with_mpp_on_chain_over_http_and_both_mcp_eras() {
    let dir = mppx_dir();
    assert!(
        dir.join("node_modules/mppx/package.json").is_file(),
        "faltan los paquetes npm de {} (cd tests/mppx && npm ci)",
        dir.display()
    );
    let chain = LocalChain::start(ChainOptions { buyers: 1, ..ChainOptions::default() }).expect("chain");
    let store = store(&chain).await;
    let buyer = &chain.buyers()[0];
    let receiver = chain.pay_to();
    let asset = chain.asset();
    let mut total = U256::ZERO;
    let start = chain.usdc_balance(receiver).await.expect("balance");
    // The second HTTP purchase sends its own Accept-Payment, naming methods the store does not
    // take ahead of the one it does: the gate orders its challenges by it and mppx still buys.
    const PREFERENCES: &str = "solana/charge;q=0.9, evm/charge;q=0.5, stripe/charge;q=0.1";
    for (slug, view, over) in [
        (SLUGS[0], "resumen", "http"),
        (SLUGS[3], "completo", "http-preferences"),
        (SLUGS[4], "resumen", "sdk1"),
        (SLUGS[5], "completo", "client2"),
    ] {
        let accepted = accepted_of(built(), slug, view);
        let price = U256::from_str_radix(accepted["amount"].as_str().expect("amount"), 10).expect("amount");
        let before = chain.usdc_balance(buyer.address).await.expect("balance");
        let mut env = vec![
            ("EVM_PRIVATE_KEY", buyer.private_key.clone()),
            ("CHAIN_ID", "84532".to_owned()),
            ("TOKEN", asset.to_checksum(None)),
            ("TOKEN_NAME", accepted["extra"]["name"].as_str().expect("name").to_owned()),
            ("TOKEN_VERSION", accepted["extra"]["version"].as_str().expect("version").to_owned()),
        ];
        let receipt = if over.starts_with("http") {
            env.push(("ESTUDIO_URL", store.gate.url(&format!("/estudio/{slug}?vista={view}"))));
            if over == "http-preferences" {
                env.push(("ACCEPT_PAYMENT", PREFERENCES.to_owned()));
            }
            let line = run_mppx("comprar.mjs", env).await;
            assert_eq!(line["status"], 200, "{slug}/{view}: {line}");
            // Every request mppx made carried Accept-Payment: its own, or the one it was given.
            let expected = if over == "http" { "evm/charge" } else { PREFERENCES };
            let sent = line["acceptPayment"].as_array().expect("the requests mppx made");
            assert!(sent.len() >= 2 && sent.iter().all(|h| h == expected), "{over}: {line}");
            b64_json(line["receipt"].as_str().expect("a Payment-Receipt: bought through MPP itself"))
        } else {
            env.extend([
                ("MCP_URL", store.gate.url("/mcp")),
                ("SLUG", slug.to_owned()),
                ("VISTA", view.to_owned()),
                ("CLIENT", over.to_owned()),
            ]);
            let line = run_mppx("mcp.mjs", env).await;
            assert_eq!(line["isError"], false, "{slug}/{view} over MCP ({over}): {line}");
            assert!(line["receipt"]["challengeId"].is_string(), "{line}");
            // Which binding the gate answered: x402's tool result (with MPP's challenges in
            // _meta) to the initialize-era client, MPP's -32042 to the 2026-07-28 client that
            // declared experimental.payment; then the receipt.
            let first = if over == "sdk1" { "tool-result" } else { "error -32042" };
            assert_eq!(line["bindings"], json!([first, "receipt"]), "{over}: {line}");
            line["receipt"].clone()
        };
        assert_eq!(receipt["method"], "evm");
        assert_eq!(receipt["status"], "success");
        let transaction: B256 = receipt["reference"].as_str().expect("reference").parse().expect("tx hash");
        let mined = chain.rpc().receipt(transaction).await.expect("rpc").expect("mined");
        assert_eq!(mined.transfers(asset), vec![(buyer.address, receiver, price)], "{slug}/{view} over {over}");
        let after = chain.usdc_balance(buyer.address).await.expect("balance");
        assert_eq!(before - after, price, "{slug}/{view} over {over}: the price moved once");
        total += price;
    }
    assert_eq!(chain.usdc_balance(receiver).await.expect("balance") - start, total);
    let sales = report(store.gate.data.path()).expect("gate ventas");
    assert_eq!(sales.sales.len(), 4);
    assert!(sales.sales.iter().all(|s| s.protocol.as_str() == "mpp"), "every sale came by MPP");
}

/// The Python of the venv `./tienda probar` installs `tests/pympp/requirements.txt` into:
/// `PYMPP_PYTHON`, or `herramientas/pympp` under `CARGO_TARGET_DIR`.
fn pympp_python() -> std::path::PathBuf {
    let python = std::env::var_os("PYMPP_PYTHON").map(std::path::PathBuf::from).or_else(|| {
        std::env::var_os("CARGO_TARGET_DIR")
            .map(|dir| std::path::PathBuf::from(dir).join("herramientas/pympp/bin/python3"))
    });
    match python {
        Some(python) if python.is_file() => python,
        _ => panic!(
            "falta el entorno de pympp: python3 -m venv $CARGO_TARGET_DIR/herramientas/pympp && $CARGO_TARGET_DIR/herramientas/pympp/bin/python3 -m pip install -r tests/pympp/requirements.txt (./tienda probar lo hace), o PYMPP_PYTHON"
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_pympp_client_buys_with_mpp_on_chain_over_http() {
    let python = pympp_python();
    let chain = LocalChain::start(ChainOptions { buyers: 1, ..ChainOptions::default() }).expect("chain");
    let store = store(&chain).await;
    let buyer = &chain.buyers()[0];
    let (receiver, asset) = (chain.pay_to(), chain.asset());
    let (slug, view) = (SLUGS[6], "completo");
    let accepted = accepted_of(built(), slug, view);
    let price = U256::from_str_radix(accepted["amount"].as_str().expect("amount"), 10).expect("amount");
    let before = chain.usdc_balance(buyer.address).await.expect("balance");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("pympp/comprar.py");
    let mut command = std::process::Command::new(python);
    command.arg(script).envs([
        ("ESTUDIO_URL", store.gate.url(&format!("/estudio/{slug}?vista={view}"))),
        ("EVM_PRIVATE_KEY", buyer.private_key.clone()),
        ("CHAIN_ID", "84532".to_owned()),
        ("TOKEN", asset.to_checksum(None)),
        ("TOKEN_NAME", accepted["extra"]["name"].as_str().expect("name").to_owned()),
        ("TOKEN_VERSION", accepted["extra"]["version"].as_str().expect("version").to_owned()),
    ]);
    let output = tokio::task::spawn_blocking(move || command.output()).await.expect("join").expect("python runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "comprar.py: {stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let line: Value = serde_json::from_str(stdout.trim().lines().last().unwrap_or_default()).expect("json line");
    assert_eq!(line["status"], 200, "{line}");
    assert!(line["nombre"].is_string(), "the study: {line}");
    let receipt = b64_json(line["receipt"].as_str().expect("a Payment-Receipt: bought through MPP itself"));
    assert_eq!((receipt["method"].as_str(), receipt["status"].as_str()), (Some("evm"), Some("success")));
    let transaction: B256 = receipt["reference"].as_str().expect("reference").parse().expect("tx hash");
    let mined = chain.rpc().receipt(transaction).await.expect("rpc").expect("mined");
    assert_eq!(mined.transfers(asset), vec![(buyer.address, receiver, price)]);
    assert_eq!(before - chain.usdc_balance(buyer.address).await.expect("balance"), price, "the price moved once");
    let sales = report(store.gate.data.path()).expect("gate ventas");
    assert_eq!(sales.sales.len(), 1);
    assert_eq!(sales.sales[0].protocol.as_str(), "mpp");
}

/// The official MPP client buys through each front of `deploy/frentes/` (nginx, Caddy, HAProxy,
/// Varnish, Apache from Debian's packages, as `tests/tests/frentes.rs` starts them): the 402's
/// `WWW-Authenticate: Payment` challenge reaches it, its credential reaches the gate, the price
/// moves once on chain and the `Payment-Receipt` comes back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_mppx_client_buys_through_every_front() {
    use common::frentes::{
        StartFront, free_port, guide_site, start_apache, start_caddy, start_haproxy, start_nginx, start_varnish,
    };
    assert!(mppx_dir().join("node_modules/mppx/package.json").is_file(), "faltan los paquetes npm de tests/mppx");
    let chain = LocalChain::start(ChainOptions { buyers: 1, ..ChainOptions::default() }).expect("chain");
    let store = store(&chain).await;
    let buyer = &chain.buyers()[0];
    let fronts: [(&str, StartFront); 5] = [
        ("nginx", |gate, port| start_nginx(port, |dir, port| guide_site(gate, dir, port))),
        ("caddy", start_caddy),
        ("haproxy", start_haproxy),
        ("varnish", start_varnish),
        ("apache", start_apache),
    ];
    for ((name, start), slug) in fronts.into_iter().zip(SLUGS) {
        let front = start(&store.gate, free_port());
        let accepted = accepted_of(built(), slug, "resumen");
        let price = U256::from_str_radix(accepted["amount"].as_str().expect("amount"), 10).expect("amount");
        let before = chain.usdc_balance(buyer.address).await.expect("balance");
        let env = vec![
            ("EVM_PRIVATE_KEY", buyer.private_key.clone()),
            ("CHAIN_ID", "84532".to_owned()),
            ("TOKEN", chain.asset().to_checksum(None)),
            ("TOKEN_NAME", accepted["extra"]["name"].as_str().expect("name").to_owned()),
            ("TOKEN_VERSION", accepted["extra"]["version"].as_str().expect("version").to_owned()),
            ("ESTUDIO_URL", format!("{}/estudio/{slug}?vista=resumen", front.url)),
        ];
        let line = run_mppx("comprar.mjs", env).await;
        assert_eq!(line["status"], 200, "{name}: {line}");
        let receipt = b64_json(line["receipt"].as_str().expect("a Payment-Receipt through the front"));
        assert_eq!(receipt["status"], "success", "{name}");
        let after = chain.usdc_balance(buyer.address).await.expect("balance");
        assert_eq!(before - after, price, "{name}: the price moved once");
    }
    let sales = report(store.gate.data.path()).expect("gate ventas");
    assert_eq!(sales.sales.len(), 5);
}
