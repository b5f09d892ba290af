//! The one definition of what crosses between the generator and the gate.
//!
//! The generator writes `dist/`; the gate serves it and reads nothing else. Everything both
//! halves must agree on lives here, once: the manifest `dist/gate.json` ([`manifest`]), the
//! x402 v2 wire objects ([`x402`]), the payment [`mode::Mode`] and the [`networks`] each mode
//! offers, the sold [`view::View`]s, prices as integers of atomic units ([`price::Price`]), the
//! search index and its query side ([`search`], with the accent and case folding of [`fold`]),
//! and the security policy every HTML page is sent with. It depends on serde and nothing heavy, so the gate links none of
//! the generator's writers (xlsx, zip, templates).

pub mod fold;
pub mod manifest;
pub mod mcp;
pub mod mode;
pub mod networks;
pub mod price;
pub mod search;
pub mod view;
pub mod x402;

pub use mode::Mode;
pub use price::Price;
pub use view::View;

/// The Content-Security-Policy of every HTML page, sent by the gate and written into the
/// static host's `_headers`: nothing from other hosts, no inline script or style, search only
/// against this origin.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
