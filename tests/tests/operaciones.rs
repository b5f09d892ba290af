//! Operations against a real gate: `/salud` and `/listo` on the buyers' listener and on
//! `--listen-metricas`, and the Prometheus metrics moving as requests, a 402, a purchase, an
//! uncertain purchase, a facilitator error and an unnamed proxy happen; readiness failing when
//! the sales journal or a file of `dist/` goes away under the running gate.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use common::gate::*;
use common::{built, copy_tree};
use gate::app::{Gate, Live};
use gate::facilitator::Facilitator;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate_http::spawn;
use serde_json::{Value, json};

/// The samples of an OpenMetrics text, by `name{labels}`.
fn parse(text: &str) -> BTreeMap<String, f64> {
    assert!(text.ends_with("# EOF\n"), "OpenMetrics ends with # EOF: {text}");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (name, value) = l.rsplit_once(' ').expect("sample");
            (name.to_owned(), value.parse().unwrap_or_else(|_| panic!("value of {l}")))
        })
        .collect()
}

struct Ops {
    metrics: String,
    client: reqwest::Client,
}

impl Ops {
    async fn get(&self, path: &str) -> (u16, String, Option<String>) {
        let response = self.client.get(format!("{}{path}", self.metrics)).send().await.expect("metrics listener");
        let status = response.status().as_u16();
        let kind = response.headers().get("content-type").map(|v| v.to_str().expect("ascii").to_owned());
        (status, response.text().await.expect("body"), kind)
    }

    /// Scrapes until `done` holds (a request is counted just after its answer leaves), at most
    /// for two seconds; the last scrape either way.
    async fn scrape_when(&self, done: impl Fn(&BTreeMap<String, f64>) -> bool) -> BTreeMap<String, f64> {
        let mut samples = self.scrape().await;
        for _ in 0..100 {
            if done(&samples) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            samples = self.scrape().await;
        }
        samples
    }

    async fn scrape(&self) -> BTreeMap<String, f64> {
        let (status, text, kind) = self.get("/metrics").await;
        assert_eq!(status, 200);
        assert_eq!(kind.as_deref(), Some(gate::telemetry::CONTENT_TYPE));
        parse(&text)
    }
}

/// One `tools/call` over MCP's Streamable HTTP (stateless), its JSON-RPC answer.
async fn mcp_call(http: &reqwest::Client, url: String, params: Value) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let response = http
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25")
        .body(message.to_string())
        .send()
        .await
        .expect("POST /mcp");
    assert_eq!(response.status(), 200);
    response.json().await.expect("JSON-RPC answer")
}

fn value(samples: &BTreeMap<String, f64>, name: &str) -> f64 {
    samples.get(name).copied().unwrap_or(0.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_readiness_and_metrics_follow_what_happens() {
    let dir = tempfile::tempdir().expect("dir");
    let dist = dir.path().join("dist");
    copy_tree(built(), &dist);
    let data = tempfile::tempdir().expect("data");
    let journal = data.path().join(gate::sales::journal::JOURNAL_FILE);
    let sales = gate::sales::Sales::open(&journal, gate::sales::journal::DEFAULT_SEGMENT_BYTES).expect("journal");
    let flaky = Arc::new(WatchedLocal::new(LocalFacilitator::new(LocalConfig::default())));
    let facilitator: Arc<dyn Facilitator> = flaky.clone();
    let gate = Gate::load_with(&dist, services(facilitator, sales, gate::chain::Chains::new())).expect("gate");
    let live = Arc::new(Live::new(gate));
    let server = spawn(Arc::clone(&live), 2).expect("gate starts");
    let bound = gate::telemetry::serve("127.0.0.1:0", Arc::clone(&live), false).expect("metrics").expect("bound");
    let ops = Ops { metrics: format!("http://{bound}"), client: client() };
    let http = client();
    let url = |path: &str| format!("{}{path}", server.url());

    // Liveness and readiness, on both listeners.
    for base in [server.url(), ops.metrics.clone()] {
        let health = http.get(format!("{base}/salud")).send().await.expect("salud");
        assert_eq!(health.status(), 200);
        assert_eq!(health.headers()["cache-control"], "no-store");
        assert_eq!(health.json::<Value>().await.expect("json")["estado"], "vivo");
        let ready = http.get(format!("{base}/listo")).send().await.expect("listo");
        assert_eq!(ready.status(), 200);
        let body: Value = ready.json().await.expect("json");
        assert_eq!(body["listo"], true, "{body}");
        assert_eq!(body["comprobaciones"]["ventas"]["ok"], true, "{body}");
    }
    assert_eq!(ops.get("/otra").await.0, 404);

    let before = ops.scrape().await;
    assert_eq!(value(&before, "gate_listo"), 1.0);
    // Free documents (the fast lane answers these), a 404, a 402.
    for _ in 0..3 {
        assert_eq!(http.get(url("/catalogo")).send().await.expect("catalogo").status(), 200);
    }
    assert_eq!(http.get(url("/no-existe")).send().await.expect("404").status(), 404);
    assert_eq!(http.get(url("/estudio/banca-2026")).send().await.expect("402").status(), 402);
    let delta = |now: &BTreeMap<String, f64>, name: &str| value(now, name) - value(&before, name);
    let after =
        ops.scrape_when(|m| delta(m, "gate_pedidos_total{ruta=\"/estudio/{slug}\",estado=\"402\"}") >= 1.0).await;
    let moved = |name: &str| delta(&after, name);
    assert_eq!(moved("gate_pedidos_total{ruta=\"documento\",estado=\"200\"}"), 3.0, "{after:#?}");
    assert_eq!(moved("gate_pedidos_total{ruta=\"otra\",estado=\"404\"}"), 1.0);
    assert_eq!(moved("gate_pedidos_total{ruta=\"/estudio/{slug}\",estado=\"402\"}"), 1.0, "{after:#?}");
    assert_eq!(moved("gate_402_total{ruta=\"/estudio/{slug}\"}"), 1.0);
    assert_eq!(moved("gate_pedidos_total{ruta=\"/salud\",estado=\"200\"}"), 0.0, "the metrics listener is not counted");

    // comprar_estudio without a payment over MCP: a JSON-RPC answer (HTTP 200) that is a
    // payment-required answer all the same, counted with the 402s under /mcp.
    let buy = json!({"name": "comprar_estudio", "arguments": {"slug": "banca-2026"}});
    let unpaid = mcp_call(&http, url("/mcp"), buy).await;
    assert_eq!(unpaid["result"]["isError"], true, "{unpaid}");
    assert_eq!(unpaid["result"]["structuredContent"]["x402Version"], 2, "{unpaid}");
    let free = mcp_call(&http, url("/mcp"), json!({"name": "listar_estudios", "arguments": {}})).await;
    assert_eq!(free["result"]["isError"], false, "a free tool is no payment-required answer");
    let mcp = ops.scrape_when(|m| delta(m, "gate_pedidos_total{ruta=\"/mcp\",estado=\"200\"}") >= 2.0).await;
    assert_eq!(delta(&mcp, "gate_pedidos_total{ruta=\"/mcp\",estado=\"200\"}"), 2.0, "{mcp:#?}");
    assert_eq!(delta(&mcp, "gate_402_total{ruta=\"/mcp\"}"), 1.0, "{mcp:#?}");
    assert_eq!(delta(&mcp, "gate_402_total{ruta=\"/estudio/{slug}\"}"), 1.0);

    // A purchase: sold, one settlement timed, the journal fsync'd.
    let key = signer(DEV_KEY);
    let accepted = accepted_of(&dist, "banca-2026", "resumen");
    let path = "/estudio/banca-2026?vista=resumen";
    let paid = http.get(url(path)).header("PAYMENT-SIGNATURE", signed_header(&accepted, &key, |_, _| {})).send();
    assert_eq!(paid.await.expect("purchase").status(), 200);
    let sold =
        ops.scrape_when(|m| value(m, "gate_pedidos_total{ruta=\"/estudio/{slug}\",estado=\"200\"}") >= 1.0).await;
    assert_eq!(value(&sold, "gate_compras_total{resultado=\"vendida\"}"), 1.0, "{sold:#?}");
    assert_eq!(value(&sold, "gate_liquidacion_segundos_count"), 1.0);
    assert!(value(&sold, "gate_diario_fsync_segundos_count") >= 1.0, "{sold:#?}");
    assert_eq!(value(&sold, "gate_compras_por_conciliar"), 0.0);

    // An uncertain purchase: the facilitator times out.
    flaky.time_out_next.store(true, Ordering::SeqCst);
    let doubt = http.get(url(path)).header("PAYMENT-SIGNATURE", signed_header(&accepted, &key, |_, _| {})).send();
    let doubt = doubt.await.expect("uncertain purchase");
    assert_eq!(doubt.status(), 503);
    assert_eq!(doubt.json::<Value>().await.expect("json")["error"], "liquidacion_incierta");
    let uncertain =
        ops.scrape_when(|m| value(m, "gate_pedidos_total{ruta=\"/estudio/{slug}\",estado=\"503\"}") >= 1.0).await;
    assert_eq!(value(&uncertain, "gate_compras_inciertas_total"), 1.0, "{uncertain:#?}");
    assert_eq!(value(&uncertain, "gate_compras_total{resultado=\"incierta\"}"), 1.0);
    assert_eq!(value(&uncertain, "gate_facilitador_errores_total{tipo=\"tiempo_agotado\"}"), 1.0);
    assert_eq!(value(&uncertain, "gate_compras_por_conciliar"), 1.0, "the record holds it to reconcile");
    assert_eq!(value(&uncertain, "gate_liquidacion_segundos_count"), 2.0);
    assert_eq!(value(&uncertain, "gate_pedidos_total{ruta=\"/estudio/{slug}\",estado=\"503\"}"), 1.0);

    // Forwarding headers from a peer that is not a named proxy are counted (and ignored).
    let forwarded = http.get(url("/catalogo")).header("X-Forwarded-For", "203.0.113.9").send();
    assert_eq!(forwarded.await.expect("forwarded").status(), 200);
    let counted = ops
        .scrape_when(|m| value(m, "gate_reenvio_ignorado_total") > value(&uncertain, "gate_reenvio_ignorado_total"))
        .await;
    assert!(
        value(&counted, "gate_reenvio_ignorado_total") > value(&uncertain, "gate_reenvio_ignorado_total"),
        "{counted:#?}"
    );

    // Readiness fails when the journal is gone (a write would land in a deleted file)…
    std::fs::rename(&journal, data.path().join("movido.jsonl")).expect("move journal");
    for base in [server.url(), ops.metrics.clone()] {
        let ready = http.get(format!("{base}/listo")).send().await.expect("listo");
        assert_eq!(ready.status(), 503);
        let body: Value = ready.json().await.expect("json");
        assert_eq!(
            (body["listo"].as_bool(), body["comprobaciones"]["ventas"]["ok"].as_bool()),
            (Some(false), Some(false))
        );
        assert!(body["comprobaciones"]["ventas"]["detalle"].as_str().expect("detail").contains("ya no está"), "{body}");
    }
    assert_eq!(value(&ops.scrape().await, "gate_listo"), 0.0);
    std::fs::rename(data.path().join("movido.jsonl"), &journal).expect("journal back");
    assert_eq!(http.get(url("/listo")).send().await.expect("listo").status(), 200);

    // …and when a file of dist/ the manifest names is gone.
    let manifest = common::read_json(&dist.join("gate.json"));
    let (name, download) = manifest["descargas"].as_object().expect("descargas").iter().next().expect("one");
    let file = dist.join(download["archivo"].as_str().expect("archivo"));
    std::fs::remove_file(&file).expect("remove");
    let ready = http.get(url("/listo")).send().await.expect("listo");
    assert_eq!(ready.status(), 503);
    let body: Value = ready.json().await.expect("json");
    assert_eq!(body["comprobaciones"]["dist"]["ok"], false, "{body}");
    assert!(body["comprobaciones"]["dist"]["detalle"].as_str().expect("detail").starts_with(name.as_str()), "{body}");
    assert_eq!(http.get(url("/salud")).send().await.expect("salud").status(), 200, "alive all the same");
}

/// With the sales in PostgreSQL there is no fsync to time: each step of a purchase is a
/// commit, timed in `gate_base_commit_segundos` (and the journal's histogram stays empty).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shared_record_times_each_commit() {
    let db = tests::postgres::Postgres::start().expect("PostgreSQL starts");
    let shared = gate::sales::postgres::Shared::connect(&db.url()).expect("the sales database answers");
    let sales = gate::sales::Sales::open_shared(shared).expect("shared record");
    let facilitator: Arc<dyn Facilitator> = Arc::new(LocalFacilitator::new(LocalConfig::default()));
    let gate = Gate::load_with(built(), services(facilitator, sales, gate::chain::Chains::new())).expect("gate");
    let live = Arc::new(Live::new(gate));
    let server = spawn(Arc::clone(&live), 2).expect("gate starts");
    let bound = gate::telemetry::serve("127.0.0.1:0", Arc::clone(&live), false).expect("metrics").expect("bound");
    let ops = Ops { metrics: format!("http://{bound}"), client: client() };
    let before = ops.scrape().await;
    assert_eq!(value(&before, "gate_base_commit_segundos_count"), 0.0, "{before:#?}");

    let accepted = accepted_of(built(), "banca-2026", "resumen");
    let paid = client()
        .get(format!("{}/estudio/banca-2026?vista=resumen", server.url()))
        .header("PAYMENT-SIGNATURE", signed_header(&accepted, &signer(DEV_KEY), |_, _| {}))
        .send();
    assert_eq!(paid.await.expect("purchase").status(), 200);
    // aceptado (with the reservation), liquidado, entregado: three steps, three commits.
    let sold = ops.scrape_when(|m| value(m, "gate_base_commit_segundos_count") >= 3.0).await;
    assert_eq!(value(&sold, "gate_base_commit_segundos_count"), 3.0, "{sold:#?}");
    assert!(value(&sold, "gate_base_commit_segundos_sum") > 0.0);
    let rows: u64 = db.psql("SELECT count(*) FROM eventos").expect("psql").parse().expect("count");
    assert_eq!(rows, 3, "one commit per event row");
    // A lone purchase has nothing to share its commits with: three transactions of one step.
    assert_eq!(value(&sold, "gate_base_pasos_por_commit_count"), 3.0, "{sold:#?}");
    assert_eq!(value(&sold, "gate_base_pasos_por_commit_sum"), 3.0);
    assert_eq!(value(&sold, "gate_diario_fsync_segundos_count"), 0.0, "no journal file");
    assert_eq!(value(&sold, "gate_compras_total{resultado=\"vendida\"}"), 1.0);
}
