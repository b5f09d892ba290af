//! Accent and case folding, shared by brand matching and the search index.
//!
//! "Información", "INFORMACION" and "informacion" must be the same word for a buyer's search
//! and for an answer that names a brand without its accent. Folding is NFD, drop combining
//! marks, lowercase. It works char by char, so the folded text keeps a map back to the
//! original offsets where a caller needs it.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Folds a string: decomposes, drops combining marks and lowercases.
///
/// ASCII runs, most of any text here, are only lowercased: an ASCII character is its own
/// decomposition and a starter, so canonical reordering never crosses it and folding the
/// runs between ASCII characters separately gives exactly the NFD of the whole string.
pub fn fold(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let ascii = rest.bytes().position(|b| !b.is_ascii()).unwrap_or(rest.len());
        let (run, tail) = rest.split_at(ascii);
        let start = folded.len();
        folded.push_str(run);
        folded[start..].make_ascii_lowercase();
        let other = tail.bytes().position(|b| b.is_ascii()).unwrap_or(tail.len());
        let (run, tail) = tail.split_at(other);
        folded.extend(run.nfd().filter(|c| !is_combining_mark(*c)).flat_map(char::to_lowercase));
        rest = tail;
    }
    folded
}

/// Drops accents and other combining marks, keeping case (`"Córdoba"` → `"Cordoba"`).
pub fn strip_accents(text: &str) -> String {
    text.nfd().filter(|c| !is_combining_mark(*c)).collect()
}

/// Splits folded text into alphanumeric terms.
pub fn terms(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty())
}

/// Spanish and English words too common to help a search.
pub const STOPWORDS: &[&str] = &[
    "a", "al", "and", "con", "de", "del", "el", "en", "for", "in", "la", "las", "lo", "los", "o", "of", "on", "para",
    "por", "que", "the", "to", "u", "un", "una", "unas", "unos", "y",
];

/// The longest word in [`STOPWORDS`]: most search terms are longer and skip the lookup.
const LONGEST_STOPWORD: usize = 4;

fn is_stopword(term: &str) -> bool {
    term.len() <= LONGEST_STOPWORD && STOPWORDS.binary_search(&term).is_ok()
}

/// Folded search terms of a text, stopwords removed, in order of appearance.
pub fn search_terms(text: &str) -> Vec<String> {
    let folded = fold(text);
    terms(&folded).filter(|t| !is_stopword(t)).map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_accents_and_case() {
        assert_eq!(fold("Información"), "informacion");
        assert_eq!(fold("INFORMACIÓN"), "informacion");
        assert_eq!(fold("Peñaflor ÁÉÍÓÚ Ü"), "penaflor aeiou u");
    }

    /// The plain definition the fast path must equal.
    fn fold_reference(text: &str) -> String {
        text.nfd().filter(|c| !is_combining_mark(*c)).flat_map(char::to_lowercase).collect()
    }

    #[test]
    fn fast_path_equals_whole_string_nfd() {
        let samples = [
            "",
            "ASCII only, Banco NACION.",
            "Información ÁÉÍÓÚ Ü ñ Ñ ç",
            // Decomposed input, stacked marks out of canonical order, marks after ASCII.
            "Nacio\u{301}n a\u{323}\u{302} e\u{302}\u{323} x\u{301}\u{327}y",
            "\u{301}leading mark, trailing mark e\u{301}",
            "ǅ Ǆ ǲ İstanbul ß ẞ Ωμέγα ΣΊΣΥΦΟΣ 한국어 ﬁ ｆｕｌｌ ①",
            "mixed\u{1E9B}\u{323}s \u{212B}ngstr\u{F6}m",
        ];
        for text in samples {
            assert_eq!(fold(text), fold_reference(text), "{text:?}");
        }
    }

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS);
    }

    #[test]
    fn no_stopword_is_longer_than_the_longest() {
        assert_eq!(STOPWORDS.iter().map(|w| w.len()).max(), Some(LONGEST_STOPWORD));
    }

    #[test]
    fn search_terms_drop_stopwords_and_punctuation() {
        assert_eq!(
            search_terms("¿Cuál es el mejor Banco para la familia?"),
            vec!["cual", "es", "mejor", "banco", "familia"]
        );
    }
}
