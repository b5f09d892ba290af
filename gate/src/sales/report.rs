//! `gate ventas`: the sales journal as a publisher reads it to reconcile with the chain:
//! every settled sale (who, what, where, which transaction, delivered or not; those settled
//! by recovery or by hand shown apart), totals by study, network and day, the purchases to
//! reconcile, failures by reason, and the re-accesses (past buyers who signed in with their
//! wallet and got a study again, no charge). `gate ventas conciliar` records how the publisher
//! resolved one after looking it up on chain.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use super::journal::{self, Event, Reconciled, Record};
use super::ledger::{self, Origin, Pending, Reaccessed, Sale, Unsold};
use super::postgres::Shared;
use crate::clock::{iso8601, now};

/// The whole report, as `--json` prints it.
#[derive(Debug, Serialize)]
pub struct Report {
    #[serde(rename = "diario")]
    pub journal_name: String,
    #[serde(rename = "ventas")]
    pub sales: Vec<Sale>,
    #[serde(rename = "totales")]
    pub totals: Totals,
    /// Purchases with no certain settlement result: check their nonce on chain.
    #[serde(rename = "pendientes")]
    pub pending: Vec<Pending>,
    /// Purchases the publisher reconciled as not paid.
    #[serde(rename = "conciliadas_sin_pago")]
    pub reconciled_without_payment: Vec<Unsold>,
    /// Failed attempts (nothing charged) by reason.
    #[serde(rename = "fallidas")]
    pub failed: BTreeMap<String, u64>,
    /// Studies delivered again to a past buyer who signed in (x402 `sign-in-with-x`): no charge,
    /// not in the totals.
    #[serde(rename = "reaccesos")]
    pub reaccesses: Vec<Reaccessed>,
    /// Torn or unreadable lines skipped.
    #[serde(rename = "avisos")]
    pub warnings: Vec<String>,
    /// The days the sales and re-accesses were restricted to (`--desde`, `--hasta`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "periodo")]
    pub period: Option<super::period::Period>,
}

#[derive(Debug, Default, Serialize)]
pub struct Totals {
    pub general: Total,
    #[serde(rename = "por_estudio")]
    pub per_study: BTreeMap<String, Total>,
    #[serde(rename = "por_red")]
    pub per_network: BTreeMap<String, Total>,
    /// By UTC day, `YYYY-MM-DD`.
    #[serde(rename = "por_dia")]
    pub per_day: BTreeMap<String, Total>,
}

/// A count and a sum. `monto` is in the asset's atomic units; `usdc` assumes 6 decimals.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Total {
    #[serde(rename = "ventas")]
    pub sales: u64,
    #[serde(rename = "monto")]
    pub amount: String,
    pub usdc: String,
    #[serde(skip)]
    units: u128,
}

impl Total {
    fn add(&mut self, amount: &str) {
        self.sales += 1;
        self.units += amount.parse::<u128>().unwrap_or(0);
        self.amount = self.units.to_string();
        self.usdc = usdc(self.units);
    }
}

/// Atomic units of a 6-decimal asset as a decimal amount with at least 2 decimals.
pub fn usdc(units: u128) -> String {
    let whole = units / 1_000_000;
    let mut fraction = format!("{:06}", units % 1_000_000);
    while fraction.len() > 2 && fraction.ends_with('0') {
        fraction.pop();
    }
    format!("{whole}.{fraction}")
}

/// Reads the journal in `data` (without changing it) into a report.
pub fn report(data: &Path) -> Result<Report> {
    let path = data.join(journal::JOURNAL_FILE);
    let contents = journal::read(&path)?;
    Ok(report_of(path.display().to_string(), contents))
}

/// Reads the shared record (without changing it) into a report.
pub fn report_shared(shared: &Shared) -> Result<Report> {
    Ok(report_of(shared.target().to_owned(), shared.read()?))
}

/// The report of a journal's records, from wherever they were read (`diario` names it).
pub fn report_of(journal_name: String, contents: journal::Contents) -> Report {
    let ledger = ledger::fold(&contents.records);
    Report {
        journal_name,
        totals: Totals::of(&ledger.sales),
        sales: ledger.sales,
        pending: ledger.pending,
        reconciled_without_payment: ledger.unsold,
        failed: ledger.failures,
        reaccesses: ledger.reaccesses,
        warnings: contents.warnings,
        period: None,
    }
}

impl Totals {
    /// The totals of `sales`, leaving out the disputed ones.
    pub fn of(sales: &[Sale]) -> Totals {
        let mut totals =
            Totals { general: Total { amount: "0".into(), usdc: usdc(0), ..Total::default() }, ..Totals::default() };
        for sale in sales.iter().filter(|s| s.disputed.is_none()) {
            totals.general.add(&sale.amount);
            totals.per_study.entry(sale.study.clone()).or_default().add(&sale.amount);
            totals.per_network.entry(sale.network.clone()).or_default().add(&sale.amount);
            let day = sale.date.get(..10).unwrap_or(&sale.date).to_owned();
            totals.per_day.entry(day).or_default().add(&sale.amount);
        }
        totals
    }
}

/// The report as text tables.
pub fn table(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Diario: {}", report.journal_name);
    if let Some(period) = &report.period {
        let _ = writeln!(
            out,
            "Período: {} a {} (las compras por conciliar se listan todas)",
            period.since.as_deref().unwrap_or("el principio"),
            period.until.as_deref().unwrap_or("hoy")
        );
    }
    for warning in &report.warnings {
        let _ = writeln!(out, "aviso: {warning}");
    }
    // The headline counts what the totals below add up: the disputed sales are listed apart.
    let by = |origin: Origin| report.sales.iter().filter(move |s| s.origin == origin && s.disputed.is_none());
    let _ = writeln!(out, "\nVentas liquidadas: {}", by(Origin::Settled).count());
    write_sales(&mut out, by(Origin::Settled));
    for (origin, title) in [
        (Origin::Recovered, "Ventas recuperadas (liquidación incierta; la cadena probó el pago a payTo)"),
        (Origin::Reconciled, "Ventas conciliadas a mano (encontradas en la cadena)"),
    ] {
        let count = by(origin).count();
        if count > 0 {
            let _ = writeln!(out, "\n{title}: {count}");
            write_sales(&mut out, by(origin));
        }
    }
    let disputed: Vec<&Sale> = report.sales.iter().filter(|s| s.disputed.is_some()).collect();
    if !disputed.is_empty() {
        let _ = writeln!(
            out,
            "\nVentas impugnadas por la cadena (el facilitador informó un éxito que no pagó a payTo; entregadas, fuera de los totales): {}",
            disputed.len()
        );
        let rows: Vec<[String; 4]> = disputed
            .iter()
            .map(|s| [s.purchase.clone(), s.study.clone(), s.payer.clone(), s.disputed.clone().unwrap_or_default()])
            .collect();
        write_table(&mut out, &["compra", "estudio", "pagador", "motivo"], &rows);
    }
    for (title, totals) in
        [("estudio", &report.totals.per_study), ("red", &report.totals.per_network), ("día", &report.totals.per_day)]
    {
        let _ = writeln!(out, "\nTotales por {title}");
        let mut rows: Vec<[String; 3]> =
            totals.iter().map(|(k, t)| [k.clone(), t.sales.to_string(), t.usdc.clone()]).collect();
        rows.push(["total".into(), report.totals.general.sales.to_string(), report.totals.general.usdc.clone()]);
        write_table(&mut out, &[title, "ventas", "USDC"], &rows);
    }
    if !report.pending.is_empty() {
        let _ = writeln!(
            out,
            "\nPor conciliar (sin resultado cierto de liquidación: busque el nonce en la cadena y resuelva con `gate ventas conciliar`): {}",
            report.pending.len()
        );
        let rows: Vec<[String; 8]> = report
            .pending
            .iter()
            .map(|p| {
                [
                    p.date.clone(),
                    p.study.clone(),
                    p.network.clone(),
                    p.payer.clone(),
                    p.nonce.clone(),
                    p.status.to_owned(),
                    p.transaction.clone().or_else(|| p.reason.clone()).unwrap_or_default(),
                    p.purchase.clone(),
                ]
            })
            .collect();
        write_table(&mut out, &["fecha", "estudio", "red", "pagador", "nonce", "estado", "detalle", "compra"], &rows);
    }
    if !report.reconciled_without_payment.is_empty() {
        let _ = writeln!(
            out,
            "\nAnuladas o conciliadas sin pago (no se cobró nada, no se entregó nada): {}",
            report.reconciled_without_payment.len()
        );
        let rows: Vec<[String; 4]> = report
            .reconciled_without_payment
            .iter()
            .map(|u| [u.purchase.clone(), u.study.clone(), u.payer.clone(), u.note.clone()])
            .collect();
        write_table(&mut out, &["compra", "estudio", "pagador", "nota"], &rows);
    }
    if !report.reaccesses.is_empty() {
        let _ = writeln!(
            out,
            "\nReaccesos (compradores que firmaron con su billetera, sign-in-with-x; sin cobro, fuera de los totales): {}",
            report.reaccesses.len()
        );
        let rows: Vec<[String; 6]> = report
            .reaccesses
            .iter()
            .map(|r| {
                [
                    r.date.clone(),
                    r.study.clone(),
                    r.view.clone(),
                    r.network.clone(),
                    r.payer.clone(),
                    r.purchase.clone(),
                ]
            })
            .collect();
        write_table(&mut out, &["fecha", "estudio", "vista", "red", "pagador", "compra"], &rows);
    }
    if !report.failed.is_empty() {
        let _ = writeln!(out, "\nIntentos fallidos (nada cobrado)");
        let rows: Vec<[String; 2]> = report.failed.iter().map(|(k, n)| [k.clone(), n.to_string()]).collect();
        write_table(&mut out, &["motivo", "intentos"], &rows);
    }
    out
}

/// The sales table.
fn write_sales<'a>(out: &mut String, sales: impl Iterator<Item = &'a Sale>) {
    let rows: Vec<[String; 9]> = sales
        .map(|s| {
            [
                s.date.clone(),
                s.study.clone(),
                s.view.clone(),
                s.network.clone(),
                s.protocol.as_str().to_owned(),
                s.payer.clone(),
                usdc(s.amount.parse().unwrap_or(0)),
                if s.transaction.is_empty() {
                    "(desconocida: buscar el nonce)".to_owned()
                } else {
                    s.transaction.clone()
                },
                match (s.delivered, s.redeliveries) {
                    (false, _) => "no".to_owned(),
                    (true, 0) => "sí".to_owned(),
                    (true, n) => format!("sí (+{n})"),
                },
            ]
        })
        .collect();
    write_table(
        out,
        &["fecha", "estudio", "vista", "red", "protocolo", "pagador", "USDC", "transacción", "entregado"],
        &rows,
    );
}

/// How the publisher resolved a purchase to reconcile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// The money moved, in this transaction.
    Paid { transaction: String },
    /// The nonce is unused (or the authorization expired unused): nothing was charged.
    Unpaid,
}

/// `gate ventas conciliar`: records the publisher's resolution of a purchase to reconcile,
/// appending one `conciliado` line to the journal (safe while the gate runs). Refuses keys
/// that are not pending, so a sale cannot be recorded twice.
pub fn reconcile(data: &Path, purchase: &str, resolution: Resolution, note: &str) -> Result<Pending> {
    let path = data.join(journal::JOURNAL_FILE);
    let contents = journal::read(&path)?;
    let (pending, record) = resolve(&contents, purchase, resolution, note)?;
    journal::append_one(&path, &record)?;
    Ok(pending)
}

/// `gate ventas conciliar` on the shared record: the same check, one `conciliado` event.
pub fn reconcile_shared(shared: &Shared, purchase: &str, resolution: Resolution, note: &str) -> Result<Pending> {
    let contents = shared.read()?;
    let (pending, record) = resolve(&contents, purchase, resolution, note)?;
    shared.write_blocking(record)?;
    Ok(pending)
}

/// The pending purchase `compra` and the `conciliado` record that resolves it.
fn resolve(
    contents: &journal::Contents,
    purchase: &str,
    resolution: Resolution,
    note: &str,
) -> Result<(Pending, Record)> {
    let ledger = ledger::fold(&contents.records);
    if let Resolution::Paid { transaction } = &resolution
        && let Some(other) = ledger.sales.iter().find(|s| s.transaction.eq_ignore_ascii_case(transaction))
    {
        anyhow::bail!(
            "la transacción {transaction} ya pagó la compra {} ({}): una transacción paga una sola venta; busque en la cadena la que usó el nonce de esta compra",
            other.purchase,
            other.study
        );
    }
    let pending = ledger
        .pending
        .into_iter()
        .find(|p| p.purchase == purchase)
        .ok_or_else(|| anyhow::anyhow!("la compra {purchase:?} no está por conciliar (vea `gate ventas`)"))?;
    let (settled_at, transaction) = match resolution {
        Resolution::Paid { transaction } => (true, Some(transaction)),
        Resolution::Unpaid => (false, None),
    };
    let unix = now();
    let record = Record {
        date: iso8601(unix),
        unix,
        purchase: purchase.to_owned(),
        event: Event::Reconciled(Reconciled { settled_at, transaction, note: note.to_owned() }),
    };
    Ok((pending, record))
}

fn write_table<const N: usize>(out: &mut String, header: &[&str; N], rows: &[[String; N]]) {
    let mut widths = header.map(|h| h.chars().count());
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        let text: Vec<String> = cells.zip(widths).map(|(c, w)| format!("{c:<w$}")).collect();
        let _ = writeln!(out, "{}", text.join("  ").trim_end());
    };
    line(&mut header.iter().copied());
    for row in rows {
        line(&mut row.iter().map(String::as_str));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usdc_amounts() {
        assert_eq!(usdc(0), "0.00");
        assert_eq!(usdc(990_000), "0.99");
        assert_eq!(usdc(1_980_000), "1.98");
        assert_eq!(usdc(1_234_567), "1.234567");
    }
}
