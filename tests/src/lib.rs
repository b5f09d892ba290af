//! End-to-end tests live in `tests/tests/`; benchmark programs and test servers in `src/bin/`.
//! [`cdp_stub`] stands in for Coinbase CDP's facilitator (a JWT checked on every request);
//! [`postgres`] makes throwaway PostgreSQL servers; [`chain`] runs a real local chain (anvil
//! with Circle's USDC) and an independent x402 facilitator settling on it; [`mpp`] builds MPP
//! credentials exactly as the official `mppx` client does.

pub mod cdp_stub;
pub mod chain;
pub mod faults;
pub mod mpp;
pub mod postgres;
pub mod programs;
pub mod reference;
