//! `facilitador-cdp-prueba`: the CDP stub ([`tests::cdp_stub`]) over HTTP, for the interop
//! suite. It accepts JWTs signed by the key in `CDP_API_KEY_ID`/`CDP_API_KEY_SECRET` (only its
//! public half is used) and settles with the local facilitator (no chain, no real money).
//!
//! ```sh
//! CDP_API_KEY_ID=… CDP_API_KEY_SECRET=… facilitador-cdp-prueba --listen 127.0.0.1:8403 --data DIR
//! ```

use std::sync::Arc;

use anyhow::{Context, Result};
use gate::facilitator::cdp::CdpKey;
use gate::facilitator::local::{LocalConfig, LocalFacilitator};
use gate_http::{RunOptions, run};
use tests::cdp_stub::CdpStub;
use tests::programs::facilitador_cdp_prueba::Args;

fn main() {
    if let Err(e) = serve() {
        eprintln!("facilitador-cdp-prueba: {}", cli::error_line(e.as_ref()));
        std::process::exit(1);
    }
}

fn serve() -> Result<()> {
    let args: Args = cli::parse();
    let key = CdpKey::from_process_env()?.context("defina CDP_API_KEY_ID y CDP_API_KEY_SECRET")?;
    std::fs::create_dir_all(&args.data)?;
    eprintln!(
        "facilitador-cdp-prueba: http://{}/platform/v2/x402 (clave {}, {})",
        args.listen,
        key.id(),
        key.kind().as_str()
    );
    let stub = CdpStub::new(&key, LocalFacilitator::new(LocalConfig::default()));
    run(
        Arc::new(stub),
        RunOptions {
            name: "facilitador-cdp-prueba",
            listen: &args.listen,
            threads: 1,
            data_dir: &args.data,
            take_over: false,
            tls: None,
        },
    )
}
