//! `gate ventas --desde/--hasta` and `--formato csv`: the report of a period, and its sales as
//! CSV for a spreadsheet or an accountant. The exit status tells monitoring whether uncertain
//! purchases wait to be reconciled ([`PENDING_EXIT_CODE`]).

use super::period::Period;
use super::report::{Report, Totals, usdc};

/// `gate ventas` exits with this when the record holds purchases to reconcile (1 is an error,
/// 2 a wrong command line).
pub const PENDING_EXIT_CODE: i32 = 3;

/// The report restricted to the sales and re-accesses of `period`, its totals recounted. The
/// purchases to reconcile stay, whatever their day: they wait for the publisher either way.
pub fn within(mut report: Report, period: &Period) -> Report {
    if period.is_all() {
        return report;
    }
    report.sales.retain(|s| period.contains(&s.date));
    report.reaccesses.retain(|r| period.contains(&r.date));
    report.totals = Totals::of(&report.sales);
    report.period = Some(period.clone());
    report
}

/// The CSV header: one row per sale, amounts in the asset's atomic units and in USDC.
const CSV_HEADER: [&str; 15] = [
    "fecha",
    "compra",
    "estudio",
    "vista",
    "red",
    "pagador",
    "monto",
    "usdc",
    "activo",
    "protocolo",
    "transaccion",
    "origen",
    "entregado",
    "reaccesos",
    "impugnada",
];

/// The report's sales as CSV (RFC 4180: comma-separated, CRLF line ends, fields quoted when
/// they hold a comma, a quote or a line break), in the journal's order.
pub fn csv(report: &Report) -> String {
    let mut out = String::new();
    push_row(&mut out, CSV_HEADER.iter().map(|h| h.to_string()));
    for sale in &report.sales {
        let origin = serde_json::to_value(sale.origin).ok().and_then(|v| v.as_str().map(str::to_owned));
        push_row(
            &mut out,
            [
                sale.date.clone(),
                sale.purchase.clone(),
                sale.study.clone(),
                sale.view.clone(),
                sale.network.clone(),
                sale.payer.clone(),
                sale.amount.clone(),
                usdc(sale.amount.parse::<u128>().unwrap_or(0)),
                sale.asset.clone(),
                sale.protocol.as_str().to_owned(),
                sale.transaction.clone(),
                origin.unwrap_or_default(),
                if sale.delivered { "si" } else { "no" }.to_owned(),
                sale.reaccesses.to_string(),
                sale.disputed.clone().unwrap_or_default(),
            ]
            .into_iter(),
        );
    }
    out
}

fn push_row(out: &mut String, fields: impl Iterator<Item = String>) {
    for (i, field) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if field.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&field.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(&field);
        }
    }
    out.push_str("\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_are_whole_days_both_inclusive() {
        let period = Period::parse(Some("2026-11-01"), Some("2026-11-30")).expect("valid");
        assert!(period.contains("2026-11-01T00:00:00Z"));
        assert!(period.contains("2026-11-30T23:59:59Z"));
        assert!(!period.contains("2026-10-31T23:59:59Z"));
        assert!(!period.contains("2026-12-01T00:00:00Z"));
        assert!(Period::parse(None, None).expect("all").contains("1999-01-01T00:00:00Z"));
        assert!(Period::parse(Some("2026-11-31x"), None).is_err());
        assert!(Period::parse(Some("2026-13-01"), None).is_err());
        assert!(Period::parse(None, Some("01/11/2026")).is_err());
        let reversed = Period::parse(Some("2026-12-01"), Some("2026-11-01")).unwrap_err().to_string();
        assert!(reversed.contains("posterior"), "{reversed}");
    }

    #[test]
    fn csv_fields_are_quoted_only_when_they_must_be() {
        let mut out = String::new();
        push_row(&mut out, ["a".to_owned(), "b,c".to_owned(), "d\"e".to_owned(), "f\ng".to_owned()].into_iter());
        assert_eq!(out, "a,\"b,c\",\"d\"\"e\",\"f\ng\"\r\n");
    }
}
