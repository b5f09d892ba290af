//! The payment mode: the one setting that decides the networks offered and the facilitator.
//!
//! The publisher writes it in `servicio.toml`, the generator reports it in every document and
//! writes it into `gate.json`, and the gate picks its facilitator from it, so no two parts can
//! answer "is this real money?" differently.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Local facilitator (no chain), Base Sepolia identifiers. The default for a fresh machine.
    Local,
    /// Public testnet facilitator, Base Sepolia (and Solana devnet when configured).
    Testnet,
    /// Real money: Base mainnet (and Solana mainnet when configured).
    Mainnet,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Local => "local",
            Mode::Testnet => "testnet",
            Mode::Mainnet => "mainnet",
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_travel_as_their_lowercase_names() {
        for mode in [Mode::Local, Mode::Testnet, Mode::Mainnet] {
            let text = serde_json::to_string(&mode).expect("serializes");
            assert_eq!(text, format!("\"{}\"", mode.as_str()));
            assert_eq!(serde_json::from_str::<Mode>(&text).expect("parses"), mode);
        }
        assert!(serde_json::from_str::<Mode>("\"Mainnet\"").is_err());
    }
}
