//! A flood of well-signed payments from keys with no funds: each passes the local checks and
//! would cost a facilitator call and two journal lines. The gate turns them away with 429
//! once a client address, a payer or the whole gate is past its budget of refused
//! settlements, and the test measures what the flood cost: facilitator calls and journal bytes.

mod common;

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use alloy_primitives::U256;
use alloy_signer_local::PrivateKeySigner;
use common::built;
use common::gate::*;
use gate::app::{Gate, Services};
use gate::facilitator::Facilitator;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate::payment::limits::{Limiter, RefusalLimits};
use gate::sales::Sales;
use gate_http::{Running, spawn};
use serde_json::Value;

struct Flooded {
    server: Running,
    data: tempfile::TempDir,
    facilitator: Arc<WatchedLocal>,
}

impl Flooded {
    fn journal_bytes(&self) -> u64 {
        std::fs::metadata(self.data.path().join(gate::sales::journal::JOURNAL_FILE)).map_or(0, |m| m.len())
    }

    fn settles(&self) -> usize {
        self.facilitator.settles.load(Ordering::SeqCst)
    }
}

/// A gate whose facilitator gives every new payer `balance` units, with these limits.
fn start(limits: RefusalLimits, balance: u64) -> Flooded {
    let local = LocalFacilitator::new(LocalConfig { opening_balance: U256::from(balance), ..LocalConfig::default() });
    let facilitator = Arc::new(WatchedLocal::new(local));
    let data = tempfile::tempdir().expect("data");
    let journal = data.path().join(gate::sales::journal::JOURNAL_FILE);
    let services = Services {
        facilitator: Arc::clone(&facilitator) as Arc<dyn Facilitator>,
        links: links(),
        sales: Arc::new(Sales::open(&journal, gate::sales::journal::DEFAULT_SEGMENT_BYTES).expect("journal")),
        limiter: Arc::new(Limiter::new(limits)),
        receipts: gate::x402::receipt::ReceiptKey::development(),
        clock: gate::clock::Clock::system(),
        chains: gate::chain::Chains::new(),
    };
    let gate = Gate::load_with(built(), services).expect("gate");
    Flooded { server: spawn(Arc::new(gate), 2).expect("server"), data, facilitator }
}

/// A client whose requests come from `address` (any 127.0.0.0/8 address reaches loopback).
fn client_from(address: &str) -> reqwest::Client {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let address: IpAddr = address.parse().expect("address");
    reqwest::Client::builder().local_address(address).timeout(Duration::from_secs(30)).build().expect("client")
}

async fn buy(flooded: &Flooded, client: &reqwest::Client, key: &PrivateKeySigner) -> (u16, Value, Option<String>) {
    let accepted = accepted_of(built(), "banca-2026", "completo");
    let header = signed_header(&accepted, key, |_, _| {});
    let response = client
        .get(format!("{}/estudio/banca-2026", flooded.server.url()))
        .header("PAYMENT-SIGNATURE", header)
        .send()
        .await
        .expect("request");
    let status = response.status().as_u16();
    let retry_after = response.headers().get("retry-after").map(|v| v.to_str().expect("ascii").to_owned());
    (status, response.json().await.expect("json"), retry_after)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_from_one_address_costs_at_most_its_limit() {
    let limits = RefusalLimits::default();
    let flooded = start(limits, 0);
    let attacker = client_from("127.0.0.1");
    let mut statuses = std::collections::BTreeMap::<u16, u32>::new();
    for _ in 0..200 {
        let (status, body, retry_after) = buy(&flooded, &attacker, &PrivateKeySigner::random()).await;
        *statuses.entry(status).or_default() += 1;
        if status == 429 {
            assert_eq!(body["error"], "demasiados_intentos");
            assert!(body.get("x402").is_none(), "no new payment is asked while limited");
            let seconds: u64 = retry_after.expect("Retry-After").parse().expect("seconds");
            assert!((1..=limits.window.as_secs()).contains(&seconds));
        } else {
            assert_eq!((status, body["error"].as_str()), (402, Some("insufficient_funds")));
        }
    }
    let per_client = limits.per_client;
    assert_eq!(statuses.get(&402), Some(&per_client), "{statuses:?}");
    assert_eq!(statuses.get(&429), Some(&(200 - per_client)), "{statuses:?}");
    assert_eq!(flooded.settles(), per_client as usize, "facilitator calls stop at the limit");
    let journal =
        gate::sales::journal::read(&flooded.data.path().join(gate::sales::journal::JOURNAL_FILE)).expect("journal");
    assert_eq!(journal.records.len(), 2 * per_client as usize, "two lines per refused settlement, none after");
    let bytes = flooded.journal_bytes();
    println!(
        "flood of 200 unfunded payments from one address: {per_client} facilitator calls, {} journal lines, {bytes} journal bytes",
        journal.records.len()
    );
    assert!(bytes < 2 * u64::from(per_client) * 1024, "under 1 KB a line: {bytes}");

    // Another address with a funded wallet is not blocked.
    let funded = start(limits, 100_000_000);
    let attacker = client_from("127.0.0.1");
    for _ in 0..per_client {
        let bad = signed_payload(&accepted_of(built(), "banca-2026", "completo"), &signer(DEV_KEY), |a, _| {
            a.value = U256::from(1)
        });
        let response = attacker
            .get(format!("{}/estudio/banca-2026", funded.server.url()))
            .header("PAYMENT-SIGNATURE", gate::x402::header::encode_json(&bad))
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), 402, "locally refused attempts count too");
    }
    let (status, _, _) = buy(&funded, &attacker, &signer(DEV_KEY)).await;
    assert_eq!(status, 429, "the address is over its limit, even with a good payment");
    let (status, _, _) = buy(&funded, &client_from("127.0.0.2"), &signer(DEV_KEY)).await;
    assert_eq!(status, 200, "a buyer elsewhere still buys");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_payer_from_many_addresses_and_many_from_everywhere_hit_the_payer_and_global_limits() {
    let limits = RefusalLimits { per_client: 1000, per_payer: 5, global: 12, window: Duration::from_secs(600) };
    let flooded = start(limits, 0);
    let payer = PrivateKeySigner::random();
    let mut codes = Vec::new();
    for n in 0..8 {
        let (status, body, _) = buy(&flooded, &client_from(&format!("127.0.1.{}", n + 1)), &payer).await;
        codes.push((status, body["error"].as_str().unwrap_or_default().to_owned()));
    }
    assert!(codes[..5].iter().all(|(s, _)| *s == 402), "{codes:?}");
    assert!(codes[5..].iter().all(|(s, c)| *s == 429 && c == "demasiados_intentos"), "{codes:?}");
    assert_eq!(flooded.settles(), 5);

    // Many payers from many addresses: the global budget (12 refused settlements) trips.
    for n in 0..20 {
        let (status, _, _) =
            buy(&flooded, &client_from(&format!("127.0.2.{}", n + 1)), &PrivateKeySigner::random()).await;
        let expected = if n < 7 { 402 } else { 429 };
        assert_eq!(status, expected, "payer {n}");
    }
    assert_eq!(flooded.settles(), 12, "the breaker holds facilitator calls at the global budget");
}
