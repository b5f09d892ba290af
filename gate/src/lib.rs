//! The gate serves `dist/` and sells studies over x402 v2.
//!
//! It is built in its own issue; until then this crate only fixes its place in the workspace.
