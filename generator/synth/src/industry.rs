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
//! [`crate::loading`] reads, checks and expands them.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use generator::model::{Dimension, LANGUAGE_DIMENSION, Metric, Weighting};

use crate::models::Model;

/// The data files, in slug order (the order the studies are generated and listed).
pub(crate) const FILES: [(&str, &str); 9] = [
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
pub(crate) struct Industry {
    pub slug: String,
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(rename = "nombre_en")]
    pub name_en: String,
    #[serde(rename = "descripcion")]
    pub description: String,
    #[serde(rename = "descripcion_en")]
    pub description_en: String,
    #[serde(rename = "industria")]
    pub industry: String,
    #[serde(rename = "subindustria")]
    pub subindustry: String,
    #[serde(rename = "pais")]
    pub country: Vec<String>,
    #[serde(rename = "idiomas")]
    pub languages: Vec<String>,
    pub tags: Vec<String>,
    #[serde(rename = "publicado")]
    pub published: String,
    /// First day of the run, in 2026.
    #[serde(rename = "inicio")]
    pub start: Day,
    /// Length of the run in days.
    #[serde(rename = "dias")]
    pub days: u32,
    /// Google models moved to a new version in the middle of the run.
    #[serde(rename = "cambio_version")]
    pub version_change: bool,
    /// Questions at scale 1.
    #[serde(rename = "n_preguntas")]
    pub n_questions: usize,
    #[serde(rename = "con_hallazgos")]
    pub with_findings: bool,
    /// Extra methodology paragraph specific to the study.
    #[serde(rename = "metodo_extra")]
    pub method_extra: String,
    /// Base share of list answers that name no tracked brand.
    #[serde(rename = "sin_marca")]
    pub brandless_rate: f64,
    /// Weight multiplier for a brand in a question matching one of its `debil` values.
    #[serde(rename = "debil_factor")]
    pub weak_factor: f64,
    /// Health register: doctor caveats, no "I'd pick" closings, more brandless answers.
    #[serde(rename = "salud")]
    pub health: bool,
    /// A model's preference for or against a brand.
    #[serde(default, rename = "sesgos")]
    pub biases: Vec<Bias>,
    #[serde(rename = "dimensiones")]
    pub dimensions: Vec<Dimension>,
    #[serde(rename = "ponderacion")]
    pub weighting: Option<Weighting>,
    /// Context sentences by set name.
    #[serde(default, rename = "contextos")]
    pub contexts: BTreeMap<String, ContextSet>,
    /// The question blocks, in order (file key `preguntas`).
    #[serde(rename = "preguntas")]
    pub blocks: Vec<Block>,
    #[serde(rename = "marcas")]
    pub brands: Vec<TrackedBrand>,
    /// Advice sentences (checklists, caveats).
    #[serde(rename = "consejos")]
    pub advice: Texts,
    /// Profiles for "depends on who you are" answers: "cobrás el sueldo en blanco".
    #[serde(rename = "perfiles")]
    pub profiles: Texts,
    /// Article titles the media sources carry.
    #[serde(rename = "titulos")]
    pub titles: Texts,
    #[serde(rename = "fuentes")]
    pub sources: Sources,
    #[serde(rename = "analisis")]
    pub analysis: Analysis,
    /// The previous run of the study, when it has one (`[anterior]`): how it differed.
    #[serde(default, rename = "anterior")]
    pub previous: Option<PreviousRun>,
    /// Consumer surfaces the study also collects (ids of `[[consumo]]` in `modelos.toml`): each
    /// is one more model, and estudio.toml gets the dimension `superficie`.
    #[serde(default, rename = "consumo")]
    pub consumer: Vec<String>,
    /// The question pool, expanded from `blocks` when the file is loaded.
    #[serde(skip)]
    pub questions: Vec<BaseQuestion>,
}

/// `[anterior]`: a previous run of the same questions, with the drift real re-runs show.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PreviousRun {
    /// What that run was, for `[corrida_anterior]` in estudio.toml.
    #[serde(rename = "descripcion")]
    pub description: String,
    #[serde(rename = "descripcion_en")]
    pub description_en: String,
    /// First day of that run, in 2026, and its length in days.
    #[serde(rename = "inicio")]
    pub start: Day,
    #[serde(rename = "dias")]
    pub days: u32,
    /// The model replaced since by its newer version: `actual` is today's id; `id`, `nombre`
    /// and `version` are the old model's (its style is today's).
    #[serde(rename = "reemplazo")]
    pub replacement: Replacement,
    /// A brand that has risen since: its weight then was `factor` × today's.
    #[serde(rename = "en_alza")]
    pub rising: RisingBrand,
    /// A site the answers cited then and no longer do.
    #[serde(rename = "medio_retirado")]
    pub retired_site: MediaSite,
    /// The last `agregadas` questions of this run were not asked then; `retiradas` questions
    /// were asked then and no longer (from the question pool).
    #[serde(rename = "agregadas")]
    pub added: usize,
    #[serde(rename = "retiradas")]
    pub retired: usize,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Replacement {
    #[serde(rename = "actual")]
    pub current: String,
    pub id: String,
    #[serde(rename = "nombre")]
    pub name: String,
    pub version: String,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RisingBrand {
    #[serde(rename = "marca")]
    pub brand: String,
    pub factor: f64,
}

impl Industry {
    /// The index of a declared brand (references are checked when the file is loaded).
    pub(crate) fn brand_index(&self, id: &str) -> usize {
        self.brands
            .iter()
            .position(|m| m.id == id)
            .unwrap_or_else(|| panic!("{}: marca `{id}` no declarada", self.slug))
    }
}

/// A day of 2026.
#[derive(Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Day {
    #[serde(rename = "mes")]
    pub month: u32,
    #[serde(rename = "dia")]
    pub day: u32,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Bias {
    #[serde(rename = "modelo")]
    pub model: String,
    #[serde(rename = "marca")]
    pub brand: String,
    /// Weight multiplier: above 1 favours the brand, 0 removes it from that model's answers.
    pub factor: f64,
}

/// A pair of parallel text banks, Spanish and English (either may be left out).
#[derive(Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Texts {
    pub es: Vec<String>,
    pub en: Vec<String>,
}

impl Texts {
    /// The bank of one language (never the other one: an English answer must not borrow
    /// a Spanish sentence).
    pub(crate) fn in_language(&self, language: &str) -> &[String] {
        if language == "en" { &self.en } else { &self.es }
    }
}

/// A tracked brand or entity, with what the answers say about it.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TrackedBrand {
    pub id: String,
    #[serde(rename = "nombre")]
    pub name: String,
    /// Extra names written to `marcas.toml` and used in the answers; a leading `~` marks a
    /// sub-brand or product that never stands for the whole entity.
    #[serde(default)]
    pub alias: Vec<String>,
    #[serde(default, rename = "excluir")]
    pub exclude: Vec<String>,
    #[serde(rename = "dominios")]
    pub domains: Vec<String>,
    /// Base salience: how often assistants think of it.
    #[serde(rename = "peso")]
    pub weight: f64,
    /// Dimension values where the brand is especially relevant (weight × 2.5).
    #[serde(default, rename = "foco")]
    pub focus: Vec<String>,
    /// Dimension values where the brand rarely fits (weight × `debil_factor`).
    #[serde(default, rename = "debil")]
    pub weak: Vec<String>,
    /// Propensity to receive a caveat (and so a neutral or negative tone).
    pub neg: f64,
    /// Arguments for it: verb phrases in the third person, lowercase, no final period.
    #[serde(default, rename = "pro")]
    pub pros: Vec<String>,
    #[serde(default, rename = "pro_en")]
    pub pros_en: Vec<String>,
    /// Caveats: verb phrases in the third person, lowercase, no final period.
    #[serde(default, rename = "contra")]
    pub cons: Vec<String>,
    #[serde(default, rename = "contra_en")]
    pub cons_en: Vec<String>,
}

impl TrackedBrand {
    /// The arguments for the brand in one language.
    pub(crate) fn arguments(&self, language: &str) -> &[String] {
        if language == "en" { &self.pros_en } else { &self.pros }
    }

    /// The caveats about the brand in one language.
    pub(crate) fn caveats(&self, language: &str) -> &[String] {
        if language == "en" { &self.cons_en } else { &self.cons }
    }
}

/// Where the answers' sources come from.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Sources {
    #[serde(rename = "medios")]
    pub media: Vec<MediaSite>,
    #[serde(rename = "paginas")]
    pub pages: Vec<BrandPage>,
}

/// One site the answers may cite.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MediaSite {
    pub host: String,
    #[serde(rename = "nombre")]
    pub name: String,
    /// Path before the slug; `{fecha}` becomes `2025/11/03`.
    #[serde(rename = "ruta")]
    pub path: String,
    /// `es`, `en` or `*` (both).
    #[serde(rename = "idioma")]
    pub language: String,
}

/// A page on a brand's own site; `{marca}` in the titles is the brand's name.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BrandPage {
    #[serde(rename = "ruta")]
    pub path: String,
    #[serde(rename = "titulo")]
    pub title: String,
    #[serde(rename = "titulo_en")]
    pub title_en: String,
}

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Analysis {
    #[serde(rename = "tablas")]
    pub tables: Vec<ShortTable>,
}

/// A table spec in short form; ids, names and titles are derived (see [`crate::design`]).
#[derive(Clone, Deserialize)]
#[serde(tag = "tipo", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum ShortTable {
    #[serde(rename = "marcas")]
    Brands {
        #[serde(rename = "metricas")]
        metrics: Vec<Metric>,
        /// At most one `dimension = value`: the table covers only those questions.
        #[serde(default, rename = "filtro")]
        filter: BTreeMap<String, String>,
    },
    #[serde(rename = "marca_por_modelo")]
    BrandByModel {
        #[serde(rename = "metrica")]
        metric: Metric,
    },
    #[serde(rename = "marca_por_dimension")]
    BrandByDimension {
        #[serde(rename = "metrica")]
        metric: Metric,
        dimension: String,
    },
    #[serde(rename = "modelo_por_dimension")]
    ModelByDimension {
        #[serde(rename = "metrica")]
        metric: Metric,
        dimension: String,
        #[serde(rename = "marca")]
        brand: String,
    },
    #[serde(rename = "concentracion")]
    Concentration { dimension: Option<String> },
    #[serde(rename = "acuerdo")]
    Agreement,
    #[serde(rename = "tono")]
    Tone,
    #[serde(rename = "fuentes")]
    Sources {
        #[serde(rename = "limite")]
        limit: usize,
    },
}

/// A named set of context sentences.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ContextSet {
    /// The dimension whose values the groups are; none for a plain list of sentences.
    pub dimension: Option<String>,
    #[serde(default, rename = "grupos")]
    pub groups: Vec<ContextGroup>,
    /// The sentences of a set without a dimension.
    #[serde(default, rename = "frases")]
    pub sentences: Vec<String>,
}

/// The context sentences of one dimension value.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ContextGroup {
    #[serde(rename = "valor")]
    pub value: String,
    #[serde(rename = "frases")]
    pub sentences: Vec<String>,
}

/// Which sentences of each context group a block's questions get.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SentencePick {
    /// One question per sentence.
    #[default]
    #[serde(rename = "todas")]
    All,
    #[serde(rename = "primera")]
    First,
    #[serde(rename = "ultima")]
    Last,
    /// Pairs asked in several wordings over a plain list: pair i, wording j gets sentence
    /// (i + j) mod n.
    #[serde(rename = "rotativa")]
    Rotating,
}

/// A block of questions: one kind of entry, a language and how contexts are put in front.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Block {
    #[serde(rename = "idioma")]
    pub language: String,
    /// The context set; none for questions asked without context.
    #[serde(rename = "contexto")]
    pub context: Option<String>,
    #[serde(default, rename = "frase")]
    pub sentence: SentencePick,
    /// Only the first N sentences of each group.
    #[serde(rename = "limite_frases")]
    pub sentence_limit: Option<usize>,
    /// Dimension values of every question of the block.
    #[serde(default, rename = "valores")]
    pub values: BTreeMap<String, String>,
    /// Wordings for pairs that have no `texto` of their own.
    #[serde(default, rename = "redacciones")]
    pub wordings: Vec<String>,
    #[serde(default, rename = "plantillas")]
    pub templates: Vec<Template>,
    #[serde(default, rename = "pares")]
    pub pairs: Vec<Pair>,
    #[serde(default, rename = "sobre_marca")]
    pub about_brand: Vec<AboutBrand>,
}

/// "Which X is best ..." (a list) or "How do I ..." (advice).
#[derive(Clone, Deserialize)]
pub(crate) struct Template {
    #[serde(rename = "tipo")]
    pub kind: TemplateKind,
    #[serde(rename = "texto")]
    pub text: String,
    /// The entry's own dimension values.
    #[serde(flatten)]
    pub values: BTreeMap<String, String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TemplateKind {
    #[serde(rename = "lista")]
    List,
    #[serde(rename = "consejo")]
    Advice,
}

/// "A or B?": two brands and the names the question gives them.
#[derive(Clone, Deserialize)]
pub(crate) struct Pair {
    #[serde(rename = "marca_a")]
    pub brand_a: String,
    #[serde(rename = "nombre_a")]
    pub name_a: String,
    #[serde(rename = "marca_b")]
    pub brand_b: String,
    #[serde(rename = "nombre_b")]
    pub name_b: String,
    /// With `{a}`, `{b}` or `{a_o_b}`; none to use the block's `redacciones`.
    #[serde(rename = "texto")]
    pub text: Option<String>,
    #[serde(flatten)]
    pub values: BTreeMap<String, String>,
}

/// "Is A good for ...?".
#[derive(Clone, Deserialize)]
pub(crate) struct AboutBrand {
    #[serde(rename = "marca")]
    pub brand: String,
    #[serde(rename = "texto")]
    pub text: String,
    #[serde(flatten)]
    pub values: BTreeMap<String, String>,
}

/// Every reference in the file that does not resolve, as `field path: message`.
pub(crate) fn validate(ind: &Industry, models: &[Model]) -> Vec<String> {
    let mut p = Vec::new();
    let brands: BTreeSet<&str> = ind.brands.iter().map(|m| m.id.as_str()).collect();
    if brands.len() != ind.brands.len() {
        p.push("marcas: hay ids repetidos".to_owned());
    }
    let dims: BTreeMap<&str, &Dimension> = ind.dimensions.iter().map(|d| (d.id.as_str(), d)).collect();
    let brand = |p: &mut Vec<String>, field: String, id: &str| {
        if !brands.contains(id) {
            p.push(format!("{field}: marca `{id}` no declarada en [[marcas]]"));
        }
    };
    // A dimension value given by a question entry, a block or a context group.
    let value = |p: &mut Vec<String>, field: String, dim: &str, v: &str| match dims.get(dim) {
        _ if dim == LANGUAGE_DIMENSION => {
            p.push(format!("{field}: `{dim}` es el idioma del bloque, no un valor de la pregunta"))
        }
        None => p.push(format!("{field}: dimensión `{dim}` no declarada en [[dimensiones]]")),
        Some(d) if !d.values.iter().any(|x| x == v) => {
            p.push(format!("{field}: `{v}` no es un valor de la dimensión `{dim}`"))
        }
        Some(_) => {}
    };
    if ind.start.month == 0 || ind.start.month > 12 || ind.start.day == 0 || ind.days == 0 {
        p.push("inicio, dias: fecha o duración inválidas".to_owned());
    }
    if let Some(a) = &ind.previous {
        if !models.iter().any(|m| m.id == a.replacement.current) {
            p.push(format!("anterior.reemplazo.actual: modelo `{}` desconocido", a.replacement.current));
        }
        brand(&mut p, "anterior.en_alza.marca".to_owned(), &a.rising.brand);
        let fits = (a.start.month, a.start.day + a.days) < (ind.start.month, ind.start.day);
        if a.start.month == 0 || a.start.day == 0 || a.days == 0 || !fits {
            p.push("anterior.inicio, anterior.dias: la corrida anterior termina antes de que empiece esta".to_owned());
        }
    }
    for (i, s) in ind.biases.iter().enumerate() {
        if !models.iter().any(|m| m.id == s.model) {
            p.push(format!("sesgos[{i}].modelo: modelo `{}` desconocido", s.model));
        }
        brand(&mut p, format!("sesgos[{i}].marca"), &s.brand);
    }
    for (name, c) in &ind.contexts {
        match &c.dimension {
            Some(d) => {
                if c.groups.is_empty() || !c.sentences.is_empty() {
                    p.push(format!("contextos.{name}: con `dimension` van `grupos`, no `frases`"));
                }
                for (i, g) in c.groups.iter().enumerate() {
                    value(&mut p, format!("contextos.{name}.grupos[{i}].valor"), d, &g.value);
                }
            }
            None if c.sentences.is_empty() || !c.groups.is_empty() => {
                p.push(format!("contextos.{name}: sin `dimension` va una lista `frases`"))
            }
            None => {}
        }
    }
    for (b, block) in ind.blocks.iter().enumerate() {
        let field = format!("preguntas[{b}]");
        if !ind.languages.contains(&block.language) {
            p.push(format!("{field}.idioma: `{}` no está en `idiomas`", block.language));
        }
        let context = block.context.as_ref().map(|c| (c, ind.contexts.get(c)));
        match context {
            Some((c, None)) => p.push(format!("{field}.contexto: no hay [contextos.{c}]")),
            Some((c, Some(ctx))) if block.sentence == SentencePick::Rotating && ctx.dimension.is_some() => {
                p.push(format!("{field}.frase: \"rotativa\" necesita un contexto sin dimensión (contextos.{c})"))
            }
            None if block.sentence != SentencePick::All || block.sentence_limit.is_some() => {
                p.push(format!("{field}: `frase` y `limite_frases` necesitan un `contexto`"))
            }
            _ => {}
        }
        for (d, v) in &block.values {
            value(&mut p, format!("{field}.valores.{d}"), d, v);
        }
        let kinds = [!block.templates.is_empty(), !block.pairs.is_empty(), !block.about_brand.is_empty()];
        if kinds.iter().filter(|t| **t).count() != 1 {
            p.push(format!("{field}: cada bloque lleva una sola lista: `plantillas`, `pares` o `sobre_marca`"));
        }
        if block.sentence == SentencePick::Rotating && block.pairs.is_empty() {
            p.push(format!("{field}.frase: \"rotativa\" es solo para `pares`"));
        }
        let own = |p: &mut Vec<String>, field: String, values: &BTreeMap<String, String>| {
            for (d, v) in values {
                if block.values.contains_key(d) {
                    p.push(format!("{field}.{d}: ya lo fija `valores` del bloque"));
                }
                value(p, format!("{field}.{d}"), d, v);
            }
        };
        for (i, x) in block.templates.iter().enumerate() {
            own(&mut p, format!("{field}.plantillas[{i}]"), &x.values);
        }
        for (i, x) in block.pairs.iter().enumerate() {
            let field = format!("{field}.pares[{i}]");
            own(&mut p, field.clone(), &x.values);
            brand(&mut p, format!("{field}.marca_a"), &x.brand_a);
            brand(&mut p, format!("{field}.marca_b"), &x.brand_b);
            if x.text.is_none() && block.wordings.is_empty() {
                p.push(format!("{field}.texto: sin `texto` hacen falta las `redacciones` del bloque"));
            }
        }
        for (i, x) in block.about_brand.iter().enumerate() {
            let field = format!("{field}.sobre_marca[{i}]");
            own(&mut p, field.clone(), &x.values);
            brand(&mut p, format!("{field}.marca"), &x.brand);
        }
    }
    // Tags of the text banks: a dimension value, or (arguments and profiles) a brand id.
    let values: BTreeSet<&str> = ind.dimensions.iter().flat_map(|d| d.values.iter().map(String::as_str)).collect();
    let split_tag = |p: &mut Vec<String>, field: String, bank: &[String], with_brands: bool| {
        for (i, e) in bank.iter().enumerate() {
            let Some((tags, _)) = e.split_once('|') else { continue };
            for t in tags.split(',') {
                let known = values.contains(t) || (with_brands && brands.contains(t));
                if !known {
                    let what = if with_brands { "ni el id de una marca" } else { "" };
                    p.push(
                        format!("{field}[{i}]: la etiqueta `{t}` no es un valor de una dimensión {what}")
                            .trim_end()
                            .to_owned(),
                    );
                }
            }
        }
    };
    for (i, m) in ind.brands.iter().enumerate() {
        for (field, bank) in [("pro", &m.pros), ("pro_en", &m.pros_en), ("contra", &m.cons), ("contra_en", &m.cons_en)]
        {
            split_tag(&mut p, format!("marcas[{i}].{field}"), bank, false);
        }
        for (field, vs) in [("foco", &m.focus), ("debil", &m.weak)] {
            for v in vs {
                if !values.contains(v.as_str()) {
                    p.push(format!("marcas[{i}].{field}: `{v}` no es un valor de una dimensión"));
                }
            }
        }
        if m.domains.is_empty() {
            p.push(format!("marcas[{i}].dominios: hace falta al menos uno"));
        }
    }
    for (name, texts) in [("consejos", &ind.advice), ("perfiles", &ind.profiles), ("titulos", &ind.titles)] {
        let with_brands = name == "perfiles";
        split_tag(&mut p, format!("{name}.es"), &texts.es, with_brands);
        split_tag(&mut p, format!("{name}.en"), &texts.en, with_brands);
    }
    for (i, t) in ind.analysis.tables.iter().enumerate() {
        let field = format!("analisis.tablas[{i}]");
        let dimension = |p: &mut Vec<String>, d: &str| {
            // `superficie` is the answers' own dimension, declared when the study has a
            // consumer surface.
            let surface = d == generator::model::SURFACE_DIMENSION && !ind.consumer.is_empty();
            if !dims.contains_key(d) && !surface {
                p.push(format!("{field}.dimension: dimensión `{d}` no declarada"));
            }
        };
        match t {
            ShortTable::Brands { filter, .. } => {
                if filter.len() > 1 {
                    p.push(format!("{field}.filtro: una sola dimensión"));
                }
                for (d, v) in filter {
                    // The language is a dimension of the question like any other here.
                    match dims.get(d.as_str()) {
                        Some(dim) if dim.values.contains(v) => {}
                        _ => p.push(format!("{field}.filtro.{d}: `{v}` no es un valor de la dimensión")),
                    }
                }
            }
            ShortTable::BrandByDimension { dimension: d, .. } | ShortTable::Concentration { dimension: Some(d) } => {
                dimension(&mut p, d)
            }
            ShortTable::ModelByDimension { dimension: d, brand: m, .. } => {
                dimension(&mut p, d);
                brand(&mut p, format!("{field}.marca"), m);
            }
            _ => {}
        }
    }
    p
}

/// What kind of answer a question calls for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum QuestionKind {
    /// "Which X is best for ...": a ranked list.
    List,
    /// "How do I ...": advice first, fewer brands.
    Advice,
    /// "A or B?": both named, the model's favourite first. Labels are the names the question
    /// gives them (a product, an alias).
    Compare { a: String, b: String, label_a: String, label_b: String },
    /// "Is A good for ...?": that brand first, maybe alternatives.
    AboutBrand(String),
}

/// A question before it gets an id and a tier.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BaseQuestion {
    pub text: String,
    /// `es` or `en`.
    pub language: String,
    /// (dimension, value) for every dimension but the language.
    pub dims: Vec<(String, String)>,
    pub kind: QuestionKind,
}

impl BaseQuestion {
    /// The question's dimension values (what tags in the text banks are matched against).
    pub(crate) fn values(&self) -> Vec<&str> {
        self.dims.iter().map(|(_, v)| v.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loading::{industries, load};

    fn models() -> Vec<Model> {
        crate::models::models().expect("modelos.toml loads")
    }

    fn error(text: &str) -> String {
        match load("prueba.toml", text, &models()) {
            Ok(_) => panic!("the file should not load"),
            Err(e) => format!("{e:#}"),
        }
    }

    /// The running file with one substitution, as a malformed variant to load.
    fn running_with(from: &str, a: &str) -> String {
        let (_, text) = FILES.iter().find(|(n, _)| *n == "running.toml").expect("running.toml");
        assert!(text.contains(from), "running.toml contains {from:?}");
        text.replacen(from, a, 1)
    }

    #[test]
    fn every_file_loads_and_expands_its_questions() {
        let all = industries(&models()).expect("the data files load");
        let slugs: Vec<&str> = all.iter().map(|i| i.slug.as_str()).collect();
        let mut sorted = slugs.clone();
        sorted.sort_unstable();
        assert_eq!(slugs, sorted, "FILES is in slug order");
        for ind in &all {
            assert!(ind.questions.len() >= 40, "{}: {} preguntas", ind.slug, ind.questions.len());
        }
    }

    #[test]
    fn a_type_error_names_the_file_the_line_and_the_field() {
        let e = error(&running_with("peso = 0.85", "peso = \"mucho\""));
        assert!(e.starts_with("generator/synth/industrias/prueba.toml: línea "), "{e}");
        assert!(e.contains("campo `marcas[1].peso`"), "{e}");
    }

    #[test]
    fn an_unknown_key_is_an_error() {
        let e = error(&running_with("dias = 9", "dias = 9\nduracion = 9"));
        assert!(e.contains("campo `duracion`") || e.contains("unknown field `duracion`"), "{e}");
    }

    #[test]
    fn unresolved_references_are_all_reported() {
        let text = running_with("marca_b = \"adidas\"", "marca_b = \"adidaz\"")
            .replacen("producto = \"relojes\", tipo", "producto = \"relojitos\", tipo", 1)
            .replacen("contexto = \"corredores_en\"", "contexto = \"runners\"", 1)
            .replacen("\"zapatillas|Probate", "\"zapatilla|Probate", 1);
        let e = error(&text);
        assert!(e.contains("preguntas[2].pares[0].marca_b: marca `adidaz` no declarada"), "{e}");
        assert!(e.contains("preguntas[0].plantillas[3].producto: `relojitos` no es un valor"), "{e}");
        assert!(e.contains("preguntas[1].contexto: no hay [contextos.runners]"), "{e}");
        assert!(e.contains("consejos.es[0]: la etiqueta `zapatilla`"), "{e}");
    }

    #[test]
    fn the_language_is_the_block_s_not_a_question_value() {
        let e = error(&running_with("valores = { par_tipo = \"sin par\" }", "valores = { idioma = \"es\" }"));
        assert!(e.contains("preguntas[0].valores.idioma: `idioma` es el idioma del bloque"), "{e}");
    }
}
