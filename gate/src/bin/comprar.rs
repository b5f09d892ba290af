//! `comprar`: buys a study over x402 v2 with an EVM key, saves it, and downloads its files
//! through the signed links, verifying each sha256 (an interrupted download resumes with `Range`).
//! With `--reacceso` the key signs in (x402 `sign-in-with-x`) instead of paying: a wallet that
//! bought the study gets it again, with fresh links and no charge.
//!
//! ```sh
//! comprar http://127.0.0.1:8080/estudio/banca-2026 --key 0xac09…ff80 [--vista resumen] [--out DIR (var/compras)] [--reacceso]
//! ```

use std::path::PathBuf;

use alloy_signer_local::PrivateKeySigner;
use anyhow::{Context, Result, bail};
use gate::buyer::{buy, download_verified, reaccess};

#[derive(Debug, clap::Parser)]
#[command(name = "comprar", about = "Compra un estudio con x402 v2 y descarga sus archivos verificando el sha256.")]
struct Args {
    /// URL del estudio, p. ej. http://127.0.0.1:8080/estudio/banca-2026
    url: String,
    /// Clave privada en hexadecimal (o la variable COMPRAR_KEY).
    #[arg(long, conflicts_with = "key_file")]
    key: Option<String>,
    /// Archivo con la clave privada en hexadecimal.
    #[arg(long)]
    key_file: Option<PathBuf>,
    /// Vista a comprar: completo (por defecto) o resumen.
    #[arg(long)]
    vista: Option<String>,
    /// Carpeta donde se guardan el estudio y sus archivos (var/ no entra en git).
    #[arg(long, default_value = "./var/compras")]
    out: PathBuf,
    /// Firmar con la billetera en lugar de pagar (sign-in-with-x): si esa billetera ya compró
    /// el estudio, lo recibe de nuevo con enlaces nuevos y sin cobro.
    #[arg(long)]
    reacceso: bool,
}

fn main() {
    if let Err(e) = run() {
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
            .context("falta la clave: use --key HEX, --key-file ARCHIVO o la variable COMPRAR_KEY")?,
    };
    text.trim().parse().context("la clave no es una clave privada secp256k1 en hexadecimal")
}

fn study_url(args: &Args) -> Result<(url::Url, String)> {
    let mut url = url::Url::parse(&args.url).with_context(|| format!("URL inválida: {}", args.url))?;
    let slug = url
        .path()
        .strip_prefix("/estudio/")
        .filter(|s| !s.is_empty() && !s.contains('/'))
        .context("la URL debe ser la de un estudio: …/estudio/{slug}")?
        .to_owned();
    if let Some(vista) = &args.vista {
        let others: Vec<(String, String)> =
            url.query_pairs().filter(|(k, _)| k != "vista").map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        url.query_pairs_mut().clear().extend_pairs(others).append_pair("vista", vista);
    }
    Ok((url, slug))
}

fn run() -> Result<()> {
    let args: Args = cli::parse();
    let signer = key(&args)?;
    let (url, slug) = study_url(&args)?;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder().build()?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let purchase = if args.reacceso {
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
        if args.reacceso {
            let again = &purchase.body["reacceso"];
            println!(
                "Recibido de nuevo sin cobro: {name} ({view}); lo compró en la transacción {} (vista {})",
                again["transaccion"].as_str().unwrap_or("?"),
                again["vista_comprada"].as_str().unwrap_or("?")
            );
        } else {
            let settlement = purchase.payment_response.context("la respuesta 200 no trae PAYMENT-RESPONSE")?;
            println!(
                "Pagado: {name} ({view}), transacción {} en {}, pagador {}",
                settlement.transaction,
                settlement.network,
                settlement.payer.unwrap_or_default()
            );
        }
        std::fs::create_dir_all(&args.out).with_context(|| format!("no se pudo crear {}", args.out.display()))?;
        let saved = args.out.join(format!("{slug}.{}.json", purchase.body["vista"].as_str().unwrap_or("completo")));
        std::fs::write(&saved, serde_json::to_vec_pretty(&purchase.body)?)
            .with_context(|| format!("no se pudo escribir {}", saved.display()))?;
        println!("Guardado {}", saved.display());
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
