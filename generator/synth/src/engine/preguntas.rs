//! Question pools: how the question blocks of an industry file become the questions a study
//! can ask.
//!
//! A block crosses its entries (templates, pairs, questions about one brand) with the
//! sentences of a context set ("Tengo 23 años y ...") and adds dimension values from three
//! places: the entry, the context group and the block. The order of the result is the order
//! of the file (blocks, then entries, then wordings, then groups, then sentences), and it is
//! part of the seed: the scale-1 sample draws from this list by index.

use std::collections::BTreeMap;

use crate::industria::{Bloque, Contexto, Frase, Industria, TipoPlantilla};

use super::texto::o_entre;
use crate::industria::{PreguntaBase, TipoPregunta};

/// Every question of the industry's blocks, in file order. The file has been validated:
/// every context set a block names exists.
pub(crate) fn expandir(ind: &Industria) -> Vec<PreguntaBase> {
    let mut out = Vec::new();
    for bloque in &ind.bloques {
        let contexto = bloque.contexto.as_ref().and_then(|c| ind.contextos.get(c));
        expandir_bloque(bloque, contexto, &mut out);
    }
    out
}

/// One context group: the dimension value it adds (if any) and its sentences.
struct Grupo<'a> {
    valor: Option<(&'a str, &'a str)>,
    frases: Vec<&'a str>,
}

/// The groups of a context set; a block without context gets one group with no sentence.
fn grupos<'a>(contexto: Option<&'a Contexto>, limite: Option<usize>) -> Vec<Grupo<'a>> {
    let limitar = |frases: &'a [String]| -> Vec<&'a str> {
        let n = limite.unwrap_or(frases.len()).min(frases.len());
        frases[..n].iter().map(String::as_str).collect()
    };
    match contexto {
        None => vec![Grupo { valor: None, frases: vec![""] }],
        Some(Contexto { dimension: Some(d), grupos, .. }) => grupos
            .iter()
            .map(|g| Grupo { valor: Some((d.as_str(), g.valor.as_str())), frases: limitar(&g.frases) })
            .collect(),
        Some(Contexto { dimension: None, frases, .. }) => vec![Grupo { valor: None, frases: limitar(frases) }],
    }
}

/// The sentences of a group a question gets, for `frase` other than `rotativa`.
fn elegidas<'a>(grupo: &Grupo<'a>, frase: Frase) -> Vec<&'a str> {
    match frase {
        Frase::Todas | Frase::Rotativa => grupo.frases.clone(),
        Frase::Primera => vec![grupo.frases.first().copied().unwrap_or("")],
        Frase::Ultima => vec![grupo.frases.last().copied().unwrap_or("")],
    }
}

/// "context question", or the question alone when the context is empty.
fn con_contexto(ctx: &str, texto: &str) -> String {
    if ctx.is_empty() { texto.to_owned() } else { format!("{ctx} {texto}") }
}

/// `{a}`, `{b}` and `{a_o_b}` ("A o B", "A u B") replaced by the names of a pair.
pub(crate) fn redactar_par(plantilla: &str, a: &str, b: &str) -> String {
    plantilla.replace("{a}", a).replace("{b}", b).replace("{a_o_b}", &o_entre(a, b))
}

/// The dimension values of one question: the entry's, the group's, the block's.
fn dims(propios: &BTreeMap<String, String>, grupo: &Grupo<'_>, bloque: &Bloque) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = propios.iter().map(|(d, x)| (d.clone(), x.clone())).collect();
    if let Some((d, x)) = grupo.valor {
        v.push((d.to_owned(), x.to_owned()));
    }
    v.extend(bloque.valores.iter().map(|(d, x)| (d.clone(), x.clone())));
    v
}

fn expandir_bloque(bloque: &Bloque, contexto: Option<&Contexto>, out: &mut Vec<PreguntaBase>) {
    let grupos = grupos(contexto, bloque.limite_frases);
    let mut push = |texto: String, dims: Vec<(String, String)>, tipo: TipoPregunta| {
        out.push(PreguntaBase { texto, idioma: bloque.idioma.clone(), dims, tipo });
    };
    for p in &bloque.plantillas {
        let tipo = match p.tipo {
            TipoPlantilla::Lista => TipoPregunta::Lista,
            TipoPlantilla::Consejo => TipoPregunta::Consejo,
        };
        for g in &grupos {
            for ctx in elegidas(g, bloque.frase) {
                push(con_contexto(ctx, &p.texto), dims(&p.valores, g, bloque), tipo.clone());
            }
        }
    }
    for (i, par) in bloque.pares.iter().enumerate() {
        let redacciones: Vec<&str> = match &par.texto {
            Some(t) => vec![t.as_str()],
            None => bloque.redacciones.iter().map(String::as_str).collect(),
        };
        let tipo = TipoPregunta::Comparar {
            a: par.marca_a.clone(),
            b: par.marca_b.clone(),
            la: par.nombre_a.clone(),
            lb: par.nombre_b.clone(),
        };
        for (j, plantilla) in redacciones.iter().enumerate() {
            let q = redactar_par(plantilla, &par.nombre_a, &par.nombre_b);
            for g in &grupos {
                let frases = match bloque.frase {
                    Frase::Rotativa if !g.frases.is_empty() => vec![g.frases[(i + j) % g.frases.len()]],
                    f => elegidas(g, f),
                };
                for ctx in frases {
                    push(con_contexto(ctx, &q), dims(&par.valores, g, bloque), tipo.clone());
                }
            }
        }
    }
    for s in &bloque.sobre_marca {
        for g in &grupos {
            for ctx in elegidas(g, bloque.frase) {
                push(con_contexto(ctx, &s.texto), dims(&s.valores, g, bloque), TipoPregunta::Marca(s.marca.clone()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::prueba;

    fn textos(ps: &[PreguntaBase]) -> Vec<&str> {
        ps.iter().map(|p| p.texto.as_str()).collect()
    }

    fn dims(p: &PreguntaBase) -> BTreeMap<&str, &str> {
        p.dims.iter().map(|(d, v)| (d.as_str(), v.as_str())).collect()
    }

    #[test]
    fn templates_cross_every_sentence_of_every_group_in_file_order() {
        let ps = prueba::industria().preguntas;
        assert_eq!(ps.len(), 10 + 2 + 2 + 4 + 1);
        assert_eq!(
            textos(&ps[..5]),
            [
                "Tengo 23 años. ¿Qué banco me conviene?",
                "Soy estudiante. ¿Qué banco me conviene?",
                "Soy jubilado. ¿Qué banco me conviene?",
                "Cobro por ANSES. ¿Qué banco me conviene?",
                "Vivo en Rosario. ¿Qué banco me conviene?",
            ]
        );
        assert_eq!(ps[5].texto, "Tengo 23 años. ¿Cómo bajo el costo?");
        assert_eq!(ps[0].tipo, TipoPregunta::Lista);
        assert_eq!(ps[5].tipo, TipoPregunta::Consejo);
        // The entry's value and the group's value.
        assert_eq!(dims(&ps[0]), BTreeMap::from([("producto", "cuentas"), ("segmento", "jóvenes")]));
        assert_eq!(dims(&ps[9]), BTreeMap::from([("producto", "tarjetas"), ("segmento", "jubilados")]));
        assert!(ps[..10].iter().all(|p| p.idioma == "es"));
    }

    #[test]
    fn pairs_take_the_first_sentence_and_name_both_brands() {
        let ps = prueba::industria().preguntas;
        // "o" becomes "u" before a word starting with an "o" sound.
        assert_eq!(textos(&ps[10..12]), ["Tengo 23 años. ¿Alfa u Omega Beta?", "Soy jubilado. ¿Alfa u Omega Beta?"]);
        assert_eq!(
            ps[10].tipo,
            TipoPregunta::Comparar { a: "alfa".into(), b: "beta".into(), la: "Alfa".into(), lb: "Omega Beta".into() }
        );
    }

    #[test]
    fn questions_about_a_brand_take_the_last_sentence() {
        let ps = prueba::industria().preguntas;
        assert_eq!(textos(&ps[12..14]), ["Soy estudiante. ¿Es buena Gama?", "Vivo en Rosario. ¿Es buena Gama?"]);
        assert_eq!(ps[12].tipo, TipoPregunta::Marca("gama".into()));
        assert_eq!(dims(&ps[13]), BTreeMap::from([("producto", "tarjetas"), ("segmento", "jubilados")]));
    }

    #[test]
    fn rotating_sentences_shift_by_pair_and_by_wording() {
        let ps = prueba::industria().preguntas;
        // Pair i, wording j gets sentence (i + j) mod 3.
        assert_eq!(
            textos(&ps[14..18]),
            ["Uno. Alfa or Beta?", "Dos. Alfa vs Beta?", "Dos. Beta or Gama?", "Tres. Beta vs Gama?"]
        );
        // Block values only (the set has no dimension).
        assert_eq!(dims(&ps[17]), BTreeMap::from([("producto", "cuentas"), ("segmento", "jóvenes")]));
        assert!(ps[14..18].iter().all(|p| p.idioma == "en"));
    }

    #[test]
    fn a_block_without_context_asks_the_text_alone() {
        let ps = prueba::industria().preguntas;
        let ultima = ps.last().expect("questions");
        assert_eq!(ultima.texto, "Which card?");
        assert_eq!(dims(ultima), BTreeMap::from([("producto", "tarjetas"), ("segmento", "jubilados")]));
    }

    #[test]
    fn a_sentence_limit_keeps_the_first_sentences_of_each_group() {
        let ind = prueba::industria_con(
            "contexto = \"segmentos\"\nplantillas",
            "contexto = \"segmentos\"\nlimite_frases = 1\nplantillas",
        );
        assert_eq!(
            textos(&ind.preguntas[..4]),
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
        assert_eq!(redactar_par("¿{a} o {b}?", "Hoka", "Brooks"), "¿Hoka o Brooks?");
        assert_eq!(redactar_par("¿{a_o_b}?", "Booking", "Airbnb"), "¿Booking o Airbnb?");
        assert_eq!(redactar_par("¿{a_o_b}?", "Sancor", "Galicia"), "¿Sancor o Galicia?");
        assert_eq!(redactar_par("¿{a_o_b}?", "Sancor", "Horizonte"), "¿Sancor u Horizonte?");
    }
}
