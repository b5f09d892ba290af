//! HTTP/1.1 at the edge, over raw sockets against the real gate: every request a strict server
//! must refuse gets a status and a JSON reason (never a silent close), pipelined requests are
//! answered in order, and an ambiguous body length closes the connection after its 400.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::built;
use common::gate::*;

/// Sends `bytes` on a new connection and reads until the gate closes it (or 10 s pass).
fn exchange(gate: &TestGate, bytes: &[u8]) -> String {
    let mut stream = TcpStream::connect(gate.server.addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    // A refused head may be answered before all of it is written: keep what was read.
    let _ = stream.write_all(bytes);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// The statuses of every response in a stream of HTTP/1.1 answers, in order.
fn statuses(answers: &str) -> Vec<u16> {
    answers
        .match_indices("HTTP/1.1 ")
        .filter(|(at, _)| *at == 0 || answers[..*at].ends_with('\n') || answers[..*at].ends_with('}'))
        .filter_map(|(at, _)| answers[at + 9..at + 12].parse().ok())
        .collect()
}

fn assert_json_error(answer: &str, status: u16, code: &str) {
    assert!(answer.starts_with(&format!("HTTP/1.1 {status} ")), "expected {status}: {answer:.300}");
    assert!(answer.to_ascii_lowercase().contains("content-type: application/json"), "{answer:.300}");
    assert!(answer.contains(&format!("\"error\":\"{code}\"")), "expected {code}: {answer:.600}");
}

#[test]
fn too_many_header_lines_get_431_json() {
    let gate = start_local(built());
    let mut head = String::from("GET /catalogo HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for i in 0..300 {
        head.push_str(&format!("x-l{i}: a\r\n"));
    }
    head.push_str("\r\n");
    let answer = exchange(&gate, head.as_bytes());
    assert_json_error(&answer, 431, "encabezados_demasiado_grandes");
    assert!(answer.to_ascii_lowercase().contains("connection: close"), "{answer:.300}");
}

#[test]
fn a_one_mebibyte_header_gets_431_json() {
    let gate = start_local(built());
    let head = format!("GET /catalogo HTTP/1.1\r\nHost: 127.0.0.1\r\nx-grande: {}\r\n\r\n", "a".repeat(1 << 20));
    let answer = exchange(&gate, head.as_bytes());
    assert_json_error(&answer, 431, "encabezados_demasiado_grandes");
}

#[test]
fn absolute_form_targets_are_served_for_our_host_and_refused_for_others() {
    let gate = start_local(built());
    let own = gate.server.addr;
    let ours = exchange(
        &gate,
        format!("GET http://{own}/catalogo HTTP/1.1\r\nHost: {own}\r\nConnection: close\r\n\r\n").as_bytes(),
    );
    assert!(ours.starts_with("HTTP/1.1 200 "), "{ours:.300}");
    assert!(ours.contains("\"estudios\""), "the catalog itself");
    // Another host in the target, our host in `Host`: contradictory, refused by the parser.
    let mixed =
        exchange(&gate, format!("GET http://other.example/catalogo HTTP/1.1\r\nHost: {own}\r\n\r\n").as_bytes());
    assert_json_error(&mixed, 400, "solicitud_invalida");
    // Another host in both: a proxy request, and the gate is not a proxy.
    let foreign =
        exchange(&gate, b"GET http://other.example/catalogo HTTP/1.1\r\nHost: other.example\r\n\r\n".as_slice());
    assert_json_error(&foreign, 400, "destino_ajeno");
    assert!(foreign.to_ascii_lowercase().contains("connection: close"));
}

#[test]
fn pipelined_requests_are_all_answered_in_order() {
    let gate = start_local(built());
    let requests = "GET /catalogo HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n\
                    GET /no-existe HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n\
                    HEAD /metricas HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n\
                    GET /metricas HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    let answers = exchange(&gate, requests.as_bytes());
    assert_eq!(statuses(&answers), vec![200, 404, 200, 200], "{answers:.2000}");
    let catalog = answers.find("\"estudios\"").expect("catalog body");
    let missing = answers.find("no_encontrado").expect("404 body");
    let metrics = answers.rfind("HTTP/1.1 200").expect("last answer");
    assert!(catalog < missing && missing < metrics, "answers out of order");
}

/// The first answer to `request` on a new connection, without its `Date` line: `request` is
/// followed by a second GET with `Connection: close` so the gate ends the connection.
fn first_answer(gate: &TestGate, request: &str) -> (String, Vec<u8>) {
    let answers = exchange(gate, format!("{request}{}", get("/metricas", true)).as_bytes());
    let (head, body, _) = split_answer(answers.as_bytes()).unwrap_or_else(|| panic!("no answer: {answers:.300}"));
    let head: String = head.lines().filter(|l| !l.starts_with("Date: ")).map(|l| format!("{l}\n")).collect();
    // A HEAD's answer has a length and no body.
    let body = if request.starts_with("HEAD ") { Vec::new() } else { body.to_vec() };
    (head, body)
}

/// Plain GETs and HEADs of what is in memory (free documents, searches, unpaid 402s, their
/// errors) are answered on the gate's fast lane; any request with a `Connection` header goes
/// through Pingora's session instead. Both must give the same status, headers and body.
#[test]
fn the_fast_lane_answers_exactly_as_pingoras_path() {
    let gate = start_local(built());
    for (method, target) in [
        ("GET", "/catalogo"),
        ("HEAD", "/catalogo"),
        ("GET", "/metricas"),
        ("GET", "/catalogo/"),
        ("GET", "/buscar?q=bancos+argentina"),
        ("GET", "/buscar"),
        ("GET", "/estudio/no-existe"),
        ("GET", "/estudio/banca-2026?vista=otra"),
        ("GET", "/no-existe"),
    ] {
        let lane = first_answer(&gate, &format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
        let pingora = first_answer(
            &gate,
            &format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n"),
        );
        assert_eq!(lane, pingora, "{method} {target}");
    }
    // An unpaid 402 carries a sign-in challenge of its own per request: the same headers.
    let names = |head: &str| head.lines().map(|l| l.split(':').next().unwrap_or("").to_owned()).collect::<Vec<_>>();
    let lane = first_answer(&gate, "GET /estudio/banca-2026 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    let pingora =
        first_answer(&gate, "GET /estudio/banca-2026 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n");
    assert!(lane.0.starts_with("HTTP/1.1 402 "), "{}", lane.0);
    assert_eq!(names(&lane.0), names(&pingora.0));
    assert_eq!(lane.1.len(), pingora.1.len());
}

/// One connection whose requests alternate between the fast lane and Pingora's path (a body, a
/// payment header, `Connection: close`) gets every answer, in order.
#[test]
fn requests_alternating_between_the_lane_and_pingora_are_answered_in_order() {
    let gate = start_local(built());
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let requests = format!(
        "GET /catalogo HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n\
         POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}\
         GET /buscar?q=bancos HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n\
         GET /estudio/banca-2026 HTTP/1.1\r\nHost: 127.0.0.1\r\nPAYMENT-SIGNATURE: no-es-base64\r\n\r\n\
         HEAD /estudio/banca-2026 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n\
         GET /no-existe HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n\
         GET /metricas HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let answers = exchange(&gate, requests.as_bytes());
    assert_eq!(statuses(&answers), vec![200, 200, 200, 400, 402, 404, 200], "{answers:.3000}");
    let order = ["\"estudios\"", "\"tools\"", "\"resultados\"", "\"no_encontrado\""];
    let found: Vec<usize> = order.iter().map(|m| answers.find(m).unwrap_or_else(|| panic!("{m}"))).collect();
    assert!(found.windows(2).all(|w| w[0] < w[1]), "answers out of order: {found:?}");
}

#[test]
fn content_length_with_transfer_encoding_gets_400_and_a_close() {
    let gate = start_local(built());
    // Without `Connection: close`: the gate itself must end the connection after the answer.
    let answer = exchange(
        &gate,
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\
          Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\nGET /catalogo HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            .as_slice(),
    );
    assert_json_error(&answer, 400, "longitud_ambigua");
    assert!(answer.to_ascii_lowercase().contains("connection: close"), "{answer:.400}");
    assert_eq!(statuses(&answer), vec![400], "nothing is answered after the refusal: {answer:.800}");
}

/// RFC 9112 §3.2: an HTTP/1.1 request without `Host` gets 400 with a JSON reason, whether it is
/// the kind the fast lane answers (a plain GET or HEAD, which the lane hands to Pingora's path)
/// or one only Pingora's path takes (a `Connection` header, a body, an absolute-form target);
/// HTTP/1.0, which predates `Host`, is still served without it.
#[test]
fn http_1_1_without_host_gets_400_on_both_paths() {
    let gate = start_local(built());
    for request in [
        "GET /catalogo HTTP/1.1\r\n\r\n",
        "GET /buscar?q=bancos HTTP/1.1\r\nAccept: */*\r\n\r\n",
        "GET /estudio/banca-2026 HTTP/1.1\nAccept: application/json\n\n",
        "GET /catalogo HTTP/1.1\r\nConnection: keep-alive\r\n\r\n",
        "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: 2\r\n\r\n{}",
        "GET http://127.0.0.1/catalogo HTTP/1.1\r\n\r\n",
    ] {
        let answer = exchange(&gate, request.as_bytes());
        assert_json_error(&answer, 400, "host_requerido");
        assert!(answer.contains("Host"), "the reason names the header: {answer:.600}");
        assert!(answer.to_ascii_lowercase().contains("connection: close"), "{answer:.400}");
    }
    let head = exchange(&gate, b"HEAD /catalogo HTTP/1.1\r\n\r\n");
    assert!(head.starts_with("HTTP/1.1 400 "), "{head:.300}");
    // On a kept-alive connection, after answers from the lane: the one without `Host` is refused
    // and ends the connection.
    let answers = exchange(
        &gate,
        b"GET /catalogo HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /metricas HTTP/1.1\r\n\r\n\
          GET /catalogo HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            .as_slice(),
    );
    assert_eq!(statuses(&answers), vec![200, 400], "{answers:.600}");
    // HTTP/1.0 without `Host` stays allowed, on its own and with keep-alive.
    assert!(exchange(&gate, b"GET /catalogo HTTP/1.0\r\n\r\n").starts_with("HTTP/1.1 200 "));
    let kept = exchange(
        &gate,
        b"GET /metricas HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /catalogo HTTP/1.0\r\n\r\n".as_slice(),
    );
    assert_eq!(statuses(&kept), vec![200, 200], "{kept:.300}");
}

#[test]
fn http_1_0_without_keep_alive_is_closed_after_its_answer() {
    let gate = start_local(built());
    let mut stream = TcpStream::connect(gate.server.addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(5))).expect("timeout");
    stream.write_all(b"GET /catalogo HTTP/1.0\r\n\r\n").expect("write");
    let mut answer = Vec::new();
    // Returns only because the gate closes: the 5 s timeout would be an error.
    stream.read_to_end(&mut answer).expect("closed by the gate");
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"));
}

/// The real gate over the built `dist/` with `proxies` trusted.
fn start_behind(proxies: &str) -> (gate_http::Running, tempfile::TempDir) {
    use gate::facilitator::local::{LocalConfig, LocalFacilitator};
    let data = tempfile::tempdir().expect("data");
    let local: std::sync::Arc<dyn gate::facilitator::Facilitator> =
        std::sync::Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let log = data.path().join(gate::sales::journal::JOURNAL_FILE);
    let gate = gate::app::Gate::load(built(), local, links(), Some(&log)).expect("gate");
    let limits = gate_http::Limits {
        proxies: gate_http::client::TrustedProxies::parse(proxies).expect("proxies"),
        ..gate_http::Limits::default()
    };
    (gate_http::spawn_with_limits(std::sync::Arc::new(gate), 2, limits).expect("server"), data)
}

/// The statuses of `n` malformed payments sent with `X-Forwarded-For: forwarded_for`.
async fn refused_payments(server: &gate_http::Running, forwarded_for: &str, n: usize) -> Vec<u16> {
    let client = client();
    let mut statuses = Vec::new();
    for _ in 0..n {
        let response = client
            .get(format!("{}/estudio/banca-2026", server.url()))
            .header("PAYMENT-SIGNATURE", "no-es-base64")
            .header("X-Forwarded-For", forwarded_for)
            .send()
            .await
            .expect("request");
        statuses.push(response.status().as_u16());
    }
    statuses
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forwarded_addresses_count_only_from_trusted_proxies() {
    // The test client connects from 127.0.0.1. Trusted: each forwarded client has its own
    // budget of 20 refused attempts.
    let (server, _data) = start_behind("127.0.0.1/32");
    let first = refused_payments(&server, "198.51.100.1", 21).await;
    assert!(first[..20].iter().all(|s| *s == 400), "{first:?}");
    assert_eq!(first[20], 429, "the 21st attempt of one client is limited");
    assert_eq!(refused_payments(&server, "198.51.100.2", 1).await, [400], "another client is not");
    // A client that prepends its own X-Forwarded-For is still counted by the address the
    // proxy saw (the rightmost untrusted one).
    assert_eq!(refused_payments(&server, "203.0.113.50, 198.51.100.1", 1).await, [429]);

    // Not trusted: the header is ignored and every attempt counts against the peer.
    let (server, _data) = start_behind("10.0.0.0/8");
    let spoofing: Vec<u16> = one_payment_each(&server, (0..21).map(|i| format!("198.51.100.{i}")).collect()).await;
    assert!(spoofing[..20].iter().all(|s| *s == 400), "{spoofing:?}");
    assert_eq!(spoofing[20], 429, "a new X-Forwarded-For per request does not escape the limit");
}

/// One malformed payment per forwarded address, in order.
async fn one_payment_each(server: &gate_http::Running, addresses: Vec<String>) -> Vec<u16> {
    let mut statuses = Vec::new();
    for address in addresses {
        statuses.extend(refused_payments(server, &address, 1).await);
    }
    statuses
}

/// A client that reads slowly through a small receive buffer: the gate's answers no longer fit
/// in the socket at once, so each one goes out in pieces as the client reads. Every answer must
/// still arrive whole, byte for byte the one a fresh connection gets, and in order.
#[test]
fn answers_to_a_slow_reader_arrive_whole_and_in_order() {
    use rustix::net::{AddressFamily, SocketType, sockopt};

    let gate = start_local(built());
    let paths = ["/catalogo", "/metricas", "/openapi.json"];
    let expected: Vec<Vec<u8>> = paths.iter().map(|p| body_of(&exchange(&gate, get(p, true).as_bytes()))).collect();
    assert!(expected.iter().all(|b| b.len() > 4_000), "free documents larger than the receive buffer");

    let socket = rustix::net::socket(AddressFamily::INET, SocketType::STREAM, None).expect("socket");
    sockopt::set_socket_recv_buffer_size(&socket, 4096).expect("SO_RCVBUF");
    rustix::net::connect(&socket, &gate.server.addr).expect("connect");
    let mut stream = TcpStream::from(socket);
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let rounds = 40;
    let mut requests = String::new();
    for n in 0..rounds * paths.len() {
        requests.push_str(&get(paths[n % paths.len()], n + 1 == rounds * paths.len()));
    }
    stream.write_all(requests.as_bytes()).expect("write");
    // Let the gate fill the socket before anything is read.
    std::thread::sleep(Duration::from_millis(300));
    let mut answers = Vec::new();
    stream.read_to_end(&mut answers).expect("read");

    let mut rest = &answers[..];
    for n in 0..rounds * paths.len() {
        let (head, body, after) = split_answer(rest).unwrap_or_else(|| panic!("answer {n} incomplete"));
        assert!(head.starts_with("HTTP/1.1 200 "), "answer {n}: {head}");
        assert!(body == expected[n % paths.len()], "answer {n} ({}) differs", paths[n % paths.len()]);
        rest = after;
    }
    assert!(rest.is_empty(), "{} bytes after the last answer", rest.len());
}

fn get(path: &str, close: bool) -> String {
    let connection = if close { "Connection: close\r\n" } else { "" };
    format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{connection}\r\n")
}

/// The body of the only answer in `answer`.
fn body_of(answer: &str) -> Vec<u8> {
    let (_, body, _) = split_answer(answer.as_bytes()).expect("one answer");
    body.to_vec()
}

/// The first answer of a stream: its head, its body (by `Content-Length`) and what follows.
fn split_answer(stream: &[u8]) -> Option<(String, &[u8], &[u8])> {
    let end = stream.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&stream[..end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned()))?
        .parse()
        .ok()?;
    let body = stream.get(end..end + length)?;
    Some((head, body, &stream[end + length..]))
}
