//! The `comprar` command line as clap reads it: kept in the library so the book's command
//! reference and man page are generated from this very definition (`cargo run -p tests --bin referencia`).

use std::path::PathBuf;

/// The environment variables `comprar` reads.
pub const ENVIRONMENT: &[(&str, &str)] =
    &[("COMPRAR_KEY", "Clave privada de la billetera en hexadecimal, si no se da --clave ni --archivo-clave.")];

/// What `comprar`'s exit status means.
pub const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Compró (o verificó el recibo) y cada archivo coincide con su sha256."),
    ("1", "Un error: el pago, la descarga o la verificación falló."),
    ("2", "La línea de comando está mal escrita."),
];

#[derive(Debug, clap::Parser)]
#[command(
    name = "comprar",
    about = "Compra un estudio con x402 v2, guarda el recibo firmado y descarga sus archivos verificando el sha256.",
    after_help = cli::epilogue(ENVIRONMENT, EXIT_STATUS),
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// URL del estudio, p. ej. http://127.0.0.1:8080/estudio/banca-2026
    #[arg(required = true, value_name = "URL")]
    pub url: Option<String>,
    /// Clave privada en hexadecimal (o la variable COMPRAR_KEY).
    #[arg(long = "clave", alias = "key", value_name = "CLAVE", conflicts_with = "key_file")]
    pub key: Option<String>,
    /// Archivo con la clave privada en hexadecimal.
    #[arg(long = "archivo-clave", alias = "key-file", value_name = "ARCHIVO")]
    pub key_file: Option<PathBuf>,
    /// Vista a comprar: completo (por defecto) o resumen.
    #[arg(long = "vista", value_name = "VISTA")]
    pub view: Option<String>,
    /// Carpeta donde se guardan el estudio, su recibo y sus archivos (var/ no entra en git).
    #[arg(long = "salida", alias = "out", value_name = "CARPETA", default_value = "./var/compras")]
    pub out: PathBuf,
    /// Firmar con la billetera en lugar de pagar (sign-in-with-x): si esa billetera ya compró
    /// el estudio, lo recibe de nuevo con enlaces nuevos y sin cobro.
    #[arg(long = "reacceso")]
    pub reaccess: bool,
}

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Verifica un recibo firmado por el editor: la firma, la clave que firmó y el sha256 de los archivos descargados.
    #[command(name = "verificar-recibo")]
    VerifyReceipt(VerifyArgs),
}

#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// Archivo del recibo (el ….recibo.json que guarda comprar, o un PAYMENT-RESPONSE decodificado).
    #[arg(value_name = "RECIBO")]
    pub receipt: PathBuf,
    /// Clave pública del editor que debe haber firmado: did:key:z6Mk… (la de /.well-known/did.json del servicio).
    #[arg(long = "clave-publica", value_name = "DID_KEY")]
    pub public_key: Option<String>,
    /// Carpeta con los archivos descargados; por defecto, la carpeta del recibo.
    #[arg(long = "archivos", value_name = "CARPETA")]
    pub files_dir: Option<PathBuf>,
}
