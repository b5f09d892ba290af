//! Wording helpers shared by the engine: picking from text banks, tags, capitals, Spanish
//! conjunctions, folding and slugs.
//!
//! Kept apart because every other engine module uses them and because they are where the
//! Spanish grammar lives ("y" → "e" before an "i" sound, "o" → "u" before an "o" sound), which
//! is worth testing on its own.

use rand::Rng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand_chacha::ChaCha8Rng;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Spanish unless the language is English.
pub(crate) fn spanish(language: &str) -> bool {
    language != "en"
}

/// Picks one string from a fixed bank ("" from an empty one).
pub(crate) fn pick<'a>(rng: &mut ChaCha8Rng, bank: &[&'a str]) -> &'a str {
    bank.choose(rng).copied().unwrap_or("")
}

/// Picks one string from a data bank ("" from an empty one); the same draw as [`pick`].
pub(crate) fn pick_of<'a>(rng: &mut ChaCha8Rng, bank: &'a [String]) -> &'a str {
    bank.choose(rng).map_or("", String::as_str)
}

/// Splits an optional "tag,tag|text" prefix off a bank entry.
pub(crate) fn split_tag(entry: &str) -> (Option<&str>, &str) {
    match entry.split_once('|') {
        Some((t, text)) => (Some(t), text),
        None => (None, entry),
    }
}

/// Up to `n` entries of a bank, preferring those tagged with one of `keys` (a dimension
/// value or a brand id), then untagged ones; entries tagged for something else are skipped.
pub(crate) fn relevant<'a>(rng: &mut ChaCha8Rng, bank: &'a [String], keys: &[&str], n: usize) -> Vec<&'a str> {
    let mut own = Vec::new();
    let mut general = Vec::new();
    for e in bank {
        match split_tag(e) {
            (Some(t), text) if t.split(',').any(|x| keys.contains(&x)) => own.push(text),
            (Some(_), _) => {}
            (None, text) => general.push(text),
        }
    }
    own.shuffle(rng);
    general.shuffle(rng);
    if rng.random_bool(0.2) && !general.is_empty() && !own.is_empty() {
        // Now and then lead with a general argument.
        own.insert(0, general.remove(0));
    }
    own.extend(general);
    own.truncate(n);
    own
}

/// The first letter in upper case.
pub(crate) fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Lowercases the first letter unless the word is an acronym ("BCRA").
pub(crate) fn lowercase_first(s: &str) -> String {
    let mut c = s.chars();
    match (c.next(), c.next()) {
        (Some(a), Some(b)) if !b.is_uppercase() => a.to_lowercase().chain(std::iter::once(b)).chain(c).collect(),
        _ => s.to_owned(),
    }
}

/// Markdown bold.
pub(crate) fn bold(s: &str) -> String {
    format!("**{s}**")
}

/// "A, B y C" / "A, B and C", with the Spanish y→e and o→u rules.
pub(crate) fn join_list(items: &[String], language: &str) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].clone(),
        n => {
            let last = &items[n - 1];
            let conj = if spanish(language) { conjunction_y(last) } else { "and" };
            format!("{} {conj} {last}", items[..n - 1].join(", "))
        }
    }
}

/// "y", or "e" before an "i" sound ("Galicia e ICBC", but "y hierro", "y Iacono").
fn conjunction_y(next_word: &str) -> &'static str {
    let f = fold(next_word.trim_start_matches('*'));
    if (f.starts_with('i') || f.starts_with("hi")) && !f.starts_with("hie") && !f.starts_with("ia") { "e" } else { "y" }
}

/// "o", or "u" before an "o" sound ("Booking u Oasis").
fn conjunction_o(next_word: &str) -> &'static str {
    let f = fold(next_word.trim_start_matches('*'));
    if f.starts_with('o') || f.starts_with("ho") { "u" } else { "o" }
}

/// Accent and case folding (NFD, drop marks, lowercase), for slugs and checks.
pub(crate) fn fold(s: &str) -> String {
    s.nfd().filter(|c| !is_combining_mark(*c)).flat_map(char::to_lowercase).collect()
}

/// URL slug of a title.
pub(crate) fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in fold(s).chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.len() >= 70 {
            break;
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// Whether `text` already contains `sentence`, ignoring the case of its first letter.
pub(crate) fn already_said(text: &str, sentence: &str) -> bool {
    let rest = sentence.char_indices().nth(1).map_or("", |(i, _)| &sentence[i..]);
    !rest.is_empty() && text.contains(rest)
}

/// Words with at least one letter or digit (bullets, dashes and table rules do not count).
pub(crate) fn word_count(s: &str) -> usize {
    s.split_whitespace().filter(|w| w.chars().any(char::is_alphanumeric)).count()
}

/// "A o B" with the Spanish o→u rule, for question texts.
pub(crate) fn or_between(a: &str, b: &str) -> String {
    format!("{a} {} {b}", conjunction_o(b))
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn lists_join_with_the_spanish_conjunction_rules() {
        assert_eq!(join_list(&[], "es"), "");
        assert_eq!(join_list(&s(&["Galicia"]), "es"), "Galicia");
        assert_eq!(join_list(&s(&["Galicia", "BBVA", "Macro"]), "es"), "Galicia, BBVA y Macro");
        assert_eq!(join_list(&s(&["Galicia", "BBVA", "Macro"]), "en"), "Galicia, BBVA and Macro");
        // "y" becomes "e" before an "i" sound, also in bold and with accents...
        assert_eq!(join_list(&s(&["Galicia", "ICBC"]), "es"), "Galicia e ICBC");
        assert_eq!(join_list(&s(&["Galicia", "**Ícaro**"]), "es"), "Galicia e **Ícaro**");
        assert_eq!(join_list(&s(&["Sancor", "Hispano"]), "es"), "Sancor e Hispano");
        // ...but not before "hie" or "ia" (a consonant sound).
        assert_eq!(join_list(&s(&["Acero", "Hierro"]), "es"), "Acero y Hierro");
        assert_eq!(join_list(&s(&["Sancor", "Iacono"]), "es"), "Sancor y Iacono");
        assert_eq!(or_between("Brubank", "Ualá"), "Brubank o Ualá");
        assert_eq!(or_between("Vichy", "Olay"), "Vichy u Olay");
        assert_eq!(or_between("Hilton", "Hotel Madero"), "Hilton u Hotel Madero");
    }

    #[test]
    fn capitals_keep_acronyms() {
        assert_eq!(cap("tiene una app"), "Tiene una app");
        assert_eq!(cap("ícaro"), "Ícaro");
        assert_eq!(cap(""), "");
        assert_eq!(lowercase_first("Compará el costo total."), "compará el costo total.");
        assert_eq!(lowercase_first("BCRA regula los bancos."), "BCRA regula los bancos.");
        assert_eq!(lowercase_first("A"), "A");
        assert_eq!(bold("Galicia"), "**Galicia**");
    }

    #[test]
    fn folding_and_slugs() {
        assert_eq!(fold("Córdoba ÑANDÚ"), "cordoba nandu");
        assert_eq!(slug("¿Qué banco conviene en 2026?"), "que-banco-conviene-en-2026");
        assert_eq!(slug("Plazo fijo -- o cuenta remunerada"), "plazo-fijo-o-cuenta-remunerada");
        let long_form = slug(&"palabra larga ".repeat(20));
        assert!(long_form.len() <= 70 && !long_form.ends_with('-'), "{long_form}");
    }

    #[test]
    fn words_said_and_counted() {
        // "1." counts (a digit), the dash does not.
        assert_eq!(word_count("1. **Galicia**: tiene una app — y descuentos."), 7);
        assert_eq!(word_count("- | --- |"), 0);
        // The first letter may change case: the rest of the sentence is what counts.
        assert!(already_said("Algo. Compará el costo total. Más.", "compará el costo total."));
        assert!(!already_said("Algo distinto.", "Compará el costo total."));
        assert!(!already_said("cualquier texto", "x"));
    }

    #[test]
    fn tags_are_split_off_entries() {
        assert_eq!(split_tag("tarjetas,pymes|ofrece descuentos"), (Some("tarjetas,pymes"), "ofrece descuentos"));
        assert_eq!(split_tag("ofrece descuentos"), (None, "ofrece descuentos"));
    }

    #[test]
    fn relevant_entries_come_first_and_foreign_tags_never() {
        let bank = s(&["general uno", "a|propia a", "b|ajena", "a,c|propia ac", "general dos", "c|propia c"]);
        let mut leading = 0;
        for seed in 0..300 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let v = relevant(&mut rng, &bank, &["a", "c"], 10);
            assert_eq!(v.len(), 5, "{v:?}");
            assert!(!v.contains(&"ajena"));
            // The three own entries before the general ones, except that now and then one
            // general entry leads.
            let own = v.iter().take_while(|x| x.starts_with("propia")).count();
            if own == 0 {
                leading += 1;
                assert!(v[0].starts_with("general") && v[1..4].iter().all(|x| x.starts_with("propia")), "{v:?}");
            } else {
                assert_eq!(own, 3, "{v:?}");
            }
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            assert_eq!(relevant(&mut rng, &bank, &["a", "c"], 2), v[..2], "truncation keeps the order");
        }
        // About a fifth of the time (p = 0.2).
        assert!((30..=90).contains(&leading), "{leading} of 300");
    }

    #[test]
    fn the_two_pickers_draw_alike() {
        let fixed = ["uno", "dos", "tres", "cuatro"];
        let figures = s(&fixed);
        for seed in 0..50 {
            let a = pick(&mut ChaCha8Rng::seed_from_u64(seed), &fixed);
            let b = pick_of(&mut ChaCha8Rng::seed_from_u64(seed), &figures);
            assert_eq!(a, b);
        }
        assert_eq!(pick(&mut ChaCha8Rng::seed_from_u64(1), &[]), "");
        assert_eq!(pick_of(&mut ChaCha8Rng::seed_from_u64(1), &[]), "");
    }
}
