//! The command lines of the benchmark and test programs (`tests/src/bin/`), as clap reads them:
//! kept in the library so the book's command reference is generated from these very
//! definitions (`cargo run -p tests --bin referencia`).

pub mod bench_build;
pub mod bench_compras;
pub mod bench_gate;
pub mod bench_limits;
pub mod bench_mpp;
pub mod caos;
pub mod facilitador_cdp_prueba;
pub mod soak;
