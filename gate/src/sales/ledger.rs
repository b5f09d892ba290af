//! What the journal adds up to: sales, purchases to reconcile, failures.
//!
//! Each purchase (`compra`) is folded step by step. Its attempts start with `aceptado` and
//! end with `liquidado`, a certain `fallido`, an uncertain `fallido`, or nothing (the gate
//! stopped mid-settle). The rules keep every paid or possibly-paid purchase on the books:
//!
//! - once settled (by the facilitator, by recovery, or by hand), a purchase is a sale for good;
//! - once an attempt ended uncertain or without a result, the purchase stays *to reconcile*
//!   until it is settled or the publisher records, after checking the chain, that the money
//!   did not move (`conciliado`). A later attempt that fails for certain proves nothing about
//!   the earlier one, so it does not clear it;
//! - only a purchase whose every attempt failed for certain is a plain failure.
//!
//! So no sequence of later events can make a settled or uncertain purchase disappear.
//!
//! A `reacceso` (a past buyer signed in and got the study again) moves no money: it is counted
//! on the sale it proved and listed apart.

use std::collections::BTreeMap;

use serde::Serialize;

use super::journal::{Accepted, Event, Protocol, Reaccess, Record};

/// One settled sale, as the journal tells it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sale {
    pub fecha: String,
    pub unix: u64,
    pub compra: String,
    pub estudio: String,
    pub vista: String,
    pub red: String,
    pub pagador: String,
    pub monto: String,
    pub activo: String,
    /// The protocol the buyer paid with.
    pub protocolo: Protocol,
    pub transaccion: String,
    /// Whether an `entregado` (or `reentregado`) step followed.
    pub entregado: bool,
    pub reentregas: u32,
    /// Times the buyer's wallet signed in and got the study again (x402 `sign-in-with-x`).
    pub reaccesos: u32,
    /// How the sale was established: `liquidada` (the facilitator settled it), `recuperada`
    /// (the facilitator's answer left it open and the chain proved the payment) or
    /// `conciliada` (the publisher found it on chain).
    pub origen: Origin,
    /// Why the chain does not confirm this sale, when it does not (a facilitator's success
    /// that did not pay payTo): such a sale is listed apart and left out of the totals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impugnada: Option<String>,
    /// Kept for recovery, not shown.
    #[serde(skip)]
    pub accepted: Option<Accepted>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    Liquidada,
    Recuperada,
    Conciliada,
}

/// A purchase with no certain result: the gate stopped while settling it, or the facilitator
/// gave an uncertain answer. Reconcile it with the chain (is its nonce used?).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pending {
    pub fecha: String,
    pub compra: String,
    pub estudio: String,
    pub vista: String,
    pub red: String,
    pub pagador: String,
    pub nonce: String,
    pub monto: String,
    /// Unix time the authorization expires; until then a repeat by the buyer can resolve it.
    pub valido_hasta: u64,
    /// `sin_resultado`: its last attempt has no recorded answer (the gate stopped mid-settle,
    /// or it is still running); `incierta`: an attempt's outcome is unknown (the facilitator's
    /// answer left it open, or the gate stopped mid-settle and it was tried again).
    pub estado: &'static str,
    /// The uncertain answer's reason, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub motivo: Option<String>,
    /// A transaction the facilitator named for it (a pending settlement).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaccion: Option<String>,
    pub intentos: u32,
    /// Kept for recovery, not shown.
    #[serde(skip)]
    pub accepted: Accepted,
}

/// A re-access: a past buyer signed in and got the study again, without paying.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reaccessed {
    pub fecha: String,
    /// The sale it proved.
    pub compra: String,
    pub estudio: String,
    /// The view delivered.
    pub vista: String,
    pub red: String,
    pub pagador: String,
    pub nonce: String,
    /// Unix time the sign-in's nonce expires (until then a replay is refused).
    #[serde(skip)]
    pub valido_hasta: u64,
}

/// A purchase the publisher recorded as not paid after checking the chain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unsold {
    pub compra: String,
    pub estudio: String,
    pub pagador: String,
    pub nota: String,
}

/// The journal folded into sales.
#[derive(Debug, Default, PartialEq)]
pub struct Ledger {
    /// In the order they were settled.
    pub sales: Vec<Sale>,
    /// By time of first acceptance.
    pub pending: Vec<Pending>,
    /// Failed attempts by reason (every attempt, certain or not).
    pub failures: BTreeMap<String, u64>,
    /// Purchases reconciled as not paid.
    pub unsold: Vec<Unsold>,
    /// Re-accesses, in the order they happened.
    pub reaccesses: Vec<Reaccessed>,
}

/// The fold's state of one purchase.
#[derive(Debug, Default)]
struct Purchase {
    first_unix: u64,
    first_fecha: String,
    accepted: Option<Accepted>,
    attempts: u32,
    /// The latest attempt has no result yet.
    open: bool,
    /// An earlier attempt ended uncertain or without result, and nothing resolved it.
    doubt: bool,
    uncertain_reason: Option<String>,
    uncertain_transaction: Option<String>,
    /// Index into the ledger's sales once settled.
    sale: Option<usize>,
    unsold_note: Option<String>,
}

/// Folds records (every segment, in order) into sales, purchases to reconcile and failures.
pub fn fold(records: &[Record]) -> Ledger {
    let mut ledger = Ledger::default();
    let mut purchases: BTreeMap<&str, Purchase> = BTreeMap::new();
    for record in records {
        let purchase = purchases.entry(&record.compra).or_insert_with(|| Purchase {
            first_unix: record.unix,
            first_fecha: record.fecha.clone(),
            ..Purchase::default()
        });
        match &record.event {
            Event::Aceptado(accepted) => {
                if purchase.open {
                    purchase.doubt = true;
                }
                purchase.open = purchase.sale.is_none();
                purchase.attempts += 1;
                purchase.unsold_note = None;
                purchase.accepted = Some(accepted.clone());
            }
            Event::Liquidado(settled) => {
                purchase.open = false;
                let origin = if settled.recuperado { Origin::Recuperada } else { Origin::Liquidada };
                // A recovery may not learn the transaction; an earlier pending answer may have named it.
                let transaction = match (settled.transaccion.as_str(), &purchase.uncertain_transaction) {
                    ("", Some(earlier)) => earlier.clone(),
                    (known, _) => known.to_owned(),
                };
                settle(&mut ledger, purchase, record, &transaction, &settled.red, &settled.pagador, origin);
            }
            Event::Fallido(failed) => {
                purchase.open = false;
                if failed.incierto && purchase.sale.is_none() {
                    purchase.doubt = true;
                    purchase.uncertain_reason = Some(failed.motivo.clone());
                    purchase.uncertain_transaction =
                        failed.transaccion.clone().or(purchase.uncertain_transaction.take());
                }
                *ledger.failures.entry(failed.motivo.clone()).or_default() += 1;
            }
            Event::Conciliado(reconciled) => {
                purchase.open = false;
                if reconciled.liquidada {
                    let (red, pagador) =
                        purchase.accepted.as_ref().map(|a| (a.red.clone(), a.pagador.clone())).unwrap_or_default();
                    let transaction = reconciled.transaccion.clone().unwrap_or_default();
                    settle(&mut ledger, purchase, record, &transaction, &red, &pagador, Origin::Conciliada);
                } else if purchase.sale.is_none() {
                    purchase.doubt = false;
                    purchase.unsold_note = Some(reconciled.nota.clone());
                }
            }
            Event::Reacceso(reaccess) => {
                if let Some(sale) = purchase.sale.and_then(|i| ledger.sales.get_mut(i)) {
                    sale.reaccesos += 1;
                }
                ledger.reaccesses.push(reaccessed(record, reaccess));
            }
            Event::Impugnado(disputed) => {
                if let Some(sale) = purchase.sale.and_then(|i| ledger.sales.get_mut(i)) {
                    sale.impugnada = Some(format!("{} ({})", disputed.motivo, disputed.transaccion));
                }
            }
            Event::Entregado(_) | Event::Reentregado(_) => {
                if let Some(sale) = purchase.sale.and_then(|i| ledger.sales.get_mut(i)) {
                    if matches!(record.event, Event::Reentregado(_)) {
                        sale.reentregas += 1;
                    }
                    sale.entregado = true;
                }
            }
        }
    }
    let mut pending: Vec<(u64, Pending)> = Vec::new();
    for (compra, purchase) in purchases {
        if purchase.sale.is_some() {
            continue;
        }
        let Some(accepted) = purchase.accepted else { continue };
        if let Some(nota) = purchase.unsold_note {
            ledger.unsold.push(Unsold {
                compra: compra.to_owned(),
                estudio: accepted.estudio.clone(),
                pagador: accepted.pagador.clone(),
                nota,
            });
            continue;
        }
        if !(purchase.open || purchase.doubt) {
            continue;
        }
        let estado = if purchase.doubt { "incierta" } else { "sin_resultado" };
        pending.push((
            purchase.first_unix,
            Pending {
                fecha: purchase.first_fecha,
                compra: compra.to_owned(),
                estudio: accepted.estudio.clone(),
                vista: accepted.vista.clone(),
                red: accepted.red.clone(),
                pagador: accepted.pagador.clone(),
                nonce: accepted.nonce.clone(),
                monto: accepted.monto.clone(),
                valido_hasta: accepted.valido_hasta,
                estado,
                motivo: purchase.uncertain_reason,
                transaccion: purchase.uncertain_transaction,
                intentos: purchase.attempts,
                accepted,
            },
        ));
    }
    pending.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.compra.cmp(&b.1.compra)));
    ledger.pending = pending.into_iter().map(|(_, p)| p).collect();
    ledger
}

fn reaccessed(record: &Record, reaccess: &Reaccess) -> Reaccessed {
    Reaccessed {
        fecha: record.fecha.clone(),
        compra: record.compra.clone(),
        estudio: reaccess.estudio.clone(),
        vista: reaccess.vista.clone(),
        red: reaccess.red.clone(),
        pagador: reaccess.pagador.clone(),
        nonce: reaccess.nonce.clone(),
        valido_hasta: reaccess.valido_hasta,
    }
}

/// Makes a purchase a sale (once: a second settlement record of the same purchase only fills
/// a transaction the first did not know).
fn settle(
    ledger: &mut Ledger,
    purchase: &mut Purchase,
    record: &Record,
    transaction: &str,
    network: &str,
    payer: &str,
    origin: Origin,
) {
    purchase.doubt = false;
    purchase.unsold_note = None;
    if let Some(sale) = purchase.sale.and_then(|i| ledger.sales.get_mut(i)) {
        if sale.transaccion.is_empty() {
            sale.transaccion = transaction.to_owned();
        }
        return;
    }
    let accepted = purchase.accepted.clone();
    let field = |get: fn(&Accepted) -> &String| accepted.as_ref().map(|a| get(a).clone()).unwrap_or_default();
    purchase.sale = Some(ledger.sales.len());
    ledger.sales.push(Sale {
        fecha: record.fecha.clone(),
        unix: record.unix,
        compra: record.compra.clone(),
        estudio: field(|a| &a.estudio),
        vista: field(|a| &a.vista),
        red: if network.is_empty() { field(|a| &a.red) } else { network.to_owned() },
        pagador: if payer.is_empty() { field(|a| &a.pagador) } else { payer.to_owned() },
        monto: field(|a| &a.monto),
        activo: field(|a| &a.activo),
        protocolo: accepted.as_ref().map(|a| a.protocolo).unwrap_or_default(),
        transaccion: transaction.to_owned(),
        entregado: false,
        reentregas: 0,
        reaccesos: 0,
        origen: origin,
        impugnada: None,
        accepted,
    });
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::sales::journal::tests::{accepted, settled};
    use crate::sales::journal::{Failed, Handed, Reaccess, Reconciled, Settled, parse};

    fn failed(compra: &str, unix: u64, incierto: bool) -> Record {
        Record {
            fecha: String::new(),
            unix,
            compra: compra.into(),
            event: Event::Fallido(Failed {
                motivo: if incierto { "liquidacion_incierta" } else { "insufficient_funds" }.into(),
                mensaje: String::new(),
                incierto,
                transaccion: None,
            }),
        }
    }

    fn recovered(compra: &str, unix: u64) -> Record {
        Record {
            fecha: String::new(),
            unix,
            compra: compra.into(),
            event: Event::Liquidado(Settled {
                transaccion: String::new(),
                red: "eip155:84532".into(),
                pagador: "0xabc".into(),
                recuperado: true,
            }),
        }
    }

    fn handed(compra: &str, unix: u64) -> Record {
        Record {
            fecha: String::new(),
            unix,
            compra: compra.into(),
            event: Event::Entregado(Handed { transaccion: "0x".into(), bytes: 9 }),
        }
    }

    fn reconciled(compra: &str, unix: u64, liquidada: bool) -> Record {
        Record {
            fecha: String::new(),
            unix,
            compra: compra.into(),
            event: Event::Conciliado(Reconciled {
                liquidada,
                transaccion: liquidada.then(|| "0xfound".to_owned()),
                nota: "revisado en la cadena".into(),
            }),
        }
    }

    fn keys(list: impl Iterator<Item = String>) -> Vec<String> {
        list.collect()
    }

    #[test]
    fn steps_join_into_sales_pending_and_failures() {
        let records = vec![
            accepted("a", 10),
            settled("a", 11),
            handed("a", 12),
            accepted("b", 20),
            failed("b", 21, false),
            accepted("c", 30),
        ];
        let ledger = fold(&records);
        assert_eq!(ledger.sales.len(), 1);
        assert_eq!(ledger.sales[0].estudio, "banca-2026");
        assert_eq!(ledger.sales[0].transaccion, "0xtxa");
        assert_eq!(ledger.sales[0].origen, Origin::Liquidada);
        assert!(ledger.sales[0].entregado);
        assert_eq!(ledger.failures.get("insufficient_funds"), Some(&1));
        assert_eq!(keys(ledger.pending.iter().map(|p| p.compra.clone())), ["c"]);
        assert_eq!(ledger.pending[0].estado, "sin_resultado");
    }

    #[test]
    fn an_uncertain_purchase_survives_a_repeat_refused_for_certain_and_ends_as_a_recovered_sale() {
        // The issue's sequence: uncertain, then the buyer repeats and the chain says the nonce
        // is used (recovered); and the variant where the repeat is refused for another reason.
        let uncertain_then_refused =
            vec![accepted("k", 1), failed("k", 2, true), accepted("k", 3), failed("k", 4, false)];
        let ledger = fold(&uncertain_then_refused);
        assert!(ledger.sales.is_empty());
        assert_eq!(ledger.pending.len(), 1, "a later certain failure does not clear an uncertain one");
        assert_eq!(ledger.pending[0].estado, "incierta");
        assert_eq!(ledger.pending[0].intentos, 2);

        let crash_then_refused = vec![accepted("k", 1), accepted("k", 3), failed("k", 4, false)];
        assert_eq!(fold(&crash_then_refused).pending.len(), 1, "nor does it clear a stop mid-settle");

        let recovered_sale =
            [uncertain_then_refused, vec![accepted("k", 5), recovered("k", 6), handed("k", 7)]].concat();
        let ledger = fold(&recovered_sale);
        assert!(ledger.pending.is_empty());
        assert_eq!(ledger.sales.len(), 1);
        assert_eq!(ledger.sales[0].origen, Origin::Recuperada);
        assert!(ledger.sales[0].entregado);
    }

    fn reaccessed_record(compra: &str, unix: u64) -> Record {
        Record {
            fecha: String::new(),
            unix,
            compra: compra.into(),
            event: Event::Reacceso(Reaccess {
                estudio: "banca-2026".into(),
                vista: "resumen".into(),
                red: "eip155:84532".into(),
                pagador: "0xabc".into(),
                nonce: format!("n{unix}"),
                valido_hasta: unix + 300,
                transaccion: format!("0xtx{compra}"),
                bytes: 9,
            }),
        }
    }

    #[test]
    fn a_reaccess_counts_on_its_sale_and_moves_no_money() {
        let records = vec![
            accepted("a", 10),
            settled("a", 11),
            handed("a", 12),
            reaccessed_record("a", 20),
            reaccessed_record("a", 30),
        ];
        let ledger = fold(&records);
        assert_eq!(ledger.sales.len(), 1);
        assert_eq!(ledger.sales[0].reaccesos, 2);
        assert_eq!(ledger.reaccesses.len(), 2);
        assert_eq!(ledger.reaccesses[1].nonce, "n30");
        assert_eq!(ledger.reaccesses[1].valido_hasta, 330);
        assert!(ledger.pending.is_empty() && ledger.failures.is_empty());
        let line = serde_json::to_string(&records[3]).unwrap();
        assert!(line.contains(r#""evento":"reacceso""#), "{line}");
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), records[3]);
    }

    #[test]
    fn the_publisher_reconciles_by_hand_either_way() {
        let base = vec![accepted("k", 1), failed("k", 2, true)];
        let paid = fold(&[base.clone(), vec![reconciled("k", 3, true)]].concat());
        assert_eq!(paid.sales.len(), 1);
        assert_eq!(paid.sales[0].origen, Origin::Conciliada);
        assert_eq!(paid.sales[0].transaccion, "0xfound");
        assert!(paid.pending.is_empty());
        let unpaid = fold(&[base, vec![reconciled("k", 3, false)]].concat());
        assert!(unpaid.sales.is_empty() && unpaid.pending.is_empty());
        assert_eq!(unpaid.unsold.len(), 1);
        // A sale stays a sale whatever is recorded after it.
        let sold = fold(&[accepted("s", 1), settled("s", 2), reconciled("s", 3, false), failed("s", 4, true)]);
        assert_eq!(sold.sales.len(), 1);
        assert!(sold.pending.is_empty() && sold.unsold.is_empty());
    }

    /// A random journal: steps of a few purchases in any order, duplicated or missing.
    fn arbitrary_records() -> impl Strategy<Value = Vec<Record>> {
        let step = (0u8..4, 0u8..9).prop_map(|(key, kind)| {
            let compra = format!("k{key}");
            match kind {
                0 | 1 => accepted(&compra, 1),
                2 => settled(&compra, 1),
                3 => recovered(&compra, 1),
                4 => failed(&compra, 1, true),
                5 => failed(&compra, 1, false),
                6 => handed(&compra, 1),
                7 => reaccessed_record(&compra, 1),
                _ => reconciled(&compra, 1, false),
            }
        });
        proptest::collection::vec(step, 0..24)
    }

    fn settled_keys(ledger: &Ledger) -> Vec<String> {
        let mut keys: Vec<String> = ledger.sales.iter().map(|s| s.compra.clone()).collect();
        keys.sort();
        keys
    }

    proptest! {
        /// Whatever comes after a prefix of the journal, a purchase settled in the prefix is a
        /// sale in the whole, exactly once; one uncertain in the prefix is a sale or still
        /// pending, unless the publisher reconciled it as unpaid after the prefix.
        #[test]
        fn nothing_recorded_later_removes_a_sale_or_an_uncertain_purchase(records in arbitrary_records(), cut in 0usize..24) {
            let cut = cut.min(records.len());
            let whole = fold(&records);
            let prefix = fold(&records[..cut]);
            let mut sold = settled_keys(&whole);
            let count = sold.len();
            sold.dedup();
            prop_assert_eq!(sold.len(), count, "a purchase is at most one sale");
            for sale in &prefix.sales {
                prop_assert!(sold.contains(&sale.compra), "sale {} disappeared", sale.compra);
            }
            for pending in prefix.pending.iter().filter(|p| p.estado == "incierta") {
                let reconciled_later = records[cut..].iter().any(|r| r.compra == pending.compra && matches!(&r.event, Event::Conciliado(c) if !c.liquidada));
                let kept = sold.contains(&pending.compra) || whole.pending.iter().any(|p| p.compra == pending.compra);
                prop_assert!(kept || reconciled_later, "pending {} disappeared", pending.compra);
            }
        }

        /// A torn last line (a crash mid-write) loses only that line: the fold of what parses
        /// equals the fold of the complete lines before it.
        #[test]
        fn a_torn_write_loses_only_its_own_line(records in arbitrary_records(), cut_fraction in 0.0f64..1.0) {
            let mut bytes = Vec::new();
            let mut ends = vec![0usize];
            for record in &records {
                bytes.extend(serde_json::to_vec(record).unwrap());
                bytes.push(b'\n');
                ends.push(bytes.len());
            }
            let cut = (bytes.len() as f64 * cut_fraction) as usize;
            let contents = parse(&bytes[..cut], "x");
            let complete = ends.iter().filter(|end| **end <= cut).count() - 1;
            prop_assert_eq!(&contents.records[..], &records[..complete]);
            prop_assert_eq!(fold(&contents.records), fold(&records[..complete]));
        }
    }
}
