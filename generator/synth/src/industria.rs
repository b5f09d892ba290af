//! The industry data files: what each sample study is about, as data.
//!
//! One TOML file per industry under `generator/synth/industrias/` holds everything a study
//! declares (its texts, dimensions, context sentences, question blocks, brands with their
//! arguments, advice, media and analysis tables), so a publisher can read and edit a study
//! without reading Rust. The files are compiled into the binary (`include_str!`) and parsed
//! when synth runs; a malformed file fails with its name, the line and the field path, and
//! references that do not resolve (an undeclared brand, dimension value or context set) are
//! reported all at once before anything is generated. The header of each file documents its
//! tables; the engine ([`crate::engine`]) is the code that turns them into answers, and
//! [`crate::carga`] reads, checks and expands them.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use generator::model::{Dimension, LANGUAGE_DIMENSION, Metric, Weighting};

use crate::modelos::Modelo;

/// The data files, in slug order (the order the studies are generated and listed).
pub(crate) const ARCHIVOS: [(&str, &str); 9] = [
    ("banca.toml", include_str!("../industrias/banca.toml")),
    ("hoteles.toml", include_str!("../industrias/hoteles.toml")),
    ("cosmetica.toml", include_str!("../industrias/cosmetica.toml")),
    ("dermatitis.toml", include_str!("../industrias/dermatitis.toml")),
    ("farma.toml", include_str!("../industrias/farma.toml")),
    ("running.toml", include_str!("../industrias/running.toml")),
    ("reumatologia.toml", include_str!("../industrias/reumatologia.toml")),
    ("seguros.toml", include_str!("../industrias/seguros.toml")),
    ("sierras.toml", include_str!("../industrias/sierras.toml")),
];

/// One industry: a study's declaration plus its expanded question pool.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Industria {
    pub slug: String,
    pub nombre: String,
    pub nombre_en: String,
    pub descripcion: String,
    pub descripcion_en: String,
    pub industria: String,
    pub subindustria: String,
    pub pais: Vec<String>,
    pub idiomas: Vec<String>,
    pub tags: Vec<String>,
    pub publicado: String,
    /// First day of the run, in 2026.
    pub inicio: Dia,
    /// Length of the run in days.
    pub dias: u32,
    /// Google models moved to a new version in the middle of the run.
    pub cambio_version: bool,
    /// Questions at scale 1.
    pub n_preguntas: usize,
    pub con_hallazgos: bool,
    /// Extra methodology paragraph specific to the study.
    pub metodo_extra: String,
    /// Base share of list answers that name no tracked brand.
    pub sin_marca: f64,
    /// Weight multiplier for a brand in a question matching one of its `debil` values.
    pub debil_factor: f64,
    /// Health register: doctor caveats, no "I'd pick" closings, more brandless answers.
    pub salud: bool,
    /// A model's preference for or against a brand.
    #[serde(default)]
    pub sesgos: Vec<Sesgo>,
    pub dimensiones: Vec<Dimension>,
    pub ponderacion: Option<Weighting>,
    /// Context sentences by set name.
    #[serde(default)]
    pub contextos: BTreeMap<String, Contexto>,
    /// The question blocks, in order (file key `preguntas`).
    #[serde(rename = "preguntas")]
    pub bloques: Vec<Bloque>,
    pub marcas: Vec<Marca>,
    /// Advice sentences (checklists, caveats).
    pub consejos: Textos,
    /// Profiles for "depends on who you are" answers: "cobrás el sueldo en blanco".
    pub perfiles: Textos,
    /// Article titles the media sources carry.
    pub titulos: Textos,
    pub fuentes: Fuentes,
    pub analisis: Analisis,
    /// The previous run of the study, when it has one (`[anterior]`): how it differed.
    #[serde(default)]
    pub anterior: Option<Anterior>,
    /// The question pool, expanded from `bloques` when the file is loaded.
    #[serde(skip)]
    pub preguntas: Vec<PreguntaBase>,
}

/// `[anterior]`: a previous run of the same questions, with the drift real re-runs show.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Anterior {
    /// What that run was, for `[corrida_anterior]` in estudio.toml.
    pub descripcion: String,
    pub descripcion_en: String,
    /// First day of that run, in 2026, and its length in days.
    pub inicio: Dia,
    pub dias: u32,
    /// The model replaced since by its newer version: `actual` is today's id; `id`, `nombre`
    /// and `version` are the old model's (its style is today's).
    pub reemplazo: Reemplazo,
    /// A brand that has risen since: its weight then was `factor` × today's.
    pub en_alza: EnAlza,
    /// A site the answers cited then and no longer do.
    pub medio_retirado: Medio,
    /// The last `agregadas` questions of this run were not asked then; `retiradas` questions
    /// were asked then and no longer (from the question pool).
    pub agregadas: usize,
    pub retiradas: usize,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Reemplazo {
    pub actual: String,
    pub id: String,
    pub nombre: String,
    pub version: String,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EnAlza {
    pub marca: String,
    pub factor: f64,
}

impl Industria {
    /// The index of a declared brand (references are checked when the file is loaded).
    pub(crate) fn marca(&self, id: &str) -> usize {
        self.marcas
            .iter()
            .position(|m| m.id == id)
            .unwrap_or_else(|| panic!("{}: marca `{id}` no declarada", self.slug))
    }
}

/// A day of 2026.
#[derive(Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Dia {
    pub mes: u32,
    pub dia: u32,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Sesgo {
    pub modelo: String,
    pub marca: String,
    /// Weight multiplier: above 1 favours the brand, 0 removes it from that model's answers.
    pub factor: f64,
}

/// A pair of parallel text banks, Spanish and English (either may be left out).
#[derive(Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Textos {
    pub es: Vec<String>,
    pub en: Vec<String>,
}

impl Textos {
    /// The bank of one language (never the other one: an English answer must not borrow
    /// a Spanish sentence).
    pub(crate) fn de(&self, idioma: &str) -> &[String] {
        if idioma == "en" { &self.en } else { &self.es }
    }
}

/// A tracked brand or entity, with what the answers say about it.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Marca {
    pub id: String,
    pub nombre: String,
    /// Extra names written to `marcas.toml` and used in the answers; a leading `~` marks a
    /// sub-brand or product that never stands for the whole entity.
    #[serde(default)]
    pub alias: Vec<String>,
    #[serde(default)]
    pub excluir: Vec<String>,
    pub dominios: Vec<String>,
    /// Base salience: how often assistants think of it.
    pub peso: f64,
    /// Dimension values where the brand is especially relevant (weight × 2.5).
    #[serde(default)]
    pub foco: Vec<String>,
    /// Dimension values where the brand rarely fits (weight × `debil_factor`).
    #[serde(default)]
    pub debil: Vec<String>,
    /// Propensity to receive a caveat (and so a neutral or negative tone).
    pub neg: f64,
    /// Arguments for it: verb phrases in the third person, lowercase, no final period.
    #[serde(default)]
    pub pro: Vec<String>,
    #[serde(default)]
    pub pro_en: Vec<String>,
    /// Caveats: verb phrases in the third person, lowercase, no final period.
    #[serde(default)]
    pub contra: Vec<String>,
    #[serde(default)]
    pub contra_en: Vec<String>,
}

impl Marca {
    /// The arguments for the brand in one language.
    pub(crate) fn argumentos(&self, idioma: &str) -> &[String] {
        if idioma == "en" { &self.pro_en } else { &self.pro }
    }

    /// The caveats about the brand in one language.
    pub(crate) fn advertencias(&self, idioma: &str) -> &[String] {
        if idioma == "en" { &self.contra_en } else { &self.contra }
    }
}

/// Where the answers' sources come from.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Fuentes {
    pub medios: Vec<Medio>,
    pub paginas: Vec<Pagina>,
}

/// One site the answers may cite.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Medio {
    pub host: String,
    pub nombre: String,
    /// Path before the slug; `{fecha}` becomes `2025/11/03`.
    pub ruta: String,
    /// `es`, `en` or `*` (both).
    pub idioma: String,
}

/// A page on a brand's own site; `{marca}` in the titles is the brand's name.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Pagina {
    pub ruta: String,
    pub titulo: String,
    pub titulo_en: String,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Analisis {
    pub tablas: Vec<Tabla>,
}

/// A table spec in short form; ids, names and titles are derived (see [`crate::estudio`]).
#[derive(Clone, Deserialize)]
#[serde(tag = "tipo", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Tabla {
    Marcas {
        metricas: Vec<Metric>,
        /// At most one `dimension = value`: the table covers only those questions.
        #[serde(default)]
        filtro: BTreeMap<String, String>,
    },
    MarcaPorModelo {
        metrica: Metric,
    },
    MarcaPorDimension {
        metrica: Metric,
        dimension: String,
    },
    ModeloPorDimension {
        metrica: Metric,
        dimension: String,
        marca: String,
    },
    Concentracion {
        dimension: Option<String>,
    },
    Acuerdo,
    Tono,
    Fuentes {
        limite: usize,
    },
}

/// A named set of context sentences.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Contexto {
    /// The dimension whose values the groups are; none for a plain list of sentences.
    pub dimension: Option<String>,
    #[serde(default)]
    pub grupos: Vec<Grupo>,
    /// The sentences of a set without a dimension.
    #[serde(default)]
    pub frases: Vec<String>,
}

/// The context sentences of one dimension value.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Grupo {
    pub valor: String,
    pub frases: Vec<String>,
}

/// Which sentences of each context group a block's questions get.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Frase {
    /// One question per sentence.
    #[default]
    Todas,
    Primera,
    Ultima,
    /// Pairs asked in several wordings over a plain list: pair i, wording j gets sentence
    /// (i + j) mod n.
    Rotativa,
}

/// A block of questions: one kind of entry, a language and how contexts are put in front.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Bloque {
    pub idioma: String,
    /// The context set; none for questions asked without context.
    pub contexto: Option<String>,
    #[serde(default)]
    pub frase: Frase,
    /// Only the first N sentences of each group.
    pub limite_frases: Option<usize>,
    /// Dimension values of every question of the block.
    #[serde(default)]
    pub valores: BTreeMap<String, String>,
    /// Wordings for pairs that have no `texto` of their own.
    #[serde(default)]
    pub redacciones: Vec<String>,
    #[serde(default)]
    pub plantillas: Vec<Plantilla>,
    #[serde(default)]
    pub pares: Vec<Par>,
    #[serde(default)]
    pub sobre_marca: Vec<SobreMarca>,
}

/// "Which X is best ..." (a list) or "How do I ..." (advice).
#[derive(Clone, Deserialize)]
pub(crate) struct Plantilla {
    pub tipo: TipoPlantilla,
    pub texto: String,
    /// The entry's own dimension values.
    #[serde(flatten)]
    pub valores: BTreeMap<String, String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TipoPlantilla {
    Lista,
    Consejo,
}

/// "A or B?": two brands and the names the question gives them.
#[derive(Clone, Deserialize)]
pub(crate) struct Par {
    pub marca_a: String,
    pub nombre_a: String,
    pub marca_b: String,
    pub nombre_b: String,
    /// With `{a}`, `{b}` or `{a_o_b}`; none to use the block's `redacciones`.
    pub texto: Option<String>,
    #[serde(flatten)]
    pub valores: BTreeMap<String, String>,
}

/// "Is A good for ...?".
#[derive(Clone, Deserialize)]
pub(crate) struct SobreMarca {
    pub marca: String,
    pub texto: String,
    #[serde(flatten)]
    pub valores: BTreeMap<String, String>,
}

/// Every reference in the file that does not resolve, as `field path: message`.
pub(crate) fn validar(ind: &Industria, modelos: &[Modelo]) -> Vec<String> {
    let mut p = Vec::new();
    let marcas: BTreeSet<&str> = ind.marcas.iter().map(|m| m.id.as_str()).collect();
    if marcas.len() != ind.marcas.len() {
        p.push("marcas: hay ids repetidos".to_owned());
    }
    let dims: BTreeMap<&str, &Dimension> = ind.dimensiones.iter().map(|d| (d.id.as_str(), d)).collect();
    let marca = |p: &mut Vec<String>, campo: String, id: &str| {
        if !marcas.contains(id) {
            p.push(format!("{campo}: marca `{id}` no declarada en [[marcas]]"));
        }
    };
    // A dimension value given by a question entry, a block or a context group.
    let valor = |p: &mut Vec<String>, campo: String, dim: &str, v: &str| match dims.get(dim) {
        _ if dim == LANGUAGE_DIMENSION => {
            p.push(format!("{campo}: `{dim}` es el idioma del bloque, no un valor de la pregunta"))
        }
        None => p.push(format!("{campo}: dimensión `{dim}` no declarada en [[dimensiones]]")),
        Some(d) if !d.valores.iter().any(|x| x == v) => {
            p.push(format!("{campo}: `{v}` no es un valor de la dimensión `{dim}`"))
        }
        Some(_) => {}
    };
    if ind.inicio.mes == 0 || ind.inicio.mes > 12 || ind.inicio.dia == 0 || ind.dias == 0 {
        p.push("inicio, dias: fecha o duración inválidas".to_owned());
    }
    if let Some(a) = &ind.anterior {
        if !modelos.iter().any(|m| m.id == a.reemplazo.actual) {
            p.push(format!("anterior.reemplazo.actual: modelo `{}` desconocido", a.reemplazo.actual));
        }
        marca(&mut p, "anterior.en_alza.marca".to_owned(), &a.en_alza.marca);
        let cabe = (a.inicio.mes, a.inicio.dia + a.dias) < (ind.inicio.mes, ind.inicio.dia);
        if a.inicio.mes == 0 || a.inicio.dia == 0 || a.dias == 0 || !cabe {
            p.push("anterior.inicio, anterior.dias: la corrida anterior termina antes de que empiece esta".to_owned());
        }
    }
    for (i, s) in ind.sesgos.iter().enumerate() {
        if !modelos.iter().any(|m| m.id == s.modelo) {
            p.push(format!("sesgos[{i}].modelo: modelo `{}` desconocido", s.modelo));
        }
        marca(&mut p, format!("sesgos[{i}].marca"), &s.marca);
    }
    for (nombre, c) in &ind.contextos {
        match &c.dimension {
            Some(d) => {
                if c.grupos.is_empty() || !c.frases.is_empty() {
                    p.push(format!("contextos.{nombre}: con `dimension` van `grupos`, no `frases`"));
                }
                for (i, g) in c.grupos.iter().enumerate() {
                    valor(&mut p, format!("contextos.{nombre}.grupos[{i}].valor"), d, &g.valor);
                }
            }
            None if c.frases.is_empty() || !c.grupos.is_empty() => {
                p.push(format!("contextos.{nombre}: sin `dimension` va una lista `frases`"))
            }
            None => {}
        }
    }
    for (b, bloque) in ind.bloques.iter().enumerate() {
        let campo = format!("preguntas[{b}]");
        if !ind.idiomas.contains(&bloque.idioma) {
            p.push(format!("{campo}.idioma: `{}` no está en `idiomas`", bloque.idioma));
        }
        let contexto = bloque.contexto.as_ref().map(|c| (c, ind.contextos.get(c)));
        match contexto {
            Some((c, None)) => p.push(format!("{campo}.contexto: no hay [contextos.{c}]")),
            Some((c, Some(ctx))) if bloque.frase == Frase::Rotativa && ctx.dimension.is_some() => {
                p.push(format!("{campo}.frase: \"rotativa\" necesita un contexto sin dimensión (contextos.{c})"))
            }
            None if bloque.frase != Frase::Todas || bloque.limite_frases.is_some() => {
                p.push(format!("{campo}: `frase` y `limite_frases` necesitan un `contexto`"))
            }
            _ => {}
        }
        for (d, v) in &bloque.valores {
            valor(&mut p, format!("{campo}.valores.{d}"), d, v);
        }
        let tipos = [!bloque.plantillas.is_empty(), !bloque.pares.is_empty(), !bloque.sobre_marca.is_empty()];
        if tipos.iter().filter(|t| **t).count() != 1 {
            p.push(format!("{campo}: cada bloque lleva una sola lista: `plantillas`, `pares` o `sobre_marca`"));
        }
        if bloque.frase == Frase::Rotativa && bloque.pares.is_empty() {
            p.push(format!("{campo}.frase: \"rotativa\" es solo para `pares`"));
        }
        let propios = |p: &mut Vec<String>, campo: String, valores: &BTreeMap<String, String>| {
            for (d, v) in valores {
                if bloque.valores.contains_key(d) {
                    p.push(format!("{campo}.{d}: ya lo fija `valores` del bloque"));
                }
                valor(p, format!("{campo}.{d}"), d, v);
            }
        };
        for (i, x) in bloque.plantillas.iter().enumerate() {
            propios(&mut p, format!("{campo}.plantillas[{i}]"), &x.valores);
        }
        for (i, x) in bloque.pares.iter().enumerate() {
            let campo = format!("{campo}.pares[{i}]");
            propios(&mut p, campo.clone(), &x.valores);
            marca(&mut p, format!("{campo}.marca_a"), &x.marca_a);
            marca(&mut p, format!("{campo}.marca_b"), &x.marca_b);
            if x.texto.is_none() && bloque.redacciones.is_empty() {
                p.push(format!("{campo}.texto: sin `texto` hacen falta las `redacciones` del bloque"));
            }
        }
        for (i, x) in bloque.sobre_marca.iter().enumerate() {
            let campo = format!("{campo}.sobre_marca[{i}]");
            propios(&mut p, campo.clone(), &x.valores);
            marca(&mut p, format!("{campo}.marca"), &x.marca);
        }
    }
    // Tags of the text banks: a dimension value, or (arguments and profiles) a brand id.
    let valores: BTreeSet<&str> = ind.dimensiones.iter().flat_map(|d| d.valores.iter().map(String::as_str)).collect();
    let etiquetas = |p: &mut Vec<String>, campo: String, banco: &[String], con_marcas: bool| {
        for (i, e) in banco.iter().enumerate() {
            let Some((tags, _)) = e.split_once('|') else { continue };
            for t in tags.split(',') {
                let conocida = valores.contains(t) || (con_marcas && marcas.contains(t));
                if !conocida {
                    let que = if con_marcas { "ni el id de una marca" } else { "" };
                    p.push(
                        format!("{campo}[{i}]: la etiqueta `{t}` no es un valor de una dimensión {que}")
                            .trim_end()
                            .to_owned(),
                    );
                }
            }
        }
    };
    for (i, m) in ind.marcas.iter().enumerate() {
        for (campo, banco) in
            [("pro", &m.pro), ("pro_en", &m.pro_en), ("contra", &m.contra), ("contra_en", &m.contra_en)]
        {
            etiquetas(&mut p, format!("marcas[{i}].{campo}"), banco, false);
        }
        for (campo, vs) in [("foco", &m.foco), ("debil", &m.debil)] {
            for v in vs {
                if !valores.contains(v.as_str()) {
                    p.push(format!("marcas[{i}].{campo}: `{v}` no es un valor de una dimensión"));
                }
            }
        }
        if m.dominios.is_empty() {
            p.push(format!("marcas[{i}].dominios: hace falta al menos uno"));
        }
    }
    for (nombre, textos) in [("consejos", &ind.consejos), ("perfiles", &ind.perfiles), ("titulos", &ind.titulos)] {
        let con_marcas = nombre == "perfiles";
        etiquetas(&mut p, format!("{nombre}.es"), &textos.es, con_marcas);
        etiquetas(&mut p, format!("{nombre}.en"), &textos.en, con_marcas);
    }
    for (i, t) in ind.analisis.tablas.iter().enumerate() {
        let campo = format!("analisis.tablas[{i}]");
        let dimension = |p: &mut Vec<String>, d: &str| {
            if !dims.contains_key(d) {
                p.push(format!("{campo}.dimension: dimensión `{d}` no declarada"));
            }
        };
        match t {
            Tabla::Marcas { filtro, .. } => {
                if filtro.len() > 1 {
                    p.push(format!("{campo}.filtro: una sola dimensión"));
                }
                for (d, v) in filtro {
                    // The language is a dimension of the question like any other here.
                    match dims.get(d.as_str()) {
                        Some(dim) if dim.valores.contains(v) => {}
                        _ => p.push(format!("{campo}.filtro.{d}: `{v}` no es un valor de la dimensión")),
                    }
                }
            }
            Tabla::MarcaPorDimension { dimension: d, .. } | Tabla::Concentracion { dimension: Some(d) } => {
                dimension(&mut p, d)
            }
            Tabla::ModeloPorDimension { dimension: d, marca: m, .. } => {
                dimension(&mut p, d);
                marca(&mut p, format!("{campo}.marca"), m);
            }
            _ => {}
        }
    }
    p
}

/// What kind of answer a question calls for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TipoPregunta {
    /// "Which X is best for ...": a ranked list.
    Lista,
    /// "How do I ...": advice first, fewer brands.
    Consejo,
    /// "A or B?": both named, the model's favourite first. Labels are the names the question
    /// gives them (a product, an alias).
    Comparar { a: String, b: String, la: String, lb: String },
    /// "Is A good for ...?": that brand first, maybe alternatives.
    Marca(String),
}

/// A question before it gets an id and a tier.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PreguntaBase {
    pub texto: String,
    /// `es` or `en`.
    pub idioma: String,
    /// (dimension, value) for every dimension but the language.
    pub dims: Vec<(String, String)>,
    pub tipo: TipoPregunta,
}

impl PreguntaBase {
    /// The question's dimension values (what tags in the text banks are matched against).
    pub(crate) fn valores(&self) -> Vec<&str> {
        self.dims.iter().map(|(_, v)| v.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::carga::{cargar, industrias};

    fn modelos() -> Vec<Modelo> {
        crate::modelos::modelos().expect("modelos.toml loads")
    }

    fn error(texto: &str) -> String {
        match cargar("prueba.toml", texto, &modelos()) {
            Ok(_) => panic!("the file should not load"),
            Err(e) => format!("{e:#}"),
        }
    }

    /// The running file with one substitution, as a malformed variant to load.
    fn running_con(de: &str, a: &str) -> String {
        let (_, texto) = ARCHIVOS.iter().find(|(n, _)| *n == "running.toml").expect("running.toml");
        assert!(texto.contains(de), "running.toml contains {de:?}");
        texto.replacen(de, a, 1)
    }

    #[test]
    fn every_file_loads_and_expands_its_questions() {
        let todas = industrias(&modelos()).expect("the data files load");
        let slugs: Vec<&str> = todas.iter().map(|i| i.slug.as_str()).collect();
        let mut ordenados = slugs.clone();
        ordenados.sort_unstable();
        assert_eq!(slugs, ordenados, "ARCHIVOS is in slug order");
        for ind in &todas {
            assert!(ind.preguntas.len() >= 40, "{}: {} preguntas", ind.slug, ind.preguntas.len());
        }
    }

    #[test]
    fn a_type_error_names_the_file_the_line_and_the_field() {
        let e = error(&running_con("peso = 0.85", "peso = \"mucho\""));
        assert!(e.starts_with("generator/synth/industrias/prueba.toml: línea "), "{e}");
        assert!(e.contains("campo `marcas[1].peso`"), "{e}");
    }

    #[test]
    fn an_unknown_key_is_an_error() {
        let e = error(&running_con("dias = 9", "dias = 9\nduracion = 9"));
        assert!(e.contains("campo `duracion`") || e.contains("unknown field `duracion`"), "{e}");
    }

    #[test]
    fn unresolved_references_are_all_reported() {
        let texto = running_con("marca_b = \"adidas\"", "marca_b = \"adidaz\"")
            .replacen("producto = \"relojes\", tipo", "producto = \"relojitos\", tipo", 1)
            .replacen("contexto = \"corredores_en\"", "contexto = \"runners\"", 1)
            .replacen("\"zapatillas|Probate", "\"zapatilla|Probate", 1);
        let e = error(&texto);
        assert!(e.contains("preguntas[2].pares[0].marca_b: marca `adidaz` no declarada"), "{e}");
        assert!(e.contains("preguntas[0].plantillas[3].producto: `relojitos` no es un valor"), "{e}");
        assert!(e.contains("preguntas[1].contexto: no hay [contextos.runners]"), "{e}");
        assert!(e.contains("consejos.es[0]: la etiqueta `zapatilla`"), "{e}");
    }

    #[test]
    fn the_language_is_the_block_s_not_a_question_value() {
        let e = error(&running_con("valores = { par_tipo = \"sin par\" }", "valores = { idioma = \"es\" }"));
        assert!(e.contains("preguntas[0].valores.idioma: `idioma` es el idioma del bloque"), "{e}");
    }
}
