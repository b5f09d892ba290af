//! Stage 5, package: what a buyer of one study gets, as bytes.
//!
//! Per study: the full package JSON, the summary JSON (the cheaper view), and the ZIP that
//! holds the package, the spreadsheet ([`xlsx`]), the committed PDF reports and a README. The
//! ZIP ([`zip`]) and the spreadsheet are reproducible: their sizes and sha256 are published
//! before anyone buys, so the same content must give the same bytes on every build, and every
//! timestamp inside them comes from the study's publication date ([`date`]).
//!
//! Packaging runs before the free study sheets are rendered, because each sheet publishes
//! the size and sha256 of its study's downloads.

mod date;
pub mod xlsx;
pub mod zip;
