//! A facilitator's unreliable network and careless (or lying) operator, standing in front of a
//! real facilitator: the faults the money tests and the chaos tier (`caos`) inject into `/settle`.
//!
//! The proxy forwards every request to the facilitator behind it and, for each `/settle`, applies
//! the next fault of a script, or one a seeded chooser draws. A fault either never forwards the
//! settlement (nothing can have moved: a timeout or a 5xx before the facilitator saw it) or
//! forwards it, so the facilitator really settles on the chain, and then hides, delays or
//! rewrites the answer (the money moved, the gate is told something else). Everything else
//! (`/verify`, `/supported`) passes through.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gate_http::response::{Body, JSON, Reply};
use gate_http::{Handler, Request};
use parking_lot::Mutex;
use serde_json::{Value, json};

/// What happens to one `/settle`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Forwarded and answered as the facilitator answered.
    Pass,
    /// Never forwarded; 504 after the proxy's delay (the gateway timed out before the facilitator
    /// saw it).
    TimeoutBefore,
    /// Forwarded (the facilitator settles), its answer dropped; 504 after it.
    TimeoutAfter,
    /// Never forwarded; this status (500, 502, 503).
    StatusBefore(u16),
    /// Forwarded; this status instead of its answer.
    StatusAfter(u16),
    /// Forwarded; a success is answered `settlement_pending` with its transaction.
    PendingAfter,
    /// Forwarded; a failure's reason that says the nonce was used is reworded as this (facilitators
    /// word it in many ways).
    Reword(String),
    /// Never forwarded; a success naming this transaction, or else the last one another
    /// settlement through this proxy got (with none yet, a made-up one): a facilitator lying.
    Lie(Option<String>),
}

impl Fault {
    /// The fault's kind, for counts.
    pub fn kind(&self) -> &'static str {
        match self {
            Fault::Pass => "ninguna",
            Fault::TimeoutBefore => "tiempo_agotado_antes",
            Fault::TimeoutAfter => "tiempo_agotado_despues",
            Fault::StatusBefore(_) => "5xx_antes",
            Fault::StatusAfter(_) => "5xx_despues",
            Fault::PendingAfter => "pendiente",
            Fault::Reword(_) => "otra_redaccion",
            Fault::Lie(_) => "mentira",
        }
    }

    /// Whether the facilitator sees the settlement (and so may move money).
    pub fn forwards(&self) -> bool {
        !matches!(self, Fault::TimeoutBefore | Fault::StatusBefore(_) | Fault::Lie(_))
    }
}

/// Draws the fault of the next `/settle` (the chaos tier's seeded chooser).
pub type Chooser = Box<dyn FnMut() -> Fault + Send>;

/// The proxy: forwards to `upstream`, applying to each `/settle` the next scripted fault, or else
/// the chooser's, or else none.
pub struct FaultProxy {
    upstream: Mutex<String>,
    script: Mutex<VecDeque<Fault>>,
    chooser: Mutex<Option<Chooser>>,
    /// How long a timeout takes to answer its 504.
    delay: Duration,
    http: reqwest::Client,
    /// Transactions of successful settlements seen, newest last (what a lie names).
    transactions: Mutex<Vec<String>>,
    /// Faults applied, by kind.
    counts: Mutex<BTreeMap<&'static str, u64>>,
}

impl FaultProxy {
    /// A proxy in front of `upstream` whose timeouts answer after `delay`.
    pub fn new(upstream: &str, delay: Duration) -> Arc<FaultProxy> {
        Arc::new(FaultProxy {
            upstream: Mutex::new(upstream.trim_end_matches('/').to_owned()),
            script: Mutex::new(VecDeque::new()),
            chooser: Mutex::new(None),
            delay,
            http: reqwest::Client::builder().timeout(Duration::from_secs(120)).build().expect("http client"),
            transactions: Mutex::new(Vec::new()),
            counts: Mutex::new(BTreeMap::new()),
        })
    }

    /// Points the proxy at another facilitator.
    pub fn set_upstream(&self, upstream: &str) {
        *self.upstream.lock() = upstream.trim_end_matches('/').to_owned();
    }

    /// Queues faults for the next `/settle` calls, in order.
    pub fn script(&self, faults: impl IntoIterator<Item = Fault>) {
        self.script.lock().extend(faults);
    }

    /// Draws the faults of the settlements the script does not cover (`None`: no fault).
    pub fn choose_with(&self, chooser: Option<Chooser>) {
        *self.chooser.lock() = chooser;
    }

    /// Faults applied so far, by kind (`ninguna` counts the settlements passed through).
    pub fn counts(&self) -> BTreeMap<&'static str, u64> {
        self.counts.lock().clone()
    }

    /// Transactions of the successful settlements that went through.
    pub fn transactions(&self) -> Vec<String> {
        self.transactions.lock().clone()
    }

    fn next_fault(&self) -> Fault {
        if let Some(fault) = self.script.lock().pop_front() {
            return fault;
        }
        match self.chooser.lock().as_mut() {
            Some(choose) => choose(),
            None => Fault::Pass,
        }
    }

    async fn forward(&self, request: &Request<'_>) -> Result<(u16, Vec<u8>), String> {
        let url = format!("{}{}", self.upstream.lock().clone(), request.path());
        let sent = match request.method().as_str() {
            "POST" => {
                self.http.post(&url).header("content-type", "application/json").body(request.body.to_vec()).send().await
            }
            _ => self.http.get(&url).send().await,
        };
        let answer = sent.map_err(|e| e.to_string())?;
        let status = answer.status().as_u16();
        let bytes = answer.bytes().await.map_err(|e| e.to_string())?;
        Ok((status, bytes.to_vec()))
    }

    async fn settle(&self, request: &Request<'_>) -> Reply {
        let fault = self.next_fault();
        *self.counts.lock().entry(fault.kind()).or_default() += 1;
        let network = serde_json::from_slice::<Value>(&request.body)
            .ok()
            .and_then(|body| body["paymentRequirements"]["network"].as_str().map(str::to_owned))
            .unwrap_or_default();
        match &fault {
            Fault::TimeoutBefore => return self.timeout().await,
            Fault::StatusBefore(status) => return status_reply(*status),
            Fault::Lie(named) => {
                let named = named.clone().or_else(|| self.transactions.lock().last().cloned());
                let transaction = named.unwrap_or_else(|| format!("0x{}", "ab".repeat(32)));
                let lie = json!({"success": true, "transaction": transaction, "network": network});
                return Reply::new(200, JSON, Body::Bytes(lie.to_string().into_bytes().into()));
            }
            _ => {}
        }
        let (status, bytes) = match self.forward(request).await {
            Ok(answer) => answer,
            Err(e) => return Reply::error(502, "proxy", e),
        };
        let answer: Option<Value> = serde_json::from_slice(&bytes).ok();
        let succeeded = answer.as_ref().is_some_and(|a| a["success"] == true);
        let transaction = answer.as_ref().and_then(|a| a["transaction"].as_str()).unwrap_or_default().to_owned();
        if succeeded && !transaction.is_empty() {
            self.transactions.lock().push(transaction.clone());
        }
        match fault {
            Fault::TimeoutAfter => self.timeout().await,
            Fault::StatusAfter(status) => status_reply(status),
            Fault::PendingAfter if succeeded => {
                let pending = json!({
                    "success": false, "errorReason": "settlement_pending", "transaction": transaction,
                    "network": network, "payer": answer.as_ref().map(|a| a["payer"].clone()).unwrap_or(Value::Null),
                });
                Reply::new(200, JSON, Body::Bytes(pending.to_string().into_bytes().into()))
            }
            Fault::Reword(wording) if !succeeded && says_nonce_used(answer.as_ref()) => {
                let mut reworded = answer.unwrap_or_default();
                reworded["errorReason"] = Value::String(wording);
                Reply::new(status, JSON, Body::Bytes(reworded.to_string().into_bytes().into()))
            }
            _ => Reply::new(status, JSON, Body::Bytes(bytes.into())),
        }
    }

    async fn timeout(&self) -> Reply {
        tokio::time::sleep(self.delay).await;
        Reply::new(
            504,
            "text/html",
            Body::Bytes(b"<html><body><h1>504 Gateway Time-out</h1></body></html>".to_vec().into()),
        )
    }
}

/// Whether a facilitator's failure says the authorization's nonce was used (the project's
/// facilitator and x402's TypeScript one say `invalid_exact_evm_nonce_already_used`).
fn says_nonce_used(answer: Option<&Value>) -> bool {
    answer
        .and_then(|a| a["errorReason"].as_str())
        .is_some_and(|reason| reason.contains("nonce") && reason.contains("used"))
}

fn status_reply(status: u16) -> Reply {
    Reply::new(status, "text/plain", Body::Bytes(format!("error {status}").into_bytes().into()))
}

#[async_trait]
impl Handler for FaultProxy {
    async fn handle(&self, request: &Request<'_>) -> Reply {
        if request.path() == "/settle" {
            return self.settle(request).await;
        }
        match self.forward(request).await {
            Ok((status, bytes)) => Reply::new(status, JSON, Body::Bytes(bytes.into())),
            Err(e) => Reply::error(502, "proxy", e),
        }
    }
}
