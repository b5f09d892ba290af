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

use sha2::{Digest, Sha256};

/// sha256 of bytes as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest {
        // Writing into a String cannot fail.
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_hex_matches_known_vectors() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
