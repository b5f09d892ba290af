//! The fast lane of plain HTTP/1.1 under mixed traffic, over real sockets against the real gate:
//! random sequences of pipelined requests, some the lane answers and some it hands to Pingora,
//! written in random pieces (so heads arrive split across reads), must each get their answer, in
//! order, with the status the same request gets alone.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::OnceLock;
use std::time::Duration;

use common::built;
use common::gate::*;
use proptest::prelude::*;

fn gate() -> &'static TestGate {
    static GATE: OnceLock<TestGate> = OnceLock::new();
    GATE.get_or_init(|| start_local(built()))
}

const MCP_BODY: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

/// Requests and the status each gets alone: the first five take the lane, the rest go to Pingora
/// (a `Connection` header, a body, a chunked body, another method).
fn templates() -> Vec<(String, u16)> {
    let host = "Host: 127.0.0.1\r\n";
    vec![
        (format!("GET /catalogo HTTP/1.1\r\n{host}\r\n"), 200),
        (format!("HEAD /metricas HTTP/1.1\r\n{host}Accept: application/json\r\n\r\n"), 200),
        (format!("GET /buscar?q=bancos+argentina HTTP/1.1\r\n{host}\r\n"), 200),
        (format!("GET /estudio/banca-2026 HTTP/1.1\r\n{host}\r\n"), 402),
        (format!("GET /no-existe HTTP/1.1\r\n{host}\r\n"), 404),
        (format!("GET /catalogo HTTP/1.1\r\n{host}Connection: keep-alive\r\n\r\n"), 200),
        (
            format!(
                "POST /mcp HTTP/1.1\r\n{host}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{MCP_BODY}",
                MCP_BODY.len()
            ),
            200,
        ),
        // (A refused payment would count against the client's address and turn into 429 after
        // twenty: the 402 through Pingora instead.)
        (format!("GET /estudio/banca-2026?vista=resumen HTTP/1.1\r\n{host}Connection: keep-alive\r\n\r\n"), 402),
        (format!("GET /buscar?q=bancos HTTP/1.1\r\n{host}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), 200),
        (format!("DELETE /catalogo HTTP/1.1\r\n{host}\r\n"), 405),
    ]
}

/// The statuses of every response in a stream of HTTP/1 answers, in order, reading each
/// answer's `Content-Length` (none after a HEAD).
fn statuses(mut stream: &[u8], heads: &[bool]) -> Vec<u16> {
    let mut found = Vec::new();
    for &head in heads {
        let Some(end) = stream.windows(4).position(|w| w == b"\r\n\r\n") else { break };
        let text = String::from_utf8_lossy(&stream[..end]).into_owned();
        let Some(status) = text.get(9..12).and_then(|s| s.parse().ok()) else { break };
        found.push(status);
        let length: usize = text
            .lines()
            .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned()))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let body = if head { 0 } else { length };
        stream = stream.get(end + 4 + body..).unwrap_or_default();
    }
    found
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn pipelined_requests_split_anywhere_are_answered_in_order(
        picks in proptest::collection::vec(0usize..10, 1..8),
        cuts in proptest::collection::vec(1usize..300, 1..40),
    ) {
        let templates = templates();
        let mut wire = String::new();
        let mut expected = Vec::new();
        let mut heads = Vec::new();
        for pick in &picks {
            let (request, status) = &templates[*pick];
            wire.push_str(request);
            expected.push(*status);
            heads.push(request.starts_with("HEAD "));
        }
        // The last request closes the connection, so the whole stream can be read to its end.
        wire.push_str("GET /metricas HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        expected.push(200);
        heads.push(false);
        let mut stream = TcpStream::connect(gate().server.addr).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        stream.set_nodelay(true).expect("nodelay");
        let bytes = wire.as_bytes();
        let mut at = 0;
        for (n, cut) in cuts.iter().cycle().enumerate() {
            if at >= bytes.len() {
                break;
            }
            let end = (at + cut).min(bytes.len());
            stream.write_all(&bytes[at..end]).expect("write");
            if n % 3 == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
            at = end;
        }
        let mut answers = Vec::new();
        let _ = stream.read_to_end(&mut answers);
        let got = statuses(&answers, &heads);
        prop_assert_eq!(&got, &expected, "{}", String::from_utf8_lossy(&answers[..answers.len().min(600)]));
    }
}
