//! Accent and case folding, shared by brand matching and the search index.
//!
//! "Información", "INFORMACION" and "informacion" must be the same word for a buyer's search
//! and for an answer that names a brand without its accent. Folding is NFD, drop combining
//! marks, lowercase. It works char by char, so the folded text keeps a map back to the
//! original offsets where a caller needs it.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Folds a string: decomposes, drops combining marks and lowercases.
pub fn fold(text: &str) -> String {
    text.nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Splits folded text into alphanumeric terms.
pub fn terms(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty())
}

/// Spanish and English words too common to help a search.
pub const STOPWORDS: &[&str] = &[
    "a", "al", "and", "con", "de", "del", "el", "en", "for", "in", "la", "las", "lo", "los", "o",
    "of", "on", "para", "por", "que", "the", "to", "u", "un", "una", "unas", "unos", "y",
];

/// Folded search terms of a text, stopwords removed, in order of appearance.
pub fn search_terms(text: &str) -> Vec<String> {
    let folded = fold(text);
    terms(&folded)
        .filter(|t| STOPWORDS.binary_search(t).is_err())
        .map(str::to_owned)
        .collect()
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

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS);
    }

    #[test]
    fn search_terms_drop_stopwords_and_punctuation() {
        assert_eq!(
            search_terms("¿Cuál es el mejor Banco para la familia?"),
            vec!["cual", "es", "mejor", "banco", "familia"]
        );
    }
}
