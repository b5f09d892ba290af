//! TLS to the shared sales record: managed PostgreSQL services require it, and the record holds
//! every buyer's address and transaction. The URL's `sslmode` says whether (tokio-postgres's
//! three: `disable`; `prefer`, the default, TLS whenever the server offers it; `require`), and
//! rustls always checks the server's certificate and name, against the system's roots or the CA
//! of `sslrootcert` (libpq's name for it, which tokio-postgres does not parse, so it is taken out
//! of the URL here). There is no mode that accepts any certificate.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio_postgres_rustls::MakeRustlsConnect;

/// The query parameter naming the CA file that signed the server's certificate.
const ROOT_CERT: &str = "sslrootcert";

/// Takes `sslrootcert=PATH` out of a `postgres://` URL: the URL tokio-postgres can parse, and
/// the path (percent-decoded), if there was one.
pub fn take_root_cert(url: &str) -> (String, Option<PathBuf>) {
    let Some((base, query)) = url.split_once('?') else { return (url.to_owned(), None) };
    let mut root_cert = None;
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| match pair.split_once('=') {
            Some((ROOT_CERT, value)) => {
                root_cert = Some(PathBuf::from(percent_decode(value)));
                false
            }
            _ => !pair.is_empty(),
        })
        .collect();
    let url = if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) };
    (url, root_cert)
}

/// `%2F` → `/` and the like; anything malformed is kept as written.
fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The TLS connector for the pool: trusting only `root_cert`'s certificates when given, the
/// system's roots otherwise.
pub fn connector(root_cert: Option<&Path>) -> Result<MakeRustlsConnect> {
    let mut roots = rustls::RootCertStore::empty();
    match root_cert {
        Some(path) => {
            let certificates: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                .and_then(|certs| certs.collect())
                .map_err(|e| anyhow!("sslrootcert {}: no se pudo leer como certificados PEM ({e})", path.display()))?;
            if certificates.is_empty() {
                anyhow::bail!("sslrootcert {}: no tiene ningún certificado PEM", path.display());
            }
            for certificate in certificates {
                roots
                    .add(certificate)
                    .with_context(|| format!("sslrootcert {}: un certificado no es válido", path.display()))?;
            }
        }
        None => {
            // Certificates the system holds but rustls cannot use are skipped, as browsers do.
            let loaded = rustls_native_certs::load_native_certs();
            roots.add_parsable_certificates(loaded.certs);
        }
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS con la base de ventas: versiones de protocolo")?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_cert_is_taken_out_of_the_url_and_the_rest_kept() {
        let (url, root) =
            take_root_cert("postgres://u:p@db:5432/v?sslmode=require&sslrootcert=%2Fetc%2Fca.pem&connect_timeout=3");
        assert_eq!(url, "postgres://u:p@db:5432/v?sslmode=require&connect_timeout=3");
        assert_eq!(root.as_deref(), Some(Path::new("/etc/ca.pem")));
        let (url, root) = take_root_cert("postgres://u@db/v?sslrootcert=/ca.pem");
        assert_eq!((url.as_str(), root.as_deref()), ("postgres://u@db/v", Some(Path::new("/ca.pem"))));
        assert_eq!(take_root_cert("postgres://u@db/v"), ("postgres://u@db/v".to_owned(), None));
    }

    #[test]
    fn a_root_cert_that_is_not_pem_is_refused_naming_the_file() {
        let folder = tempfile::tempdir().expect("tempdir");
        let path = folder.path().join("ca.pem");
        std::fs::write(&path, "no es un certificado").expect("write");
        let error = connector(Some(&path)).err().expect("refused").to_string();
        assert!(error.contains("sslrootcert") && error.contains("ca.pem"), "{error}");
        let missing = connector(Some(&folder.path().join("no-existe.pem"))).err().expect("refused").to_string();
        assert!(missing.contains("no-existe.pem"), "{missing}");
    }
}
