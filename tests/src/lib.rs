//! End-to-end tests live in `tests/tests/`; benchmark programs and test servers in `src/bin/`.
//! [`cdp_stub`] stands in for Coinbase CDP's facilitator (a JWT checked on every request).

pub mod cdp_stub;
