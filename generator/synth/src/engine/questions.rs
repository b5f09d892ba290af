//! Question pools: how the question blocks of an industry file become the questions a study
//! can ask.
//!
//! A block crosses its entries (templates, pairs, questions about one brand) with the
//! sentences of a context set ("Tengo 23 años y ...") and adds dimension values from three
//! places: the entry, the context group and the block. The order of the result is the order
//! of the file (blocks, then entries, then wordings, then groups, then sentences), and it is
//! part of the seed: the scale-1 sample draws from this list by index.

use std::collections::BTreeMap;

use crate::industry::{Block, ContextSet, Industry, SentencePick, TemplateKind};

use super::wording::or_between;
use crate::industry::{BaseQuestion, QuestionKind};

/// Every question of the industry's blocks, in file order. The file has been validated:
/// every context set a block names exists.
pub(crate) fn expand(ind: &Industry) -> Vec<BaseQuestion> {
    let mut out = Vec::new();
    for block in &ind.blocks {
        let context = block.context.as_ref().and_then(|c| ind.contexts.get(c));
        expand_block(block, context, &mut out);
    }
    out
}

/// One context group: the dimension value it adds (if any) and its sentences.
struct Group<'a> {
    value: Option<(&'a str, &'a str)>,
    sentences: Vec<&'a str>,
}

/// The groups of a context set; a block without context gets one group with no sentence.
fn groups<'a>(context: Option<&'a ContextSet>, limit: Option<usize>) -> Vec<Group<'a>> {
    let take_limited = |sentences: &'a [String]| -> Vec<&'a str> {
        let n = limit.unwrap_or(sentences.len()).min(sentences.len());
        sentences[..n].iter().map(String::as_str).collect()
    };
    match context {
        None => vec![Group { value: None, sentences: vec![""] }],
        Some(ContextSet { dimension: Some(d), groups, .. }) => groups
            .iter()
            .map(|g| Group { value: Some((d.as_str(), g.value.as_str())), sentences: take_limited(&g.sentences) })
            .collect(),
        Some(ContextSet { dimension: None, sentences, .. }) => {
            vec![Group { value: None, sentences: take_limited(sentences) }]
        }
    }
}

/// The sentences of a group a question gets, for `frase` other than `rotativa`.
fn chosen<'a>(group: &Group<'a>, sentence: SentencePick) -> Vec<&'a str> {
    match sentence {
        SentencePick::All | SentencePick::Rotating => group.sentences.clone(),
        SentencePick::First => vec![group.sentences.first().copied().unwrap_or("")],
        SentencePick::Last => vec![group.sentences.last().copied().unwrap_or("")],
    }
}

/// "context question", or the question alone when the context is empty.
fn with_context(ctx: &str, text: &str) -> String {
    if ctx.is_empty() { text.to_owned() } else { format!("{ctx} {text}") }
}

/// `{a}`, `{b}` and `{a_o_b}` ("A o B", "A u B") replaced by the names of a pair.
pub(crate) fn word_pair(template: &str, a: &str, b: &str) -> String {
    template.replace("{a}", a).replace("{b}", b).replace("{a_o_b}", &or_between(a, b))
}

/// The dimension values of one question: the entry's, the group's, the block's.
fn dims(own: &BTreeMap<String, String>, group: &Group<'_>, block: &Block) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = own.iter().map(|(d, x)| (d.clone(), x.clone())).collect();
    if let Some((d, x)) = group.value {
        v.push((d.to_owned(), x.to_owned()));
    }
    v.extend(block.values.iter().map(|(d, x)| (d.clone(), x.clone())));
    v
}

fn expand_block(block: &Block, context: Option<&ContextSet>, out: &mut Vec<BaseQuestion>) {
    let groups = groups(context, block.sentence_limit);
    let mut push = |text: String, dims: Vec<(String, String)>, kind: QuestionKind| {
        out.push(BaseQuestion { text, language: block.language.clone(), dims, kind });
    };
    for p in &block.templates {
        let kind = match p.kind {
            TemplateKind::List => QuestionKind::List,
            TemplateKind::Advice => QuestionKind::Advice,
        };
        for g in &groups {
            for ctx in chosen(g, block.sentence) {
                push(with_context(ctx, &p.text), dims(&p.values, g, block), kind.clone());
            }
        }
    }
    for (i, pair) in block.pairs.iter().enumerate() {
        let wordings: Vec<&str> = match &pair.text {
            Some(t) => vec![t.as_str()],
            None => block.wordings.iter().map(String::as_str).collect(),
        };
        let kind = QuestionKind::Compare {
            a: pair.brand_a.clone(),
            b: pair.brand_b.clone(),
            label_a: pair.name_a.clone(),
            label_b: pair.name_b.clone(),
        };
        for (j, template) in wordings.iter().enumerate() {
            let q = word_pair(template, &pair.name_a, &pair.name_b);
            for g in &groups {
                let sentences = match block.sentence {
                    SentencePick::Rotating if !g.sentences.is_empty() => vec![g.sentences[(i + j) % g.sentences.len()]],
                    f => chosen(g, f),
                };
                for ctx in sentences {
                    push(with_context(ctx, &q), dims(&pair.values, g, block), kind.clone());
                }
            }
        }
    }
    for s in &block.about_brand {
        for g in &groups {
            for ctx in chosen(g, block.sentence) {
                push(with_context(ctx, &s.text), dims(&s.values, g, block), QuestionKind::AboutBrand(s.brand.clone()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::fixture;

    fn texts(ps: &[BaseQuestion]) -> Vec<&str> {
        ps.iter().map(|p| p.text.as_str()).collect()
    }

    fn dims(p: &BaseQuestion) -> BTreeMap<&str, &str> {
        p.dims.iter().map(|(d, v)| (d.as_str(), v.as_str())).collect()
    }

    #[test]
    fn templates_cross_every_sentence_of_every_group_in_file_order() {
        let ps = fixture::industry().questions;
        assert_eq!(ps.len(), 10 + 2 + 2 + 4 + 1);
        assert_eq!(
            texts(&ps[..5]),
            [
                "Tengo 23 años. ¿Qué banco me conviene?",
                "Soy estudiante. ¿Qué banco me conviene?",
                "Soy jubilado. ¿Qué banco me conviene?",
                "Cobro por ANSES. ¿Qué banco me conviene?",
                "Vivo en Rosario. ¿Qué banco me conviene?",
            ]
        );
        assert_eq!(ps[5].text, "Tengo 23 años. ¿Cómo bajo el costo?");
        assert_eq!(ps[0].kind, QuestionKind::List);
        assert_eq!(ps[5].kind, QuestionKind::Advice);
        // The entry's value and the group's value.
        assert_eq!(dims(&ps[0]), BTreeMap::from([("producto", "cuentas"), ("segmento", "jóvenes")]));
        assert_eq!(dims(&ps[9]), BTreeMap::from([("producto", "tarjetas"), ("segmento", "jubilados")]));
        assert!(ps[..10].iter().all(|p| p.language == "es"));
    }

    #[test]
    fn pairs_take_the_first_sentence_and_name_both_brands() {
        let ps = fixture::industry().questions;
        // "o" becomes "u" before a word starting with an "o" sound.
        assert_eq!(texts(&ps[10..12]), ["Tengo 23 años. ¿Alfa u Omega Beta?", "Soy jubilado. ¿Alfa u Omega Beta?"]);
        assert_eq!(
            ps[10].kind,
            QuestionKind::Compare {
                a: "alfa".into(),
                b: "beta".into(),
                label_a: "Alfa".into(),
                label_b: "Omega Beta".into()
            }
        );
    }

    #[test]
    fn questions_about_a_brand_take_the_last_sentence() {
        let ps = fixture::industry().questions;
        assert_eq!(texts(&ps[12..14]), ["Soy estudiante. ¿Es buena Gama?", "Vivo en Rosario. ¿Es buena Gama?"]);
        assert_eq!(ps[12].kind, QuestionKind::AboutBrand("gama".into()));
        assert_eq!(dims(&ps[13]), BTreeMap::from([("producto", "tarjetas"), ("segmento", "jubilados")]));
    }

    #[test]
    fn rotating_sentences_shift_by_pair_and_by_wording() {
        let ps = fixture::industry().questions;
        // Pair i, wording j gets sentence (i + j) mod 3.
        assert_eq!(
            texts(&ps[14..18]),
            ["Uno. Alfa or Beta?", "Dos. Alfa vs Beta?", "Dos. Beta or Gama?", "Tres. Beta vs Gama?"]
        );
        // Block values only (the set has no dimension).
        assert_eq!(dims(&ps[17]), BTreeMap::from([("producto", "cuentas"), ("segmento", "jóvenes")]));
        assert!(ps[14..18].iter().all(|p| p.language == "en"));
    }

    #[test]
    fn a_block_without_context_asks_the_text_alone() {
        let ps = fixture::industry().questions;
        let last = ps.last().expect("questions");
        assert_eq!(last.text, "Which card?");
        assert_eq!(dims(last), BTreeMap::from([("producto", "tarjetas"), ("segmento", "jubilados")]));
    }

    #[test]
    fn a_sentence_limit_keeps_the_first_sentences_of_each_group() {
        let ind = fixture::industry_with(
            "contexto = \"segmentos\"\nplantillas",
            "contexto = \"segmentos\"\nlimite_frases = 1\nplantillas",
        );
        assert_eq!(
            texts(&ind.questions[..4]),
            [
                "Tengo 23 años. ¿Qué banco me conviene?",
                "Soy jubilado. ¿Qué banco me conviene?",
                "Tengo 23 años. ¿Cómo bajo el costo?",
                "Soy jubilado. ¿Cómo bajo el costo?",
            ]
        );
    }

    #[test]
    fn pair_placeholders() {
        assert_eq!(word_pair("¿{a} o {b}?", "Hoka", "Brooks"), "¿Hoka o Brooks?");
        assert_eq!(word_pair("¿{a_o_b}?", "Booking", "Airbnb"), "¿Booking o Airbnb?");
        assert_eq!(word_pair("¿{a_o_b}?", "Sancor", "Galicia"), "¿Sancor o Galicia?");
        assert_eq!(word_pair("¿{a_o_b}?", "Sancor", "Horizonte"), "¿Sancor u Horizonte?");
    }
}
