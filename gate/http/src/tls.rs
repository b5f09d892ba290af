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
use async_trait::async_trait;
use parking_lot::RwLock;
use pingora_core::apps::ServerApp;
use pingora_core::listeners::tls::Acceptor;
use pingora_core::protocols::Stream;
use pingora_core::server::ShutdownWatch;
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

/// The PEM files of the gate's certificate (`--certificado-tls`) and key (`--clave-tls`).
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

    /// The rustls configuration the listener serves: TLS 1.3 and 1.2 with aws-lc-rs's suites in
    /// the server's order (all AEAD with forward secrecy; the server's order wins over the
    /// client's, as testssl expects), the hybrid post-quantum key exchange X25519MLKEM768 first
    /// for clients that offer it, this certificate for every handshake, ALPN `h2` then
    /// `http/1.1`. aws-lc rather than ring: its AES-GCM uses AVX-512 where the CPU has it, and
    /// encryption is the largest single cost of an HTTPS answer.
    fn server_config(self: &Arc<Self>) -> Result<Arc<ServerConfig>> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
            .map_err(|e| anyhow::anyhow!("TLS: {e}"))?
            .with_no_client_auth()
            .with_cert_resolver(Arc::clone(self) as Arc<dyn ResolvesServerCert>);
        config.ignore_client_order = true;
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Arc::new(config))
    }
}

/// An HTTP application behind the listener, with a TLS handshake first when the gate serves
/// HTTPS: Pingora's listener accepts plain TCP, this does the handshake with
/// [`Certificate::server_config`] (which Pingora's own TLS settings cannot express: the server's
/// cipher order) and hands the encrypted stream to the application, which picks HTTP/2 or
/// HTTP/1.1 by ALPN. Without a certificate the stream goes to the application as it came.
pub struct TlsApp<A> {
    inner: Arc<A>,
    acceptor: Option<Acceptor>,
}

impl<A> TlsApp<A> {
    pub fn new(inner: A, certificate: Option<&Arc<Certificate>>) -> Result<TlsApp<A>> {
        let acceptor = certificate.map(|c| c.server_config().map(Acceptor::from_server_config)).transpose()?;
        Ok(TlsApp { inner: Arc::new(inner), acceptor })
    }
}

/// An application that serves plain (unencrypted) connections its own way: the gate's fast lane
/// ([`crate::quick`]).
#[async_trait]
pub trait ServesPlain: ServerApp {
    async fn serve_plain(self: &Arc<Self>, stream: Stream, shutdown: &ShutdownWatch) -> Option<Stream>;
}

#[async_trait]
impl<A: ServesPlain + Send + Sync + 'static> ServerApp for TlsApp<A> {
    async fn process_new(self: &Arc<Self>, stream: Stream, shutdown: &ShutdownWatch) -> Option<Stream> {
        let Some(acceptor) = &self.acceptor else { return self.inner.serve_plain(stream, shutdown).await };
        let peer = stream.get_socket_digest().and_then(|d| d.peer_addr().cloned());
        // Pingora's listener hands over its TCP stream boxed; the handshake wants it unboxed.
        let Ok(tcp) = stream.into_any().downcast::<pingora_core::protocols::l4::stream::Stream>() else {
            tracing::error!(target: "tls", "conexión de un tipo inesperado: se cierra");
            return None;
        };
        match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.tls_handshake(*tcp)).await {
            Ok(Ok(encrypted)) => self.inner.process_new(Box::new(encrypted), shutdown).await,
            // Scanners and clients of other protocols fail here all day: not worth a warning.
            Ok(Err(e)) => {
                tracing::debug!(target: "tls", "apretón de manos fallido con {peer:?}: {e}");
                None
            }
            Err(_) => {
                tracing::debug!(target: "tls", "apretón de manos sin terminar en {HANDSHAKE_TIMEOUT:?} con {peer:?}");
                None
            }
        }
    }
}

/// How long a client has to complete the TLS handshake.
const HANDSHAKE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

impl ResolvesServerCert for Certificate {
    fn resolve(&self, _client_hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(&self.current.read()))
    }
}

/// The chain and key of `files`, checked against each other.
fn certified_key(files: &TlsFiles) -> Result<CertifiedKey> {
    let chain = read_chain(&files.cert)?;
    let key = read_key(&files.key)?;
    let signing = rustls::crypto::aws_lc_rs::sign::any_supported_type(&key).map_err(|e| {
        anyhow::anyhow!("--clave-tls {}: clave de un tipo que rustls no admite: {e}", files.key.display())
    })?;
    let certified = CertifiedKey::new(chain, signing);
    certified.keys_match().map_err(|_| {
        anyhow::anyhow!(
            "--clave-tls {} no corresponde al certificado de --certificado-tls {}",
            files.key.display(),
            files.cert.display()
        )
    })?;
    Ok(certified)
}

fn read_chain(path: &Path) -> Result<Vec<CertificateDer<'static>>> {
    let bytes =
        std::fs::read(path).with_context(|| format!("--certificado-tls: no se pudo leer {}", path.display()))?;
    let chain = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("--certificado-tls {}: PEM ilegible: {e}", path.display()))?;
    if chain.is_empty() {
        bail!("--certificado-tls {}: no hay ningún certificado PEM (-----BEGIN CERTIFICATE-----)", path.display());
    }
    Ok(chain)
}

fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>> {
    let bytes = std::fs::read(path).with_context(|| format!("--clave-tls: no se pudo leer {}", path.display()))?;
    PrivateKeyDer::from_pem_slice(&bytes)
        .map_err(|e| anyhow::anyhow!("--clave-tls {}: no hay una clave privada PEM legible: {e}", path.display()))
}
