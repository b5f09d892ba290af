//! `comprar`: buys a study over x402 v2 with an EVM key, saves it and the publisher's signed
//! receipt, and downloads its files through the signed links, verifying each sha256 (an
//! interrupted download resumes with `Range`). With `--reacceso` the key signs in (x402
//! `sign-in-with-x`) instead of paying: a wallet that bought the study gets it again, with fresh
//! links and no charge. `comprar verificar-recibo` checks a saved receipt (its signature, the
//! publisher's key, and the sha256 of the files beside it).
//!
//! ```sh
//! comprar http://127.0.0.1:8080/estudio/banca-2026 --key 0xac09…ff80 [--vista resumen] [--out DIR (var/compras)] [--reacceso]
//! comprar verificar-recibo var/compras/banca-2026.resumen.recibo.json [--clave-publica did:key:z6Mk…] [--archivos DIR]
//! ```

use std::path::Path;

use alloy_signer_local::PrivateKeySigner;
use anyhow::{Context, Result, bail};
use gate::buyer::cli::{Args, Command, VerifyArgs};
use gate::buyer::{FileCheck, ReceiptReport, buy, check_receipt, download_verified, reaccess, receipt_of};
use gate::x402::receipt::{DID_DOCUMENT_PATH, PublicKey};

fn main() {
    let mut args: Args = cli::parse();
    let result = match args.command.take() {
        Some(Command::VerifyReceipt(verify)) => verify_receipt(&verify),
        None => run(args),
    };
    if let Err(e) = result {
        eprintln!("comprar: {}", cli::error_line(e.as_ref()));
        std::process::exit(1);
    }
}

fn key(args: &Args) -> Result<PrivateKeySigner> {
    let text = match (&args.key, &args.key_file) {
        (Some(k), _) => k.clone(),
        (None, Some(file)) => {
            std::fs::read_to_string(file).with_context(|| format!("no se pudo leer {}", file.display()))?
        }
        (None, None) => std::env::var("COMPRAR_KEY")
            .ok()
            .context("falta la clave: use --clave HEX, --archivo-clave ARCHIVO o la variable COMPRAR_KEY")?,
    };
    text.trim().parse().context("la clave no es una clave privada secp256k1 en hexadecimal")
}

fn study_url(args: &Args) -> Result<(url::Url, String)> {
    let raw = args.url.as_deref().context("falta la URL del estudio")?;
    let mut url = url::Url::parse(raw).with_context(|| format!("URL inválida: {raw}"))?;
    let slug = url
        .path()
        .strip_prefix("/estudio/")
        .filter(|s| !s.is_empty() && !s.contains('/'))
        .context("la URL debe ser la de un estudio: …/estudio/{slug}")?
        .to_owned();
    if let Some(view) = &args.view {
        let others: Vec<(String, String)> =
            url.query_pairs().filter(|(k, _)| k != "vista").map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        url.query_pairs_mut().clear().extend_pairs(others).append_pair("vista", view);
    }
    Ok((url, slug))
}

fn run(args: Args) -> Result<()> {
    let signer = key(&args)?;
    let (url, slug) = study_url(&args)?;
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let client = reqwest::Client::builder().build()?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let purchase = if args.reaccess {
            println!("Pidiendo de nuevo {url} con la cuenta {} (sign-in-with-x, sin pagar)", signer.address());
            reaccess(&client, url.as_str(), &url.origin().ascii_serialization(), &signer).await?
        } else {
            println!("Comprando {url} con la cuenta {}", signer.address());
            buy(&client, url.as_str(), &signer, gate::clock::now()).await?
        };
        if purchase.status != 200 {
            let error = purchase.body.get("error").and_then(|v| v.as_str()).unwrap_or("?");
            let message = purchase.body.get("mensaje").and_then(|v| v.as_str()).unwrap_or("");
            bail!("el servicio respondió {}: {error}: {message}", purchase.status);
        }
        let (name, view) =
            (purchase.body["nombre"].as_str().unwrap_or(&slug), purchase.body["vista"].as_str().unwrap_or(""));
        let settlement = if args.reaccess {
            let again = &purchase.body["reacceso"];
            println!(
                "Recibido de nuevo sin cobro: {name} ({view}); lo compró en la transacción {} (vista {})",
                again["transaccion"].as_str().unwrap_or("?"),
                again["vista_comprada"].as_str().unwrap_or("?")
            );
            None
        } else {
            let settlement = purchase.payment_response.context("la respuesta 200 no trae PAYMENT-RESPONSE")?;
            println!(
                "Pagado: {name} ({view}), transacción {} en {}, pagador {}",
                settlement.transaction,
                settlement.network,
                settlement.payer.as_deref().unwrap_or_default()
            );
            Some(settlement)
        };
        std::fs::create_dir_all(&args.out).with_context(|| format!("no se pudo crear {}", args.out.display()))?;
        let stem = format!("{slug}.{}", purchase.body["vista"].as_str().unwrap_or("completo"));
        let saved = args.out.join(format!("{stem}.json"));
        std::fs::write(&saved, serde_json::to_vec_pretty(&purchase.body)?)
            .with_context(|| format!("no se pudo escribir {}", saved.display()))?;
        println!("Guardado {}", saved.display());
        match settlement.as_ref().and_then(receipt_of) {
            Some(signed) => {
                let path = args.out.join(format!("{stem}.recibo.json"));
                let mut bytes = serde_json::to_vec_pretty(signed)?;
                bytes.push(b'\n');
                std::fs::write(&path, bytes).with_context(|| format!("no se pudo escribir {}", path.display()))?;
                println!("Recibo firmado guardado en {} (compruébelo con comprar verificar-recibo)", path.display());
            }
            None if args.reaccess => {
                println!("Un reacceso no trae recibo nuevo: el recibo firmado es el de la compra original.")
            }
            None => println!("El servicio no entregó un recibo firmado (extensión offer-receipt)."),
        }
        for kind in ["json", "zip"] {
            let link = &purchase.body["acceso"]["descargas"][kind];
            let (Some(link_url), Some(sha)) = (link["url"].as_str(), link["sha256"].as_str()) else { continue };
            let name = link["archivo"].as_str().map(str::to_owned).unwrap_or_else(|| format!("{slug}.{kind}"));
            let dest = args.out.join(&name);
            let done = download_verified(&client, link_url, sha, &dest).await?;
            let resumed = match done.resumes {
                0 => String::new(),
                1 => ", reanudado una vez".to_owned(),
                n => format!(", reanudado {n} veces"),
            };
            println!("Descargado {} ({} bytes{resumed}), sha256 verificado", dest.display(), done.bytes);
        }
        println!("Los enlaces vencen el {}", purchase.body["acceso"]["vence"].as_str().unwrap_or("?"));
        Ok(())
    })
}

/// `comprar verificar-recibo`: exits 0 only when the signature holds (under the given key,
/// if any) and every file of the receipt found in the folder matches it.
fn verify_receipt(args: &VerifyArgs) -> Result<()> {
    let text = std::fs::read(&args.receipt).with_context(|| format!("no se pudo leer {}", args.receipt.display()))?;
    let document: serde_json::Value =
        serde_json::from_slice(&text).with_context(|| format!("{} no es JSON", args.receipt.display()))?;
    let expected = args.public_key.as_deref().map(PublicKey::parse).transpose()?;
    let folder = match &args.files_dir {
        Some(folder) => folder.clone(),
        None => args.receipt.parent().map(Path::to_path_buf).unwrap_or_default(),
    };
    let report = check_receipt(&document, expected.as_ref(), Some(&folder))
        .with_context(|| format!("el recibo {} no es válido", args.receipt.display()))?;
    print_report(&report);
    let missing_asked =
        args.files_dir.is_some() && report.files.iter().any(|(_, c)| matches!(c, FileCheck::Missing(_)));
    if !report.files_ok() {
        bail!("algún archivo no coincide con el recibo: no es lo que se vendió, o se dañó");
    }
    if missing_asked {
        bail!("faltan en {} archivos que el recibo nombra", folder.display());
    }
    Ok(())
}

fn print_report(report: &ReceiptReport) {
    let p = &report.payload;
    println!("Firma válida: recibo firmado por {}", report.signer);
    if !report.key_checked {
        println!(
            "  (sin --clave-publica: compare esa clave con la que publica el servicio en {DID_DOCUMENT_PATH} o en llms.txt)"
        );
    }
    println!("Estudio: {} (vista {})", p.study, p.view);
    println!("Recurso: {}", p.resource_url);
    println!("Pago: {} unidades de {} en {} a {} ({})", p.amount, p.asset, p.network, p.pay_to, p.scheme);
    println!("Pagador: {}", p.payer);
    println!("Transacción: {}", p.transaction.as_deref().unwrap_or("(no consta)"));
    println!("Liquidado: {} ({})", gate::clock::iso8601(p.issued_at), p.issued_at);
    for (kind, file) in &p.files {
        let status = match report.files.iter().find(|(k, _)| k == kind).map(|(_, c)| c) {
            Some(FileCheck::Matches) => "coincide".to_owned(),
            Some(FileCheck::Missing(path)) => format!("no está en {}, no se comprobó", path.display()),
            Some(FileCheck::Differs { path, sha256, bytes }) => {
                format!("NO COINCIDE: {} mide {bytes} bytes y su sha256 es {sha256}", path.display())
            }
            None => "no se comprobó".to_owned(),
        };
        println!("Archivo {kind}: {} ({} bytes, sha256 {}): {status}", file.file, file.bytes, file.sha256);
    }
}
