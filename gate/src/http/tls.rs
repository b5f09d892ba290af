//! TLS on the gate's own listener (rustls, the same crypto stack as the facilitator client), so
//! a publisher on one server needs nothing in front of the gate: HTTPS with ALPN `h2` and
//! `http/1.1`, and the certificate reloaded on SIGHUP without dropping a connection.
//!
//! The certificate is handed to each handshake by [`Certificate`], a resolver that holds the
//! current chain and key. SIGHUP reads the PEM files again and swaps them in if they are
//! valid: connections already open keep the session they negotiated, new handshakes get the new
//! certificate, and a broken file leaves the running one in place with an error in the log.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use parking_lot::RwLock;
use pingora_core::listeners::tls::TlsSettings;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

/// The PEM files of the gate's certificate (`--tls-cert`) and key (`--tls-key`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// The certificate every TLS handshake gets, swappable under a running server.
#[derive(Debug)]
pub struct Certificate {
    files: TlsFiles,
    current: RwLock<Arc<CertifiedKey>>,
}

impl Certificate {
    /// Loads and checks the files (the chain, the key, and that they belong together).
    pub fn load(files: TlsFiles) -> Result<Arc<Certificate>> {
        let key = certified_key(&files)?;
        Ok(Arc::new(Certificate { files, current: RwLock::new(Arc::new(key)) }))
    }

    /// Reads the files again; on success new handshakes use them, on error nothing changes.
    pub fn reload(&self) -> Result<()> {
        let key = certified_key(&self.files)?;
        *self.current.write() = Arc::new(key);
        Ok(())
    }

    /// Pingora's TLS settings for a listener serving this certificate, HTTP/2 offered first.
    pub fn settings(self: &Arc<Self>) -> Result<TlsSettings> {
        // The paths are required by the constructor and ignored once a resolver is set.
        let mut settings =
            TlsSettings::intermediate(&self.files.cert.to_string_lossy(), &self.files.key.to_string_lossy())
                .map_err(|e| anyhow::anyhow!("TLS: {e}"))?;
        settings.set_cert_resolver(Arc::clone(self) as Arc<dyn ResolvesServerCert>);
        settings.enable_h2();
        Ok(settings)
    }
}

impl ResolvesServerCert for Certificate {
    fn resolve(&self, _client_hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(&self.current.read()))
    }
}

/// The chain and key of `files`, checked against each other.
fn certified_key(files: &TlsFiles) -> Result<CertifiedKey> {
    let chain = read_chain(&files.cert)?;
    let key = read_key(&files.key)?;
    let signing = rustls::crypto::ring::sign::any_supported_type(&key).map_err(|e| {
        anyhow::anyhow!("--tls-key {}: clave de un tipo que rustls no admite: {e}", files.key.display())
    })?;
    let certified = CertifiedKey::new(chain, signing);
    certified.keys_match().map_err(|_| {
        anyhow::anyhow!(
            "--tls-key {} no corresponde al certificado de --tls-cert {}",
            files.key.display(),
            files.cert.display()
        )
    })?;
    Ok(certified)
}

fn read_chain(path: &Path) -> Result<Vec<CertificateDer<'static>>> {
    let bytes = std::fs::read(path).with_context(|| format!("--tls-cert: no se pudo leer {}", path.display()))?;
    let chain = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("--tls-cert {}: PEM ilegible: {e}", path.display()))?;
    if chain.is_empty() {
        bail!("--tls-cert {}: no hay ningún certificado PEM (-----BEGIN CERTIFICATE-----)", path.display());
    }
    Ok(chain)
}

fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>> {
    let bytes = std::fs::read(path).with_context(|| format!("--tls-key: no se pudo leer {}", path.display()))?;
    PrivateKeyDer::from_pem_slice(&bytes)
        .map_err(|e| anyhow::anyhow!("--tls-key {}: no hay una clave privada PEM legible: {e}", path.display()))
}
