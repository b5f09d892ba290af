//! Downloads on the wire, with `sendfile(2)` and with the chunked path (`--sin-sendfile`):
//! whole files with the right head on kept-alive connections, HTTP/1.0 clients, a client that
//! stops reading, and a file cut short under the running gate. Raw sockets, so every byte the
//! gate wrote is seen.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::gate::{client, links, now};
use common::{built, copy_tree, read_json, sha256_hex};
use gate::facilitator::Facilitator;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate_http::{Limits, Running};

/// The gate over `dist` with `limits`.
fn start(dist: &Path, limits: Limits) -> (Running, tempfile::TempDir) {
    let data = tempfile::tempdir().expect("data");
    let local: Arc<dyn Facilitator> = Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let log = data.path().join(gate::sales::journal::JOURNAL_FILE);
    let gate = gate::app::Gate::load(dist, local, links(), Some(&log)).expect("gate");
    (gate_http::spawn_with_limits(Arc::new(gate), 2, limits).expect("server"), data)
}

/// The largest download of `dist`: (file name, bytes, sha256).
fn largest(dist: &Path) -> (String, u64, String) {
    let manifest = read_json(&dist.join("gate.json"));
    let (name, download) = manifest["descargas"]
        .as_object()
        .expect("descargas")
        .iter()
        .max_by_key(|(_, d)| d["bytes"].as_u64())
        .expect("one download");
    (name.clone(), download["bytes"].as_u64().expect("bytes"), download["sha256"].as_str().expect("sha").to_owned())
}

fn signed_path(name: &str) -> String {
    let links = links();
    links.link(name, links.expiry(now()))
}

/// One response read off the stream: status line, lower-cased headers, body of Content-Length.
struct Response {
    status: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

fn read_response(stream: &mut TcpStream) -> Response {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).expect("response head");
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).expect("UTF-8 head");
    let mut lines = head.split("\r\n");
    let status = lines.next().expect("status line").to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize =
        headers.iter().find(|(n, _)| n == "content-length").expect("content-length").1.parse().expect("number");
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).expect("whole body");
    Response { status, headers, body }
}

fn connect(server: &Running) -> TcpStream {
    let stream = TcpStream::connect(server.addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    stream
}

/// A connection whose receive buffer is set small before connecting, so a download cannot
/// all sit in socket buffers while the client reads nothing.
fn connect_with_small_window(server: &Running) -> TcpStream {
    use rustix::net::{AddressFamily, SocketType, connect, socket, sockopt};
    let socket = socket(AddressFamily::INET, SocketType::STREAM, None).expect("socket");
    sockopt::set_socket_recv_buffer_size(&socket, 4096).expect("SO_RCVBUF");
    connect(&socket, &server.addr).expect("connect");
    let stream = TcpStream::from(socket);
    stream.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    stream
}

fn both_ways() -> [Limits; 2] {
    [Limits::default(), Limits { sendfile: false, ..Limits::default() }]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downloads_go_out_whole_on_kept_alive_connections() {
    let dist = built();
    let (name, bytes, sha256) = largest(dist);
    let path = signed_path(&name);
    for limits in both_ways() {
        let (server, _data) = start(dist, limits.clone());
        let mut stream = connect(&server);
        // Two downloads and a small answer on one connection: each arrives whole and the
        // connection stays usable after a download.
        for round in 0..2 {
            write!(stream, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").expect("request");
            let response = read_response(&mut stream);
            let sendfile = limits.sendfile;
            assert_eq!(response.status, "HTTP/1.1 200 OK", "round {round}, sendfile {sendfile}");
            assert_eq!(response.body.len() as u64, bytes);
            assert_eq!(sha256_hex(&response.body), sha256);
            assert_eq!(response.header("x-content-sha256"), Some(sha256.as_str()));
            assert_eq!(response.header("connection"), Some("keep-alive"));
            assert!(response.header("date").is_some_and(|d| d.ends_with("GMT")));
            assert_eq!(response.header("cache-control"), Some("private, no-store"));
            assert_eq!(
                response.header("access-control-expose-headers"),
                Some("PAYMENT-REQUIRED, PAYMENT-RESPONSE, WWW-Authenticate, Payment-Receipt")
            );
        }
        stream.write_all(b"GET /catalogo HTTP/1.1\r\nHost: x\r\n\r\n").expect("request");
        assert_eq!(read_response(&mut stream).status, "HTTP/1.1 200 OK");

        // HTTP/1.0 without keep-alive: the whole file, then the gate closes.
        let mut old = connect(&server);
        write!(old, "GET {path} HTTP/1.0\r\n\r\n").expect("request");
        let response = read_response(&mut old);
        assert_eq!(sha256_hex(&response.body), sha256);
        assert_eq!(response.header("connection"), Some("close"));
        let mut rest = Vec::new();
        old.read_to_end(&mut rest).expect("closed after the body");
        assert!(rest.is_empty());

        // HEAD: the head with the length, no body.
        let mut head = connect(&server);
        write!(head, "HEAD {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").expect("request");
        let mut all = Vec::new();
        head.read_to_end(&mut all).expect("head");
        let text = String::from_utf8_lossy(&all);
        assert!(
            text.starts_with("HTTP/1.1 200 OK")
                && text.to_ascii_lowercase().contains(&format!("content-length: {bytes}"))
        );
        assert!(text.ends_with("\r\n\r\n"), "no body after a HEAD");
    }
}

/// A copy of the built `dist/` whose largest download is `size` bytes (manifest updated), larger
/// than any socket buffer.
fn dist_with_a_large_download(size: usize) -> (tempfile::TempDir, String) {
    let copy = tempfile::tempdir().expect("copy");
    copy_tree(built(), copy.path());
    let (name, _, _) = largest(copy.path());
    let content: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
    std::fs::write(copy.path().join("private/descargas").join(&name), &content).expect("write");
    let manifest_path = copy.path().join("gate.json");
    let mut manifest = read_json(&manifest_path);
    manifest["descargas"][&name]["bytes"] = size.into();
    manifest["descargas"][&name]["sha256"] = sha256_hex(&content).into();
    std::fs::write(&manifest_path, serde_json::to_vec_pretty(&manifest).expect("JSON")).expect("manifest");
    (copy, name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_a_download_is_cut_off() {
    let size = 24 << 20;
    let (copy, name) = dist_with_a_large_download(size);
    let path = signed_path(&name);
    for limits in both_ways() {
        let limits = Limits { write_stall: Duration::from_millis(500), ..limits };
        let (server, _data) = start(copy.path(), limits.clone());
        let mut stream = connect_with_small_window(&server);
        write!(stream, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").expect("request");
        std::thread::sleep(Duration::from_secs(2));
        let started = Instant::now();
        let mut received = Vec::new();
        let _ = stream.read_to_end(&mut received);
        let sendfile = limits.sendfile;
        assert!(started.elapsed() < Duration::from_secs(10), "the gate closed the connection (sendfile {sendfile})");
        assert!(received.len() < size, "cut off: {} of {size} bytes (sendfile {sendfile})", received.len());
        // The gate goes on serving, the same download included.
        let response = client().get(format!("{}{path}", server.url())).send().await.expect("request");
        assert_eq!(response.status(), 200);
        assert_eq!(response.bytes().await.expect("body").len(), size);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_cut_short_under_the_gate_ends_the_connection_and_nothing_else() {
    for limits in both_ways() {
        let copy = tempfile::tempdir().expect("copy");
        copy_tree(built(), copy.path());
        let dist = copy.path();
        let (name, bytes, _) = largest(dist);
        let (server, _data) = start(dist, limits.clone());
        let file = dist.join("private/descargas").join(&name);
        let half = std::fs::read(&file).expect("file")[..(bytes / 2) as usize].to_vec();
        std::fs::write(&file, &half).expect("truncate");

        let mut stream = connect(&server);
        write!(stream, "GET {} HTTP/1.1\r\nHost: x\r\n\r\n", signed_path(&name)).expect("request");
        let mut received = Vec::new();
        let _ = stream.read_to_end(&mut received);
        let text = String::from_utf8_lossy(&received[..received.len().min(2048)]).to_string();
        let body_start = text.find("\r\n\r\n").map_or(0, |i| i + 4);
        assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
        assert!(((received.len() - body_start) as u64) < bytes, "the body stops where the file does");
        let response = client().get(format!("{}/catalogo", server.url())).send().await.expect("request");
        assert_eq!(response.status(), 200);
    }
}

/// Asks `path` with extra header lines on a kept-alive connection and reads the answer.
fn ask(stream: &mut TcpStream, path: &str, extra: &str) -> Response {
    write!(stream, "GET {path} HTTP/1.1\r\nHost: x\r\n{extra}\r\n").expect("request");
    read_response(stream)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn single_ranges_are_served_as_206_with_their_bytes() {
    let dist = built();
    let (name, bytes, sha256) = largest(dist);
    let file = std::fs::read(dist.join("private/descargas").join(&name)).expect("file");
    assert_eq!(file.len() as u64, bytes);
    let path = signed_path(&name);
    let etag = format!("\"{sha256}\"");
    let n = bytes;
    for limits in both_ways() {
        let (server, _data) = start(dist, limits.clone());
        let mut stream = connect(&server);
        // (Range, first byte, last byte): the first byte, the last byte, a suffix, open-ended,
        // and a range past the end clipped to it.
        let cases = [
            ("bytes=0-0".to_owned(), 0, 0),
            (format!("bytes={}-{}", n - 1, n - 1), n - 1, n - 1),
            ("bytes=-100".to_owned(), n - 100, n - 1),
            (format!("bytes={}-", n / 2), n / 2, n - 1),
            (format!("bytes=10-{}", n + 1000), 10, n - 1),
        ];
        for (range, first, last) in &cases {
            let response = ask(&mut stream, &path, &format!("Range: {range}\r\n"));
            let context = format!("{range}, sendfile {}", limits.sendfile);
            assert_eq!(response.status, "HTTP/1.1 206 Partial Content", "{context}");
            assert_eq!(
                response.header("content-range"),
                Some(format!("bytes {first}-{last}/{n}").as_str()),
                "{context}"
            );
            assert_eq!(response.body, file[*first as usize..=*last as usize], "{context}");
            assert_eq!(response.header("accept-ranges"), Some("bytes"));
            assert_eq!(response.header("etag"), Some(etag.as_str()));
            assert_eq!(response.header("connection"), Some("keep-alive"), "the connection stays usable");
        }
        // If-Range with this file's ETag: the range; with another: the whole file, 200.
        let matching = ask(&mut stream, &path, &format!("Range: bytes=5-9\r\nIf-Range: {etag}\r\n"));
        assert_eq!(matching.status, "HTTP/1.1 206 Partial Content");
        assert_eq!(matching.body, file[5..10]);
        let other = ask(&mut stream, &path, "Range: bytes=5-9\r\nIf-Range: \"otra-version\"\r\n");
        assert_eq!(other.status, "HTTP/1.1 200 OK");
        assert_eq!(sha256_hex(&other.body), sha256);
        // Several ranges at once: the whole file (stated in the README).
        let several = ask(&mut stream, &path, "Range: bytes=0-0,5-9\r\n");
        assert_eq!(several.status, "HTTP/1.1 200 OK");
        assert_eq!(several.body.len() as u64, n);
        // Past the end: 416 JSON with the size.
        let beyond = ask(&mut stream, &path, &format!("Range: bytes={n}-\r\n"));
        assert_eq!(beyond.status, "HTTP/1.1 416 Range Not Satisfiable");
        assert_eq!(beyond.header("content-range"), Some(format!("bytes */{n}").as_str()));
        let body: serde_json::Value = serde_json::from_slice(&beyond.body).expect("JSON");
        assert_eq!(body["error"], "rango_no_satisfacible");
        // Without Range: the whole file says it takes ranges.
        let whole = ask(&mut stream, &path, "");
        assert_eq!(whole.status, "HTTP/1.1 200 OK");
        assert_eq!(whole.header("accept-ranges"), Some("bytes"));
        // A tampered link with a range: 403, no byte of the file.
        let tampered = path.replacen("firma=", "firma=0", 1);
        let refused = ask(&mut stream, &tampered, "Range: bytes=0-0\r\n");
        assert_eq!(refused.status, "HTTP/1.1 403 Forbidden");
        assert!(refused.header("content-range").is_none());
        let body: serde_json::Value = serde_json::from_slice(&refused.body).expect("JSON");
        assert_eq!(body["error"], "enlace_invalido");
    }
}

/// A TCP relay in front of the gate that cuts its first connection after `cut` bytes of
/// answer, and records the head of every request it relays.
struct CuttingRelay {
    addr: std::net::SocketAddr,
    heads: Arc<parking_lot::Mutex<Vec<String>>>,
}

impl CuttingRelay {
    async fn start(target: std::net::SocketAddr, cut: usize) -> CuttingRelay {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let heads = Arc::new(parking_lot::Mutex::new(Vec::new()));
        let seen = Arc::clone(&heads);
        tokio::spawn(async move {
            let mut first = true;
            while let Ok((mut client, _)) = listener.accept().await {
                let limit = if std::mem::take(&mut first) { Some(cut) } else { None };
                let seen = Arc::clone(&seen);
                tokio::spawn(async move {
                    let mut upstream = tokio::net::TcpStream::connect(target).await.expect("gate");
                    let mut head = vec![0u8; 8192];
                    let n = client.read(&mut head).await.unwrap_or(0);
                    seen.lock().push(String::from_utf8_lossy(&head[..n]).into_owned());
                    upstream.write_all(&head[..n]).await.expect("relay head");
                    let mut relayed = 0;
                    let mut buffer = vec![0u8; 16 * 1024];
                    loop {
                        let n = upstream.read(&mut buffer).await.unwrap_or(0);
                        if n == 0 {
                            break;
                        }
                        let n = limit.map_or(n, |limit| n.min(limit - relayed));
                        if client.write_all(&buffer[..n]).await.is_err() {
                            break;
                        }
                        relayed += n;
                        if limit.is_some_and(|limit| relayed >= limit) {
                            // Cut: the buyer sees the connection drop mid-body.
                            break;
                        }
                    }
                });
            }
        });
        CuttingRelay { addr, heads }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_download_resumes_with_a_range_and_checks_the_sha256() {
    let (dist, name) = dist_with_a_large_download(3 << 20);
    let (server, _data) = start(dist.path(), Limits::default());
    let (_, bytes, sha256) = largest(dist.path());
    let relay = CuttingRelay::start(server.addr, 1 << 20).await;
    let url = format!("http://{}{}", relay.addr, signed_path(&name));
    let out = tempfile::tempdir().expect("out");
    let dest = out.path().join(&name);
    let client = reqwest::Client::builder().pool_max_idle_per_host(0).build().expect("client");
    let done = gate::buyer::download_verified(&client, &url, &sha256, &dest).await.expect("resumed download");
    assert_eq!(done, gate::buyer::Downloaded { bytes, resumes: 1 });
    assert_eq!(sha256_hex(&std::fs::read(&dest).expect("file")), sha256);
    assert!(!out.path().join(format!("{name}.parcial")).exists());
    let heads = relay.heads.lock().clone();
    assert_eq!(heads.len(), 2, "{heads:?}");
    assert!(!heads[0].to_ascii_lowercase().contains("range:"));
    let resumed = heads[1].to_ascii_lowercase();
    let had: u64 =
        resumed.split("range: bytes=").nth(1).and_then(|r| r.split('-').next()).expect("range").parse().unwrap();
    assert!(had > 0 && had < bytes, "resumed from byte {had}");
    assert!(resumed.contains(&format!("if-range: \"{sha256}\"")));

    // A partial file damaged on disk: resumed, the sha256 fails, and it is fetched once more
    // from the first byte: the buyer still gets the right file.
    let damaged = out.path().join("otro.zip");
    std::fs::write(out.path().join("otro.zip.parcial"), vec![0u8; 1000]).expect("damaged partial");
    let direct = format!("{}{}", server.url(), signed_path(&name));
    let done = gate::buyer::download_verified(&client, &direct, &sha256, &damaged).await.expect("fetched again");
    assert_eq!(done, gate::buyer::Downloaded { bytes, resumes: 1 });
    assert_eq!(sha256_hex(&std::fs::read(&damaged).expect("file")), sha256);
    assert!(!out.path().join("otro.zip.parcial").exists());
}
