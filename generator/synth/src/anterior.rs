//! The previous run of a study (`[anterior]` in its industry file), with the drift real
//! re-runs show: one model replaced since by its newer version, one brand that has risen
//! since (it weighed less then), one site the answers cited then and no longer, some
//! questions added since and some retired.
//!
//! The previous run is written with the same engine and the same question texts, from its own
//! random streams (the seed mixed with a fixed salt), so this run's files do not change when a
//! previous run is added or removed.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use generator::model::{Answer, ModelSpec, PreviousRunSpec, Question, Study, Tier, Weighting};

use crate::engine;
use crate::industria::PreguntaBase;
use crate::industria::{Anterior, Industria};
use crate::modelos::Modelo;
use crate::{ancho, estudio, semilla};

/// Salt of the previous run's random streams.
const SAL: u64 = 0x00A1_7E12_0A2D_2025;

/// The previous run of `study` (this run, already generated from `preguntas`): its
/// `[corrida_anterior]` and its questions and answers as a study of their own.
pub(crate) fn generar(
    ind: &Industria,
    ant: &Anterior,
    modelos: &[Modelo],
    study: &Study,
    preguntas: &[(Question, PreguntaBase)],
    seed: u64,
) -> (PreviousRunSpec, Study) {
    // The industry as it was: the rising brand weighed less, the retired site was cited.
    let mut antes: Industria = ind.clone();
    if let Some(m) = antes.marcas.iter_mut().find(|m| m.id == ant.en_alza.marca) {
        m.peso *= ant.en_alza.factor;
    }
    antes.fuentes.medios.push(ant.medio_retirado.clone());
    // The models as they were: the replaced one under its old id, with today's style.
    let viejos: Vec<Modelo> = modelos
        .iter()
        .map(|m| {
            let mut m = m.clone();
            if m.id == ant.reemplazo.actual {
                m.id = ant.reemplazo.id.clone();
                m.nombre = ant.reemplazo.nombre.clone();
                m.versiones = [ant.reemplazo.version.clone(), ant.reemplazo.version.clone()];
            }
            m
        })
        .collect();
    // The questions then: this run's but the last `agregadas`, and `retiradas` more from
    // the pool (texts this run does not ask), numbered after this run's.
    let mut rng = ChaCha8Rng::seed_from_u64(semilla(seed ^ SAL, &ind.slug, u64::MAX));
    let kept = preguntas.len().saturating_sub(ant.agregadas);
    let mut antes_preguntas: Vec<(Question, PreguntaBase)> = preguntas[..kept].to_vec();
    let usadas: Vec<&str> = preguntas.iter().map(|(q, _)| q.texto.as_str()).collect();
    let mut libres: Vec<&PreguntaBase> = ind.preguntas.iter().filter(|b| !usadas.contains(&b.texto.as_str())).collect();
    if libres.len() < ant.retiradas {
        libres = ind.preguntas.iter().collect();
    }
    let w = ancho(preguntas.len() + ant.retiradas, 3);
    for (i, base) in libres.into_iter().take(ant.retiradas).enumerate() {
        let mut dims: std::collections::BTreeMap<String, String> = base.dims.iter().cloned().collect();
        if ind.dimensiones.iter().any(|d| d.id == "repeticion") {
            dims.insert("repeticion".into(), "1".into());
        }
        let q = Question {
            id: format!("P{:0w$}", preguntas.len() + i + 1),
            texto: base.texto.clone(),
            idioma: base.idioma.clone(),
            modelo: if rng.random_bool(0.5) { Tier::Standard } else { Tier::Advanced },
            dimensiones: dims,
        };
        antes_preguntas.push((q, base.clone()));
    }
    let nq = antes_preguntas.len();
    let mut answers = Vec::new();
    for (qi, (q, base)) in antes_preguntas.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(semilla(seed ^ SAL, &ind.slug, qi as u64));
        let dia_base = (qi as u64 * u64::from(ant.dias) / nq as u64) as u32;
        for m in viejos.iter().filter(|m| m.nivel == q.modelo) {
            let b = engine::responder(&antes, base, m, &mut rng);
            let dia = (dia_base + rng.random_range(0..=1)).min(ant.dias - 1);
            answers.push(Answer {
                id: String::new(),
                pregunta: q.id.clone(),
                modelo: m.id.clone(),
                version: m.versiones[0].clone(),
                fecha: estudio::fecha(ant.inicio, dia),
                respuesta: b.respuesta,
                fuentes: b.fuentes,
                tono: b.tono,
                repeticion: None,
                recoleccion: None,
            });
        }
    }
    let w = ancho(answers.len(), 5);
    for (i, a) in answers.iter_mut().enumerate() {
        a.id = format!("R{:0w$}", i + 1);
    }
    let specs: Vec<ModelSpec> = viejos
        .iter()
        .map(|m| ModelSpec {
            id: m.id.clone(),
            nombre: m.nombre.clone(),
            proveedor: m.proveedor.clone(),
            nivel: m.nivel,
        })
        .collect();
    // The market shares of then: the replaced model held its successor's.
    let ponderacion = study.design.ponderacion.as_ref().map(|p| Weighting {
        fuente: p.fuente.clone(),
        pesos: p
            .pesos
            .iter()
            .map(|(id, w)| (if *id == ant.reemplazo.actual { ant.reemplazo.id.clone() } else { id.clone() }, *w))
            .collect(),
    });
    let spec = PreviousRunSpec {
        descripcion: ant.descripcion.clone(),
        descripcion_en: ant.descripcion_en.clone(),
        modelos: specs.clone(),
        ponderacion: ponderacion.clone(),
    };
    let mut design = study.design.clone();
    design.modelos = specs;
    design.ponderacion = ponderacion;
    design.analisis = Vec::new();
    design.corrida_anterior = None;
    let previous = Study {
        slug: study.slug.clone(),
        design,
        brands: study.brands.clone(),
        questions: antes_preguntas.into_iter().map(|(q, _)| q).collect(),
        answers,
        findings: Vec::new(),
        reports: Vec::new(),
        question_lines: Vec::new(),
        answer_lines: Vec::new(),
        previous: None,
    };
    (spec, previous)
}

/// The tier a `cambio_nivel_*` table compares.
fn tier_of(id: &str) -> Tier {
    if id.ends_with("avanzado") { Tier::Advanced } else { Tier::Standard }
}

/// The findings about change: the rising brand's mention (which the data show grew beyond
/// the noise), and, in the tier whose model was replaced, the leader's mention with its
/// verdict as computed. Each number is backed by its change cell; none is written unless its
/// cell bears it out.
pub(crate) fn hallazgos(ant: &Anterior, study: &Study) -> Vec<generator::model::Finding> {
    use generator::metrics::analysis::{Cell, Table};
    use generator::metrics::change::{self, FELL, GREW, NO_CHANGE};
    use generator::model::{Backing, Finding};

    let facts = generator::metrics::extract_facts(study);
    let tablas = change::change_tables(study, &facts);
    let Some(counts) = change::question_counts(study) else { return Vec::new() };
    let num = |t: &Table, fila: &str, col: &str| t.cell(fila, col).and_then(Cell::as_f64);
    let text = |t: &Table, fila: &str, col: &str| match t.cell(fila, col) {
        Some(Cell::Text(v)) => Some(v.clone()),
        _ => None,
    };
    let interval = |t: &Table, fila: &str, col: &str| match t.cell(fila, col) {
        Some(Cell::Interval(l, h)) => Some((*l, *h)),
        _ => None,
    };
    // Percentages with one decimal, as the text prints them (decimal comma in Spanish).
    let pct = |x: f64| format!("{:.1}", x * 100.0);
    let pct_es = |x: f64| pct(x).replace('.', ",");
    let three = |x: f64| (x * 1000.0).round() / 1000.0;
    let backing = |tabla: &str, fila: &str, columna: &str, valor: f64, empate: bool| Backing {
        tabla: tabla.into(),
        fila: fila.into(),
        columna: columna.into(),
        valor: three(valor),
        decimales: 3,
        contexto: false,
        empate,
    };
    let mut out = Vec::new();
    // Evidence: the first two answers of this run (in `scope` models) that name the brand.
    let evidence = |brand: &str, tier: Option<Tier>| -> Vec<String> {
        let Some(b) = study.brands.iter().position(|x| x.nombre == brand) else { return Vec::new() };
        facts
            .iter()
            .filter(|f| f.names(b) && tier.is_none_or(|t| study.design.modelos[f.model].nivel == t))
            .take(2)
            .map(|f| study.answers[f.answer].id.clone())
            .collect()
    };
    let next_id = |taken: usize| format!("H{:02}", study.findings.len() + taken + 1);

    // The rising brand, all models.
    if let (Some(total), Some(brand)) = (tablas.first(), study.brands.iter().find(|b| b.id == ant.en_alza.marca)) {
        let fila = brand.nombre.as_str();
        let (a, b, d) = (
            num(total, fila, "mencion_anterior"),
            num(total, fila, "mencion_actual"),
            num(total, fila, "mencion_diferencia"),
        );
        let ic = interval(total, fila, "mencion_diferencia_ic95");
        if let (Some(a), Some(b), Some(d), Some((l, h)), Some(GREW)) =
            (a, b, d, ic, text(total, fila, "mencion_veredicto").as_deref())
        {
            out.push(Finding {
                id: next_id(out.len()),
                tipo: "cambio".into(),
                seccion: "Cambio desde la corrida anterior".into(),
                texto: format!(
                    "{fila} creció desde la corrida anterior más allá del ruido: sobre las {} preguntas que comparten las dos corridas, la nombra el {} % de las respuestas, frente al {} % entonces (+{} puntos; intervalo al 95 % de la diferencia, de +{} a +{} puntos).",
                    counts.compartidas, pct_es(b), pct_es(a), pct_es(d), pct_es(l), pct_es(h)
                ),
                texto_en: format!(
                    "{fila} grew since the previous run beyond the noise: over the {} questions both runs share, {}% of answers name it, against {}% then (+{} points; 95% interval of the difference, +{} to +{} points).",
                    counts.compartidas, pct(b), pct(a), pct(d), pct(l), pct(h)
                ),
                respaldo: vec![
                    backing(&total.id, fila, "mencion_anterior", a, false),
                    backing(&total.id, fila, "mencion_actual", b, false),
                    backing(&total.id, fila, "mencion_diferencia", d, false),
                ],
                evidencia: evidence(fila, None),
            });
        }
    }

    // The tier whose model was replaced: its most named brand now.
    if let Some(tier) = tablas.iter().find(|t| t.id.starts_with("cambio_nivel_")) {
        let leader = tier
            .row_keys()
            .filter_map(|fila| num(tier, fila, "mencion_actual").map(|v| (fila.to_owned(), v)))
            .fold(None::<(String, f64)>, |best, (fila, v)| match best {
                Some((_, bv)) if bv >= v => best,
                _ => Some((fila, v)),
            });
        if let Some((fila, _)) = leader {
            let fila = fila.as_str();
            let values = (
                num(tier, fila, "mencion_anterior"),
                num(tier, fila, "mencion_actual"),
                num(tier, fila, "mencion_diferencia"),
                text(tier, fila, "mencion_veredicto"),
            );
            if let (Some(a), Some(b), Some(d), Some(v)) = values {
                let (es, en) = match v.as_str() {
                    GREW => ("creció más allá del ruido", "grew beyond the noise"),
                    FELL => ("cayó más allá del ruido", "fell beyond the noise"),
                    _ => ("no cambió más allá del ruido", "did not change beyond the noise"),
                };
                let sign = if d > 0.0 { "+" } else { "" };
                let nuevo = study
                    .design
                    .modelos
                    .iter()
                    .find(|m| m.id == ant.reemplazo.actual)
                    .map_or(ant.reemplazo.actual.as_str(), |m| m.nombre.as_str());
                out.push(Finding {
                    id: next_id(out.len()),
                    tipo: "cambio".into(),
                    seccion: "Cambio desde la corrida anterior".into(),
                    texto: format!(
                        "{} fue reemplazado por {nuevo}: ese cambio se mide por nivel y no por modelo. En ese nivel, la mención de {fila} pasó del {} % al {} % ({sign}{} puntos) y {es} (intervalo al 95 % de la diferencia).",
                        ant.reemplazo.nombre, pct_es(a), pct_es(b), pct_es(d)
                    ),
                    texto_en: format!(
                        "{} was replaced by {nuevo}: that change is measured by tier, not by model. In that tier, {fila}'s mention rate went from {}% to {}% ({sign}{} points) and {en} (95% interval of the difference).",
                        ant.reemplazo.nombre, pct(a), pct(b), pct(d)
                    ),
                    respaldo: vec![
                        backing(&tier.id, fila, "mencion_anterior", a, false),
                        backing(&tier.id, fila, "mencion_actual", b, false),
                        backing(&tier.id, fila, "mencion_diferencia", d, v == NO_CHANGE),
                    ],
                    evidencia: evidence(fila, Some(tier_of(&tier.id))),
                });
            }
        }
    }
    out
}
