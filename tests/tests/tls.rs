//! HTTPS on the gate's own listener: every route over HTTP/1.1 and HTTP/2 (reqwest and
//! `curl --http2`), a purchase and its download over TLS, and a new certificate swapped in
//! while connections that negotiated the old one keep working.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::gate::*;
use common::{built, read_answer, sha256_hex};
use gate_http::tls::{Certificate, TlsFiles};
use gate_http::{Limits, Running, spawn_tls};
use serde_json::Value;

/// A self-signed certificate for localhost and 127.0.0.1, written as PEM files; returns the
/// files and the certificate's PEM (what a client trusts).
fn write_certificate(dir: &Path, name: &str) -> (TlsFiles, String) {
    let issued =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).expect("certificate");
    let cert_pem = issued.cert.pem();
    let files = TlsFiles { cert: dir.join(format!("{name}.crt")), key: dir.join(format!("{name}.key")) };
    std::fs::write(&files.cert, &cert_pem).expect("cert file");
    std::fs::write(&files.key, issued.signing_key.serialize_pem()).expect("key file");
    (files, cert_pem)
}

/// The real gate over the built `dist/`, serving HTTPS with `certificate`.
fn start_https(certificate: Arc<Certificate>) -> (Running, tempfile::TempDir) {
    let data = tempfile::tempdir().expect("data");
    let local: Arc<dyn gate::facilitator::Facilitator> =
        Arc::new(gate::facilitator::local::LocalFacilitator::new(Default::default()));
    let log = data.path().join(gate::sales::journal::JOURNAL_FILE);
    let gate = gate::app::Gate::load(built(), local, links(), Some(&log)).expect("gate");
    (spawn_tls(Arc::new(gate), 2, Limits::default(), certificate).expect("server"), data)
}

/// A client that trusts only `cert_pem`, speaking HTTP/2 (ALPN) or only HTTP/1.1.
fn https_client(cert_pem: &str, http2: bool) -> reqwest::Client {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let trusted = reqwest::Certificate::from_pem(cert_pem.as_bytes()).expect("PEM");
    let builder = reqwest::Client::builder().tls_certs_only([trusted]);
    let builder = if http2 { builder } else { builder.http1_only() };
    builder.build().expect("client")
}

/// The gate's absolute URLs (built for http://127.0.0.1:8080) pointed at the HTTPS server.
fn on(server: &Running, issued: &str) -> String {
    issued.replacen(BUILT_BASE_URL, &format!("https://localhost:{}", server.addr.port()), 1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_answers_over_http1_and_http2() {
    let dir = tempfile::tempdir().expect("dir");
    let (files, cert_pem) = write_certificate(dir.path(), "gate");
    let (server, _data) = start_https(Certificate::load(files).expect("certificate"));
    let base = format!("https://localhost:{}", server.addr.port());
    for (http2, version) in [(false, reqwest::Version::HTTP_11), (true, reqwest::Version::HTTP_2)] {
        let client = https_client(&cert_pem, http2);
        for (path, status) in [
            ("/", 200),
            ("/catalogo", 200),
            ("/metricas", 200),
            ("/llms.txt", 200),
            ("/buscar?q=bancos", 200),
            ("/estudio/banca-2026", 402),
            ("/no-existe", 404),
        ] {
            let response = client.get(format!("{base}{path}")).send().await.expect("request");
            assert_eq!(response.version(), version, "{path}");
            assert_eq!(response.status().as_u16(), status, "{path} over {version:?}");
            assert!(!response.bytes().await.expect("body").is_empty(), "{path}");
        }
        // MCP over the same connection.
        let listed: Value = client
            .post(format!("{base}/mcp"))
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-06-18")
            .json(&serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
            .send()
            .await
            .expect("mcp")
            .json()
            .await
            .expect("JSON-RPC");
        assert!(listed["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{listed}");

        // A purchase and both downloads of it, whole and by range.
        let purchase =
            gate::buyer::buy(&client, &format!("{base}/estudio/farma-2026?vista=resumen"), &signer(DEV_KEY), now())
                .await
                .expect("purchase");
        assert_eq!(purchase.status, 200, "{}", purchase.body);
        for kind in ["json", "zip"] {
            let link = &purchase.body["acceso"]["descargas"][kind];
            let url = on(&server, link["url"].as_str().expect("url"));
            let whole = client.get(&url).send().await.expect("download");
            assert_eq!(whole.version(), version);
            assert_eq!(whole.status(), 200);
            let bytes = whole.bytes().await.expect("bytes");
            assert_eq!(sha256_hex(&bytes), link["sha256"].as_str().expect("sha"), "{kind} over {version:?}");
            let part = client.get(&url).header("Range", "bytes=1-10").send().await.expect("range");
            assert_eq!(part.status(), 206);
            assert_eq!(part.bytes().await.expect("part"), bytes.slice(1..11));
        }
    }
}

#[test]
fn curl_speaks_http2_to_the_gate() {
    let dir = tempfile::tempdir().expect("dir");
    let (files, _) = write_certificate(dir.path(), "gate");
    let ca = files.cert.clone();
    let (server, _data) = start_https(Certificate::load(files).expect("certificate"));
    let url = format!("https://localhost:{}/catalogo", server.addr.port());
    let out = std::process::Command::new("curl")
        .args(["--silent", "--show-error", "--http2", "--cacert"])
        .arg(&ca)
        .args(["--output", "/dev/null", "--write-out", "%{http_version} %{http_code}"])
        .arg(&url)
        .output()
        .expect("curl runs (apt-get install -y curl)");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "2 200", "{}", String::from_utf8_lossy(&out.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_certificate_is_swapped_in_without_dropping_open_connections() {
    let dir = tempfile::tempdir().expect("dir");
    let (files, old_pem) = write_certificate(dir.path(), "gate");
    let certificate = Certificate::load(files.clone()).expect("certificate");
    let (server, _data) = start_https(Arc::clone(&certificate));
    let base = format!("https://localhost:{}", server.addr.port());
    let old_only = https_client(&old_pem, true);
    assert_eq!(old_only.get(format!("{base}/catalogo")).send().await.expect("first").status(), 200);

    // Replace the files with another certificate and reload, as SIGHUP does.
    let (new_files, new_pem) = write_certificate(dir.path(), "next");
    std::fs::copy(&new_files.cert, &files.cert).expect("swap cert");
    std::fs::copy(&new_files.key, &files.key).expect("swap key");
    certificate.reload().expect("reload");

    // The open HTTP/2 connection keeps its session: it still answers.
    for _ in 0..3 {
        assert_eq!(old_only.get(format!("{base}/catalogo")).send().await.expect("same connection").status(), 200);
    }
    // A new handshake gets the new certificate: a client that trusts only the old one refuses
    // it, one that trusts the new one is served.
    let fresh_old = https_client(&old_pem, false);
    assert!(fresh_old.get(format!("{base}/catalogo")).send().await.is_err(), "the old certificate is gone");
    let fresh_new = https_client(&new_pem, false);
    assert_eq!(fresh_new.get(format!("{base}/catalogo")).send().await.expect("new").status(), 200);

    // A broken file is refused and the running certificate stays.
    std::fs::write(&files.key, "no es una clave").expect("break");
    assert!(certificate.reload().is_err());
    let after = https_client(&new_pem, false);
    assert_eq!(after.get(format!("{base}/catalogo")).send().await.expect("still new").status(), 200);
}

#[test]
fn mismatched_or_missing_files_are_refused_at_load() {
    let dir = tempfile::tempdir().expect("dir");
    let (a, _) = write_certificate(dir.path(), "a");
    let (b, _) = write_certificate(dir.path(), "b");
    let crossed = TlsFiles { cert: a.cert.clone(), key: b.key.clone() };
    let error = Certificate::load(crossed).expect_err("key of another certificate").to_string();
    assert!(error.contains("no corresponde"), "{error}");
    let missing = TlsFiles { cert: PathBuf::from("/no/existe.crt"), key: a.key };
    let error = format!("{:#}", Certificate::load(missing).expect_err("missing"));
    assert!(error.contains("--certificado-tls") && error.contains("/no/existe.crt"), "{error}");
}

/// A `PAYMENT-REQUIRED` value decoded, with the `sign-in-with-x` challenge (nonce and times)
/// blanked out.
fn without_challenge(encoded: &str) -> String {
    let mut required: Value = gate::x402::header::decode_json(encoded).expect("PAYMENT-REQUIRED");
    let info = &mut required["extensions"]["sign-in-with-x"]["info"];
    assert!(info["nonce"].is_string(), "a challenge: {info}");
    for field in ["nonce", "issuedAt", "expirationTime"] {
        info[field] = Value::Null;
    }
    required.to_string()
}

/// Status and headers (lower-cased, without `date`, the 402's challenge blanked), sorted.
async fn head_of(client: &reqwest::Client, url: &str, extra: &[(&str, &str)]) -> (u16, Vec<(String, String)>) {
    let mut request = client.get(url);
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("request");
    let mut headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .filter(|(name, _)| name.as_str() != "date")
        .map(|(name, value)| (name.as_str().to_owned(), value.to_str().expect("ASCII").to_owned()))
        .map(|(name, value)| {
            // Every 402 carries a sign-in challenge of its own: compare the rest.
            let value = if name == "payment-required" { without_challenge(&value) } else { value };
            (name, value)
        })
        .collect();
    headers.sort();
    (response.status().as_u16(), headers)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_heads_say_what_pingora_would_write() {
    // Plain HTTP/1.1 takes the heads serialized ahead (free documents, search answers, the
    // unpaid 402s); HTTPS takes Pingora's path from the same reply. Both must send the same
    // headers for every one of them and each variant.
    let dir = tempfile::tempdir().expect("dir");
    let (files, cert_pem) = write_certificate(dir.path(), "gate");
    let (tls, _tls_data) = start_https(Certificate::load(files).expect("certificate"));
    let plain = start_local(built());
    let https = https_client(&cert_pem, false);
    let http = client();
    let etag =
        head_of(&http, &plain.url("/catalogo"), &[]).await.1.into_iter().find(|(n, _)| n == "etag").expect("etag").1;
    let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("/", vec![]),
        ("/", vec![("Accept", "text/html")]),
        ("/catalogo", vec![]),
        ("/catalogo", vec![("If-None-Match", etag.as_str())]),
        ("/metricas", vec![]),
        ("/llms.txt", vec![]),
        ("/buscar?q=bancos+argentina", vec![]),
        ("/buscar?q=bancos+argentina", vec![]),
        ("/estudio/banca-2026", vec![]),
        ("/estudio/banca-2026?vista=resumen", vec![("Accept", "text/html")]),
    ];
    for (path, extra) in cases {
        let over_http = head_of(&http, &plain.url(path), &extra).await;
        let over_https = head_of(&https, &format!("https://localhost:{}{path}", tls.addr.port()), &extra).await;
        assert_eq!(over_http, over_https, "{path} {extra:?}");
        assert!(over_http.1.iter().any(|(n, v)| n == "connection" && v == "keep-alive"), "{path}");
    }
}

/// The keep-alive rule of the plain listener holds over TLS, where every request goes through
/// Pingora's session: every answer that keeps the connection says how long it may stay idle, a
/// client reusing it exactly at that limit is answered (GET and POST /mcp), a head that starts
/// before the deadline and ends after it is answered, and only a connection left idle past the
/// deadline is closed, with nothing sent on it.
#[test]
fn over_tls_a_kept_alive_connection_says_its_idle_limit_and_only_idle_ones_are_closed() {
    use rustls::pki_types::pem::PemObject;
    use std::io::{Read, Write};
    use std::time::Duration;
    let dir = tempfile::tempdir().expect("dir");
    let (files, cert_pem) = write_certificate(dir.path(), "gate");
    let data = tempfile::tempdir().expect("data");
    let local: Arc<dyn gate::facilitator::Facilitator> =
        Arc::new(gate::facilitator::local::LocalFacilitator::new(Default::default()));
    let log = data.path().join(gate::sales::journal::JOURNAL_FILE);
    let gate = gate::app::Gate::load(built(), local, links(), Some(&log)).expect("gate");
    let limits = Limits { read_timeout: Duration::from_secs(3), ..Limits::default() };
    let server = spawn_tls(Arc::new(gate), 2, limits, Certificate::load(files).expect("certificate")).expect("server");

    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls::pki_types::CertificateDer::pem_slice_iter(cert_pem.as_bytes()) {
        roots.add(cert.expect("PEM")).expect("root");
    }
    let config = rustls::ClientConfig::builder().with_root_certificates(roots).with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from("localhost").expect("name");
    let connection = rustls::ClientConnection::new(Arc::new(config), name).expect("TLS client");
    let socket = std::net::TcpStream::connect(server.addr).expect("connect");
    socket.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    let mut stream = rustls::StreamOwned::new(connection, socket);

    let get = b"GET /catalogo HTTP/1.1\r\nHost: localhost\r\n\r\n";
    let mcp_body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let mcp = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{mcp_body}",
        mcp_body.len()
    );
    for request in [&get[..], mcp.as_bytes(), get] {
        stream.write_all(request).expect("request");
        let (head, _) = read_answer(&mut stream);
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        let lower = head.to_ascii_lowercase();
        assert!(lower.contains("connection: keep-alive\r\n"), "{head}");
        assert!(lower.contains("keep-alive: timeout=2\r\n"), "the limit it says: {head}");
        // Reused exactly at the limit the answer said.
        std::thread::sleep(Duration::from_secs(2));
    }
    // A head that starts before the deadline and ends after it is a request, not an idle
    // connection: answered.
    stream.write_all(b"GET /catalogo HTTP/1.1\r\n").expect("first half");
    std::thread::sleep(Duration::from_millis(1500));
    stream.write_all(b"Host: localhost\r\n\r\n").expect("second half");
    let (head, _) = read_answer(&mut stream);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    // Left idle past the deadline: closed, with nothing sent on it.
    std::thread::sleep(Duration::from_millis(3500));
    let mut rest = Vec::new();
    let read = stream.read_to_end(&mut rest);
    assert!(rest.is_empty(), "nothing is sent on an idle connection: {}", String::from_utf8_lossy(&rest));
    match read {
        Ok(0) => {}
        Ok(n) => panic!("{n} bytes on an idle connection"),
        // A TCP close without close_notify is what rustls reports as UnexpectedEof.
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof, "{e}"),
    }
}
