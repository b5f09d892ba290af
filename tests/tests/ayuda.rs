//! Every option of the test and benchmark programs (`bench-gate`, `bench-build`,
//! `bench-compras`, `bench-limits`, `soak`, `facilitador-cdp-prueba`) has a description in
//! `--help`, in Spanish.

use std::path::Path;

#[test]
fn every_option_is_described_in_spanish() {
    let problems: Vec<String> = [
        env!("CARGO_BIN_EXE_bench-gate"),
        env!("CARGO_BIN_EXE_bench-build"),
        env!("CARGO_BIN_EXE_bench-compras"),
        env!("CARGO_BIN_EXE_bench-limits"),
        env!("CARGO_BIN_EXE_soak"),
        env!("CARGO_BIN_EXE_facilitador-cdp-prueba"),
    ]
    .iter()
    .flat_map(|exe| cli::binary_help_problems(Path::new(exe), &[]))
    .collect();
    assert!(problems.is_empty(), "{problems:#?}");
}
