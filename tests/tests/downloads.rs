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
use gate::http::server::{Limits, Running};

/// The gate over `dist` with `limits`.
fn start(dist: &Path, limits: Limits) -> (Running, tempfile::TempDir) {
    let data = tempfile::tempdir().expect("data");
    let local: Arc<dyn Facilitator> = Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let log = data.path().join(gate::sales::journal::JOURNAL_FILE);
    let gate = gate::app::Gate::load(dist, local, links(), Some(&log)).expect("gate");
    (gate::http::server::spawn_with_limits(Arc::new(gate), 2, limits).expect("server"), data)
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
        let (server, _data) = start(dist, limits);
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
            assert_eq!(response.header("access-control-expose-headers"), Some("PAYMENT-REQUIRED, PAYMENT-RESPONSE"));
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
        let (server, _data) = start(copy.path(), limits);
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
        let (server, _data) = start(dist, limits);
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
