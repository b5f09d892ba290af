//! What a purchase asks the chain ([`crate::chain`]): the payment a sale expects, whether an
//! uncertain outcome was paid, and, after a settled sale's answer left, whether its transaction
//! really paid payTo the price. Also the reconciliation of every uncertain purchase from the
//! chain, which the gate runs at start and while any purchase is uncertain, and `gate ventas
//! conciliar` runs on demand.

use std::sync::Arc;
use std::time::Duration;

use alloy_primitives::{Address, B256, U256};

use crate::chain::{Audit, Chain, Chains, Expected, Verdict};
use crate::clock::Clock;
use crate::sales::Sales;
use crate::sales::journal::{Accepted, Disputed, Reconciled};
use crate::sales::ledger::Pending;
use crate::x402::PaymentRequirements;
use crate::x402::evm::Authorization;

/// How long a settled sale's transaction is looked for before it is disputed as not found.
const AUDIT_PATIENCE: Duration = Duration::from_secs(120);

/// What the chain could say about an uncertain outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proof {
    /// No chain is configured for the network.
    NoChain,
    /// The chain could not be read.
    Unknown(String),
    Verdict(Verdict),
}

/// The payment a purchase under `requirements` with `authorization` expects on chain.
pub fn expected(requirements: &PaymentRequirements, authorization: &Authorization) -> Option<Expected> {
    Some(Expected {
        network: requirements.network.clone(),
        asset: requirements.asset.parse().ok()?,
        payer: authorization.from,
        nonce: authorization.nonce,
        pay_to: requirements.pay_to.parse().ok()?,
        amount: U256::from_str_radix(&requirements.amount, 10).ok()?,
        valid_after: authorization.valid_after,
        valid_before: authorization.valid_before,
    })
}

/// The payment a journaled purchase expects on chain. Purchases journaled before the window's
/// start was recorded are searched from a day before their end.
pub fn expected_of(accepted: &Accepted) -> Option<Expected> {
    let valid_after = match accepted.valid_from {
        0 => accepted.valid_until.saturating_sub(86_400),
        start => start,
    };
    Some(Expected {
        network: accepted.network.clone(),
        asset: accepted.asset.parse::<Address>().ok()?,
        payer: accepted.payer.parse::<Address>().ok()?,
        nonce: accepted.nonce.parse::<B256>().ok()?,
        pay_to: accepted.pay_to.parse::<Address>().ok()?,
        amount: U256::from_str_radix(&accepted.amount, 10).ok()?,
        valid_after,
        valid_before: accepted.valid_until,
    })
}

/// Asks `chain` about `expected`.
pub async fn look(chain: &dyn Chain, expected: &Expected, hint: Option<&str>) -> Proof {
    match chain.find(expected, hint).await {
        Ok(verdict) => Proof::Verdict(verdict),
        Err(error) => {
            tracing::warn!(cadena = %chain.name(), "no se pudo leer la cadena: {error}");
            Proof::Unknown(error.to_string())
        }
    }
}

/// Checks a settled sale's `transaction` until it is found or the patience runs out; a
/// transaction that does not pay (or is never found) is journaled as disputed.
pub async fn audit(
    chain: Arc<dyn Chain>,
    sales: Arc<Sales>,
    clock: Clock,
    key: String,
    expected: Expected,
    transaction: String,
) {
    let started = tokio::time::Instant::now();
    let mut wait = Duration::from_millis(250);
    let reason = loop {
        match chain.audit(&expected, &transaction).await {
            Ok(Audit::Confirmed) => {
                tracing::debug!(target: "compras", compra = %key, transaccion = %transaction, "la cadena confirma la venta");
                return;
            }
            Ok(Audit::Wrong(reason)) => break reason,
            Ok(Audit::NotFound) | Err(_) if started.elapsed() < AUDIT_PATIENCE => {}
            Ok(Audit::NotFound) => {
                break format!(
                    "la transacción {transaction} no aparece en la cadena tras {} s",
                    AUDIT_PATIENCE.as_secs()
                );
            }
            Err(error) => {
                tracing::warn!(compra = %key, "no se pudo comprobar la venta en la cadena: {error}");
                return;
            }
        }
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(Duration::from_secs(10));
    };
    // The named transaction does not pay; the authorization may still have paid payTo in
    // another one (a facilitator naming the wrong hash, or someone who submitted it first):
    // then the money is there and the sale stands.
    if let Ok(Verdict::Paid { transaction: paid_in }) = chain.find(&expected, None).await {
        tracing::warn!(
            target: "compras",
            compra = %key,
            transaccion = %transaction,
            "el facilitador nombró una transacción que no pagó esta compra ({reason}), pero la autorización pagó a payTo en {paid_in}: la venta vale"
        );
        return;
    }
    tracing::error!(
        target: "compras",
        compra = %key,
        transaccion = %transaction,
        "el facilitador informó una liquidación que la cadena no confirma: {reason}"
    );
    sales.metrics().disputed();
    let disputed = Disputed { transaction, reason };
    if let Err(e) = sales.dispute(&key, clock.now(), disputed, expected.valid_before).await {
        tracing::error!(compra = %key, "diario de ventas: no se pudo registrar la venta impugnada: {e}");
    }
}

/// What reconciling one purchase from the chain did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// Paid, in this transaction: now a sale.
    Paid(String),
    /// Voided: why.
    Void(String),
    /// Still open: why.
    Open(String),
}

/// Resolves one pending purchase from `chains`: the `conciliado` record to journal (if the
/// chain decided) and what happened.
pub async fn resolve(chains: &Chains, pending: &Pending) -> (Option<Reconciled>, Resolved) {
    let Some(chain) = chains.get(&pending.network) else {
        return (None, Resolved::Open(format!("sin RPC para {}", pending.network)));
    };
    let Some(expected) = expected_of(&pending.accepted) else {
        return (None, Resolved::Open("compra sin los datos de la autorización".into()));
    };
    match look(chain.as_ref(), &expected, pending.transaction.as_deref()).await {
        Proof::Verdict(Verdict::Paid { transaction }) => (
            Some(Reconciled {
                settled_at: true,
                transaction: Some(transaction.clone()),
                note: format!("cadena: pagada en la transacción {transaction}"),
            }),
            Resolved::Paid(transaction),
        ),
        Proof::Verdict(verdict) if verdict.proves_unpaid() => {
            let note = verdict.void_reason();
            (Some(Reconciled { settled_at: false, transaction: None, note: note.clone() }), Resolved::Void(note))
        }
        Proof::Verdict(verdict) => (None, Resolved::Open(verdict.void_reason())),
        Proof::Unknown(error) => (None, Resolved::Open(error)),
        Proof::NoChain => (None, Resolved::Open("sin cadena".into())),
    }
}

/// `gate ventas conciliar` with no purchase named: every uncertain purchase of the journal in
/// `data` (or of the shared record) looked up on `chains`, and each one the chain decides
/// journaled as reconciled (safe while a gate runs: one appended `conciliado` line each).
pub async fn reconcile_record(
    data: &std::path::Path,
    shared: Option<&crate::sales::postgres::Shared>,
    chains: &Chains,
) -> anyhow::Result<(Vec<(Pending, Resolved)>, Vec<(String, String)>)> {
    use crate::sales::report::{Resolution, reconcile as by_hand, reconcile_shared};
    let contents = match shared {
        Some(shared) => shared.read()?,
        None => crate::sales::journal::read(&data.join(crate::sales::journal::JOURNAL_FILE))?,
    };
    let mut done = Vec::new();
    let crate::sales::ledger::Ledger { pending, sales, .. } = crate::sales::ledger::fold(&contents.records);
    for pending in pending {
        let (record, mut resolved) = resolve(chains, &pending).await;
        if let Some(reconciled) = record {
            let resolution = match reconciled.transaction {
                Some(transaction) if reconciled.settled_at => Resolution::Paid { transaction },
                _ => Resolution::Unpaid,
            };
            let holder = match &resolution {
                Resolution::Paid { transaction } => {
                    sales.iter().find(|s| s.transaction.eq_ignore_ascii_case(transaction))
                }
                Resolution::Unpaid => None,
            };
            match (holder, shared) {
                // The chain proves this purchase's authorization paid in the transaction, and the
                // record credits it to another sale, on a facilitator's word (a gate without an
                // RPC believed a success naming it). Neither is changed here: the purchase stays
                // listed, with both, for the publisher.
                (Some(holder), _) => {
                    resolved = Resolved::Open(format!(
                        "la cadena muestra que la transacción {} pagó esta compra, pero el registro se la acredita a la venta {} ({}) por palabra del facilitador; queda por conciliar: revise esa venta en la cadena (su autorización, su nonce) antes de conciliar esta",
                        holder.transaction, holder.purchase, holder.study
                    ));
                }
                (None, Some(shared)) => {
                    reconcile_shared(shared, &pending.purchase, resolution, &reconciled.note)?;
                }
                (None, None) => {
                    by_hand(data, &pending.purchase, resolution, &reconciled.note)?;
                }
            }
        }
        done.push((pending, resolved));
    }
    let disputed = dispute_unproven_sales(data, shared, chains, sales).await?;
    Ok((done, disputed))
}

/// The second half of [`reconcile_record`] (which returns what it disputed, by purchase and
/// why): every sale the facilitator settled (its word, not
/// the chain's proof) and nothing disputed yet is checked on chain now, as the gate checks one
/// after delivering it. That catches what the gate could not: a sale delivered while it had no
/// RPC, or whose check after the delivery a restart cut short. A transaction that did not pay
/// with the sale's authorization, when the authorization did not pay payTo in another one
/// either, is journaled `impugnado`; a chain that cannot be read leaves the sale as it is.
async fn dispute_unproven_sales(
    data: &std::path::Path,
    shared: Option<&crate::sales::postgres::Shared>,
    chains: &Chains,
    sales: Vec<crate::sales::ledger::Sale>,
) -> anyhow::Result<Vec<(String, String)>> {
    use crate::sales::journal::{Event, Record};
    let mut disputed = Vec::new();
    use crate::sales::ledger::Origin;
    for sale in sales {
        if sale.origin != Origin::Settled || sale.disputed.is_some() || sale.transaction.is_empty() {
            continue;
        }
        let Some(expected) = sale.accepted.as_ref().and_then(expected_of) else { continue };
        let Some(chain) = chains.get(&expected.network) else { continue };
        let reason = match chain.audit(&expected, &sale.transaction).await {
            Ok(Audit::Confirmed) | Err(_) => continue,
            Ok(Audit::Wrong(reason)) => reason,
            Ok(Audit::NotFound) => format!("la transacción {} no aparece en la cadena", sale.transaction),
        };
        // The named transaction does not pay, but the authorization may have paid payTo in
        // another one: then the money is there and the sale stands.
        if matches!(chain.find(&expected, None).await, Ok(Verdict::Paid { .. }) | Err(_)) {
            continue;
        }
        tracing::error!(target: "compras", compra = %sale.purchase, transaccion = %sale.transaction, "conciliación: la cadena no confirma la venta: {reason}");
        let unix = crate::clock::now();
        let record = Record {
            date: crate::clock::iso8601(unix),
            unix,
            purchase: sale.purchase.clone(),
            event: Event::Disputed(Disputed { transaction: sale.transaction.clone(), reason: reason.clone() }),
        };
        match shared {
            Some(shared) => shared.write_blocking(record)?,
            None => crate::sales::journal::append_one(&data.join(crate::sales::journal::JOURNAL_FILE), &record)?,
        }
        disputed.push((sale.purchase, reason));
    }
    Ok(disputed)
}

/// Reconciles every uncertain purchase of `sales` that `chains` can decide, journaling each
/// resolution and updating the replay book. Returns (compra, what happened) for each pending.
pub async fn reconcile(sales: &Sales, chains: &Chains, clock: &Clock) -> anyhow::Result<Vec<(String, Resolved)>> {
    let mut done = Vec::new();
    for pending in sales.pending()? {
        let (record, resolved) = resolve(chains, &pending).await;
        if let Some(reconciled) = record {
            sales.reconciled(&pending, reconciled, clock.now()).await?;
            tracing::info!(target: "compras", compra = %pending.purchase, "conciliada con la cadena: {resolved:?}");
        }
        done.push((pending.purchase.clone(), resolved));
    }
    Ok(done)
}

/// Runs [`reconcile`] now and then every `every` while some purchase is uncertain (or a new
/// doubt is noted), on its own thread, until the process ends.
pub fn reconcile_in_background(sales: Arc<Sales>, chains: Chains, clock: Clock, every: Duration) {
    if chains.is_empty() {
        return;
    }
    let spawned = std::thread::Builder::new().name("conciliacion".into()).spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
            tracing::error!("conciliación: no se pudo crear su runtime");
            return;
        };
        let mut open = true;
        loop {
            if open || sales.take_doubt() {
                match runtime.block_on(reconcile(&sales, &chains, &clock)) {
                    Ok(done) => open = done.iter().any(|(_, r)| matches!(r, Resolved::Open(_))),
                    Err(e) => tracing::warn!("conciliación con la cadena: {e:#}"),
                }
            }
            std::thread::sleep(every);
        }
    });
    if let Err(e) = spawned {
        tracing::error!("conciliación: no se pudo arrancar su hilo: {e}");
    }
}
