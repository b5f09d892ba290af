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
    pub diario: String,
    pub ventas: Vec<Sale>,
    pub totales: Totals,
    /// Purchases with no certain settlement result: check their nonce on chain.
    pub pendientes: Vec<Pending>,
    /// Purchases the publisher reconciled as not paid.
    pub conciliadas_sin_pago: Vec<Unsold>,
    /// Failed attempts (nothing charged) by reason.
    pub fallidas: BTreeMap<String, u64>,
    /// Studies delivered again to a past buyer who signed in (x402 `sign-in-with-x`): no charge,
    /// not in the totals.
    pub reaccesos: Vec<Reaccessed>,
    /// Torn or unreadable lines skipped.
    pub avisos: Vec<String>,
    /// The days the sales and re-accesses were restricted to (`--desde`, `--hasta`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub periodo: Option<super::period::Period>,
}

#[derive(Debug, Default, Serialize)]
pub struct Totals {
    pub general: Total,
    pub por_estudio: BTreeMap<String, Total>,
    pub por_red: BTreeMap<String, Total>,
    /// By UTC day, `YYYY-MM-DD`.
    pub por_dia: BTreeMap<String, Total>,
}

/// A count and a sum. `monto` is in the asset's atomic units; `usdc` assumes 6 decimals.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Total {
    pub ventas: u64,
    pub monto: String,
    pub usdc: String,
    #[serde(skip)]
    units: u128,
}

impl Total {
    fn add(&mut self, amount: &str) {
        self.ventas += 1;
        self.units += amount.parse::<u128>().unwrap_or(0);
        self.monto = self.units.to_string();
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
pub fn report_of(diario: String, contents: journal::Contents) -> Report {
    let ledger = ledger::fold(&contents.records);
    Report {
        diario,
        totales: Totals::of(&ledger.sales),
        ventas: ledger.sales,
        pendientes: ledger.pending,
        conciliadas_sin_pago: ledger.unsold,
        fallidas: ledger.failures,
        reaccesos: ledger.reaccesses,
        avisos: contents.warnings,
        periodo: None,
    }
}

impl Totals {
    /// The totals of `sales`, leaving out the disputed ones.
    pub fn of(sales: &[Sale]) -> Totals {
        let mut totales =
            Totals { general: Total { monto: "0".into(), usdc: usdc(0), ..Total::default() }, ..Totals::default() };
        for sale in sales.iter().filter(|s| s.impugnada.is_none()) {
            totales.general.add(&sale.monto);
            totales.por_estudio.entry(sale.estudio.clone()).or_default().add(&sale.monto);
            totales.por_red.entry(sale.red.clone()).or_default().add(&sale.monto);
            let day = sale.fecha.get(..10).unwrap_or(&sale.fecha).to_owned();
            totales.por_dia.entry(day).or_default().add(&sale.monto);
        }
        totales
    }
}

/// The report as text tables.
pub fn table(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Diario: {}", report.diario);
    if let Some(period) = &report.periodo {
        let _ = writeln!(
            out,
            "Período: {} a {} (las compras por conciliar se listan todas)",
            period.desde.as_deref().unwrap_or("el principio"),
            period.hasta.as_deref().unwrap_or("hoy")
        );
    }
    for warning in &report.avisos {
        let _ = writeln!(out, "aviso: {warning}");
    }
    let _ = writeln!(out, "\nVentas liquidadas: {}", report.ventas.len());
    let by = |origin: Origin| report.ventas.iter().filter(move |s| s.origen == origin && s.impugnada.is_none());
    write_sales(&mut out, by(Origin::Liquidada));
    for (origin, title) in [
        (Origin::Recuperada, "Ventas recuperadas (liquidación incierta; la cadena probó el pago a payTo)"),
        (Origin::Conciliada, "Ventas conciliadas a mano (encontradas en la cadena)"),
    ] {
        let count = by(origin).count();
        if count > 0 {
            let _ = writeln!(out, "\n{title}: {count}");
            write_sales(&mut out, by(origin));
        }
    }
    let disputed: Vec<&Sale> = report.ventas.iter().filter(|s| s.impugnada.is_some()).collect();
    if !disputed.is_empty() {
        let _ = writeln!(
            out,
            "\nVentas impugnadas por la cadena (el facilitador informó un éxito que no pagó a payTo; entregadas, fuera de los totales): {}",
            disputed.len()
        );
        let rows: Vec<[String; 4]> = disputed
            .iter()
            .map(|s| [s.compra.clone(), s.estudio.clone(), s.pagador.clone(), s.impugnada.clone().unwrap_or_default()])
            .collect();
        write_table(&mut out, &["compra", "estudio", "pagador", "motivo"], &rows);
    }
    for (title, totals) in
        [("estudio", &report.totales.por_estudio), ("red", &report.totales.por_red), ("día", &report.totales.por_dia)]
    {
        let _ = writeln!(out, "\nTotales por {title}");
        let mut rows: Vec<[String; 3]> =
            totals.iter().map(|(k, t)| [k.clone(), t.ventas.to_string(), t.usdc.clone()]).collect();
        rows.push(["total".into(), report.totales.general.ventas.to_string(), report.totales.general.usdc.clone()]);
        write_table(&mut out, &[title, "ventas", "USDC"], &rows);
    }
    if !report.pendientes.is_empty() {
        let _ = writeln!(
            out,
            "\nPor conciliar (sin resultado cierto de liquidación: busque el nonce en la cadena y resuelva con `gate ventas conciliar`): {}",
            report.pendientes.len()
        );
        let rows: Vec<[String; 8]> = report
            .pendientes
            .iter()
            .map(|p| {
                [
                    p.fecha.clone(),
                    p.estudio.clone(),
                    p.red.clone(),
                    p.pagador.clone(),
                    p.nonce.clone(),
                    p.estado.to_owned(),
                    p.transaccion.clone().or_else(|| p.motivo.clone()).unwrap_or_default(),
                    p.compra.clone(),
                ]
            })
            .collect();
        write_table(&mut out, &["fecha", "estudio", "red", "pagador", "nonce", "estado", "detalle", "compra"], &rows);
    }
    if !report.conciliadas_sin_pago.is_empty() {
        let _ = writeln!(
            out,
            "\nAnuladas o conciliadas sin pago (no se cobró nada, no se entregó nada): {}",
            report.conciliadas_sin_pago.len()
        );
        let rows: Vec<[String; 4]> = report
            .conciliadas_sin_pago
            .iter()
            .map(|u| [u.compra.clone(), u.estudio.clone(), u.pagador.clone(), u.nota.clone()])
            .collect();
        write_table(&mut out, &["compra", "estudio", "pagador", "nota"], &rows);
    }
    if !report.reaccesos.is_empty() {
        let _ = writeln!(
            out,
            "\nReaccesos (compradores que firmaron con su billetera, sign-in-with-x; sin cobro, fuera de los totales): {}",
            report.reaccesos.len()
        );
        let rows: Vec<[String; 6]> = report
            .reaccesos
            .iter()
            .map(|r| {
                [
                    r.fecha.clone(),
                    r.estudio.clone(),
                    r.vista.clone(),
                    r.red.clone(),
                    r.pagador.clone(),
                    r.compra.clone(),
                ]
            })
            .collect();
        write_table(&mut out, &["fecha", "estudio", "vista", "red", "pagador", "compra"], &rows);
    }
    if !report.fallidas.is_empty() {
        let _ = writeln!(out, "\nIntentos fallidos (nada cobrado)");
        let rows: Vec<[String; 2]> = report.fallidas.iter().map(|(k, n)| [k.clone(), n.to_string()]).collect();
        write_table(&mut out, &["motivo", "intentos"], &rows);
    }
    out
}

/// The sales table.
fn write_sales<'a>(out: &mut String, sales: impl Iterator<Item = &'a Sale>) {
    let rows: Vec<[String; 9]> = sales
        .map(|s| {
            [
                s.fecha.clone(),
                s.estudio.clone(),
                s.vista.clone(),
                s.red.clone(),
                s.protocolo.as_str().to_owned(),
                s.pagador.clone(),
                usdc(s.monto.parse().unwrap_or(0)),
                if s.transaccion.is_empty() {
                    "(desconocida: buscar el nonce)".to_owned()
                } else {
                    s.transaccion.clone()
                },
                match (s.entregado, s.reentregas) {
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
pub fn reconcile(data: &Path, compra: &str, resolution: Resolution, nota: &str) -> Result<Pending> {
    let path = data.join(journal::JOURNAL_FILE);
    let contents = journal::read(&path)?;
    let (pending, record) = resolve(&contents, compra, resolution, nota)?;
    journal::append_one(&path, &record)?;
    Ok(pending)
}

/// `gate ventas conciliar` on the shared record: the same check, one `conciliado` event.
pub fn reconcile_shared(shared: &Shared, compra: &str, resolution: Resolution, nota: &str) -> Result<Pending> {
    let contents = shared.read()?;
    let (pending, record) = resolve(&contents, compra, resolution, nota)?;
    shared.write_blocking(record)?;
    Ok(pending)
}

/// The pending purchase `compra` and the `conciliado` record that resolves it.
fn resolve(
    contents: &journal::Contents,
    compra: &str,
    resolution: Resolution,
    nota: &str,
) -> Result<(Pending, Record)> {
    let pending = ledger::fold(&contents.records)
        .pending
        .into_iter()
        .find(|p| p.compra == compra)
        .ok_or_else(|| anyhow::anyhow!("la compra {compra:?} no está por conciliar (vea `gate ventas`)"))?;
    let (liquidada, transaccion) = match resolution {
        Resolution::Paid { transaction } => (true, Some(transaction)),
        Resolution::Unpaid => (false, None),
    };
    let unix = now();
    let record = Record {
        fecha: iso8601(unix),
        unix,
        compra: compra.to_owned(),
        event: Event::Conciliado(Reconciled { liquidada, transaccion, nota: nota.to_owned() }),
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
