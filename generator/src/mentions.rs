//! Finding tracked brands in an answer's text and in its cited sources.
//!
//! Every metric starts here: which brands an answer names, in which order, and which brand
//! domains it cites. Matching follows `reference/generator-notes.md` §5: aliases and text
//! are folded the same way, an occurrence counts only on word boundaries (the characters
//! around it are not alphanumeric, so "Movistar+" and "C&A" work where `\b` would not),
//! overlapping matches resolve longest first, and a brand's matches inside one of its own
//! exclusion phrases are ignored (an exclusion never hides another brand). The order of brands is the order of their first occurrence.

use crate::fold::fold;
use crate::model::Brand;

/// One answer reduced to what the metrics need.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnswerBrands {
    /// Brand indexes in order of first appearance (distinct).
    pub order: Vec<usize>,
    /// Brand indexes whose domain (or a subdomain of it) is among the sources, sorted.
    pub cited: Vec<usize>,
}

/// Brand aliases and domains prepared for matching.
#[derive(Debug, Clone)]
pub struct BrandMatcher {
    /// (folded alias, brand index), longest alias first.
    aliases: Vec<(String, usize)>,
    /// (folded exclusion phrase, brand index): it hides that brand's aliases only.
    exclusions: Vec<(String, usize)>,
    /// (domain, brand index), lowercased, without `www.`.
    domains: Vec<(String, usize)>,
}

impl BrandMatcher {
    pub fn new(brands: &[Brand]) -> BrandMatcher {
        let mut aliases = Vec::new();
        let mut exclusions = Vec::new();
        let mut domains = Vec::new();
        for (index, brand) in brands.iter().enumerate() {
            for alias in std::iter::once(&brand.nombre).chain(&brand.alias) {
                let folded = fold(alias.trim());
                if !folded.is_empty() {
                    aliases.push((folded, index));
                }
            }
            exclusions.extend(brand.excluir.iter().map(|e| (fold(e.trim()), index)));
            domains.extend(brand.dominios.iter().map(|d| (normalize_host(d), index)));
        }
        // Longest first; ties broken by text then brand so the order is total.
        aliases.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
        aliases.dedup();
        exclusions.sort();
        exclusions.dedup();
        domains.sort();
        domains.dedup();
        BrandMatcher { aliases, exclusions, domains }
    }

    /// Brands named in `text`, in order of first occurrence.
    pub fn brands_in_text(&self, text: &str) -> Vec<usize> {
        let folded = fold(text);
        let excluded = self.excluded_spans(&folded);
        let mut taken: Vec<(usize, usize)> = Vec::new();
        let mut first_seen: Vec<(usize, usize)> = Vec::new(); // (offset, brand)
        for (alias, brand) in &self.aliases {
            for start in word_occurrences(&folded, alias) {
                let span = (start, start + alias.len());
                let overlaps = |other: &(usize, usize)| span.0 < other.1 && other.0 < span.1;
                let inside_exclusion =
                    excluded.iter().any(|(b, e)| b == brand && e.0 <= span.0 && span.1 <= e.1);
                if inside_exclusion || taken.iter().any(overlaps) {
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

    /// (brand, span) of every exclusion phrase in the folded text.
    fn excluded_spans(&self, folded: &str) -> Vec<(usize, (usize, usize))> {
        let mut spans = Vec::new();
        for (phrase, brand) in &self.exclusions {
            spans.extend(word_occurrences(folded, phrase).map(|s| (*brand, (s, s + phrase.len()))));
        }
        spans
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

    pub fn analyse(&self, text: &str, urls: &[&str]) -> AnswerBrands {
        AnswerBrands {
            order: self.brands_in_text(text),
            cited: self.brands_cited(urls.iter().copied()),
        }
    }
}

/// Byte offsets where `needle` occurs in `haystack` with no alphanumeric character on
/// either side.
fn word_occurrences<'a>(haystack: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    haystack.match_indices(needle).map(|(i, _)| i).filter(move |&start| {
        let before = haystack[..start].chars().next_back();
        let after = haystack[start + needle.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}


/// Lowercased host of a URL, without a trailing dot or a leading `www.`.
pub fn host_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    Some(normalize_host(parsed.host_str()?))
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
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|prefix| prefix.ends_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brand(id: &str, nombre: &str, alias: &[&str], excluir: &[&str], dominios: &[&str]) -> Brand {
        Brand {
            id: id.into(),
            nombre: nombre.into(),
            alias: alias.iter().map(|s| s.to_string()).collect(),
            excluir: excluir.iter().map(|s| s.to_string()).collect(),
            dominios: dominios.iter().map(|s| s.to_string()).collect(),
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
}
