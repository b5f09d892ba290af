//! `gate ventas` as a process over a journal: `--desde/--hasta`, `--formato csv`, and the exit
//! status monitoring alerts on (3 while uncertain purchases wait to be reconciled).

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

use gate::sales::export::PENDING_EXIT_CODE;
use gate::sales::journal::{Accepted, Event, Failed, Handed, Protocol, Record, Settled, append_one};
use serde_json::Value;

const PAYER: &str = "0x5a5A5a5A5a5a5A5A5a5a5a5a5A5a5A5A5a5A5a5a";
const PAY_TO: &str = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

fn accepted(purchase: &str, study: &str) -> Event {
    Event::Accepted(Accepted {
        study: study.into(),
        view: "completo".into(),
        network: "eip155:84532".into(),
        payer: PAYER.into(),
        nonce: format!("0x{purchase}"),
        amount: "990000".into(),
        asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e".into(),
        pay_to: PAY_TO.into(),
        valid_until: 2_000_000_000,
        valid_from: 0,
        fingerprint: format!("huella-{purchase}"),
        identifier: None,
        protocol: Protocol::X402,
    })
}

fn write(journal: &Path, day: &str, purchase: &str, event: Event) {
    let record = Record { date: format!("{day}T12:00:00Z"), unix: 1_790_000_000, purchase: purchase.into(), event };
    append_one(journal, &record).unwrap();
}

/// A sale settled and delivered on `day`.
fn sale(journal: &Path, day: &str, purchase: &str, study: &str) {
    let transaction = format!("0x{}", purchase.repeat(64 / purchase.len()));
    write(journal, day, purchase, accepted(purchase, study));
    let settled = Settled {
        transaction: transaction.clone(),
        network: "eip155:84532".into(),
        payer: PAYER.into(),
        recovered: false,
    };
    write(journal, day, purchase, Event::Settled(settled));
    write(journal, day, purchase, Event::Delivered(Handed { transaction, bytes: 100 }));
}

/// `gate ventas ARGS… --data DATA`: exit code, stdout, stderr.
fn sales(data: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_gate"))
        .arg("ventas")
        .args(args)
        .args(["--data", &data.display().to_string()])
        .env_remove("GATE_VENTAS")
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn csv_by_period_and_an_exit_status_for_uncertain_purchases() {
    let data = tempfile::tempdir().unwrap();
    let journal = data.path().join(gate::settings::PURCHASES_FILE);
    sale(&journal, "2026-10-31", "aa", "banca-2026");
    sale(&journal, "2026-11-01", "bb", "farma-2026");
    sale(&journal, "2026-11-30", "cc", "banca-2026");
    sale(&journal, "2026-12-01", "dd", "farma-2026");

    // No purchase to reconcile: exit 0; every sale as CSV, a header and one CRLF row each.
    let (code, csv, stderr) = sales(data.path(), &["--formato", "csv"]);
    assert_eq!(code, 0, "{stderr}");
    let rows: Vec<&str> = csv.split_terminator("\r\n").collect();
    assert_eq!(
        rows[0],
        "fecha,compra,estudio,vista,red,pagador,monto,usdc,activo,protocolo,transaccion,origen,entregado,reaccesos,impugnada"
    );
    assert_eq!(rows.len(), 5, "{csv}");
    assert_eq!(
        rows[1],
        format!(
            "2026-10-31T12:00:00Z,aa,banca-2026,completo,eip155:84532,{PAYER},990000,0.99,0x036CbD53842c5426634e7929541eC2318f3dCF7e,x402,0x{},liquidada,si,0,",
            "aa".repeat(32)
        )
    );

    // November only: the two sales of its first and last day.
    let (code, csv, _) = sales(data.path(), &["--formato", "csv", "--desde", "2026-11-01", "--hasta", "2026-11-30"]);
    assert_eq!(code, 0);
    let purchases: Vec<&str> = csv.split_terminator("\r\n").skip(1).map(|r| r.split(',').nth(1).unwrap()).collect();
    assert_eq!(purchases, ["bb", "cc"]);
    let (_, json, _) = sales(data.path(), &["--json", "--desde", "2026-11-01", "--hasta", "2026-11-30"]);
    let report: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["periodo"], serde_json::json!({"desde": "2026-11-01", "hasta": "2026-11-30"}));
    assert_eq!(report["totales"]["general"]["ventas"], 2);
    assert_eq!(report["totales"]["general"]["usdc"], "1.98");
    assert_eq!(report["totales"]["por_dia"].as_object().unwrap().len(), 2);
    let (_, table, _) = sales(data.path(), &["--desde", "2026-12-01"]);
    assert!(table.contains("Período: 2026-12-01 a hoy") && table.contains("Ventas liquidadas: 1"), "{table}");

    // An uncertain purchase: every form exits 3 and says why on stderr (stdout stays the report).
    write(&journal, "2026-12-02", "ee", accepted("ee", "banca-2026"));
    let failed = Failed {
        reason: "liquidacion_incierta".into(),
        message: "el facilitador no respondió a tiempo".into(),
        uncertain: true,
        transaction: None,
    };
    write(&journal, "2026-12-02", "ee", Event::Failed(failed));
    for args in [&["--formato", "csv"][..], &["--json"], &[], &["--desde", "2026-11-01", "--hasta", "2026-11-01"]] {
        let (code, stdout, stderr) = sales(data.path(), args);
        assert_eq!(code, PENDING_EXIT_CODE, "{args:?}: {stderr}");
        assert!(stderr.contains("1 compras inciertas por conciliar"), "{stderr}");
        assert!(!stdout.is_empty() && !stdout.contains("inciertas por conciliar (gate"), "{stdout}");
    }
    let (_, json, _) = sales(data.path(), &["--json", "--hasta", "2026-10-31"]);
    let report: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["pendientes"].as_array().unwrap().len(), 1, "pending purchases are listed whatever the period");

    // Reconciled as not paid: back to 0.
    let (code, _, stderr) = sales(data.path(), &["conciliar", "ee", "--sin-pago", "--nota", "nonce sin usar"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(sales(data.path(), &["--formato", "csv"]).0, 0);

    // Wrong dates are refused (exit 1), and so is a reversed period.
    let (code, _, stderr) = sales(data.path(), &["--desde", "01/11/2026"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("se espera una fecha AAAA-MM-DD"), "{stderr}");
    let (code, _, stderr) = sales(data.path(), &["--desde", "2026-12-01", "--hasta", "2026-11-01"]);
    assert_eq!((code, stderr.contains("posterior")), (1, true), "{stderr}");
}
