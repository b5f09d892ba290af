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
pub(crate) fn es(idioma: &str) -> bool {
    idioma != "en"
}

/// Picks one string from a fixed bank ("" from an empty one).
pub(crate) fn una<'a>(rng: &mut ChaCha8Rng, banco: &[&'a str]) -> &'a str {
    banco.choose(rng).copied().unwrap_or("")
}

/// Picks one string from a data bank ("" from an empty one); the same draw as [`una`].
pub(crate) fn una_de<'a>(rng: &mut ChaCha8Rng, banco: &'a [String]) -> &'a str {
    banco.choose(rng).map_or("", String::as_str)
}

/// Splits an optional "tag,tag|text" prefix off a bank entry.
pub(crate) fn etiquetas(entrada: &str) -> (Option<&str>, &str) {
    match entrada.split_once('|') {
        Some((t, texto)) => (Some(t), texto),
        None => (None, entrada),
    }
}

/// Up to `n` entries of a bank, preferring those tagged with one of `claves` (a dimension
/// value or a brand id), then untagged ones; entries tagged for something else are skipped.
pub(crate) fn relevantes<'a>(rng: &mut ChaCha8Rng, banco: &'a [String], claves: &[&str], n: usize) -> Vec<&'a str> {
    let mut propias = Vec::new();
    let mut generales = Vec::new();
    for e in banco {
        match etiquetas(e) {
            (Some(t), texto) if t.split(',').any(|x| claves.contains(&x)) => propias.push(texto),
            (Some(_), _) => {}
            (None, texto) => generales.push(texto),
        }
    }
    propias.shuffle(rng);
    generales.shuffle(rng);
    if rng.random_bool(0.2) && !generales.is_empty() && !propias.is_empty() {
        // Now and then lead with a general argument.
        propias.insert(0, generales.remove(0));
    }
    propias.extend(generales);
    propias.truncate(n);
    propias
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
pub(crate) fn minuscula(s: &str) -> String {
    let mut c = s.chars();
    match (c.next(), c.next()) {
        (Some(a), Some(b)) if !b.is_uppercase() => a.to_lowercase().chain(std::iter::once(b)).chain(c).collect(),
        _ => s.to_owned(),
    }
}

/// Markdown bold.
pub(crate) fn negrita(s: &str) -> String {
    format!("**{s}**")
}

/// "A, B y C" / "A, B and C", with the Spanish y→e and o→u rules.
pub(crate) fn enumerar(items: &[String], idioma: &str) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].clone(),
        n => {
            let last = &items[n - 1];
            let conj = if es(idioma) { conjuncion_y(last) } else { "and" };
            format!("{} {conj} {last}", items[..n - 1].join(", "))
        }
    }
}

/// "y", or "e" before an "i" sound ("Galicia e ICBC", but "y hierro", "y Iacono").
fn conjuncion_y(siguiente: &str) -> &'static str {
    let f = fold(siguiente.trim_start_matches('*'));
    if (f.starts_with('i') || f.starts_with("hi")) && !f.starts_with("hie") && !f.starts_with("ia") { "e" } else { "y" }
}

/// "o", or "u" before an "o" sound ("Booking u Oasis").
fn conjuncion_o(siguiente: &str) -> &'static str {
    let f = fold(siguiente.trim_start_matches('*'));
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

/// Whether `texto` already contains `frase`, ignoring the case of its first letter.
pub(crate) fn ya_dicho(texto: &str, frase: &str) -> bool {
    let resto = frase.char_indices().nth(1).map_or("", |(i, _)| &frase[i..]);
    !resto.is_empty() && texto.contains(resto)
}

/// Words with at least one letter or digit (bullets, dashes and table rules do not count).
pub(crate) fn palabras(s: &str) -> usize {
    s.split_whitespace().filter(|w| w.chars().any(char::is_alphanumeric)).count()
}

/// "A o B" with the Spanish o→u rule, for question texts.
pub(crate) fn o_entre(a: &str, b: &str) -> String {
    format!("{a} {} {b}", conjuncion_o(b))
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
        assert_eq!(enumerar(&[], "es"), "");
        assert_eq!(enumerar(&s(&["Galicia"]), "es"), "Galicia");
        assert_eq!(enumerar(&s(&["Galicia", "BBVA", "Macro"]), "es"), "Galicia, BBVA y Macro");
        assert_eq!(enumerar(&s(&["Galicia", "BBVA", "Macro"]), "en"), "Galicia, BBVA and Macro");
        // "y" becomes "e" before an "i" sound, also in bold and with accents...
        assert_eq!(enumerar(&s(&["Galicia", "ICBC"]), "es"), "Galicia e ICBC");
        assert_eq!(enumerar(&s(&["Galicia", "**Ícaro**"]), "es"), "Galicia e **Ícaro**");
        assert_eq!(enumerar(&s(&["Sancor", "Hispano"]), "es"), "Sancor e Hispano");
        // ...but not before "hie" or "ia" (a consonant sound).
        assert_eq!(enumerar(&s(&["Acero", "Hierro"]), "es"), "Acero y Hierro");
        assert_eq!(enumerar(&s(&["Sancor", "Iacono"]), "es"), "Sancor y Iacono");
        assert_eq!(o_entre("Brubank", "Ualá"), "Brubank o Ualá");
        assert_eq!(o_entre("Vichy", "Olay"), "Vichy u Olay");
        assert_eq!(o_entre("Hilton", "Hotel Madero"), "Hilton u Hotel Madero");
    }

    #[test]
    fn capitals_keep_acronyms() {
        assert_eq!(cap("tiene una app"), "Tiene una app");
        assert_eq!(cap("ícaro"), "Ícaro");
        assert_eq!(cap(""), "");
        assert_eq!(minuscula("Compará el costo total."), "compará el costo total.");
        assert_eq!(minuscula("BCRA regula los bancos."), "BCRA regula los bancos.");
        assert_eq!(minuscula("A"), "A");
        assert_eq!(negrita("Galicia"), "**Galicia**");
    }

    #[test]
    fn folding_and_slugs() {
        assert_eq!(fold("Córdoba ÑANDÚ"), "cordoba nandu");
        assert_eq!(slug("¿Qué banco conviene en 2026?"), "que-banco-conviene-en-2026");
        assert_eq!(slug("Plazo fijo -- o cuenta remunerada"), "plazo-fijo-o-cuenta-remunerada");
        let largo = slug(&"palabra larga ".repeat(20));
        assert!(largo.len() <= 70 && !largo.ends_with('-'), "{largo}");
    }

    #[test]
    fn words_said_and_counted() {
        // "1." counts (a digit), the dash does not.
        assert_eq!(palabras("1. **Galicia**: tiene una app — y descuentos."), 7);
        assert_eq!(palabras("- | --- |"), 0);
        // The first letter may change case: the rest of the sentence is what counts.
        assert!(ya_dicho("Algo. Compará el costo total. Más.", "compará el costo total."));
        assert!(!ya_dicho("Algo distinto.", "Compará el costo total."));
        assert!(!ya_dicho("cualquier texto", "x"));
    }

    #[test]
    fn tags_are_split_off_entries() {
        assert_eq!(etiquetas("tarjetas,pymes|ofrece descuentos"), (Some("tarjetas,pymes"), "ofrece descuentos"));
        assert_eq!(etiquetas("ofrece descuentos"), (None, "ofrece descuentos"));
    }

    #[test]
    fn relevant_entries_come_first_and_foreign_tags_never() {
        let banco = s(&["general uno", "a|propia a", "b|ajena", "a,c|propia ac", "general dos", "c|propia c"]);
        let mut adelante = 0;
        for seed in 0..300 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let v = relevantes(&mut rng, &banco, &["a", "c"], 10);
            assert_eq!(v.len(), 5, "{v:?}");
            assert!(!v.contains(&"ajena"));
            // The three own entries before the general ones, except that now and then one
            // general entry leads.
            let propias = v.iter().take_while(|x| x.starts_with("propia")).count();
            if propias == 0 {
                adelante += 1;
                assert!(v[0].starts_with("general") && v[1..4].iter().all(|x| x.starts_with("propia")), "{v:?}");
            } else {
                assert_eq!(propias, 3, "{v:?}");
            }
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            assert_eq!(relevantes(&mut rng, &banco, &["a", "c"], 2), v[..2], "truncation keeps the order");
        }
        // About a fifth of the time (p = 0.2).
        assert!((30..=90).contains(&adelante), "{adelante} of 300");
    }

    #[test]
    fn the_two_pickers_draw_alike() {
        let fijo = ["uno", "dos", "tres", "cuatro"];
        let datos = s(&fijo);
        for seed in 0..50 {
            let a = una(&mut ChaCha8Rng::seed_from_u64(seed), &fijo);
            let b = una_de(&mut ChaCha8Rng::seed_from_u64(seed), &datos);
            assert_eq!(a, b);
        }
        assert_eq!(una(&mut ChaCha8Rng::seed_from_u64(1), &[]), "");
        assert_eq!(una_de(&mut ChaCha8Rng::seed_from_u64(1), &[]), "");
    }
}
