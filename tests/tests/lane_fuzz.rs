//! The fast lane of plain HTTP/1.1 under mixed traffic, over real sockets against the real gate:
//! random sequences of pipelined requests, some the lane answers and some it hands to Pingora,
//! written in random pieces (so heads arrive split across reads), must each get their answer, in
//! order, with the status the same request gets alone. And random request heads (obs-fold, bare
//! CR and LF, duplicate `Content-Length`, leading empty lines, absolute-form targets, more header
//! lines than the lane parses, long lines, no `Host`) get the same status on the lane as through
//! Pingora's parser.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use common::built;
use common::gate::*;
use gate_http::tls::{Certificate, TlsFiles};
use gate_http::{Limits, Running, spawn_tls, spawn_with_limits};
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

// ---------------------------------------------------------------------------------------------
// Random heads, differentially: the same bytes to a plain connection (where the lane answers
// what it takes and hands the rest to Pingora) and to a TLS connection of a second gate over the
// same `dist/` with the same limits (where every request goes through Pingora's parser and
// session), each head alone on a new connection. Both must give the same status: the lane may
// decline a head (Pingora then answers it), never accept what Pingora refuses or answer it
// differently.

/// Limits low enough for the random heads to cross them: a target over 2 KiB gets 414, a head
/// over 6 KiB 431 (a head the lane has whole but over the limit must go to Pingora; over 8 KiB
/// it is more than the lane waits for), and an unfinished head is dropped after 2 s on both
/// paths.
fn tight_limits() -> Limits {
    Limits {
        read_timeout: Duration::from_secs(2),
        max_head_bytes: 6 * 1024,
        max_uri_bytes: 2 * 1024,
        ..Limits::default()
    }
}

/// The two gates and what a TLS client needs to reach the second.
struct Pair {
    plain: Running,
    tls: Running,
    client: Arc<rustls::ClientConfig>,
    _dirs: Vec<tempfile::TempDir>,
}

fn pair() -> &'static Pair {
    static PAIR: OnceLock<Pair> = OnceLock::new();
    PAIR.get_or_init(|| start_pair(tight_limits()))
}

fn start_pair(limits: Limits) -> Pair {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let load = |data: &tempfile::TempDir| {
        let local: Arc<dyn gate::facilitator::Facilitator> =
            Arc::new(gate::facilitator::local::LocalFacilitator::new(Default::default()));
        let log = data.path().join(gate::sales::journal::JOURNAL_FILE);
        Arc::new(gate::app::Gate::load(built(), local, links(), Some(&log)).expect("gate"))
    };
    let (plain_data, tls_data, certs) =
        (tempfile::tempdir().expect("dir"), tempfile::tempdir().expect("dir"), tempfile::tempdir().expect("dir"));
    let plain = spawn_with_limits(load(&plain_data), 2, limits.clone()).expect("plain gate");
    let issued =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).expect("certificate");
    let files = TlsFiles { cert: certs.path().join("gate.crt"), key: certs.path().join("gate.key") };
    std::fs::write(&files.cert, issued.cert.pem()).expect("cert file");
    std::fs::write(&files.key, issued.signing_key.serialize_pem()).expect("key file");
    let certificate = Certificate::load(files).expect("certificate");
    let tls = spawn_tls(load(&tls_data), 2, limits, certificate).expect("TLS gate");
    let mut roots = rustls::RootCertStore::empty();
    roots.add(issued.cert.der().clone()).expect("root");
    let client = Arc::new(rustls::ClientConfig::builder().with_root_certificates(roots).with_no_client_auth());
    Pair { plain, tls, client, _dirs: vec![plain_data, tls_data, certs] }
}

/// The status of the first answer to `head` sent alone on a new plain connection; 0 when the
/// connection ends (or 10 s pass) without one.
fn plain_status(addr: std::net::SocketAddr, head: &[u8]) -> u16 {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    // A refused head may be answered before all of it is written: keep what was read.
    let _ = stream.write_all(head);
    first_status(&mut stream)
}

/// The same over TLS: always Pingora's path.
fn tls_status(pair: &Pair, head: &[u8]) -> u16 {
    let tcp = TcpStream::connect(pair.tls.addr).expect("connect");
    tcp.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let name = rustls::pki_types::ServerName::try_from("localhost").expect("name");
    let connection = rustls::ClientConnection::new(Arc::clone(&pair.client), name).expect("TLS client");
    let mut stream = rustls::StreamOwned::new(connection, tcp);
    let _ = stream.write_all(head).and_then(|()| stream.flush());
    first_status(&mut stream)
}

/// Reads until the first status line is whole.
fn first_status(stream: &mut impl Read) -> u16 {
    let mut read = Vec::new();
    let mut chunk = [0u8; 4096];
    while !read.windows(2).any(|w| w == b"\r\n") {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => read.extend_from_slice(&chunk[..n]),
        }
    }
    let line = String::from_utf8_lossy(&read);
    if !line.starts_with("HTTP/1.") {
        return 0;
    }
    line.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// The request target: mostly the gate's routes, sometimes a form the lane declines (absolute,
/// asterisk, `//`, bytes Pingora escapes or refuses), sometimes a long one around the target
/// limit.
fn target() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => proptest::sample::select(vec![
            "/catalogo",
            "/metricas",
            "/buscar?q=bancos",
            "/buscar",
            "/no-existe",
            "/estudio/banca-2026",
            "/estudio/banca-2026?vista=otra",
            "/",
            "/%7Ecatalogo",
        ])
        .prop_map(str::to_owned),
        2 => proptest::sample::select(vec![
            "//catalogo",
            "*",
            "/catalogo#fragmento",
            "/cat logo",
            "/cat\"logo",
            "/catalogo?x=ñ",
            "http://127.0.0.1/catalogo",
            "http://localhost/metricas",
            "http://otro.example/catalogo",
            "http://u@127.0.0.1/catalogo",
            "HTTP://127.0.0.1/catalogo",
        ])
        .prop_map(str::to_owned),
        1 => (2_030usize..2_070).prop_map(|n| format!("/buscar?q={}", "a".repeat(n - 10))),
    ]
}

/// A well-formed header line (without its ending), some of which the lane declines.
fn header_line() -> impl Strategy<Value = String> {
    prop_oneof![
        16 => proptest::sample::select(vec![
            "Accept: */*",
            "Accept: application/json",
            "Accept:text/html",
            "User-Agent: prueba/1.0",
            "X-Pegado:valor",
            "X-Espacios:    valor con espacios   ",
            "X-Utf8: ñandú",
        ])
        .prop_map(str::to_owned),
        1 => proptest::sample::select(vec![
            "Content-Length: 0",
            "Content-Length: 0, 0",
            "Connection: keep-alive",
            "Connection: close",
        ])
        .prop_map(str::to_owned),
        4 => (0usize..64).prop_map(|n| format!("X-R{n}:{}", "v".repeat(n))),
        1 => prop_oneof![3 => 1usize..3_000, 2 => 5_900usize..6_200, 1 => 8_000usize..8_300]
            .prop_map(|n| format!("X-Largo: {}", "a".repeat(n))),
    ]
}

/// One thing wrong with a head, put at a random line: a bare CR ending it, an obs-fold
/// continuation, a malformed line, a second and different `Content-Length`, a `Host` with
/// userinfo.
fn flaw() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(vec![
        "\r",
        " plegado en la línea anterior",
        "\tplegado con tabulador",
        ": sin nombre",
        "Sin-Dos-Puntos",
        "X-Mal : valor",
        "X-Control: a\u{1}b",
        "Content-Length: 1, 0",
        "Content-Length: 0\r\nContent-Length: 1",
        "Host: u@127.0.0.1",
    ])
}

prop_compose! {
    /// A request head: optional leading empty lines, a request line, a `Host` (ours, empty,
    /// another name, twice) or none, up to 40 header lines with CRLF endings, bare LF endings or
    /// a mix, at most one flaw, the empty line that ends it, and sometimes a line that pads it
    /// to just under the head limit.
    fn head()(
        leading in proptest::collection::vec(proptest::sample::select(vec!["\r\n", "\n"]), 0..3),
        method in prop_oneof![8 => Just("GET"), 2 => Just("HEAD"), 1 => Just("DELETE"), 1 => Just("get")],
        target in target(),
        version in prop_oneof![10 => Just("HTTP/1.1"), 2 => Just("HTTP/1.0"), 1 => Just("HTTP/1.2")],
        host in prop_oneof![
            6 => Just(Some("Host: 127.0.0.1")),
            2 => Just(None),
            1 => Just(Some("Host:")),
            1 => Just(Some("Host: localhost")),
            1 => Just(Some("Host: 127.0.0.1\r\nHost: 127.0.0.1")),
        ],
        mut lines in prop_oneof![
            4 => proptest::collection::vec(header_line(), 0..31),
            1 => proptest::collection::vec(header_line(), 31..40),
            // Many short lines, written tight (`Name:value`).
            1 => proptest::collection::vec((0usize..8).prop_map(|n| format!("X-C{n}:{}", "c".repeat(n))), 24..31),
        ],
        endings in prop_oneof![4 => Just(0u8), 2 => Just(1u8), 2 => Just(2u8)],
        bare_lf in proptest::collection::vec(any::<bool>(), 42),
        flaw in proptest::option::weighted(0.3, (flaw(), any::<proptest::sample::Index>())),
        short_of_limit in proptest::option::weighted(0.5, 0usize..24),
    ) -> Vec<u8> {
        let mut bare_cr_after = None;
        let mut first = format!("{method} {target} {version}");
        if let Some(host) = host {
            lines.insert(0, host.to_owned());
        }
        if let Some((flaw, at)) = flaw {
            let at = at.index(lines.len() + 1);
            if flaw == "\r" {
                bare_cr_after = Some(at);
            } else {
                lines.insert(at, flaw.to_owned());
            }
        }
        let end = |n: usize| match (bare_cr_after == Some(n), endings, bare_lf[n % bare_lf.len()]) {
            (true, _, _) => "\r",
            (false, 0, _) | (false, 2, false) => "\r\n",
            _ => "\n",
        };
        first.push_str(end(0));
        let mut head = leading.concat();
        head.push_str(&first);
        for (n, line) in lines.iter().enumerate() {
            head.push_str(line);
            head.push_str(end(n + 1));
        }
        head.push_str(if endings == 1 { "\n" } else { "\r\n" });
        // Padded to end a few bytes short of the head limit, where the lane and Pingora's path
        // measure heads differently (as sent, and as target plus names and values plus 4 each).
        if let Some(short) = short_of_limit {
            let eol = end(1);
            let wanted = tight_limits().max_head_bytes - short;
            let at = leading.concat().len() + first.len();
            if let Some(fill) = wanted.checked_sub(head.len() + "X-Relleno:".len() + eol.len()) {
                head.insert_str(at, &format!("X-Relleno:{}{eol}", "r".repeat(fill)));
            }
        }
        head.into_bytes()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_heads_get_the_same_status_on_the_lane_and_through_pingora(head in head()) {
        let pair = pair();
        let lane = plain_status(pair.plain.addr, &head);
        let pingora = tls_status(pair, &head);
        let shown = String::from_utf8_lossy(&head[..head.len().min(400)]).into_owned();
        prop_assert_eq!(lane, pingora, "{:?}", shown);
    }
}

/// A head within the limit as sent but over it as Pingora's path measures it (each header
/// counted as name, value and 4 bytes: more than a line written `Name:value` with a bare LF):
/// the lane must not answer what Pingora refuses with 431.
#[test]
fn a_head_over_the_limit_as_pingora_measures_it_is_refused_on_the_lane_too() {
    let limits = Limits { max_head_bytes: 1024, ..tight_limits() };
    let build = |value: usize| {
        let mut head = String::from("GET /catalogo HTTP/1.1\nHost:127.0.0.1\n");
        for n in 0..30 {
            head.push_str(&format!("X-{n:02}:{}\n", "v".repeat(value)));
        }
        head.push('\n');
        let measured = "/catalogo".len() + "Host".len() + "127.0.0.1".len() + 4 + 30 * ("X-00".len() + value + 4);
        (head, measured)
    };
    let (head, measured) = (1..40)
        .map(build)
        .find(|(head, measured)| head.len() <= limits.max_head_bytes && *measured > limits.max_head_bytes)
        .expect("a head between both measures");
    assert!(head.len() <= 1024 && measured > 1024);
    let pair = start_pair(limits);
    assert_eq!(tls_status(&pair, head.as_bytes()), 431, "Pingora's path");
    assert_eq!(plain_status(pair.plain.addr, head.as_bytes()), 431, "the lane hands it over");
}
