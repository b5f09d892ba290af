//! The networks each mode offers: CAIP-2 ids, USDC contracts (or mints) and EIP-712 domains.
//!
//! The generator writes them into every document and into `gate.json`; `gate verificar`
//! checks a built `dist/` against them, so a hand-edited or stale manifest cannot sell on a
//! network or asset its mode does not name. Values from Circle's USDC deployments as the
//! x402 reference stacks list them.

use crate::manifest::Network;
use crate::mode::Mode;

/// One network as the store offers it, before a payee is attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Canonical {
    /// Short name ("base-sepolia").
    pub network: &'static str,
    /// Readable name.
    pub name: &'static str,
    /// CAIP-2 id.
    pub caip2: &'static str,
    /// USDC contract (EVM) or mint (Solana).
    pub asset: &'static str,
    /// EIP-712 domain name and version of the USDC contract (EVM only).
    pub eip712: Option<(&'static str, &'static str)>,
}

pub const BASE_SEPOLIA: Canonical = Canonical {
    network: "base-sepolia",
    name: "Base Sepolia",
    caip2: "eip155:84532",
    asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    eip712: Some(("USDC", "2")),
};

pub const BASE: Canonical = Canonical {
    network: "base",
    name: "Base",
    caip2: "eip155:8453",
    asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    eip712: Some(("USD Coin", "2")),
};

pub const SOLANA_DEVNET: Canonical = Canonical {
    network: "solana-devnet",
    name: "Solana devnet",
    caip2: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
    eip712: None,
};

pub const SOLANA: Canonical = Canonical {
    network: "solana",
    name: "Solana",
    caip2: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    asset: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    eip712: None,
};

/// The EVM network of a mode: Base Sepolia in local and testnet mode, Base in mainnet.
pub fn evm(mode: Mode) -> Canonical {
    match mode {
        Mode::Local | Mode::Testnet => BASE_SEPOLIA,
        Mode::Mainnet => BASE,
    }
}

/// The Solana network a mode offers when a Solana payee is set: devnet in testnet mode,
/// mainnet in mainnet mode, none in local mode (the local facilitator checks EVM only).
pub fn solana(mode: Mode) -> Option<Canonical> {
    match mode {
        Mode::Local => None,
        Mode::Testnet => Some(SOLANA_DEVNET),
        Mode::Mainnet => Some(SOLANA),
    }
}

impl Canonical {
    /// The manifest's form of this network, paying `pagar_a`.
    pub fn network(&self, pay_to: &str) -> Network {
        Network {
            network: self.network.to_owned(),
            name: self.name.to_owned(),
            caip2: self.caip2.to_owned(),
            asset: self.asset.to_owned(),
            eip712_name: self.eip712.map(|(name, _)| name.to_owned()),
            eip712_version: self.eip712.map(|(_, version)| version.to_owned()),
            pay_to: pay_to.to_owned(),
        }
    }

    /// Whether a manifest network is this one (all but the payee).
    pub fn matches(&self, network: &Network) -> bool {
        let payee = &network.pay_to;
        *network == self.network(payee)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mode_has_its_networks() {
        assert_eq!(evm(Mode::Local), evm(Mode::Testnet));
        assert_eq!(evm(Mode::Mainnet).caip2, "eip155:8453");
        assert_eq!(solana(Mode::Local), None);
        assert_eq!(solana(Mode::Mainnet).map(|n| n.caip2), Some("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"));
        let base = BASE.network("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
        assert!(BASE.matches(&base));
        assert!(!BASE_SEPOLIA.matches(&base));
        assert!(!BASE.matches(&Network { eip712_name: Some("USDC".into()), ..base }));
    }
}
