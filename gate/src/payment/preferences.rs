//! What a buyer says it can pay with: MPP's `Accept-Payment` request header, which filters and
//! orders the challenges of a 402, MPP's and x402's alike.
//!
//! Written from `tempoxyz/mpp-specs` at f9506cd (`specs/core/draft-httpauth-payment-00.md`,
//! "Client Payment Preferences" and the collected ABNF):
//!
//! ```text
//! Accept-Payment = #payment-range
//! payment-range  = payment-token [ weight ]            ; weight: RFC 9110 `;q=` qvalue
//! payment-token  = payment-method-or-wildcard "/" intent-or-wildcard
//! payment-method-id = 1*LOWERALPHA                     ; or "*"
//! intent-token      = 1*( ALPHA / DIGIT / "-" )        ; or "*"
//! ```
//!
//! A server SHOULD keep the challenges that match a range with `q > 0`, order them by the
//! client's `q` (highest first), keep its own order between equal `q`s, and judge each
//! challenge by the most specific range that matches it. Ties between ranges of equal
//! specificity go to the higher `q`, then the earlier range, as `mppx` 0.11.0 ranks them
//! (`src/internal/AcceptPayment.ts`). A malformed header is ignored (the draft's MAY), and
//! so is one that matches nothing the offer has: the 402 then offers everything and says
//! what the store takes ([`Selection::unmatched`]).
//!
//! x402 has no place in that grammar of its own (`x402` is not a `payment-method-id`: digits),
//! so an x402 requirement is judged by what it pays with, as `mppx` reads x402's `accepts`
//! into challenges (`src/client/internal/protocols/X402.ts`): the `exact` scheme on an EVM
//! network is `evm/charge`, on Solana `solana/charge`. `evm/charge` therefore keeps both the
//! x402 requirement and the MPP challenge on that network; both are one payment to the shop.

use crate::x402::PaymentRequirements;

/// The request header.
pub const HEADER: &str = "Accept-Payment";
/// Where an MCP call may carry the same preferences (a string in the header's grammar),
/// for clients that cannot set HTTP headers on their transport; it wins over the header.
pub const MCP_META: &str = "org.paymentauth/accept-payment";

/// A `q` in thousandths (0 to 1000).
type Weight = u16;

/// One `payment-range`: `None` is the wildcard.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Range {
    method: Option<String>,
    intent: Option<String>,
    q: Weight,
}

impl Range {
    fn matches(&self, method: &str, intent: &str) -> bool {
        self.method.as_deref().is_none_or(|m| m == method) && self.intent.as_deref().is_none_or(|i| i == intent)
    }

    fn specificity(&self) -> u8 {
        u8::from(self.method.is_some()) + u8::from(self.intent.is_some())
    }
}

/// A parsed `Accept-Payment` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptPayment {
    ranges: Vec<Range>,
    /// The value as sent, to name it back.
    text: String,
}

impl AcceptPayment {
    /// Parses a header value; `None` when it is malformed or names nothing (then it is ignored).
    pub fn parse(value: &[u8]) -> Option<AcceptPayment> {
        let text = std::str::from_utf8(value).ok()?;
        let mut ranges = Vec::new();
        // RFC 9110 lists: empty elements are allowed and ignored.
        for element in text.split(',').map(|e| e.trim_matches([' ', '\t'])).filter(|e| !e.is_empty()) {
            ranges.push(parse_range(element)?);
        }
        (!ranges.is_empty()).then(|| AcceptPayment { ranges, text: text.trim().to_owned() })
    }

    /// The value as the client sent it.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The client's weight for a method and intent (`None`: no range matches it).
    fn weight(&self, method: &str, intent: &str) -> Option<Weight> {
        let mut best: Option<&Range> = None;
        for range in self.ranges.iter().filter(|r| r.matches(method, intent)) {
            let better = match best {
                None => true,
                Some(b) => {
                    range.specificity() > b.specificity() || (range.specificity() == b.specificity() && range.q > b.q)
                }
            };
            if better {
                best = Some(range);
            }
        }
        best.map(|r| r.q)
    }

    /// The positions of `kinds` (each item's method and intent, `None` for one that has
    /// neither) that the client accepts, best first, the server's order kept between equals.
    /// An item without a kind matches only a range that is all wildcards.
    pub fn rank(&self, kinds: &[Option<(&str, &str)>]) -> Vec<usize> {
        let mut kept: Vec<(usize, Weight)> = kinds
            .iter()
            .enumerate()
            .filter_map(|(i, kind)| {
                let (method, intent) = kind.unwrap_or(("", ""));
                let q = match kind {
                    Some(_) => self.weight(method, intent),
                    None => self.ranges.iter().filter(|r| r.specificity() == 0).map(|r| r.q).max(),
                };
                q.filter(|q| *q > 0).map(|q| (i, q))
            })
            .collect();
        kept.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        kept.into_iter().map(|(i, _)| i).collect()
    }
}

fn parse_range(element: &str) -> Option<Range> {
    let mut parts = element.split(';');
    let token = parts.next()?.trim_matches([' ', '\t']);
    let (method, intent) = token.split_once('/')?;
    let method = match method {
        "*" => None,
        m if !m.is_empty() && m.bytes().all(|b| b.is_ascii_lowercase()) => Some(m.to_owned()),
        _ => return None,
    };
    let intent = match intent {
        "*" => None,
        i if !i.is_empty() && i.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') => Some(i.to_owned()),
        _ => return None,
    };
    let mut q = None;
    for parameter in parts {
        let (name, value) = parameter.trim_matches([' ', '\t']).split_once('=')?;
        if name.eq_ignore_ascii_case("q") {
            if q.is_some() {
                return None;
            }
            q = Some(parse_qvalue(value)?);
        }
        // Other parameters are not in the draft's grammar; like `mppx`, they are skipped.
    }
    Some(Range { method, intent, q: q.unwrap_or(1000) })
}

/// RFC 9110 §12.4.2: `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`, in thousandths.
fn parse_qvalue(value: &str) -> Option<Weight> {
    let (whole, fraction) = value.split_once('.').unwrap_or((value, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths: Weight = format!("{fraction:0<3}").parse().ok()?;
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// The method and intent an x402 requirement pays with (`None`: a scheme with no MPP name).
pub fn kind_of(requirement: &PaymentRequirements) -> Option<(&'static str, &'static str)> {
    let method = if requirement.network.starts_with("eip155:") {
        "evm"
    } else if requirement.network.starts_with("solana:") {
        "solana"
    } else {
        return None;
    };
    (requirement.scheme == "exact").then_some((method, "charge"))
}

/// Which of an offer's requirements a 402 shows, in which order: x402's `accepts` and the MPP
/// challenges made from them both follow it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Positions in the offer's `accepts`, in the order shown.
    pub order: Vec<usize>,
    /// The client's preferences matched none of them: everything is shown, and the 402 says
    /// what the store takes.
    pub unmatched: Option<AcceptPayment>,
}

impl Selection {
    /// Everything, in the offer's order: no preference, or one that was ignored.
    pub fn all(count: usize) -> Selection {
        Selection { order: (0..count).collect(), unmatched: None }
    }

    /// What `preferences` keep of `requirements`.
    pub fn of(requirements: &[PaymentRequirements], preferences: Option<&AcceptPayment>) -> Selection {
        let Some(preferences) = preferences else { return Selection::all(requirements.len()) };
        let kinds: Vec<Option<(&str, &str)>> = requirements.iter().map(kind_of).collect();
        let order = preferences.rank(&kinds);
        if order.is_empty() {
            return Selection { order: (0..requirements.len()).collect(), unmatched: Some(preferences.clone()) };
        }
        Selection { order, unmatched: None }
    }

    /// Whether this shows everything in the offer's own order, as a 402 without preferences.
    pub fn is_plain(&self, count: usize) -> bool {
        self.unmatched.is_none() && self.order.len() == count && self.order.iter().enumerate().all(|(i, &p)| i == p)
    }

    /// `items` (one per requirement) as this selection shows them.
    pub fn apply<T: Clone>(&self, items: &[T]) -> Vec<T> {
        self.order.iter().filter_map(|&i| items.get(i).cloned()).collect()
    }
}

/// What the store takes, as `method/intent` names with the protocols and networks of each, in
/// the offer's order: the answer to preferences that matched nothing.
pub fn taken(requirements: &[PaymentRequirements], mpp: bool) -> Vec<serde_json::Value> {
    let mut kinds: Vec<(String, Vec<&str>, Vec<String>)> = Vec::new();
    for requirement in requirements {
        let name = match kind_of(requirement) {
            Some((method, intent)) => format!("{method}/{intent}"),
            None => continue,
        };
        let protocols = if mpp && name == "evm/charge" { vec!["x402", "mpp"] } else { vec!["x402"] };
        match kinds.iter_mut().find(|(n, _, _)| *n == name) {
            Some((_, _, networks)) => networks.push(requirement.network.clone()),
            None => kinds.push((name, protocols, vec![requirement.network.clone()])),
        }
    }
    kinds
        .into_iter()
        .map(|(name, protocols, networks)| serde_json::json!({"medio": name, "protocolos": protocols, "redes": networks}))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> AcceptPayment {
        AcceptPayment::parse(text.as_bytes()).unwrap_or_else(|| panic!("{text:?} parses"))
    }

    #[test]
    fn the_drafts_examples_parse_and_bad_values_are_ignored() {
        for good in [
            "tempo/charge, tempo/session, stripe/charge;q=0.5, solana/charge;q=0.3",
            "tempo/*, solana/*;q=0.6, */session;q=0.3",
            "tempo/charge, tempo/session;q=0, solana/charge",
            "evm/charge , ,stripe/charge ; q=0.500",
            "*/*;q=1.000",
        ] {
            parse(good);
        }
        for bad in [
            "",
            " , ",
            "evm",
            "EVM/charge",
            "x402/exact",
            "evm/charge;q=1.5",
            "evm/charge;q=0.1234",
            "evm/charge;q=",
            "evm/charge;q=0.5;q=1",
            "evm/char ge",
            "/charge",
            "evm/",
        ] {
            assert_eq!(AcceptPayment::parse(bad.as_bytes()), None, "{bad:?} is ignored");
        }
        assert_eq!(AcceptPayment::parse(&[0xff, b'/', b'x']), None, "not UTF-8");
    }

    #[test]
    fn challenges_are_kept_by_q_and_ordered_as_the_draft_says() {
        let offered = [
            Some(("tempo", "charge")),
            Some(("tempo", "session")),
            Some(("solana", "charge")),
            Some(("stripe", "charge")),
        ];
        // The draft's four examples (Challenge Negotiation with Accept-Payment).
        assert_eq!(
            parse("tempo/charge, tempo/session, stripe/charge;q=0.5, solana/charge;q=0.3").rank(&offered),
            [0, 1, 3, 2]
        );
        assert_eq!(parse("tempo/charge, solana/charge").rank(&offered), [0, 2], "equal q: the server's order");
        assert_eq!(parse("tempo/*, solana/*;q=0.6, stripe/charge;q=0.2").rank(&offered), [0, 1, 2, 3]);
        assert_eq!(
            parse("tempo/charge, tempo/session;q=0, solana/charge;q=0.8, stripe/charge;q=0.4").rank(&offered),
            [0, 2, 3]
        );
        // The most specific range decides, whatever its q.
        assert_eq!(parse("*/*, tempo/charge;q=0").rank(&offered), [1, 2, 3]);
        assert_eq!(parse("tempo/*;q=0, tempo/session;q=0.2").rank(&offered), [1]);
        // Between ranges as specific, the higher q.
        assert_eq!(parse("solana/charge;q=0, solana/charge;q=0.9, stripe/charge").rank(&offered), [3, 2]);
        assert_eq!(parse("card/charge").rank(&offered), Vec::<usize>::new());
        // An item with no MPP name is kept only by a range of wildcards.
        assert_eq!(parse("evm/charge").rank(&[None, Some(("evm", "charge"))]), [1]);
        assert_eq!(parse("evm/charge;q=0.5, */*;q=0.7").rank(&[None, Some(("evm", "charge"))]), [0, 1]);
    }

    fn requirement(network: &str) -> PaymentRequirements {
        serde_json::from_value(serde_json::json!({"scheme": "exact", "network": network, "amount": "990000",
            "asset": "a", "payTo": "b", "maxTimeoutSeconds": 300}))
        .expect("requirement")
    }

    #[test]
    fn x402_requirements_are_judged_by_what_they_pay_with() {
        let offer = [requirement("eip155:84532"), requirement("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1")];
        assert_eq!(kind_of(&offer[0]), Some(("evm", "charge")));
        assert_eq!(kind_of(&offer[1]), Some(("solana", "charge")));
        let pick = |header: &str| Selection::of(&offer, AcceptPayment::parse(header.as_bytes()).as_ref());
        assert!(pick("evm/charge, solana/charge").is_plain(2));
        assert_eq!(pick("solana/charge, evm/charge;q=0.5").order, [1, 0]);
        assert_eq!(pick("evm/charge;q=0, */*").order, [1]);
        let none = pick("stripe/charge");
        assert_eq!(none.order, [0, 1], "nothing matched: everything is offered");
        assert_eq!(none.unmatched.as_ref().map(AcceptPayment::as_str), Some("stripe/charge"));
        assert!(Selection::of(&offer, None).is_plain(2));
        assert!(pick("not a header").is_plain(2), "malformed: ignored");
        let named = taken(&offer, true);
        assert_eq!(named[0]["medio"], "evm/charge");
        assert_eq!(named[0]["protocolos"], serde_json::json!(["x402", "mpp"]));
        assert_eq!(named[1]["protocolos"], serde_json::json!(["x402"]));
    }
}
