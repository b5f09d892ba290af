//! End-to-end tests live in `tests/tests/`; benchmark programs and test servers in `src/bin/`.
//! [`cdp_stub`] stands in for Coinbase CDP's facilitator (a JWT checked on every request);
//! [`postgres`] makes throwaway PostgreSQL servers.

pub mod cdp_stub;
pub mod postgres;
