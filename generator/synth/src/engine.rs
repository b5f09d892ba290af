//! The shared answer engine: industry data in, assistant-like answers out.
//!
//! Every industry module describes *what* a study is about (brands with their arguments,
//! question pools, advice, media sites); this module decides *how* an assistant would word
//! it. Each answer picks a structure (numbered list, prose, table, pros and cons, a
//! comparison, a no-brand answer, ...), chooses brands by weighted sampling with a per-model
//! bias (so the metrics show a leader, a challenger, a long tail and a model that prefers
//! another brand), labels the tone of every brand it names and cites sources. Brands are
//! written in the order they were sampled, so the order the metrics detect is the order
//! the engine intended (a unit test checks this with the real matcher).

use std::collections::BTreeMap;

use rand::Rng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand_chacha::ChaCha8Rng;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

use generator::model::{Dimension, Source, Tone, Weighting};

use super::comun::{Modelo, Tabla};

/// A pair of parallel text banks, Spanish and English.
#[derive(Clone, Copy)]
pub(crate) struct Textos {
    pub es: &'static [&'static str],
    pub en: &'static [&'static str],
}

impl Textos {
    /// The bank of one language (never the other one: an English answer must not borrow
    /// a Spanish sentence).
    pub(crate) fn de(&self, idioma: &str) -> &'static [&'static str] {
        if idioma == "en" { self.en } else { self.es }
    }
}

/// A tracked brand or entity, with what the answers say about it.
pub(crate) struct Marca {
    pub id: &'static str,
    pub nombre: &'static str,
    /// Extra names written to `marcas.toml` and used in the answers.
    pub alias: &'static [&'static str],
    pub excluir: &'static [&'static str],
    pub dominios: &'static [&'static str],
    /// Base salience: how often assistants think of it.
    pub peso: f64,
    /// Dimension values where the brand is especially relevant (weight × 2.5).
    pub foco: &'static [&'static str],
    /// Dimension values where the brand rarely fits (weight × 0.2).
    pub debil: &'static [&'static str],
    /// Propensity to receive a caveat (and so a neutral or negative tone).
    pub neg: f64,
    /// Arguments for it: verb phrases in the third person, lowercase, no final period.
    pub pro: Textos,
    /// Caveats: verb phrases in the third person, lowercase, no final period.
    pub contra: Textos,
}

/// One site the answers may cite.
pub(crate) struct Medio {
    pub host: &'static str,
    pub nombre: &'static str,
    /// Path before the slug; `{fecha}` becomes `2025/11/03`.
    pub ruta: &'static str,
    pub idioma: &'static str,
}

/// What kind of answer a question calls for.
#[derive(Clone, Debug)]
pub(crate) enum TipoPregunta {
    /// "Which X is best for ...": a ranked list.
    Lista,
    /// "How do I ...": advice first, fewer brands.
    Consejo,
    /// "A or B?": both named, the model's favourite first. Labels contain an alias.
    Comparar { a: &'static str, b: &'static str, la: String, lb: String },
    /// "Is A good for ...?": that brand first, maybe alternatives.
    Marca(&'static str),
}

/// A question before it gets an id and a tier.
#[derive(Clone, Debug)]
pub(crate) struct PreguntaBase {
    pub texto: String,
    pub idioma: &'static str,
    pub dims: Vec<(&'static str, String)>,
    pub tipo: TipoPregunta,
}

/// Everything an industry module declares about its study.
pub(crate) struct Industria {
    pub slug: &'static str,
    pub nombre: &'static str,
    pub nombre_en: &'static str,
    pub descripcion: &'static str,
    pub descripcion_en: &'static str,
    pub industria: &'static str,
    pub subindustria: &'static str,
    pub pais: &'static [&'static str],
    pub idiomas: &'static [&'static str],
    pub tags: &'static [&'static str],
    /// Start of the run (month, day) in 2026, its length in days, and the publication date.
    pub inicio: (u32, u32),
    pub dias: u32,
    pub publicado: &'static str,
    /// Google models moved to a new version in the middle of the run.
    pub cambio_version: bool,
    pub dimensiones: Vec<Dimension>,
    /// Questions at scale 1.
    pub n_preguntas: usize,
    pub preguntas: Vec<PreguntaBase>,
    pub marcas: Vec<Marca>,
    /// (model id, brand id, multiplier): a model's preference for or against a brand.
    pub sesgos: &'static [(&'static str, &'static str, f64)],
    /// Base share of list answers that name no tracked brand.
    pub sin_marca: f64,
    /// Weight multiplier for a brand in a question matching one of its `debil` values.
    pub debil_factor: f64,
    /// Health register: doctor caveats, no "I'd pick" closings, more brandless answers.
    pub salud: bool,
    /// Advice sentences (checklists, caveats).
    pub consejos: Textos,
    /// Profiles for "depends on who you are" answers: "cobrás el sueldo en blanco".
    pub perfiles: Textos,
    pub medios: Vec<Medio>,
    /// Article titles the media sources carry.
    pub titulos: Textos,
    /// Pages on brand sites: (path, title es, title en); `{marca}` is the brand name.
    pub paginas: &'static [(&'static str, &'static str, &'static str)],
    pub tablas: Vec<Tabla>,
    pub ponderacion: Option<Weighting>,
    /// Extra methodology paragraph specific to the study.
    pub metodo_extra: &'static str,
    pub con_hallazgos: bool,
}

impl Industria {
    pub(crate) fn marca(&self, id: &str) -> usize {
        self.marcas
            .iter()
            .position(|m| m.id == id)
            .unwrap_or_else(|| panic!("{}: marca `{id}` no declarada", self.slug))
    }
}

/// One generated answer, before it gets its id.
pub(crate) struct Borrador {
    pub respuesta: String,
    pub fuentes: Vec<Source>,
    pub tono: BTreeMap<String, Tone>,
    /// Brand indexes in order of appearance (what the matcher must find).
    pub orden: Vec<usize>,
}

/// A brand chosen for one answer, with what will be said about it.
struct Elegida {
    idx: usize,
    nombre: String,
    pro: Vec<&'static str>,
    contra: Option<&'static str>,
}

fn es(idioma: &str) -> bool {
    idioma != "en"
}

/// Picks one string from a bank.
fn una(rng: &mut ChaCha8Rng, banco: &[&'static str]) -> &'static str {
    banco.choose(rng).copied().unwrap_or("")
}

/// Splits an optional "tag,tag|text" prefix off a bank entry.
fn etiquetas(entrada: &'static str) -> (Option<&'static str>, &'static str) {
    match entrada.split_once('|') {
        Some((t, texto)) => (Some(t), texto),
        None => (None, entrada),
    }
}

/// Up to `n` entries of a bank, preferring those tagged with one of `claves` (a dimension
/// value or a brand id), then untagged ones; entries tagged for something else are skipped.
fn relevantes(rng: &mut ChaCha8Rng, banco: &[&'static str], claves: &[&str], n: usize) -> Vec<&'static str> {
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

fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Lowercases the first letter unless the word is an acronym ("BCRA").
fn minuscula(s: &str) -> String {
    let mut c = s.chars();
    match (c.next(), c.next()) {
        (Some(a), Some(b)) if !b.is_uppercase() => a.to_lowercase().chain(std::iter::once(b)).chain(c).collect(),
        _ => s.to_owned(),
    }
}

fn negrita(s: &str) -> String {
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

fn conjuncion_y(siguiente: &str) -> &'static str {
    let f = fold(siguiente.trim_start_matches('*'));
    if (f.starts_with('i') || f.starts_with("hi")) && !f.starts_with("hie") && !f.starts_with("ia") { "e" } else { "y" }
}

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
fn ya_dicho(texto: &str, frase: &str) -> bool {
    let resto = frase.char_indices().nth(1).map_or("", |(i, _)| &frase[i..]);
    !resto.is_empty() && texto.contains(resto)
}

fn palabras(s: &str) -> usize {
    s.split_whitespace().filter(|w| w.chars().any(char::is_alphanumeric)).count()
}

/// Writes one answer for `pregunta` as `modelo` would.
pub(crate) fn responder(ind: &Industria, pregunta: &PreguntaBase, modelo: &Modelo, rng: &mut ChaCha8Rng) -> Borrador {
    let idioma = pregunta.idioma;
    let elegidas = elegir_marcas(ind, pregunta, modelo, rng);
    let mut texto = redactar(ind, pregunta, modelo, &elegidas, rng);
    // Short answers and verbose models get a block of advice (brandless) at the end, the
    // way a model adds context; it never repeats advice already in the text.
    let valores: Vec<&str> = pregunta.dims.iter().map(|(_, v)| v.as_str()).collect();
    let largo = modelo.nivel == generator::model::Tier::Advanced;
    let quiere = if rng.random_bool(modelo.estilo.extension) {
        if largo { rng.random_range(2..=4) } else { rng.random_range(1..=3) }
    } else {
        0
    };
    let disponibles: Vec<&str> =
        relevantes(rng, ind.consejos.de(idioma), &valores, 20).into_iter().filter(|c| !ya_dicho(&texto, c)).collect();
    let mut nuevos: Vec<&str> = disponibles.iter().copied().take(quiere).collect();
    // Never below 60 words: add advice until the answer reaches it.
    let mut resto = disponibles.iter().copied().skip(quiere);
    while palabras(&texto) + nuevos.iter().map(|c| palabras(c)).sum::<usize>() < 62 {
        match resto.next() {
            Some(c) => nuevos.push(c),
            None => break,
        }
    }
    if !nuevos.is_empty() {
        let enc = if es(idioma) {
            una(
                rng,
                &[
                    "Algunos puntos a tener en cuenta:",
                    "Para decidir, tené en cuenta:",
                    "Consejos prácticos:",
                    "Antes de decidir:",
                ],
            )
        } else {
            una(rng, &["A few things to keep in mind:", "Practical tips:", "Before deciding:"])
        };
        let lista: Vec<String> = nuevos.iter().map(|c| format!("- {c}")).collect();
        texto.push_str(&format!("\n\n{enc}\n{}", lista.join("\n")));
    }
    // Last resort for very short answers: general remarks that fit any study.
    let generales: &[&str] = if es(idioma) {
        &[
            "Las condiciones y los precios cambian seguido, así que conviene verificar la información actualizada en los sitios oficiales antes de decidir.",
            "Lo ideal es comparar al menos dos o tres alternativas con tu caso concreto, y leer opiniones recientes de otros usuarios.",
        ]
    } else {
        &[
            "Prices and conditions change often, so check up-to-date information on official sites before deciding.",
            "Ideally, compare two or three alternatives against your own situation and read recent reviews from other users.",
        ]
    };
    for g in generales {
        if palabras(&texto) >= 60 {
            break;
        }
        texto.push_str("\n\n");
        texto.push_str(g);
    }
    if largo && rng.random_bool(0.35) && !texto.contains("Si me contás") {
        let oferta = if ind.salud {
            if es(idioma) {
                "Si querés, te ayudo a preparar las preguntas para la próxima consulta con tu médico."
            } else {
                "If you like, I can help you prepare questions for your next appointment."
            }
        } else if es(idioma) {
            una(
                rng,
                &[
                    "Si me contás un poco más de tu situación, te ayudo a afinar la elección.",
                    "Si querés, puedo armarte una comparación más detallada con tu caso concreto.",
                    "Decime qué priorizás y te recomiendo una sola opción.",
                ],
            )
        } else {
            una(
                rng,
                &[
                    "If you tell me more about your situation, I can narrow it down.",
                    "Happy to put together a more detailed comparison for your case.",
                ],
            )
        };
        texto.push_str("\n\n");
        texto.push_str(oferta);
    }
    let tono = etiquetar(ind, &elegidas, &texto, rng);
    let fuentes = citar(ind, pregunta, modelo, &elegidas, rng);
    Borrador { respuesta: texto, fuentes, tono, orden: elegidas.iter().map(|e| e.idx).collect() }
}

/// Weighted sampling without replacement (Efraimidis–Spirakis), sharpened per model.
fn elegir_marcas(ind: &Industria, pregunta: &PreguntaBase, modelo: &Modelo, rng: &mut ChaCha8Rng) -> Vec<Elegida> {
    let valores: Vec<&str> = pregunta.dims.iter().map(|(_, v)| v.as_str()).collect();
    let peso = |i: usize| -> f64 {
        let m = &ind.marcas[i];
        let mut w = m.peso;
        if m.foco.iter().any(|f| valores.contains(f)) {
            w *= 2.5;
        }
        if m.debil.iter().any(|f| valores.contains(f)) {
            w *= ind.debil_factor;
        }
        for (mid, bid, x) in ind.sesgos {
            if *mid == modelo.id && *bid == m.id {
                w *= x;
            }
        }
        w.powf(modelo.estilo.nitidez)
    };
    let muestrear = |rng: &mut ChaCha8Rng, excluidas: &[usize], k: usize| -> Vec<usize> {
        let mut claves: Vec<(f64, usize)> = (0..ind.marcas.len())
            .filter(|i| !excluidas.contains(i))
            .filter_map(|i| {
                let w = peso(i);
                let u: f64 = rng.random_range(1e-9..1.0);
                (w > 0.0).then(|| (u.powf(1.0 / w), i))
            })
            .collect();
        claves.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        claves.into_iter().take(k).map(|(_, i)| i).collect()
    };
    let (kmin, kmax) = modelo.estilo.marcas;
    let orden: Vec<usize> = match &pregunta.tipo {
        TipoPregunta::Comparar { a, b, .. } => {
            let (ia, ib) = (ind.marca(a), ind.marca(b));
            let mut par = if ia == ib {
                vec![ia]
            } else {
                let pa = peso(ia) * rng.random_range(0.5..1.5);
                let pb = peso(ib) * rng.random_range(0.5..1.5);
                if pa >= pb { vec![ia, ib] } else { vec![ib, ia] }
            };
            let extra =
                if ia == ib { 1 + usize::from(rng.random_bool(0.4)) } else { usize::from(rng.random_bool(0.3)) };
            let mas = muestrear(rng, &par.clone(), extra);
            par.extend(mas);
            par
        }
        TipoPregunta::Marca(id) => {
            let i = ind.marca(id);
            let n = if rng.random_bool(0.6) { rng.random_range(1..=3) } else { 0 };
            let mut v = vec![i];
            v.extend(muestrear(rng, &[i], n));
            v
        }
        TipoPregunta::Lista | TipoPregunta::Consejo => {
            let mut p = ind.sin_marca * modelo.estilo.sin_marca;
            if matches!(pregunta.tipo, TipoPregunta::Consejo) {
                p = (p * 2.2).min(0.85);
            }
            if rng.random_bool(p.clamp(0.0, 0.95)) {
                Vec::new()
            } else {
                let mut k = rng.random_range(kmin..=kmax);
                if matches!(pregunta.tipo, TipoPregunta::Consejo) {
                    k = k.saturating_sub(2).max(1);
                }
                muestrear(rng, &[], k)
            }
        }
    };
    let contra_p = modelo.estilo.contra;
    let dos_pros = modelo.estilo.verbosidad;
    orden
        .into_iter()
        .map(|idx| {
            let m = &ind.marcas[idx];
            let nombre = elegir_nombre(m, modelo, rng);
            let n_pro = if rng.random_bool(dos_pros) { 2 + usize::from(rng.random_bool(dos_pros * 0.3)) } else { 1 };
            let mut pro = relevantes(rng, m.pro.de(pregunta.idioma), &valores, n_pro);
            if pro.is_empty() {
                let generico: &[&'static str] = if es(pregunta.idioma) {
                    &["es una de las opciones más conocidas de la categoría", "tiene buenas reseñas en general"]
                } else {
                    &["is one of the best-known options in the category", "gets good reviews overall"]
                };
                pro = vec![una(rng, generico)];
            }
            let contra = rng
                .random_bool(((0.10 + m.neg) * contra_p).clamp(0.0, 0.9))
                .then(|| relevantes(rng, m.contra.de(pregunta.idioma), &valores, 1).pop())
                .flatten();
            Elegida { idx, nombre, pro, contra }
        })
        .collect()
}

/// The display name or one of the aliases; some models prefer full names.
///
/// Aliases written with a leading `~` are sub-brands or products ("~Ibis", "~Actron"): they
/// count as mentions when an argument names them, but never stand for the whole entity.
fn elegir_nombre(m: &Marca, modelo: &Modelo, rng: &mut ChaCha8Rng) -> String {
    let nombres: Vec<&'static str> = m.alias.iter().copied().filter(|a| !a.starts_with('~')).collect();
    if nombres.is_empty() || rng.random_bool(modelo.estilo.nombre_completo) {
        m.nombre.to_owned()
    } else {
        una(rng, &nombres).to_owned()
    }
}

/// Tone labels: caveats pull towards neutral or negative, the first brand towards positive.
fn etiquetar(ind: &Industria, elegidas: &[Elegida], texto: &str, rng: &mut ChaCha8Rng) -> BTreeMap<String, Tone> {
    elegidas
        .iter()
        .enumerate()
        .map(|(pos, e)| {
            let u: f64 = rng.random();
            // Only a caveat that made it into the text counts.
            let escrita = e.contra.is_some_and(|c| texto.contains(c) || texto.contains(&cap(c)));
            let tono = match (escrita, pos) {
                (true, _) if u < 0.6 => Tone::Neg,
                (true, _) => Tone::Neu,
                (false, 0) if u < 0.72 => Tone::Pos,
                (false, _) if u < 0.5 => Tone::Pos,
                (false, _) if u < 0.99 => Tone::Neu,
                _ => Tone::Neg,
            };
            (ind.marcas[e.idx].id.to_owned(), tono)
        })
        .collect()
}

/// Sources: media and review sites of the region, brand pages for some named brands, and
/// now and then a brand page for a brand the text does not name (a ghost citation).
fn citar(
    ind: &Industria,
    pregunta: &PreguntaBase,
    modelo: &Modelo,
    elegidas: &[Elegida],
    rng: &mut ChaCha8Rng,
) -> Vec<Source> {
    let idioma = pregunta.idioma;
    let (fmin, fmax) = modelo.estilo.fuentes;
    let mut n_medios = rng.random_range(fmin..=fmax);
    let mut fuentes: Vec<Source> = Vec::new();
    for e in elegidas {
        if fuentes.len() < 3 && rng.random_bool(modelo.estilo.cita_marca) {
            fuentes.push(pagina_de_marca(ind, &ind.marcas[e.idx], idioma, rng));
            n_medios = n_medios.saturating_sub(1);
        }
    }
    if rng.random_bool(modelo.estilo.fantasma) {
        let nombradas: Vec<usize> = elegidas.iter().map(|e| e.idx).collect();
        let otras: Vec<usize> = (0..ind.marcas.len()).filter(|i| !nombradas.contains(i)).collect();
        if let Some(&i) = otras.choose(rng) {
            fuentes.push(pagina_de_marca(ind, &ind.marcas[i], idioma, rng));
        }
    }
    let medios: Vec<&Medio> =
        ind.medios.iter().filter(|m| m.idioma == idioma || m.idioma == "*" || rng.random_bool(0.15)).collect();
    for _ in 0..n_medios {
        if fuentes.len() >= 6 {
            break;
        }
        let Some(medio) = medios.choose(rng) else {
            break;
        };
        let banco = ind.titulos.de(if medio.idioma == "en" { "en" } else { idioma });
        let valores: Vec<&str> = pregunta.dims.iter().map(|(_, v)| v.as_str()).collect();
        let titulo = relevantes(rng, banco, &valores, 2).into_iter().next().unwrap_or("");
        let url = url_de_medio(medio, titulo, rng);
        if fuentes.iter().any(|f| f.url == url) {
            continue;
        }
        fuentes.push(Source { url, titulo: format!("{titulo} - {}", medio.nombre) });
    }
    fuentes.shuffle(rng);
    fuentes
}

fn url_de_medio(medio: &Medio, titulo: &str, rng: &mut ChaCha8Rng) -> String {
    let mes = rng.random_range(1..=12u32);
    let dia = rng.random_range(1..=28u32);
    let anio = if mes >= 6 { 2025 } else { 2026 };
    let (anio, mes) = if anio == 2026 && mes > 2 { (2025, mes) } else { (anio, mes) };
    let ruta = medio.ruta.replace("{fecha}", &format!("{anio}/{mes:02}/{dia:02}"));
    let s = slug(titulo);
    let host = medio.host;
    if host.contains("reddit.com") {
        let id: String =
            (0..6).map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.random_range(0..36)])).collect();
        format!("https://{host}{ruta}{id}/{}/", s.replace('-', "_"))
    } else if host.contains("lanacion.com.ar") {
        format!("https://{host}{ruta}{s}-nid{dia:02}{mes:02}{anio}/")
    } else if host.contains("clarin.com") {
        let id: String = (0..9)
            .map(|_| char::from(b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"[rng.random_range(0..49)]))
            .collect();
        format!("https://{host}{ruta}{s}_0_{id}.html")
    } else if host.contains("tripadvisor") {
        let g: u32 = rng.random_range(300_000..330_000);
        format!("https://{host}/Hotels-g{g}-{}.html", s.replace('-', "_"))
    } else {
        format!("https://{host}{ruta}{s}/")
    }
}

fn pagina_de_marca(ind: &Industria, m: &Marca, idioma: &str, rng: &mut ChaCha8Rng) -> Source {
    let dominio = una(rng, m.dominios);
    let u: f64 = rng.random();
    let host = if u < 0.6 {
        format!("www.{dominio}")
    } else if u < 0.8 {
        dominio.to_owned()
    } else if u < 0.9 {
        format!("ayuda.{dominio}")
    } else {
        format!("blog.{dominio}")
    };
    let (ruta, t_es, t_en) = ind.paginas.choose(rng).copied().unwrap_or(("/", "{marca}", "{marca}"));
    let titulo = if es(idioma) { t_es } else { t_en }.replace("{marca}", m.nombre);
    Source { url: format!("https://{host}{ruta}"), titulo }
}

// ---------------------------------------------------------------------------------------
// Wording
// ---------------------------------------------------------------------------------------

/// Which way an answer is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Estructura {
    Numerada,
    Guiones,
    Prosa,
    Favorita,
    PorPerfil,
    ChecklistPrimero,
    Tabla,
    Encabezados,
    Corta,
    AclaracionPrimero,
    Faq,
    Ranking,
    ProsContras,
    Resumen,
    Foros,
}

const LISTAS: [Estructura; 15] = [
    Estructura::Numerada,
    Estructura::Guiones,
    Estructura::Prosa,
    Estructura::Favorita,
    Estructura::PorPerfil,
    Estructura::ChecklistPrimero,
    Estructura::Tabla,
    Estructura::Encabezados,
    Estructura::Corta,
    Estructura::AclaracionPrimero,
    Estructura::Faq,
    Estructura::Ranking,
    Estructura::ProsContras,
    Estructura::Resumen,
    Estructura::Foros,
];

fn redactar(ind: &Industria, pregunta: &PreguntaBase, modelo: &Modelo, el: &[Elegida], rng: &mut ChaCha8Rng) -> String {
    let idioma = pregunta.idioma;
    let valores: Vec<&str> = pregunta.dims.iter().map(|(_, v)| v.as_str()).collect();
    let mut w = Escritor { ind, idioma, modelo, rng, out: String::new(), valores, usados: Vec::new() };
    if el.is_empty() {
        w.sin_marcas();
        return w.out;
    }
    match &pregunta.tipo {
        TipoPregunta::Comparar { a, b, la, lb } if el.len() >= 2 || a == b => {
            let ia = ind.marca(a);
            // The labels name the products; the first one written is the model's favourite.
            let (l1, l2) = if el[0].idx == ia { (la.clone(), lb.clone()) } else { (lb.clone(), la.clone()) };
            w.comparar(el, &l1, &l2, a == b);
        }
        TipoPregunta::Marca(_) => w.sobre_marca(el),
        TipoPregunta::Consejo => {
            let e =
                [Estructura::ChecklistPrimero, Estructura::AclaracionPrimero, Estructura::Encabezados, Estructura::Faq];
            let i = w.rng.random_range(0..e.len());
            let e = if el.len() == 1 && e[i] == Estructura::Faq { Estructura::ChecklistPrimero } else { e[i] };
            w.lista(e, el);
        }
        _ => {
            let pesos = &modelo.estilo.estructuras;
            let mut idx = elegir_estructura(pesos, w.rng);
            if ind.salud && LISTAS[idx] == Estructura::Ranking {
                idx = 0;
            }
            if el.len() == 1 && matches!(LISTAS[idx], Estructura::Tabla | Estructura::Ranking | Estructura::Faq) {
                idx = 2;
            }
            w.lista(LISTAS[idx], el);
        }
    }
    w.out
}

fn elegir_estructura(pesos: &[f64; 15], rng: &mut ChaCha8Rng) -> usize {
    let total: f64 = pesos.iter().sum();
    let mut u = rng.random_range(0.0..total);
    for (i, p) in pesos.iter().enumerate() {
        if u < *p {
            return i;
        }
        u -= p;
    }
    0
}

struct Escritor<'a> {
    ind: &'a Industria,
    idioma: &'a str,
    modelo: &'a Modelo,
    rng: &'a mut ChaCha8Rng,
    out: String,
    /// The question's dimension values (to pick relevant advice).
    valores: Vec<&'a str>,
    /// Advice and profiles already written, so nothing repeats.
    usados: Vec<&'static str>,
}

impl Escritor<'_> {
    fn es(&self) -> bool {
        es(self.idioma)
    }

    /// Picks from the Spanish or the English bank.
    fn t(&mut self, es_: &[&'static str], en: &[&'static str]) -> &'static str {
        let banco = if self.es() { es_ } else { en };
        una(self.rng, banco)
    }

    fn p(&mut self, s: &str) {
        if !self.out.is_empty() {
            self.out.push_str("\n\n");
        }
        self.out.push_str(s);
    }

    fn consejo(&mut self) -> &'static str {
        self.consejos(1).pop().unwrap_or("")
    }

    /// Up to `n` advice sentences relevant to the question, never repeating one.
    fn consejos(&mut self, n: usize) -> Vec<&'static str> {
        let banco = self.ind.consejos.de(self.idioma);
        let todos = relevantes(self.rng, banco, &self.valores, banco.len());
        let v: Vec<&'static str> = todos.into_iter().filter(|c| !self.usados.contains(c)).take(n).collect();
        self.usados.extend(v.iter().copied());
        v
    }

    /// A profile that fits the brand (tagged with its id or a question value), unused so far.
    fn perfil(&mut self, marca: usize) -> &'static str {
        let id = self.ind.marcas[marca].id;
        let mut claves = self.valores.clone();
        claves.push(id);
        let banco = self.ind.perfiles.de(self.idioma);
        let mut propios: Vec<&'static str> = banco
            .iter()
            .filter_map(|e| match etiquetas(e) {
                (Some(t), texto) if t.split(',').any(|x| x == id) => Some(texto),
                _ => None,
            })
            .filter(|p| !self.usados.contains(p))
            .collect();
        propios.shuffle(self.rng);
        let elegido = propios.first().copied().or_else(|| {
            relevantes(self.rng, banco, &claves, banco.len()).into_iter().find(|p| !self.usados.contains(p))
        });
        match elegido {
            Some(p) => {
                self.usados.push(p);
                p
            }
            None => {
                let generico: &[&'static str] = if self.es() {
                    &[
                        "buscás una opción equilibrada",
                        "querés algo práctico",
                        "priorizás la relación precio-calidad",
                        "preferís un nombre conocido",
                        "querés probar una alternativa",
                    ]
                } else {
                    &[
                        "you want a balanced option",
                        "you want something practical",
                        "value for money matters most",
                        "you prefer a well-known name",
                        "you want to try an alternative",
                    ]
                };
                let libre = generico.iter().copied().find(|p| !self.usados.contains(p)).unwrap_or(generico[0]);
                self.usados.push(libre);
                libre
            }
        }
    }

    fn perfiles(&mut self, marcas: &[usize]) -> Vec<&'static str> {
        marcas.iter().map(|m| self.perfil(*m)).collect()
    }

    /// Opening line in the provider's manner (sometimes none).
    fn apertura(&mut self) {
        let prov = self.modelo.proveedor;
        let abre = self.rng.random_bool(self.modelo.estilo.apertura);
        let s = match (prov, self.es(), self.ind.salud) {
            ("Google", true, _) => una(
                self.rng,
                &[
                    "¡Claro! Aquí tienes un resumen de las opciones más recomendadas.",
                    "¡Excelente pregunta! Hay varias alternativas según lo que priorices.",
                    "¡Por supuesto! Te dejo una guía rápida para decidir.",
                ],
            ),
            ("Google", false, _) => una(
                self.rng,
                &[
                    "Of course! Here's a quick overview of the most recommended options.",
                    "Great question! There are several good options depending on your priorities.",
                ],
            ),
            ("Anthropic", true, true) => una(
                self.rng,
                &[
                    "Te doy información general, pero las decisiones de tratamiento siempre tienen que pasar por tu médico.",
                    "Es una consulta frecuente; te cuento lo más importante con una aclaración: no reemplaza una consulta profesional.",
                ],
            ),
            ("Anthropic", true, false) => una(
                self.rng,
                &[
                    "Te doy un panorama general, con la aclaración de que las condiciones cambian seguido.",
                    "Es una buena pregunta y no tiene una única respuesta correcta.",
                    "Puedo darte una orientación general para que compares con criterio.",
                ],
            ),
            ("Anthropic", false, _) => una(
                self.rng,
                &[
                    "Here's a general overview, with the caveat that conditions change often.",
                    "Good question, and there isn't a single right answer.",
                ],
            ),
            (_, true, _) => una(
                self.rng,
                &[
                    "Depende bastante de tu caso, pero hay opciones que se repiten en casi todas las recomendaciones.",
                    "Buena pregunta: la respuesta corta es que depende de cómo lo vayas a usar.",
                    "Te resumo lo esencial.",
                ],
            ),
            (_, false, _) => una(
                self.rng,
                &[
                    "It depends on your situation, but a few options come up again and again.",
                    "Short answer: it depends on how you'll use it.",
                ],
            ),
        };
        if abre {
            self.p(s);
        }
        // Advanced models often frame the answer before listing anything.
        if self.avanzado() && self.rng.random_bool(0.45) {
            let cs = self.consejos(2);
            if cs.len() == 2 {
                let lead = if self.es() {
                    una(
                        self.rng,
                        &[
                            "Antes de ir a las opciones, dos cosas clave:",
                            "Primero, un poco de contexto:",
                            "Para elegir bien conviene tener en cuenta algo:",
                        ],
                    )
                } else {
                    una(self.rng, &["Before the options, two key points:", "Some context first:"])
                };
                let t = format!("{lead} {} {}", minuscula(cs[0]), cs[1]);
                self.p(&t);
            }
        }
    }

    fn intro_lista(&mut self) -> &'static str {
        if self.ind.salud {
            self.t(
                &[
                    "Estas son algunas de las opciones que suelen indicarse o recomendarse:",
                    "Entre las alternativas que más se mencionan:",
                    "Algunas opciones que vale la pena conocer (siempre con indicación profesional):",
                ],
                &[
                    "These are some of the options that are commonly recommended:",
                    "Options that come up most often (always under medical supervision):",
                ],
            )
        } else {
            self.t(
                &[
                    "Estas son las opciones que más se suelen recomendar:",
                    "Las alternativas más mencionadas hoy son:",
                    "Si tuviera que armar una lista corta, incluiría:",
                    "Entre las opciones más sólidas:",
                    "Un resumen de las más recomendadas:",
                    "Estas son las que yo miraría primero:",
                ],
                &[
                    "These are the options most often recommended:",
                    "If I had to make a short list, I'd include:",
                    "Among the strongest options:",
                    "Here are the ones I'd look at first:",
                ],
            )
        }
    }

    /// Closing recommendation naming the first brand (already named above).
    fn cierre(&mut self, top: &str, segunda: Option<&str>) {
        let s = if self.ind.salud {
            let b = self.t(
                &[
                    "La elección entre {top} y otras alternativas depende de la evaluación de tu médico, de tus antecedentes y de la cobertura de tu obra social o prepaga.",
                    "En resumen: {top} es una opción muy mencionada, pero cualquier tratamiento tiene que indicarlo y controlarlo un especialista.",
                    "Si te indicaron {top}, consultá con tu médico antes de cambiar o suspender cualquier tratamiento.",
                ],
                &[
                    "Whether {top} or another option fits you depends on your doctor's assessment and your coverage.",
                    "In short: {top} is frequently mentioned, but any treatment should be prescribed and monitored by a specialist.",
                ],
            );
            b.replace("{top}", top)
        } else {
            let b = match segunda {
                Some(_) => self.t(
                    &[
                        "En resumen, {top} es la opción más equilibrada para la mayoría; {dos} es una buena alternativa si tu caso es distinto.",
                        "Mi recomendación: empezá por {top} y compará con {dos} antes de decidir.",
                        "Si tuviera que elegir hoy, iría por {top}, con {dos} como plan B.",
                    ],
                    &[
                        "In short, {top} is the most balanced choice for most people; {dos} is a good alternative if your case is different.",
                        "My recommendation: start with {top} and compare it with {dos} before deciding.",
                    ],
                ),
                None => self.t(
                    &[
                        "Si tuviera que quedarme con una sola, elegiría {top}.",
                        "Para un perfil típico, {top} suele ser la apuesta más segura.",
                        "En resumen, {top} es la opción más equilibrada para la mayoría de los casos.",
                    ],
                    &[
                        "If I had to pick just one, I'd choose {top}.",
                        "For a typical profile, {top} is usually the safest bet.",
                    ],
                ),
            };
            b.replace("{top}", top).replace("{dos}", segunda.unwrap_or(""))
        };
        self.p(&s);
    }

    fn aviso_salud(&mut self) {
        if self.ind.salud {
            let s = self.t(
                &[
                    "Importante: esta información es general y no reemplaza la consulta médica. No te automediques.",
                    "Recordá que la indicación de cualquier medicamento la tiene que hacer un médico que conozca tu caso.",
                    "Ante síntomas que empeoran o no mejoran, consultá a un profesional de la salud.",
                ],
                &[
                    "Important: this is general information and does not replace medical advice.",
                    "Any medication should be prescribed by a doctor who knows your case.",
                ],
            );
            self.p(s);
        }
    }

    /// "Galicia tiene ..., aunque ...".
    fn frase(&mut self, e: &Elegida, sujeto: &str) -> String {
        let pros: Vec<String> = e.pro.iter().map(|p| p.to_string()).collect();
        let mut s = format!("{sujeto} {}", enumerar(&pros, self.idioma));
        match e.contra {
            Some(c) => {
                s.push_str(if self.es() { ", aunque " } else { ", although it " });
                s.push_str(c);
                s.push('.');
            }
            None => s.push('.'),
        }
        s
    }

    /// Justification without subject, for "**A**: ..." lines.
    fn justificacion(&mut self, e: &Elegida) -> String {
        let mut s = e.pro.first().copied().unwrap_or("").to_owned();
        if e.pro.len() > 1 {
            let resto: Vec<String> = e.pro[1..].iter().map(|p| p.to_string()).collect();
            s.push_str(if self.es() { "; además, " } else { "; it also " });
            s.push_str(&enumerar(&resto, self.idioma));
        }
        s.push('.');
        if let Some(c) = e.contra {
            s.push(' ');
            s.push_str(&if self.es() {
                format!("Como punto en contra, {c}.")
            } else {
                format!("On the downside, it {c}.")
            });
        }
        if self.avanzado() && self.rng.random_bool(0.45) {
            let perfil = self.perfil(e.idx);
            s.push_str(&if self.es() { format!(" Ideal si {perfil}.") } else { format!(" Best if {perfil}.") });
        }
        s
    }

    fn avanzado(&self) -> bool {
        self.modelo.nivel == generator::model::Tier::Advanced
    }

    fn lista(&mut self, estructura: Estructura, el: &[Elegida]) {
        let nombres: Vec<String> = el.iter().map(|e| e.nombre.clone()).collect();
        let top = nombres[0].clone();
        let dos = nombres.get(1).cloned();
        let es_ = self.es();
        match estructura {
            Estructura::Numerada => {
                self.apertura();
                let i = self.intro_lista();
                self.p(i);
                let lineas: Vec<String> = el
                    .iter()
                    .enumerate()
                    .map(|(n, e)| format!("{}. {}: {}", n + 1, negrita(&e.nombre), self.justificacion(e)))
                    .collect();
                self.p(&lineas.join("\n"));
                if self.rng.random_bool(0.5) {
                    let c = self.consejo();
                    self.p(c);
                }
                self.cierre(&top, dos.as_deref());
                self.aviso_salud();
            }
            Estructura::Guiones => {
                self.apertura();
                let i = self.intro_lista();
                self.p(i);
                let lineas: Vec<String> =
                    el.iter().map(|e| format!("- {} — {}", negrita(&e.nombre), cap(&self.justificacion(e)))).collect();
                self.p(&lineas.join("\n"));
                let c = self.consejo();
                self.p(c);
                self.aviso_salud();
            }
            Estructura::Prosa => {
                self.apertura();
                let mut parrafo = Vec::new();
                for (n, e) in el.iter().enumerate() {
                    let s = match (n, es_) {
                        (0, true) => {
                            let lead = self.t(
                                &[
                                    "La opción que más se recomienda es",
                                    "En primer lugar aparece",
                                    "La más citada suele ser",
                                ],
                                &[],
                            );
                            let f = self.frase(e, "");
                            format!("{lead} {}:{}", e.nombre, f.trim_end_matches('.').to_owned() + ".")
                        }
                        (0, false) => self.frase(e, &e.nombre),
                        (_, true) => {
                            let con = self.t(
                                &[
                                    "Por otro lado,",
                                    "También vale la pena mirar",
                                    "Otra alternativa es",
                                    "En un segundo grupo está",
                                ],
                                &[],
                            );
                            match con {
                                "Por otro lado," => self.frase(e, &format!("Por otro lado, {}", e.nombre)),
                                _ => {
                                    let f = self.frase(e, "");
                                    format!("{con} {}, que{}", e.nombre, f)
                                }
                            }
                        }
                        (_, false) => {
                            let con = self.t(&[], &["Another option is", "It's also worth looking at"]);
                            let f = self.frase(e, "");
                            format!("{con} {}, which{}", e.nombre, f)
                        }
                    };
                    parrafo.push(s);
                    if parrafo.len() == 2 {
                        let texto = parrafo.join(" ");
                        self.p(&texto);
                        parrafo.clear();
                    }
                }
                if !parrafo.is_empty() {
                    let texto = parrafo.join(" ");
                    self.p(&texto);
                }
                if self.rng.random_bool(0.6) {
                    let c = self.consejo();
                    self.p(c);
                }
                self.aviso_salud();
            }
            Estructura::Favorita => {
                let s = if self.ind.salud {
                    if es_ {
                        format!(
                            "Una de las opciones más mencionadas es {}: {}",
                            negrita(&top),
                            self.justificacion(&el[0])
                        )
                    } else {
                        format!(
                            "One of the most mentioned options is {}: {}",
                            negrita(&top),
                            self.justificacion(&el[0])
                        )
                    }
                } else if es_ {
                    format!("Si tengo que elegir una, me quedo con {}: {}", negrita(&top), self.justificacion(&el[0]))
                } else {
                    format!("If I had to pick one, I'd go with {}: {}", negrita(&top), self.justificacion(&el[0]))
                };
                self.p(&s);
                if el.len() > 1 {
                    let lineas: Vec<String> =
                        el[1..].iter().map(|e| format!("- {}: {}", e.nombre, self.justificacion(e))).collect();
                    let enc = if es_ { "Como alternativas:" } else { "Alternatives:" };
                    self.p(&format!("{enc}\n{}", lineas.join("\n")));
                }
                let c = self.consejo();
                self.p(c);
                self.aviso_salud();
            }
            Estructura::PorPerfil => {
                self.apertura();
                self.p(if es_ { "Depende mucho del perfil:" } else { "It depends on your profile:" });
                let idxs: Vec<usize> = el.iter().map(|e| e.idx).collect();
                let perfiles = self.perfiles(&idxs);
                let lineas: Vec<String> = el
                    .iter()
                    .zip(perfiles)
                    .map(|(e, perfil)| {
                        let pro = e.pro.first().copied().unwrap_or("");
                        if es_ {
                            format!("- Si {perfil}: {}, que {pro}.", negrita(&e.nombre))
                        } else {
                            format!("- If {perfil}: {}, which {pro}.", negrita(&e.nombre))
                        }
                    })
                    .collect();
                self.p(&lineas.join("\n"));
                let contras: Vec<String> = el
                    .iter()
                    .filter_map(|e| e.contra.map(|c| (e, c)))
                    .map(|(e, c)| {
                        if es_ {
                            format!("Ojo con {}: {c}.", e.nombre)
                        } else {
                            format!("A caveat on {}: it {c}.", e.nombre)
                        }
                    })
                    .collect();
                if !contras.is_empty() {
                    self.p(&contras.join(" "));
                }
                self.aviso_salud();
            }
            Estructura::ChecklistPrimero => {
                let enc = if es_ {
                    "Antes de elegir, fijate en estos puntos:"
                } else {
                    "Before choosing, check these points:"
                };
                let cs = self.consejos(3);
                let lista: Vec<String> = cs.iter().enumerate().map(|(i, c)| format!("{}. {c}", i + 1)).collect();
                self.p(&format!("{enc}\n{}", lista.join("\n")));
                let n = el.len().min(3);
                let s = match (es_, n) {
                    (true, 1) => {
                        format!("Con eso en mente, la opción que más se recomienda es {top}.")
                    }
                    (false, 1) => {
                        format!("With that in mind, the most recommended option is {top}.")
                    }
                    (true, _) => format!(
                        "Con eso en mente, las opciones más recomendadas son {}.",
                        enumerar(&nombres[..n], self.idioma)
                    ),
                    (false, _) => format!(
                        "With that in mind, the most recommended options are {}.",
                        enumerar(&nombres[..n], self.idioma)
                    ),
                };
                let mut detalle = vec![s];
                for e in el {
                    let f = self.frase(e, &e.nombre);
                    detalle.push(f);
                }
                self.p(&detalle.join(" "));
                self.aviso_salud();
            }
            Estructura::Tabla => {
                self.apertura();
                let i = self.intro_lista();
                self.p(i);
                let (h1, h2, h3) =
                    if es_ { ("Opción", "Por qué", "A tener en cuenta") } else { ("Option", "Why", "Keep in mind") };
                let mut t = format!("| {h1} | {h2} | {h3} |\n|---|---|---|");
                for e in el {
                    let pro = cap(e.pro.first().copied().unwrap_or(""));
                    let contra = e.contra.map(cap).unwrap_or_else(|| "—".to_owned());
                    t.push_str(&format!("\n| {} | {pro} | {contra} |", e.nombre));
                }
                self.p(&t);
                self.cierre(&top, dos.as_deref());
                self.aviso_salud();
            }
            Estructura::Encabezados => {
                self.apertura();
                let h = match (es_, self.ind.salud) {
                    (true, true) => "### Opciones que suelen mencionarse",
                    (true, false) => "### Las más recomendadas",
                    (false, true) => "### Options often mentioned",
                    (false, false) => "### Top picks",
                };
                self.p(h);
                for e in el {
                    let j = cap(&self.justificacion(e));
                    self.p(&format!("{}\n{j}", negrita(&e.nombre)));
                }
                self.p(if es_ { "### Qué tener en cuenta" } else { "### What to keep in mind" });
                let cs: Vec<String> = self.consejos(2).into_iter().map(|c| format!("- {c}")).collect();
                self.p(&cs.join("\n"));
                self.aviso_salud();
            }
            Estructura::Corta => {
                let n = el.len().min(3);
                let lista = enumerar(&nombres[..n], self.idioma);
                let s = match (self.ind.salud, es_, n) {
                    (true, true, 1) => format!("La opción que más se menciona es {lista}."),
                    (true, true, _) => format!("Las opciones que más se mencionan son {lista}."),
                    (true, false, 1) => format!("The option mentioned most is {lista}."),
                    (true, false, _) => format!("The options mentioned most are {lista}."),
                    (false, true, 1) => format!("La más recomendada suele ser {lista}."),
                    (false, true, _) => format!("Las más recomendadas suelen ser {lista}."),
                    (false, false, 1) => format!("The usual recommendation is {lista}."),
                    (false, false, _) => format!("The usual recommendations are {lista}."),
                };
                let mut partes = vec![s];
                for e in el {
                    let f = self.frase(e, &e.nombre);
                    partes.push(f);
                }
                self.p(&partes.join(" "));
                self.aviso_salud();
            }
            Estructura::AclaracionPrimero => {
                let c = self.consejo();
                let c = minuscula(c);
                let s = if es_ {
                    format!("Una aclaración antes: {c} Dicho esto, estas son las opciones que suelen aparecer primero:")
                } else {
                    format!("One caveat first: {c} That said, these are the options that usually come first:")
                };
                self.p(&s);
                let lineas: Vec<String> = el
                    .iter()
                    .enumerate()
                    .map(|(n, e)| {
                        format!("{}. {} ({})", n + 1, negrita(&e.nombre), e.pro.first().copied().unwrap_or(""))
                    })
                    .collect();
                self.p(&lineas.join("\n"));
                self.cierre(&top, dos.as_deref());
                self.aviso_salud();
            }
            Estructura::Faq => {
                let q1 = if es_ {
                    "**¿Cuál es la opción más recomendada en general?**"
                } else {
                    "**What's the most recommended option overall?**"
                };
                let j = self.frase(&el[0], &top);
                self.p(&format!("{q1}\n{j}"));
                let q2 = if es_ { "**¿Y si busco alternativas?**" } else { "**What about alternatives?**" };
                let mut alt = Vec::new();
                for e in &el[1..] {
                    let f = self.frase(e, &e.nombre);
                    alt.push(f);
                }
                self.p(&format!("{q2}\n{}", alt.join(" ")));
                let q3 = if es_ { "**¿Qué conviene revisar?**" } else { "**What should I check?**" };
                let c = self.consejo();
                self.p(&format!("{q3}\n{c}"));
                self.aviso_salud();
            }
            Estructura::Ranking => {
                let enc = if es_ {
                    "Ranking orientativo, según reseñas y condiciones actuales:"
                } else {
                    "An indicative ranking, based on reviews and current conditions:"
                };
                self.p(enc);
                let mut nota = 9.0_f64;
                let mut lineas = Vec::new();
                for (n, e) in el.iter().enumerate() {
                    let j = self.justificacion(e);
                    let puntaje = if es_ { format!("{nota:.1}").replace('.', ",") } else { format!("{nota:.1}") };
                    lineas.push(format!("{}. {} ({puntaje}/10): {j}", n + 1, negrita(&e.nombre)));
                    nota -= self.rng.random_range(0.2..0.8);
                }
                self.p(&lineas.join("\n"));
                self.cierre(&top, dos.as_deref());
            }
            Estructura::ProsContras => {
                self.apertura();
                for e in el {
                    let pro = e.pro.first().copied().unwrap_or("");
                    let contra = match e.contra {
                        Some(c) => c.to_owned(),
                        None => {
                            if es_ {
                                "conviene comparar condiciones antes de decidir".to_owned()
                            } else {
                                "compare conditions before deciding".to_owned()
                            }
                        }
                    };
                    let (a, b) = if es_ { ("A favor", "En contra") } else { ("Pros", "Cons") };
                    self.p(&format!("{}\n- {a}: {pro}.\n- {b}: {contra}.", negrita(&e.nombre)));
                }
                self.cierre(&top, dos.as_deref());
                self.aviso_salud();
            }
            Estructura::Resumen => {
                let i = self.intro_lista();
                self.p(i);
                let lineas: Vec<String> =
                    el.iter().map(|e| format!("- {}: {}", e.nombre, self.justificacion(e))).collect();
                self.p(&lineas.join("\n"));
                let perfil = self.perfil(el.get(1).map_or(el[0].idx, |e| e.idx));
                let s = match (&dos, es_) {
                    (Some(d), true) => {
                        format!("**En resumen:** {top} para la mayoría; {d} si {perfil}.")
                    }
                    (Some(d), false) => {
                        format!("**TL;DR:** {top} for most people; {d} if {perfil}.")
                    }
                    (None, true) => format!("**En resumen:** {top} es la opción más completa."),
                    (None, false) => format!("**TL;DR:** {top} is the most complete option."),
                };
                self.p(&s);
                self.aviso_salud();
            }
            Estructura::Foros => {
                let n = el.len().min(3);
                let s = match (es_, n) {
                    (true, 1) => format!("En foros y reseñas hay un nombre que se repite: {top}."),
                    (false, 1) => format!("Forums and reviews keep mentioning one name: {top}."),
                    (true, _) => format!(
                        "En foros y reseñas se repiten siempre los mismos nombres: {}.",
                        enumerar(&nombres[..n], self.idioma)
                    ),
                    (false, _) => format!(
                        "Forums and reviews keep mentioning the same names: {}.",
                        enumerar(&nombres[..n], self.idioma)
                    ),
                };
                self.p(&s);
                for e in el {
                    let f = self.frase(e, &e.nombre);
                    self.p(&f);
                }
                let c = self.consejo();
                self.p(c);
                self.aviso_salud();
            }
        }
    }

    fn comparar(&mut self, el: &[Elegida], l1: &str, l2: &str, mismo: bool) {
        let es_ = self.es();
        let e1 = &el[0];
        // A same-brand pair has one chosen brand for both labels; other brands are extras.
        let e2 = if mismo { None } else { el.get(1) };
        let resto: &[Elegida] = if mismo {
            &el[1..]
        } else if el.len() > 2 {
            &el[2..]
        } else {
            &[]
        };
        let variante = self.rng.random_range(0..3);
        let i2 = e2.map_or(e1.idx, |e| e.idx);
        let pro1 = e1.pro.first().copied().unwrap_or("");
        let hermano = self.t(
            &[
                "es la versión más completa, con más funciones y un precio bastante mayor",
                "apunta a un uso más exigente, con mejores materiales",
                "suma prestaciones que no todos necesitan, a un costo más alto",
            ],
            &[
                "is the more complete version, with more features and a higher price",
                "targets more demanding use, with better materials",
            ],
        );
        let pro2 = match e2 {
            Some(e) => e.pro.first().copied().unwrap_or(pro1),
            None => hermano,
        };
        match variante {
            0 => {
                self.p(&format!("{} vs {}", negrita(l1), negrita(l2)));
                let (a, b) = (cap(pro1), cap(pro2));
                self.p(&format!("- {l1}: {a}.\n- {l2}: {b}."));
                let perfil = self.perfil(i2);
                let v = if es_ {
                    format!(
                        "Veredicto: para la mayoría, {l1} es la opción más redonda; {l2} tiene sentido si {perfil}."
                    )
                } else {
                    format!("Verdict: for most people {l1} is the more complete choice; {l2} makes sense if {perfil}.")
                };
                self.p(&v);
            }
            1 => {
                let s = if es_ {
                    format!(
                        "Las dos son buenas opciones, pero apuntan a perfiles distintos. {l1} {pro1}, mientras que {l2} {pro2}."
                    )
                } else {
                    format!("Both are good options, but they target different needs. {l1} {pro1}, while {l2} {pro2}.")
                };
                self.p(&s);
                if let Some(c) = e2.and_then(|e| e.contra).or(e1.contra) {
                    let s = if es_ {
                        format!("Un punto a considerar: {c}.")
                    } else {
                        format!("One thing to consider: it {c}.")
                    }
                    .replace(
                        "Un punto a considerar: ",
                        &format!(
                            "Un punto a considerar sobre {}: ",
                            if e2.and_then(|e| e.contra).is_some() { l2 } else { l1 }
                        ),
                    );
                    self.p(&s);
                }
                let perfil = self.perfil(e1.idx);
                let s = if es_ {
                    format!("Si {perfil}, iría por {l1}; si no, {l2} también cumple.")
                } else {
                    format!("If {perfil}, I'd go with {l1}; otherwise {l2} also does the job.")
                };
                self.p(&s);
            }
            _ => {
                let intro = if es_ { "Comparación rápida:" } else { "Quick comparison:" };
                self.p(intro);
                let (h, f1, f2) = if es_ {
                    ("Criterio", "Punto fuerte", "A tener en cuenta")
                } else {
                    ("Criterion", "Strength", "Keep in mind")
                };
                let c1 = e1.contra.map(cap).unwrap_or_else(|| "—".to_owned());
                let c2 = e2.and_then(|e| e.contra).map(cap).unwrap_or_else(|| "—".to_owned());
                self.p(&format!(
                    "| {h} | {l1} | {l2} |\n|---|---|---|\n| {f1} | {} | {} |\n| {f2} | {c1} | {c2} |",
                    cap(pro1),
                    cap(pro2)
                ));
                let s = if es_ {
                    format!("En general, me inclino por {l1}, pero la diferencia no es enorme.")
                } else {
                    format!("Overall I lean towards {l1}, but the gap is not huge.")
                };
                self.p(&s);
            }
        }
        if !resto.is_empty() {
            let nombres: Vec<String> = resto.iter().map(|e| e.nombre.clone()).collect();
            let s = if es_ {
                format!("Si ninguna te convence, mirá también {}.", enumerar(&nombres, self.idioma))
            } else {
                format!("If neither convinces you, also look at {}.", enumerar(&nombres, self.idioma))
            };
            self.p(&s);
        }
        self.aviso_salud();
    }

    fn sobre_marca(&mut self, el: &[Elegida]) {
        let es_ = self.es();
        let e = &el[0];
        if self.rng.random_bool(0.5) {
            let lead = if self.ind.salud {
                if es_ {
                    format!("{} es una opción conocida y respaldada:", e.nombre)
                } else {
                    format!("{} is a well-known, established option:", e.nombre)
                }
            } else if es_ {
                format!("En general, {} tiene buena reputación:", e.nombre)
            } else {
                format!("Overall, {} has a good reputation:", e.nombre)
            };
            let pros: Vec<String> = e.pro.iter().map(|p| format!("- {}.", cap(p))).collect();
            self.p(&format!("{lead}\n{}", pros.join("\n")));
            if let Some(c) = e.contra {
                self.p(&if es_ { format!("A tener en cuenta: {c}.") } else { format!("Keep in mind that it {c}.") });
            }
        } else {
            let f = self.frase(e, &e.nombre);
            let s = if es_ {
                format!("Sí, es una opción razonable. {f}")
            } else {
                format!("Yes, it's a reasonable choice. {f}")
            };
            self.p(&s);
            let c = self.consejo();
            self.p(c);
        }
        if el.len() > 1 {
            let nombres: Vec<String> = el[1..].iter().map(|x| x.nombre.clone()).collect();
            let s = if es_ {
                format!("Si querés comparar, mirá también {}.", enumerar(&nombres, self.idioma))
            } else {
                format!("If you want to compare, also look at {}.", enumerar(&nombres, self.idioma))
            };
            self.p(&s);
        }
        self.aviso_salud();
    }

    /// Answers that name no tracked brand: criteria, a clarifying question, or (health)
    /// a referral to a doctor.
    fn sin_marcas(&mut self) {
        let es_ = self.es();
        let variante = self.rng.random_range(0..3);
        if self.ind.salud && variante != 1 {
            let s = self.t(
                &[
                    "Lo más importante es que lo consultes con un médico, idealmente un especialista, que pueda evaluar tu caso.",
                    "No puedo indicarte un tratamiento específico: eso lo tiene que definir un profesional que te examine.",
                    "Es una consulta que conviene hacer con tu médico de cabecera o con un especialista.",
                ],
                &[
                    "The most important step is to see a doctor, ideally a specialist, who can assess your case.",
                    "I can't recommend a specific treatment: a professional who examines you has to decide that.",
                ],
            );
            self.p(s);
            let enc = if es_ {
                "Mientras tanto, algunas pautas generales:"
            } else {
                "In the meantime, some general guidance:"
            };
            let cs: Vec<String> = self.consejos(3).into_iter().map(|c| format!("- {c}")).collect();
            self.p(&format!("{enc}\n{}", cs.join("\n")));
            let s = self.t(
                &[
                    "Si los síntomas empeoran, aparecen fiebre o dolor intenso, consultá a la guardia.",
                    "Llevá a la consulta una lista de lo que ya probaste y de los medicamentos que tomás.",
                ],
                &[
                    "If symptoms get worse, seek urgent care.",
                    "Bring a list of what you've tried and the medicines you take.",
                ],
            );
            self.p(s);
            return;
        }
        match variante {
            0 => {
                let s = if es_ {
                    "No hay una única respuesta, porque depende de tu situación. Algunos criterios para decidir:"
                } else {
                    "There is no single answer; it depends on your situation. Some criteria to decide:"
                };
                let cs: Vec<String> = self.consejos(4).into_iter().map(|c| format!("- {c}")).collect();
                self.p(&format!("{s}\n{}", cs.join("\n")));
                self.p(if es_ {
                    "Si me contás un poco más de tu caso, te ayudo a afinar la elección."
                } else {
                    "If you tell me more about your case, I can help narrow it down."
                });
            }
            1 => {
                self.apertura();
                let cs = self.consejos(3);
                for c in cs {
                    self.p(c);
                }
                let cierre = match (self.ind.salud, es_) {
                    (true, true) => {
                        "No puedo recomendarte un producto o medicamento puntual: eso lo tiene que indicar un profesional que conozca tu caso."
                    }
                    (true, false) => {
                        "I can't recommend a specific product or medicine: a professional who knows your case has to decide that."
                    }
                    (false, true) => {
                        "Prefiero no recomendarte una marca puntual sin conocer más detalles: las condiciones cambian seguido y conviene comparar con datos actualizados."
                    }
                    (false, false) => {
                        "I'd rather not recommend a specific brand without more details: conditions change often and it's best to compare with up-to-date information."
                    }
                };
                self.p(cierre);
            }
            _ => {
                let enc = if es_ { "Lo que yo haría:" } else { "What I would do:" };
                let cs: Vec<String> =
                    self.consejos(4).into_iter().enumerate().map(|(i, c)| format!("{}. {c}", i + 1)).collect();
                self.p(&format!("{enc}\n{}", cs.join("\n")));
                let s = self.t(
                    &["Con eso vas a poder comparar con criterio propio.", "Así evitás sorpresas más adelante."],
                    &["That way you can compare on your own terms.", "That avoids surprises later on."],
                );
                self.p(s);
            }
        }
    }
}

/// "A o B" with the Spanish o→u rule, for question texts.
pub(crate) fn o_entre(a: &str, b: &str) -> String {
    format!("{a} {} {b}", conjuncion_o(b))
}

// ---------------------------------------------------------------------------------------
// Question pools
// ---------------------------------------------------------------------------------------

/// Question templates crossed with context sentences: every template of a value of the first
/// dimension, prefixed by every context of every value of the second dimension.
/// `plantillas`: (value of `d1`, 'L' list or 'C' advice, text); `contextos`: (value of
/// `d2`, sentences). `extra` adds fixed dimension values (e.g. the language dimension).
pub(crate) fn cruzar(
    d1: &'static str,
    d2: &'static str,
    plantillas: &[(&'static str, char, &'static str)],
    contextos: &[(&'static str, &[&'static str])],
    idioma: &'static str,
    extra: &[(&'static str, &'static str)],
) -> Vec<PreguntaBase> {
    let mut out = Vec::new();
    for (v1, tipo, texto) in plantillas {
        for (v2, frases) in contextos {
            for ctx in *frases {
                let mut dims = vec![(d1, v1.to_string()), (d2, v2.to_string())];
                dims.extend(extra.iter().map(|(d, v)| (*d, v.to_string())));
                let texto = if ctx.is_empty() { texto.to_string() } else { format!("{ctx} {texto}") };
                out.push(PreguntaBase {
                    texto,
                    idioma,
                    dims,
                    tipo: if *tipo == 'C' { TipoPregunta::Consejo } else { TipoPregunta::Lista },
                });
            }
        }
    }
    out
}

/// Comparison questions: (value of `d1`, brand a, label a, brand b, label b, text with `{a}`
/// and `{b}`), each prefixed by every context of `contextos`.
#[allow(clippy::type_complexity)]
pub(crate) fn comparar(
    d1: &'static str,
    d2: &'static str,
    pares: &[(&'static str, &'static str, &'static str, &'static str, &'static str, &'static str)],
    contextos: &[(&'static str, &[&'static str])],
    idioma: &'static str,
    extra: &[(&'static str, &'static str)],
) -> Vec<PreguntaBase> {
    let mut out = Vec::new();
    for (v1, a, la, b, lb, texto) in pares {
        for (v2, frases) in contextos {
            let ctx = frases.first().copied().unwrap_or("");
            let mut dims = vec![(d1, v1.to_string()), (d2, v2.to_string())];
            dims.extend(extra.iter().map(|(d, v)| (*d, v.to_string())));
            let q = texto.replace("{a}", la).replace("{b}", lb).replace("{a_o_b}", &o_entre(la, lb));
            out.push(PreguntaBase {
                texto: if ctx.is_empty() { q } else { format!("{ctx} {q}") },
                idioma,
                dims,
                tipo: TipoPregunta::Comparar { a, b, la: la.to_string(), lb: lb.to_string() },
            });
        }
    }
    out
}

/// Questions about one brand: (value of `d1`, brand, text), each with every context.
pub(crate) fn sobre(
    d1: &'static str,
    d2: &'static str,
    preguntas: &[(&'static str, &'static str, &'static str)],
    contextos: &[(&'static str, &[&'static str])],
    idioma: &'static str,
    extra: &[(&'static str, &'static str)],
) -> Vec<PreguntaBase> {
    let mut out = Vec::new();
    for (v1, marca, texto) in preguntas {
        for (v2, frases) in contextos {
            let ctx = frases.last().copied().unwrap_or("");
            let mut dims = vec![(d1, v1.to_string()), (d2, v2.to_string())];
            dims.extend(extra.iter().map(|(d, v)| (*d, v.to_string())));
            out.push(PreguntaBase {
                texto: if ctx.is_empty() { texto.to_string() } else { format!("{ctx} {texto}") },
                idioma,
                dims,
                tipo: TipoPregunta::Marca(marca),
            });
        }
    }
    out
}

/// A Spanish-only brand (no English arguments, nothing it rarely fits).
#[allow(clippy::too_many_arguments)]
pub(crate) fn marca_es(
    id: &'static str,
    nombre: &'static str,
    alias: &'static [&'static str],
    excluir: &'static [&'static str],
    dominios: &'static [&'static str],
    peso: f64,
    foco: &'static [&'static str],
    neg: f64,
    pro: &'static [&'static str],
    contra: &'static [&'static str],
) -> Marca {
    Marca {
        id,
        nombre,
        alias,
        excluir,
        dominios,
        peso,
        foco,
        debil: &[],
        neg,
        pro: Textos { es: pro, en: &[] },
        contra: Textos { es: contra, en: &[] },
    }
}
