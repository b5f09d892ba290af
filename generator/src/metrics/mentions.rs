//! Finding tracked brands in an answer's text and in its cited sources.
//!
//! Every metric starts here: which brands an answer names, in which order, and which brand
//! domains it cites. The rules, as `docs/src/publicar/marcas.md` states them to publishers: aliases
//! and text are folded the same way (case and accents ignored), an occurrence counts only on
//! word boundaries (the characters around it are not alphanumeric, so "Movistar+" and "C&A"
//! work where `\b` would not), overlapping matches resolve longest first, and a brand's matches
//! inside one of its own exclusion phrases are ignored (an exclusion never hides another
//! brand). The order of brands is the order of their first occurrence.

use std::collections::BTreeMap;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use crate::model::Brand;
use contract::fold::fold;

/// One answer reduced to what the metrics need.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnswerBrands {
    /// Brand indexes in order of first appearance (distinct).
    pub order: Vec<usize>,
    /// Brand indexes whose domain (or a subdomain of it) is among the sources, sorted.
    pub cited: Vec<usize>,
    /// Brand indexes whose domain (or a subdomain of it) is among the sources the provider
    /// consulted, sorted; `None` when the answer does not record them.
    pub consulted: Option<Vec<usize>>,
}

impl AnswerBrands {
    /// True when the answer records its consulted sources, one of them on a domain of brand
    /// `b`, and no cited source is (consulted but not cited).
    pub fn consulted_not_cited(&self, b: usize) -> bool {
        self.consulted.as_ref().is_some_and(|c| c.contains(&b)) && !self.cited.contains(&b)
    }
}

/// Brand aliases and domains prepared for matching.
///
/// Every distinct folded alias and exclusion phrase is a pattern of one Aho-Corasick
/// automaton, so an answer is scanned once whatever the number of aliases. The rules are
/// then applied to the occurrences exactly as a plain alias-by-alias search would:
/// per pattern, every occurrence (overlapping ones included), kept only on word
/// boundaries; then aliases longest first (ties by text, then
/// brand), each occurrence in text order, taken unless it lies inside one of its brand's
/// exclusion phrases or overlaps an occurrence already taken.
#[derive(Debug, Clone)]
pub struct BrandMatcher {
    /// Over [`Self::patterns`], in the same order.
    automaton: AhoCorasick,
    /// What each distinct folded text is: aliases of some brands, exclusions of others.
    patterns: Vec<Pattern>,
    /// (domain, brand index), lowercased, without `www.`.
    domains: Vec<(String, usize)>,
}

/// One distinct folded text of the automaton.
#[derive(Debug, Clone, Default)]
struct Pattern {
    /// Its length in bytes (every occurrence has it).
    len: usize,
    /// (rank in the longest-first alias order, brand) for each brand it is an alias of.
    aliases: Vec<(usize, usize)>,
    /// Brands it is an exclusion phrase of.
    excludes: Vec<usize>,
}

/// An alias occurrence that may count for its brand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    rank: usize,
    start: usize,
    end: usize,
    brand: usize,
}

impl BrandMatcher {
    pub fn new(brands: &[Brand]) -> BrandMatcher {
        let mut aliases = Vec::new();
        let mut exclusions = Vec::new();
        let mut domains = Vec::new();
        for (index, brand) in brands.iter().enumerate() {
            for alias in std::iter::once(&brand.name).chain(&brand.alias) {
                let folded = fold(alias.trim());
                if !folded.is_empty() {
                    aliases.push((folded, index));
                }
            }
            // An empty phrase occurs only as empty spans, which contain no alias.
            exclusions.extend(brand.exclude.iter().map(|e| (fold(e.trim()), index)).filter(|(e, _)| !e.is_empty()));
            domains.extend(brand.domains.iter().map(|d| (normalize_host(d), index)));
        }
        // Longest first; ties broken by text then brand so the order is total.
        aliases.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
        aliases.dedup();
        exclusions.sort();
        exclusions.dedup();
        domains.sort();
        domains.dedup();

        let mut by_text: BTreeMap<String, Pattern> = BTreeMap::new();
        for (rank, (alias, brand)) in aliases.into_iter().enumerate() {
            let pattern = by_text.entry(alias).or_default();
            pattern.aliases.push((rank, brand));
        }
        for (phrase, brand) in exclusions {
            by_text.entry(phrase).or_default().excludes.push(brand);
        }
        let mut texts = Vec::with_capacity(by_text.len());
        let mut patterns = Vec::with_capacity(by_text.len());
        for (text, mut pattern) in by_text {
            pattern.len = text.len();
            texts.push(text);
            patterns.push(pattern);
        }
        // Standard semantics: every occurrence of every pattern is reported (overlapping).
        // A full DFA: a study has a few dozen short patterns, so it stays small, and it scans
        // the answers (the whole corpus) a byte at a time without NFA transitions.
        let automaton = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .match_kind(MatchKind::Standard)
            .build(&texts)
            .expect("an automaton over a study's brand aliases stays far below aho-corasick's size limits");
        BrandMatcher { automaton, patterns, domains }
    }

    /// Brands named in `text`, in order of first occurrence.
    pub fn brands_in_text(&self, text: &str) -> Vec<usize> {
        self.brands_in_folded(&fold(text))
    }

    /// Brands named in already folded text, in order of first occurrence.
    pub fn brands_in_folded(&self, folded: &str) -> Vec<usize> {
        let (mut candidates, excluded) = self.occurrences(folded);
        candidates.sort_unstable();
        let mut taken: Vec<(usize, usize)> = Vec::new();
        let mut first_seen: Vec<(usize, usize)> = Vec::new(); // (offset, brand)
        for c in candidates {
            let overlaps = |other: &(usize, usize)| c.start < other.1 && other.0 < c.end;
            let inside_exclusion = excluded.iter().any(|(b, (s, e))| *b == c.brand && *s <= c.start && c.end <= *e);
            if inside_exclusion || taken.iter().any(overlaps) {
                continue;
            }
            taken.push((c.start, c.end));
            match first_seen.iter_mut().find(|(_, b)| *b == c.brand) {
                Some(seen) => seen.0 = seen.0.min(c.start),
                None => first_seen.push((c.start, c.brand)),
            }
        }
        first_seen.sort_unstable();
        first_seen.into_iter().map(|(_, brand)| brand).collect()
    }

    /// Alias candidates and (brand, span) exclusion spans in `folded`: every occurrence of
    /// every pattern on word boundaries, overlapping ones included (in `xRa-Ra-Ra` the alias
    /// `Ra-Ra` occurs at 1, not on a boundary, and at 4, on one).
    fn occurrences(&self, folded: &str) -> (Vec<Candidate>, Vec<ExcludedSpan>) {
        let mut found: Vec<(usize, usize)> =
            self.automaton.find_overlapping_iter(folded).map(|m| (m.pattern().as_usize(), m.start())).collect();
        found.sort_unstable();
        let mut candidates = Vec::new();
        let mut excluded = Vec::new();
        for (id, start) in found {
            let pattern = &self.patterns[id];
            let end = start + pattern.len;
            if !on_word_boundaries(folded, start, end) {
                continue;
            }
            candidates.extend(pattern.aliases.iter().map(|&(rank, brand)| Candidate { rank, start, end, brand }));
            excluded.extend(pattern.excludes.iter().map(|&brand| (brand, (start, end))));
        }
        (candidates, excluded)
    }

    /// Brands whose domain, or a subdomain of it, is the host of one of `urls`. Sorted.
    pub fn brands_cited<'a>(&self, urls: impl IntoIterator<Item = &'a str>) -> Vec<usize> {
        let mut cited = Vec::new();
        for url in urls {
            let Some(host) = host_of(url) else { continue };
            for (domain, brand) in &self.domains {
                if host_matches(&host, domain) {
                    cited.push(*brand);
                }
            }
        }
        cited.sort_unstable();
        cited.dedup();
        cited
    }

    /// The brands `text` names, those whose domains `urls` (the cited sources) hold, and those
    /// whose domains `consulted` holds (`None`: not recorded).
    pub fn analyse(&self, text: &str, urls: &[&str], consulted: Option<&[&str]>) -> AnswerBrands {
        AnswerBrands {
            order: self.brands_in_text(text),
            cited: self.brands_cited(urls.iter().copied()),
            consulted: consulted.map(|c| self.brands_cited(c.iter().copied())),
        }
    }
}

/// A brand and the span `(start, end)` of one of its exclusion phrases in the folded text.
type ExcludedSpan = (usize, (usize, usize));

/// True when no alphanumeric character touches `haystack[start..end]` on either side.
fn on_word_boundaries(haystack: &str, start: usize, end: usize) -> bool {
    let before = haystack[..start].chars().next_back();
    let after = haystack[end..].chars().next();
    !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
}

/// Lowercased host of a URL, without a trailing dot or a leading `www.`.
pub fn host_of(url: &str) -> Option<String> {
    if let Some(host) = plain_host(url) {
        return Some(normalize_host(host));
    }
    let parsed = url::Url::parse(url).ok()?;
    Some(normalize_host(parsed.host_str()?))
}

/// The host of a plain `http://` or `https://` URL, read without a full parse; `None`
/// whenever the URL needs one (any other spelling of the scheme, user info, IPv6 or numeric
/// hosts, percent escapes, non-ASCII, whitespace or backslashes), so that [`host_of`] gives
/// what `url::Url` would. Sources are parsed for every answer and almost all are plain;
/// the full parse was most of the cost of finding cited brands.
pub fn plain_host(url: &str) -> Option<&str> {
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"))?;
    if !url.bytes().all(|b| b.is_ascii_graphic()) || url.contains('\\') {
        return None;
    }
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.len() <= 4 && port.bytes().all(|b| b.is_ascii_digit()) => host,
        Some(_) => return None,
        None => authority,
    };
    let plain = |label: &str| {
        !label.is_empty()
            && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("xn--"))
    };
    let labels = host.strip_suffix('.').unwrap_or(host);
    let last = labels.rsplit('.').next()?;
    let named = last.bytes().any(|b| b.is_ascii_alphabetic()) && !last.starts_with("0x") && !last.starts_with("0X");
    (labels.split('.').all(plain) && named).then_some(host)
}

/// Lowercases a host and strips a trailing `.` and a leading `www.`.
pub fn normalize_host(host: &str) -> String {
    let host = host.trim().trim_end_matches('.').to_ascii_lowercase();
    match host.strip_prefix("www.") {
        Some(rest) => rest.to_owned(),
        None => host,
    }
}

/// True when `host` is `domain` or one of its subdomains.
pub fn host_matches(host: &str, domain: &str) -> bool {
    host == domain || host.strip_suffix(domain).is_some_and(|prefix| prefix.ends_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brand(id: &str, name: &str, alias: &[&str], exclude: &[&str], domains: &[&str]) -> Brand {
        Brand {
            id: id.into(),
            name: name.into(),
            alias: alias.iter().map(|s| s.to_string()).collect(),
            exclude: exclude.iter().map(|s| s.to_string()).collect(),
            domains: domains.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn matcher() -> BrandMatcher {
        BrandMatcher::new(&[
            brand("galicia", "Banco Galicia", &["Galicia"], &["Plaza Galicia"], &["galicia.ar"]),
            brand("naranja", "Naranja X", &["Naranja"], &["jugo de naranja"], &["naranjax.com"]),
            brand("bna", "Banco Nación", &["BNA", "Nación"], &[], &["bna.com.ar"]),
            brand("cya", "C&A", &[], &[], &["cyamoda.com.ar"]),
            brand("movistar", "Movistar+", &[], &[], &[]),
        ])
    }

    #[test]
    fn order_follows_first_occurrence() {
        let m = matcher();
        let text = "1. Naranja X\n2. Banco Galicia\n3. Galicia otra vez y el BNA";
        assert_eq!(m.brands_in_text(text), vec![1, 0, 2]);
    }

    #[test]
    fn accents_and_case_do_not_matter() {
        let m = matcher();
        assert_eq!(m.brands_in_text("el banco nacion y BANCO NACIÓN"), vec![2]);
    }

    #[test]
    fn aliases_inside_other_words_do_not_count() {
        let m = matcher();
        assert_eq!(m.brands_in_text("Las galicianas y la nacionalidad"), Vec::<usize>::new());
        assert_eq!(m.brands_in_text("BNAX no es un banco"), Vec::<usize>::new());
    }

    #[test]
    fn longest_alias_wins_on_overlap() {
        // "Banco Galicia" is one match for brand 0, not "Galicia" plus anything else.
        let m = BrandMatcher::new(&[
            brand("galicia", "Galicia", &[], &[], &[]),
            brand("bg", "Banco Galicia Más", &[], &[], &[]),
        ]);
        assert_eq!(m.brands_in_text("Abrí una cuenta en Banco Galicia Más"), vec![1]);
        assert_eq!(m.brands_in_text("Galicia y Banco Galicia Más"), vec![0, 1]);
    }

    #[test]
    fn exclusions_are_honoured() {
        let m = matcher();
        assert_eq!(m.brands_in_text("Tomé jugo de naranja en Plaza Galicia"), Vec::<usize>::new());
        assert_eq!(m.brands_in_text("jugo de naranja y luego Naranja"), vec![1]);
    }

    #[test]
    fn exclusions_hide_only_their_own_brand() {
        // "personal" is an exclusion of brand Personal ("préstamo personal"), not of the bank
        // whose longer alias contains it.
        let m = BrandMatcher::new(&[
            brand("personal", "Personal", &[], &["préstamo personal"], &[]),
            brand("bpa", "Personal Argentina", &[], &[], &[]),
        ]);
        assert_eq!(m.brands_in_text("Un préstamo Personal Argentina"), vec![1]);
        assert_eq!(m.brands_in_text("Un préstamo personal"), Vec::<usize>::new());
        assert_eq!(m.brands_in_text("El plan de Personal"), vec![0]);
    }

    #[test]
    fn punctuation_aliases_match_on_boundaries() {
        let m = matcher();
        assert_eq!(m.brands_in_text("Ropa en C&A, series en Movistar+."), vec![3, 4]);
    }

    #[test]
    fn an_alias_overlapping_its_own_earlier_occurrence_still_counts() {
        // `Ra-Ra` occurs at 1 (after `x`: not a word) and, overlapping it, at 4 (between `-`
        // and the end: a word).
        let m = BrandMatcher::new(&[brand("rara", "Ra-Ra", &[], &[], &[])]);
        assert_eq!(m.brands_in_text("xRa-Ra-Ra"), vec![0]);
        assert_eq!(m.brands_in_text("xRa-Ra-Rax"), Vec::<usize>::new());
    }

    /// The plain alias-by-alias search the automaton replaces, kept as the definition.
    fn reference_brands_in_text(brands: &[Brand], text: &str) -> Vec<usize> {
        fn word_occurrences<'a>(haystack: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
            // Every start, overlapping ones included.
            haystack
                .char_indices()
                .map(|(i, _)| i)
                .filter(move |&start| haystack[start..].starts_with(needle))
                .filter(move |&start| on_word_boundaries(haystack, start, start + needle.len()))
        }
        let mut aliases = Vec::new();
        let mut exclusions = Vec::new();
        for (index, brand) in brands.iter().enumerate() {
            for alias in std::iter::once(&brand.name).chain(&brand.alias) {
                let folded = fold(alias.trim());
                if !folded.is_empty() {
                    aliases.push((folded, index));
                }
            }
            exclusions.extend(brand.exclude.iter().map(|e| (fold(e.trim()), index)));
        }
        aliases.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
        aliases.dedup();
        let folded = fold(text);
        let mut excluded = Vec::new();
        for (phrase, brand) in &exclusions {
            excluded.extend(word_occurrences(&folded, phrase).map(|s| (*brand, (s, s + phrase.len()))));
        }
        let mut taken: Vec<(usize, usize)> = Vec::new();
        let mut first_seen: Vec<(usize, usize)> = Vec::new();
        for (alias, brand) in &aliases {
            for start in word_occurrences(&folded, alias) {
                let span = (start, start + alias.len());
                let overlaps = |other: &(usize, usize)| span.0 < other.1 && other.0 < span.1;
                let inside = excluded.iter().any(|(b, e)| b == brand && e.0 <= span.0 && span.1 <= e.1);
                if inside || taken.iter().any(overlaps) {
                    continue;
                }
                taken.push(span);
                match first_seen.iter_mut().find(|(_, b)| b == brand) {
                    Some(seen) => seen.0 = seen.0.min(start),
                    None => first_seen.push((start, *brand)),
                }
            }
        }
        first_seen.sort();
        first_seen.into_iter().map(|(_, brand)| brand).collect()
    }

    #[test]
    fn automaton_equals_the_alias_by_alias_search() {
        use rand::{Rng, SeedableRng};
        // Aliases that share words, nest, repeat the same text for two brands, overlap with
        // themselves ("ab ab") and hide inside exclusions; texts made of their pieces.
        let brands = [
            brand("galicia", "Banco Galicia", &["Galicia", "BG"], &["Plaza Galicia", "galicia galicia"], &[]),
            brand("bgm", "Banco Galicia Más", &["Galicia Más"], &[], &[]),
            brand("naranja", "Naranja X", &["Naranja", "ab ab"], &["jugo de naranja", ""], &[]),
            brand("dup", "Galicia", &["ab"], &["ab ab ab"], &[]),
            brand("bna", "Banco Nación", &["BNA", "Nación", "Banco"], &["banco de sangre"], &[]),
            brand("cya", "C&A", &["c&a c&a"], &[], &[]),
            brand("movistar", "Movistar+", &["+"], &[], &[]),
        ];
        let pieces = [
            "Banco",
            "banco",
            "Galicia",
            "GALICIA",
            "Más",
            "mas",
            "Plaza",
            "Naranja",
            "X",
            "jugo",
            "de",
            "naranja",
            "ab",
            "AB",
            "Nación",
            "nacion",
            "BNA",
            "bnax",
            "C&A",
            "c&a",
            "Movistar+",
            "+",
            "sangre",
            "BG",
            "é",
            "ñ",
            "1",
            " ",
            " ",
            ", ",
            ".",
            "\n",
            "-",
            "",
        ];
        let matcher = BrandMatcher::new(&brands);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..20_000 {
            let n = rng.random_range(1..14);
            let mut text = String::new();
            for _ in 0..n {
                text.push_str(pieces[rng.random_range(0..pieces.len())]);
                if rng.random_bool(0.7) {
                    text.push(' ');
                }
            }
            assert_eq!(matcher.brands_in_text(&text), reference_brands_in_text(&brands, &text), "{text:?}");
        }
        for text in ["xab ab ab", "ab ab ab ab", "galicia galicia galicia", "c&a c&a c&a", "++ +", "xc&a c&a c&a"] {
            assert_eq!(matcher.brands_in_text(text), reference_brands_in_text(&brands, text), "{text:?}");
        }
    }

    #[test]
    fn citations_cover_subdomains_but_not_lookalikes() {
        let m = matcher();
        let urls = [
            "https://www.galicia.ar/personas",
            "https://ayuda.naranjax.com/x",
            "https://notgalicia.ar/",
            "https://bna.com.ar.evil.com/",
            "not a url",
        ];
        assert_eq!(m.brands_cited(urls), vec![0, 1]);
    }

    #[test]
    fn hosts_are_normalised() {
        assert_eq!(host_of("HTTPS://WWW.Galicia.AR./x").as_deref(), Some("galicia.ar"));
        assert!(host_matches("blog.galicia.ar", "galicia.ar"));
        assert!(!host_matches("xgalicia.ar", "galicia.ar"));
    }

    /// The fast path reads exactly the host `url::Url` reads, on URLs made of the pieces
    /// that trip parsers (ports, user info, dots, digits, escapes, case, punycode).
    #[test]
    fn plain_host_agrees_with_the_url_crate() {
        use rand::{Rng, SeedableRng};
        let schemes = ["http://", "https://", "HTTP://", "ftp://", "https:/", "https:///"];
        let pieces = [
            "www",
            "galicia",
            "com",
            "ar",
            ".",
            ".",
            "-",
            "0",
            "127",
            "1",
            "0x7f",
            "xn--bcher-kva",
            "Ü",
            "%41",
            ":",
            ":443",
            ":0",
            ":99999",
            "@",
            "user:pw@",
            "[::1]",
            " ",
            "\\",
            "\t",
            "_",
            "a",
        ];
        let tails = ["", "/", "/x?y=1#z", "?q", "#f", "/a b"];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut fast_hits = 0;
        for _ in 0..50_000 {
            let mut url = schemes[rng.random_range(0..schemes.len())].to_owned();
            for _ in 0..rng.random_range(0..6) {
                url.push_str(pieces[rng.random_range(0..pieces.len())]);
            }
            url.push_str(tails[rng.random_range(0..tails.len())]);
            let slow = url::Url::parse(&url).ok().and_then(|u| u.host_str().map(normalize_host));
            if let Some(fast) = plain_host(&url) {
                fast_hits += 1;
                assert_eq!(Some(normalize_host(fast)), slow, "{url}");
            }
            assert_eq!(host_of(&url), slow, "{url}");
        }
        assert!(fast_hits > 1_000, "the fast path ran only {fast_hits} times");
        assert_eq!(plain_host("https://www.galicia.com.ar/x"), Some("www.galicia.com.ar"));
        assert_eq!(plain_host("http://a.b:8080?q"), Some("a.b"));
    }
}
