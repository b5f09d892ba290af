//! Pages for browsers: content negotiation between the JSON agents read and the HTML people see.
//!
//! The generator renders every page into `dist/`; the gate never renders templates. It only
//! picks, by the request's `Accept`, between answers it holds in memory: on `/` the home page
//! or the JSON service index (the gate's `statics`), and on an unpaid `/estudio/{slug}` the HTML
//! 402 page or the JSON 402 (the gate's `payment::http`). Every negotiated answer says
//! `Vary: Accept` so caches keep the two apart.

pub const HTML: &str = "text/html; charset=utf-8";

/// Whether a client's `Accept` prefers `text/html` to `application/json`.
///
/// Each type gets the quality of the most specific range that matches it (RFC 9110 §12.5.1:
/// `text/html` before `text/*` before `*/*`); a tie, a missing header or an unreadable one
/// goes to JSON, so agents and `curl` keep getting what they always got.
pub fn prefers_html(accept: Option<&[u8]>) -> bool {
    let Some(accept) = accept.and_then(|a| std::str::from_utf8(a).ok()) else { return false };
    quality(accept, "text", "html") > quality(accept, "application", "json")
}

/// The quality `accept` gives to `kind/subtype`, 0 when nothing matches.
fn quality(accept: &str, kind: &str, subtype: &str) -> f32 {
    let mut best: Option<(u8, f32)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or_default().trim();
        let Some((k, s)) = media.split_once('/') else { continue };
        let specificity = match (k.trim(), s.trim()) {
            (k, s) if k.eq_ignore_ascii_case(kind) && s.eq_ignore_ascii_case(subtype) => 3,
            (k, "*") if k.eq_ignore_ascii_case(kind) => 2,
            ("*", "*") => 1,
            _ => continue,
        };
        let q = parts
            .filter_map(|p| p.split_once('='))
            .find(|(name, _)| name.trim().eq_ignore_ascii_case("q"))
            .and_then(|(_, v)| v.trim().parse::<f32>().ok())
            .map_or(1.0, |q| q.clamp(0.0, 1.0));
        if best.is_none_or(|(s, _)| specificity > s) {
            best = Some((specificity, q));
        }
    }
    best.map_or(0.0, |(_, q)| q)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIREFOX: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    const CHROME: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7";

    fn html(accept: &str) -> bool {
        prefers_html(Some(accept.as_bytes()))
    }

    #[test]
    fn browsers_get_html() {
        assert!(html(FIREFOX));
        assert!(html(CHROME));
        assert!(html("text/html"));
        assert!(html("text/*, application/json;q=0.5"));
        assert!(html("application/json;q=0.4, TEXT/HTML"));
    }

    #[test]
    fn agents_and_ties_get_json() {
        assert!(!prefers_html(None));
        assert!(!html(""));
        assert!(!html("*/*"));
        assert!(!html("application/json"));
        assert!(!html("application/json, text/html"));
        assert!(!html("text/html;q=0.5, application/json"));
        assert!(!html("text/html;q=0"));
        assert!(!html("garbage"));
        assert!(!prefers_html(Some(&[0xff, 0xfe])));
    }

    #[test]
    fn the_most_specific_range_decides() {
        // text/html is refused although text/* would accept it.
        assert!(!html("text/*;q=1, text/html;q=0, application/json;q=0.1"));
        assert_eq!(quality("text/*;q=0.3, */*;q=0.9", "text", "html"), 0.3);
        assert_eq!(quality("image/png", "text", "html"), 0.0);
    }
}
