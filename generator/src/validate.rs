//! Stage 2, validate: the rules no single file can check on its own.
//!
//! Every reference must resolve (answer → question and model, tone → brand, table spec →
//! dimension and brand, finding → table cell and answer), ids are unique, dates, URLs,
//! hosts and addresses are well formed. All problems are collected; nothing is written
//! while any remains. Finding values are checked against the computed tables in
//! [`check_findings`], after the metrics stage.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::load::{
    ANSWERS_FILE, BRANDS_FILE, FINDINGS_FILE, METRICS_FILE, PREVIOUS_DIR, QUESTIONS_FILE, SERVICE_FILE, STUDIES_DIR,
    STUDY_FILE,
};
use crate::metrics::analysis::Table;
use crate::metrics::compare;
use crate::model::{
    API_SURFACE, Metric, MetricDefinition, SURFACE_DIMENSION, ServiceSettings, Study, TableKind, TableSpec,
};
use crate::problems::Problems;

/// Metric definitions `metricas.toml` must hold: the brand metrics plus the group ones.
pub fn required_metric_ids() -> Vec<&'static str> {
    let mut ids: Vec<&str> = Metric::ALL.iter().map(|m| m.id()).collect();
    ids.extend(["hhi", "acuerdo"]);
    ids
}

/// Checks the service-wide files; `root` is the content folder (for file names in problems).
pub fn validate_service(root: &Path, service: &ServiceSettings, metrics: &[MetricDefinition]) -> Problems {
    let mut problems = Problems::default();
    check_service(&root.join(SERVICE_FILE), service, &mut problems);
    check_metric_definitions(&root.join(METRICS_FILE), metrics, &mut problems);
    problems
}

/// Checks one study's cross-file rules.
pub fn validate_study(root: &Path, study: &Study) -> Problems {
    let mut problems = Problems::default();
    check_study(&root.join(STUDIES_DIR).join(&study.slug), study, &mut problems);
    problems
}

fn check_service(file: &Path, s: &ServiceSettings, p: &mut Problems) {
    for (field, value) in [
        ("nombre", &s.name),
        ("nombre_en", &s.name_en),
        ("editor", &s.editor),
        ("descripcion", &s.description),
        ("descripcion_en", &s.description_en),
    ] {
        if value.trim().is_empty() {
            p.push(file, format!("campo `{field}`"), "no puede estar vacío");
        }
    }
    check_http_url(file, "campo `web`", &s.web, p);
    check_http_url(file, "campo `base_url`", &s.base_url, p);
    if let Some(license) = &s.license {
        check_http_url(file, "campo `licencia`", license, p);
    }
    if let Some(icon) = &s.icon_url
        && let Err(why) = check_icon_url(icon)
    {
        p.push(file, "campo `icono_url`", why);
    }
    if s.base_url.ends_with('/') {
        p.push(file, "campo `base_url`", "sin barra final (https://ejemplo.com, no https://ejemplo.com/)");
    }
    if !is_email(&s.contact) {
        p.push(file, "campo `contacto`", format!("`{}` no es un e-mail", s.contact));
    }
    if s.currency != "USDC" {
        p.push(file, "campo `moneda`", format!("se esperaba \"USDC\", no \"{}\"", s.currency));
    }
    if !(1..=30).contains(&s.link_validity_days) {
        p.push(file, "campo `vigencia_enlaces_dias`", "se esperaba un número de días entre 1 y 30");
    }
    if !is_evm_address(&s.pay_to_evm) {
        p.push(file, "campo `pagar_a_evm`", "se esperaba una dirección EVM: 0x y 40 dígitos hexadecimales");
    }
    if let Some(solana) = &s.pay_to_solana
        && !is_solana_address(solana)
    {
        p.push(
            file,
            "campo `pagar_a_solana`",
            "se esperaba una dirección de Solana: clave pública de 32 bytes en base58",
        );
    }
    for (field, value) in [
        ("privacidad.titulo", &s.privacy.title),
        ("privacidad.titulo_en", &s.privacy.title_en),
        ("privacidad.texto", &s.privacy.text),
        ("privacidad.texto_en", &s.privacy.text_en),
    ] {
        if value.trim().is_empty() {
            p.push(file, format!("campo `{field}`"), "no puede estar vacío");
        }
    }
}

/// x402 Bazaar's rule for `resource.iconUrl` (`specs/extensions/bazaar.md`, "Validation
/// Rules"), which facilitators apply by dropping the field: at most 2,048 characters, an
/// absolute `http(s)` URL without userinfo whose host is a name (not an IP literal, a loopback
/// name, all digits or a hex literal), no control characters. `https` only, as MPP's directory
/// wants its icons.
pub fn check_icon_url(icon: &str) -> Result<(), String> {
    if icon.len() > 2048 || icon.chars().any(char::is_control) {
        return Err("a lo sumo 2048 caracteres, sin caracteres de control".to_owned());
    }
    let url = url::Url::parse(icon).map_err(|_| format!("`{icon}` no es una URL absoluta"))?;
    if url.scheme() != "https" {
        return Err("se esperaba una URL https://".to_owned());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("sin usuario ni contraseña en la URL".to_owned());
    }
    let host = match url.host() {
        Some(url::Host::Domain(host)) => host.to_lowercase(),
        _ => return Err("el host debe ser un nombre de dominio, no una dirección IP".to_owned()),
    };
    let loopback = ["localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"];
    let all_digits = host.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    let hex_literal = host.starts_with("0x") && host.len() > 2 && host[2..].bytes().all(|b| b.is_ascii_hexdigit());
    if loopback.contains(&host.as_str()) || all_digits || hex_literal {
        return Err(format!("el host `{host}` no es un nombre público (los catálogos descartan el ícono)"));
    }
    Ok(())
}

fn check_metric_definitions(file: &Path, metrics: &[MetricDefinition], p: &mut Problems) {
    let mut seen = BTreeSet::new();
    let known = required_metric_ids();
    for (i, m) in metrics.iter().enumerate() {
        if !seen.insert(m.id.as_str()) {
            p.push(file, format!("metricas[{i}].id"), format!("`{}` está repetida", m.id));
        }
        if !known.contains(&m.id.as_str()) {
            p.push(
                file,
                format!("metricas[{i}].id"),
                format!("`{}` no es una métrica conocida ({})", m.id, known.join(", ")),
            );
        }
    }
    for id in known {
        if !seen.contains(id) {
            p.push(file, "metricas", format!("falta la definición de `{id}`"));
        }
    }
}

fn check_study(dir: &Path, study: &Study, p: &mut Problems) {
    let design_file = dir.join(STUDY_FILE);
    if !is_slug(&study.slug) {
        p.push(dir, "", "el nombre de la carpeta es el slug: minúsculas ASCII, dígitos y guiones");
    }
    check_design(&design_file, study, p);
    check_brands(&dir.join(BRANDS_FILE), study, p);
    check_questions(&dir.join(QUESTIONS_FILE), study, p);
    check_answers(&dir.join(ANSWERS_FILE), study, p);
    check_finding_references(&dir.join(FINDINGS_FILE), study, p);
    if let Some(previous) = &study.previous {
        check_previous_run(dir, study, previous, p);
    }
}

/// The previous run (`[corrida_anterior]`, `anterior/`): its models, questions and answers
/// follow the rules of this run's, and a question id shared by both runs keeps its tier.
fn check_previous_run(dir: &Path, study: &Study, previous: &Study, p: &mut Problems) {
    let design_file = dir.join(STUDY_FILE);
    let spec_models = &previous.design.models;
    check_models(&design_file, "corrida_anterior.", spec_models, previous.design.weighting.as_ref(), p);
    if let Some(spec) = &study.design.previous_run {
        for (field, value) in [("descripcion", &spec.description), ("descripcion_en", &spec.description_en)] {
            if value.trim().is_empty() {
                p.push(&design_file, format!("corrida_anterior.{field}"), "no puede estar vacío");
            }
        }
    }
    let previous_dir = dir.join(PREVIOUS_DIR);
    let questions_file = previous_dir.join(QUESTIONS_FILE);
    check_questions(&questions_file, previous, p);
    check_answers(&previous_dir.join(ANSWERS_FILE), previous, p);
    let current: BTreeMap<&str, &crate::model::Question> = study.questions.iter().map(|q| (q.id.as_str(), q)).collect();
    let mut shared = 0;
    for (i, q) in previous.questions.iter().enumerate() {
        let Some(now) = current.get(q.id.as_str()) else { continue };
        shared += 1;
        if now.model != q.model {
            let line = previous.question_lines.get(i).copied().unwrap_or(i + 1);
            p.push(
                &questions_file,
                format!("línea {line}, campo `modelo`"),
                format!(
                    "`{}` es de nivel {} en la corrida anterior y de nivel {} en esta: una pregunta compartida conserva su nivel (si cambió, es otra pregunta: otro `id`)",
                    q.id,
                    q.model.as_str(),
                    now.model.as_str()
                ),
            );
        }
    }
    if shared == 0 && !previous.questions.is_empty() {
        p.push(&questions_file, "", "ninguna pregunta comparte `id` con preguntas.jsonl: no hay nada que comparar");
    }
}

/// Row and column names the tables use themselves: a model id or dimension value with one of
/// these names would be ambiguous in a finding's `fila` or `columna`.
const RESERVED_NAMES: [&str; 6] = ["total", "marca", "modelo", "grupo", "par", "dominio"];

/// True for a name a table column could not carry unambiguously: the reserved names, and
/// those ending like the companions of a rate column (`_n`, `_n_ef`, `_ic95`, and the
/// spreadsheet's `_ic95_inf` / `_ic95_sup`), which a finding's `columna` would confuse with
/// the companion of another column.
fn is_reserved_name(name: &str) -> bool {
    // The companions, and the two columns the spreadsheet splits an interval into.
    let mut suffixes = crate::metrics::analysis::COMPANIONS.iter().copied().chain(["_ic95_inf", "_ic95_sup"]);
    RESERVED_NAMES.contains(&name) || suffixes.any(|s| name.ends_with(s))
}

/// The message for a reserved name.
fn reserved_message(name: &str) -> String {
    format!(
        "`{name}` es un nombre reservado de las tablas ({}, o terminado en _n, _n_ef, _ic95, _ic95_inf o _ic95_sup)",
        RESERVED_NAMES.join(", ")
    )
}

fn check_design(file: &Path, study: &Study, p: &mut Problems) {
    let d = &study.design;
    for (field, value) in [
        ("nombre", &d.name),
        ("nombre_en", &d.name_en),
        ("descripcion", &d.description),
        ("descripcion_en", &d.description_en),
        ("industria", &d.industry),
        ("subindustria", &d.subindustry),
        ("version_paquete", &d.package_version),
        ("como_citar", &d.how_to_cite),
        ("nota", &d.note),
    ] {
        if value.trim().is_empty() {
            p.push(file, format!("campo `{field}`"), "no puede estar vacío");
        }
    }
    for (i, section) in d.methodology.iter().enumerate() {
        if section.title.trim().is_empty() || section.text.trim().is_empty() {
            p.push(file, format!("metodologia[{i}]"), "título y texto no pueden estar vacíos");
        }
    }
    if !is_date(&d.published) {
        p.push(file, "campo `publicado`", format!("`{}` no es una fecha AAAA-MM-DD válida", d.published));
    }
    if d.country.is_empty() {
        p.push(file, "campo `pais`", "se esperaba al menos un país");
    }
    if d.language.is_empty() {
        p.push(file, "campo `idioma`", "se esperaba al menos un idioma");
    }
    for (i, lang) in d.language.iter().enumerate() {
        if lang.len() != 2 || !lang.bytes().all(|b| b.is_ascii_lowercase()) {
            p.push(file, format!("idioma[{i}]"), format!("`{lang}`: se esperaba un código ISO 639-1 (es, en, pt)"));
        }
    }
    if d.methodology.is_empty() {
        p.push(file, "metodologia", "se esperaba al menos una sección de metodología");
    }
    unique_ids(file, "dimensiones", d.dimensions.iter().map(|x| x.id.as_str()), p);
    for (i, dim) in d.dimensions.iter().enumerate() {
        if !is_field_name(&dim.id) {
            p.push(file, format!("dimensiones[{i}].id"), "minúsculas ASCII, dígitos y `_`");
        }
        if ["id", "texto", "modelo"].contains(&dim.id.as_str()) {
            p.push(file, format!("dimensiones[{i}].id"), format!("`{}` es un campo reservado de la pregunta", dim.id));
        }
        if dim.values.is_empty() {
            p.push(file, format!("dimensiones[{i}].valores"), "se esperaba al menos un valor");
        }
        for (j, value) in dim.values.iter().enumerate() {
            if is_reserved_name(value) {
                p.push(file, format!("dimensiones[{i}].valores[{j}]"), reserved_message(value));
            }
            if dim.id == SURFACE_DIMENSION && !crate::surfaces::is_well_formed(value) {
                p.push(file, format!("dimensiones[{i}].valores[{j}]"), surface_message(value));
            }
            if dim.id == crate::model::LANGUAGE_DIMENSION && !d.language.contains(value) {
                p.push(
                    file,
                    format!("dimensiones[{i}].valores[{j}]"),
                    format!("`{value}` no está en `idioma` del estudio ({})", d.language.join(", ")),
                );
            }
        }
        unique_ids(file, &format!("dimensiones[{i}].valores"), dim.values.iter().map(String::as_str), p);
    }
    check_models(file, "", &d.models, d.weighting.as_ref(), p);
    if d.analyses.is_empty() {
        p.push(file, "analisis", "se esperaba al menos una tabla de análisis");
    }
    unique_ids(file, "analisis", d.analyses.iter().map(|t| t.id.as_str()), p);
    for (i, spec) in d.analyses.iter().enumerate() {
        check_table_spec(file, &format!("analisis[{i}]"), spec, study, p);
    }
}

/// The models of a run and their weights; `prefix` is `""` for this run and
/// `corrida_anterior.` for the previous one.
fn check_models(
    file: &Path,
    prefix: &str,
    models: &[crate::model::ModelSpec],
    weighting: Option<&crate::model::Weighting>,
    p: &mut Problems,
) {
    if models.is_empty() {
        p.push(file, format!("{prefix}modelos"), "se esperaba al menos un modelo");
    }
    unique_ids(file, &format!("{prefix}modelos"), models.iter().map(|m| m.id.as_str()), p);
    for (i, model) in models.iter().enumerate() {
        let valid = !model.id.is_empty()
            && model.id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-._".contains(&b));
        if !valid {
            p.push(
                file,
                format!("{prefix}modelos[{i}].id"),
                format!("`{}`: minúsculas ASCII, dígitos, `-`, `.` y `_`", model.id),
            );
        }
        if is_reserved_name(&model.id) {
            p.push(file, format!("{prefix}modelos[{i}].id"), reserved_message(&model.id));
        }
    }
    if let Some(w) = weighting {
        for model in models {
            if !w.weights.contains_key(&model.id) {
                p.push(file, format!("{prefix}ponderacion.pesos"), format!("falta el peso del modelo `{}`", model.id));
            }
        }
        for (id, weight) in &w.weights {
            if !models.iter().any(|m| &m.id == id) {
                p.push(file, format!("{prefix}ponderacion.pesos.{id}"), "no es un modelo declarado en `modelos`");
            }
            if !weight.is_finite() || *weight <= 0.0 {
                p.push(file, format!("{prefix}ponderacion.pesos.{id}"), "se esperaba un peso positivo");
            } else if !crate::metrics::exact::weight_fits(*weight) {
                p.push(
                    file,
                    format!("{prefix}ponderacion.pesos.{id}"),
                    format!(
                        "`{weight}`: un peso se escribe con a lo sumo {} decimales y es menor que 1.000.000.000",
                        crate::metrics::exact::MAX_WEIGHT_DECIMALS
                    ),
                );
            }
        }
    }
}

fn check_table_spec(file: &Path, at: &str, spec: &TableSpec, study: &Study, p: &mut Problems) {
    let id_ok = spec.id.len() >= 3 && spec.id.starts_with('A') && spec.id[1..].bytes().all(|b| b.is_ascii_digit());
    if !id_ok {
        p.push(file, format!("{at}.id"), format!("`{}`: se esperaba A seguida de dígitos (A01)", spec.id));
    }
    let n = spec.metrics.len();
    let metric_rule = match spec.kind {
        TableKind::Brands => (n == 0).then_some("lleva al menos una métrica"),
        TableKind::BrandByModel | TableKind::BrandByDimension | TableKind::ModelByDimension => {
            (n != 1).then_some("lleva exactamente una métrica")
        }
        _ => (n != 0).then_some("no lleva métricas"),
    };
    if let Some(rule) = metric_rule {
        p.push(file, format!("{at}.metricas"), format!("una tabla de tipo `{}` {rule}", spec.kind.id()));
    }
    let dimension_of = |id: &str| study.design.dimensions.iter().find(|d| d.id == id);
    let needs_dimension = matches!(spec.kind, TableKind::BrandByDimension | TableKind::ModelByDimension);
    match spec.dimension.as_deref() {
        None if needs_dimension => p.push(file, format!("{at}.dimension"), "este tipo de tabla necesita `dimension`"),
        Some(id) if dimension_of(id).is_none() => {
            p.push(file, format!("{at}.dimension"), format!("`{id}` no está en `dimensiones`"))
        }
        Some(_) if !needs_dimension && spec.kind != TableKind::Concentration => {
            p.push(file, format!("{at}.dimension"), "este tipo de tabla no usa `dimension`")
        }
        _ => {}
    }
    match spec.brand.as_deref() {
        None if spec.kind == TableKind::ModelByDimension => {
            p.push(file, format!("{at}.marca"), "este tipo de tabla necesita `marca`")
        }
        Some(_) if spec.kind != TableKind::ModelByDimension => {
            p.push(file, format!("{at}.marca"), "solo las tablas `modelo_por_dimension` usan `marca`")
        }
        Some(id) if !study.brands.iter().any(|b| b.id == id) => {
            p.push(file, format!("{at}.marca"), format!("`{id}` no está en marcas.toml"))
        }
        _ => {}
    }
    match spec.limit {
        Some(_) if spec.kind != TableKind::Sources => {
            p.push(file, format!("{at}.limite"), "solo las tablas `fuentes` usan `limite`")
        }
        Some(0) => p.push(file, format!("{at}.limite"), "se esperaba al menos 1"),
        _ => {}
    }
    let mut metrics = spec.metrics.clone();
    metrics.sort();
    metrics.dedup();
    if metrics.len() != spec.metrics.len() {
        p.push(file, format!("{at}.metricas"), "hay una métrica repetida");
    }
    for (dimension, value) in &spec.filter {
        match dimension_of(dimension) {
            None => p.push(file, format!("{at}.filtro.{dimension}"), "no es una dimensión declarada"),
            Some(d) if !d.values.contains(value) => p.push(
                file,
                format!("{at}.filtro.{dimension}"),
                format!("`{value}` no es un valor de la dimensión ({})", d.values.join(", ")),
            ),
            Some(_) => {}
        }
    }
}

fn check_brands(file: &Path, study: &Study, p: &mut Problems) {
    if study.brands.is_empty() {
        p.push(file, "marcas", "se esperaba al menos una marca");
    }
    unique_ids(file, "marcas", study.brands.iter().map(|b| b.id.as_str()), p);
    let mut alias_owner: BTreeMap<String, &str> = BTreeMap::new();
    for (i, brand) in study.brands.iter().enumerate() {
        if !is_slug(&brand.id) {
            p.push(file, format!("marcas[{i}].id"), format!("`{}`: minúsculas ASCII, dígitos y guiones", brand.id));
        }
        for (j, alias) in std::iter::once(&brand.name).chain(&brand.alias).enumerate() {
            let at = if j == 0 { format!("marcas[{i}].nombre") } else { format!("marcas[{i}].alias[{}]", j - 1) };
            let folded = contract::fold::fold(alias.trim());
            if folded.is_empty() {
                p.push(file, at, "no puede estar vacío");
                continue;
            }
            match alias_owner.get(&folded) {
                Some(owner) if *owner != brand.id => {
                    p.push(file, at, format!("`{alias}` ya es nombre o alias de `{owner}`: una mención sería ambigua"))
                }
                _ => {
                    alias_owner.insert(folded, &brand.id);
                }
            }
        }
        for (j, domain) in brand.domains.iter().enumerate() {
            if !is_host(domain) {
                p.push(
                    file,
                    format!("marcas[{i}].dominios[{j}]"),
                    format!("`{domain}`: se esperaba un dominio sin esquema ni ruta (ejemplo.com.ar)"),
                );
            }
        }
    }
}

fn check_questions(file: &Path, study: &Study, p: &mut Problems) {
    let dimensions = &study.design.dimensions;
    let mut seen = BTreeSet::new();
    for (i, q) in study.questions.iter().enumerate() {
        let at = format!("línea {}", study.question_lines.get(i).copied().unwrap_or(i + 1));
        if !seen.insert(q.id.as_str()) {
            p.push(file, format!("{at}, campo `id`"), format!("`{}` está repetido", q.id));
        }
        if q.text.trim().is_empty() {
            p.push(file, format!("{at}, campo `texto`"), "no puede estar vacío");
        }
        if !study.design.language.contains(&q.language) {
            p.push(
                file,
                format!("{at}, campo `idioma`"),
                format!(
                    "`{}` no está entre los idiomas del estudio ({})",
                    q.language,
                    study.design.language.join(", ")
                ),
            );
        }
        for d in dimensions.iter().filter(|d| d.id != SURFACE_DIMENSION) {
            match q.dimension(&d.id) {
                None => p.push(file, at.clone(), format!("falta el campo de dimensión `{}`", d.id)),
                Some(v) if !d.values.iter().any(|allowed| allowed == v) => p.push(
                    file,
                    format!("{at}, campo `{}`", d.id),
                    format!("`{v}` no es un valor de la dimensión ({})", d.values.join(", ")),
                ),
                Some(_) => {}
            }
        }
        for key in q.dimensions.keys() {
            if key == SURFACE_DIMENSION {
                p.push(
                    file,
                    format!("{at}, campo `{key}`"),
                    "la superficie es de cada respuesta (campo `superficie` de respuestas.jsonl), no de la pregunta",
                );
            } else if !dimensions.iter().any(|d| &d.id == key) {
                p.push(file, format!("{at}, campo `{key}`"), "no es un campo de pregunta ni una dimensión declarada");
            }
        }
    }
    if study.questions.is_empty() {
        p.push(file, "", "se esperaba al menos una pregunta");
    }
}

fn check_answers(file: &Path, study: &Study, p: &mut Problems) {
    let questions: BTreeMap<&str, &crate::model::Question> =
        study.questions.iter().map(|q| (q.id.as_str(), q)).collect();
    let models: BTreeMap<&str, &crate::model::ModelSpec> =
        study.design.models.iter().map(|m| (m.id.as_str(), m)).collect();
    let brands: BTreeSet<&str> = study.brands.iter().map(|b| b.id.as_str()).collect();
    let mut ids = BTreeSet::new();
    let mut pairs = BTreeMap::new();
    let surfaces_declared = study.design.dimensions.iter().find(|d| d.id == SURFACE_DIMENSION);
    for (i, a) in study.answers.iter().enumerate() {
        let line = study.answer_lines.get(i).copied().unwrap_or(i + 1);
        let at = format!("línea {line}");
        let field = |name: &str| format!("{at}, campo `{name}`");
        if !ids.insert(a.id.as_str()) {
            p.push(file, field("id"), format!("`{}` está repetido", a.id));
        }
        let question = questions.get(a.question.as_str());
        let model = models.get(a.model.as_str());
        if question.is_none() {
            p.push(file, field("pregunta"), format!("`{}` no está en preguntas.jsonl", a.question));
        }
        if model.is_none() {
            p.push(file, field("modelo"), format!("`{}` no está en `modelos` de estudio.toml", a.model));
        }
        if let (Some(q), Some(m)) = (question, model)
            && q.model != m.level
        {
            p.push(
                file,
                field("modelo"),
                format!(
                    "`{}` es de nivel {} y la pregunta `{}` es de nivel {}",
                    m.id,
                    m.level.as_str(),
                    q.id,
                    q.model.as_str()
                ),
            );
        }
        if a.repetition == Some(0) {
            p.push(file, field("repeticion"), "se esperaba un número de repetición desde 1");
        }
        if let Some(first) = pairs.insert((a.question.as_str(), a.model.as_str(), a.repetition()), line) {
            let message = match a.repetition {
                None => format!(
                    "la pregunta `{}` ya tiene respuesta de `{}` en la línea {first} (una por modelo y repetición; numere las repeticiones con `repeticion`)",
                    a.question, a.model
                ),
                Some(r) => format!(
                    "la pregunta `{}` ya tiene respuesta de `{}` en la repetición {r}, en la línea {first}",
                    a.question, a.model
                ),
            };
            p.push(file, at.clone(), message);
        }
        if a.version.trim().is_empty() {
            p.push(file, field("version"), "no puede estar vacío");
        }
        if !is_date(&a.date) {
            p.push(file, field("fecha"), format!("`{}` no es una fecha AAAA-MM-DD válida", a.date));
        }
        if a.answer.trim().is_empty() {
            p.push(file, field("respuesta"), "no puede estar vacía");
        }
        check_sources(file, &field, "fuentes", &a.sources, p);
        if let Some(consulted) = &a.consulted {
            check_sources(file, &field, "fuentes_consultadas", consulted, p);
        }
        if let Some(surface) = &a.surface {
            if !crate::surfaces::is_well_formed(surface) {
                p.push(file, field("superficie"), surface_message(surface));
            } else if let Some(dimension) = surfaces_declared
                && !dimension.values.iter().any(|v| v == surface)
            {
                p.push(
                    file,
                    field("superficie"),
                    format!(
                        "`{surface}` no es un valor de la dimensión `superficie` de estudio.toml ({})",
                        dimension.values.join(", ")
                    ),
                );
            }
        } else if let Some(dimension) = surfaces_declared
            && !dimension.values.iter().any(|v| v == API_SURFACE)
        {
            p.push(
                file,
                at.clone(),
                format!(
                    "la respuesta no dice `superficie` (vale `api`) y `api` no es un valor de la dimensión `superficie` de estudio.toml ({})",
                    dimension.values.join(", ")
                ),
            );
        }
        for brand in a.tone.keys() {
            if !brands.contains(brand.as_str()) {
                p.push(file, field(&format!("tono.{brand}")), "no es una marca de marcas.toml");
            }
        }
    }
}

/// The sources of an answer (`fuentes` or `fuentes_consultadas`): http(s) URLs, titles.
fn check_sources(
    file: &Path,
    field: &dyn Fn(&str) -> String,
    list: &str,
    sources: &[crate::model::Source],
    p: &mut Problems,
) {
    for (j, source) in sources.iter().enumerate() {
        check_http_url(file, &field(&format!("{list}[{j}].url")), &source.url, p);
        if source.title.trim().is_empty() {
            p.push(file, field(&format!("{list}[{j}].titulo")), "no puede estar vacío");
        }
    }
}

/// The message for a surface id that is not well formed.
fn surface_message(value: &str) -> String {
    format!(
        "`{value}` no es una superficie: se esperaba un id en minúsculas ASCII (letras, dígitos, `_` y `-`, empezando por una letra), como {}",
        crate::surfaces::known_ids()
    )
}

/// Finding rules that need no numbers: ids, tables, rows, columns, evidence.
fn check_finding_references(file: &Path, study: &Study, p: &mut Problems) {
    unique_ids(file, "hallazgos", study.findings.iter().map(|f| f.id.as_str()), p);
    let answers: BTreeSet<&str> = study.answers.iter().map(|a| a.id.as_str()).collect();
    for (i, f) in study.findings.iter().enumerate() {
        for (field, value) in [("tipo", &f.kind), ("seccion", &f.section), ("texto", &f.text), ("texto_en", &f.text_en)]
        {
            if value.trim().is_empty() {
                p.push(file, format!("hallazgos[{i}].{field}"), "no puede estar vacío");
            }
        }
        for (j, b) in f.backing.iter().enumerate() {
            if !study.design.analyses.iter().any(|t| t.id == b.table)
                && !crate::metrics::change::table_ids(study).iter().any(|(id, _)| *id == b.table)
            {
                p.push(
                    file,
                    format!("hallazgos[{i}].respaldo[{j}].tabla"),
                    format!("`{}` no es una tabla de `analisis` ni una tabla de cambio", b.table),
                );
            }
            if b.decimals > 4 {
                p.push(file, format!("hallazgos[{i}].respaldo[{j}].decimales"), "se publican a lo sumo 4 decimales");
            }
        }
        for (j, id) in f.evidence.iter().enumerate() {
            if !answers.contains(id.as_str()) {
                p.push(file, format!("hallazgos[{i}].evidencia[{j}]"), format!("`{id}` no está en respuestas.jsonl"));
            }
        }
    }
}

/// Stage 3 check: a tone label must be about a brand the answer names (otherwise an alias is
/// missing from marcas.toml, or the label is wrong).
pub fn check_tone_labels(root: &Path, study: &Study, facts: &[crate::metrics::AnswerFacts]) -> Problems {
    let file = root.join(STUDIES_DIR).join(&study.slug).join(ANSWERS_FILE);
    let mut p = Problems::default();
    for fact in facts {
        let answer = &study.answers[fact.answer];
        let line = study.answer_lines.get(fact.answer).copied().unwrap_or(fact.answer + 1);
        for brand_id in answer.tone.keys() {
            let named = study.brands.iter().position(|b| &b.id == brand_id).is_some_and(|b| fact.names(b));
            if !named {
                p.push(
                    &file,
                    format!("línea {line}, campo `tono.{brand_id}`"),
                    "etiqueta de tono para una marca que el texto no nombra (¿falta un alias en marcas.toml?)",
                );
            }
        }
    }
    p
}

/// Stage 3 check: every number a finding claims equals its table cell, within the rounding
/// the finding states (half a unit of its last decimal).
pub fn check_findings(root: &Path, study: &Study, tables: &[Table]) -> Problems {
    let file = root.join(STUDIES_DIR).join(&study.slug).join(FINDINGS_FILE);
    let mut p = Problems::default();
    for (i, f) in study.findings.iter().enumerate() {
        for (j, b) in f.backing.iter().enumerate() {
            let at = format!("hallazgos[{i}].respaldo[{j}]");
            let Some(table) = tables.iter().find(|t| t.id == b.table) else { continue };
            if !table.row_keys().any(|k| k == b.row) {
                p.push(
                    &file,
                    format!("{at}.fila"),
                    format!(
                        "`{}` no es una fila de {} ({})",
                        b.row,
                        table.id,
                        table.row_keys().collect::<Vec<_>>().join(", ")
                    ),
                );
                continue;
            }
            if !table.columns.contains(&b.column) {
                p.push(
                    &file,
                    format!("{at}.columna"),
                    format!("`{}` no es una columna de {} ({})", b.column, table.id, table.columns.join(", ")),
                );
                continue;
            }
            let computed = table.cell(&b.row, &b.column).and_then(|c| c.as_f64());
            let tolerance = 0.5 * 10f64.powi(-(b.decimals as i32)) + 1e-9;
            match computed {
                None => p.push(
                    &file,
                    at.clone(),
                    format!("la celda {} / {} / {} no tiene valor numérico", table.id, b.row, b.column),
                ),
                Some(value) if (value - b.value).abs() > tolerance => p.push(
                    &file,
                    format!("{at}.valor"),
                    format!(
                        "el hallazgo `{}` dice {} pero {} / {} / {} da {} (tolerancia ±{})",
                        f.id,
                        b.value,
                        table.id,
                        b.row,
                        b.column,
                        value,
                        0.5 * 10f64.powi(-(b.decimals as i32))
                    ),
                ),
                Some(_) => {}
            }
        }
    }
    p
}

/// Warnings, not errors: each comparison a finding makes whose claim the intervals do not
/// support (a difference that does not hold at 95%, or cannot be judged; a tie that does
/// not hold), so the text can be revised before it claims too much.
pub fn unsupported_comparisons(root: &Path, study: &Study, tables: &[Table]) -> Problems {
    let file = root.join(STUDIES_DIR).join(&study.slug).join(FINDINGS_FILE);
    let mut p = Problems::default();
    for (i, f) in study.findings.iter().enumerate() {
        for c in compare::comparisons(study, f, tables) {
            if c.claim_is_supported() {
                continue;
            }
            let claim = match c.claims {
                compare::Claim::Difference => "afirma una diferencia",
                compare::Claim::Tie => "afirma un empate (empate = true)",
            };
            p.push(
                &file,
                format!("hallazgos[{i}] ({})", f.id),
                format!("{claim}: {}; {}", c.describe(), c.verdict.to_lowercase()),
            );
        }
    }
    p
}

/// Warnings, not errors: a table that asks for `consultada_no_citada` in a study none of whose
/// answers records the sources the provider consulted (the column will be empty: not
/// recorded, which a reader might otherwise take for 0).
pub fn unrecorded_consulted(root: &Path, study: &Study) -> Problems {
    let file = root.join(STUDIES_DIR).join(&study.slug).join(STUDY_FILE);
    let mut p = Problems::default();
    if study.answers.iter().any(|a| a.consulted.is_some()) {
        return p;
    }
    for (i, spec) in study.design.analyses.iter().enumerate() {
        if spec.metrics.contains(&Metric::ConsultedNotCited) {
            p.push(
                &file,
                format!("analisis[{i}].metricas"),
                format!(
                    "{}: `consultada_no_citada` sale vacía (no registrada): ninguna respuesta de respuestas.jsonl trae `fuentes_consultadas`",
                    spec.id
                ),
            );
        }
    }
    p
}

/// Warnings, not errors: each change a finding claims (a backing on a `<metric>_diferencia`
/// column of a change table) whose verdict does not bear it out.
pub fn unsupported_changes(root: &Path, study: &Study, changes: &[Table]) -> Problems {
    let file = root.join(STUDIES_DIR).join(&study.slug).join(FINDINGS_FILE);
    let mut p = Problems::default();
    for (i, f) in study.findings.iter().enumerate() {
        for claim in crate::metrics::change::claims(f, changes) {
            if !claim.holds {
                p.push(&file, format!("hallazgos[{i}] ({})", f.id), format!("afirma un cambio: {}", claim.describe()));
            }
        }
    }
    p
}

fn unique_ids<'a>(file: &Path, at: &str, ids: impl Iterator<Item = &'a str>, p: &mut Problems) {
    let mut seen = BTreeSet::new();
    for (i, id) in ids.enumerate() {
        if !seen.insert(id) {
            p.push(file, format!("{at}[{i}]"), format!("`{id}` está repetido"));
        }
    }
}

fn check_http_url(file: &Path, at: &str, value: &str, p: &mut Problems) {
    // A plain http(s) URL with a plain host is one `url::Url` accepts with that host (test
    // `plain_host_agrees_with_the_url_crate`); only the others need the full parse.
    if crate::metrics::mentions::plain_host(value).is_some() {
        return;
    }
    match url::Url::parse(value) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => {}
        Ok(_) => p.push(file, at, format!("`{value}`: se esperaba una URL http(s) con dominio")),
        Err(e) => p.push(file, at, format!("`{value}` no es una URL válida: {e}")),
    }
}

/// `YYYY-MM-DD` with a real day of a real month.
pub fn is_date(value: &str) -> bool {
    let parts: Vec<&str> = value.split('-').collect();
    let [y, m, d] = parts.as_slice() else { return false };
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return false;
    }
    let (Ok(y), Ok(m), Ok(d)) = (y.parse::<u32>(), m.parse::<u32>(), d.parse::<u32>()) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1980..=2107).contains(&y) && (1..=days).contains(&d)
}

fn is_slug(value: &str) -> bool {
    !value.is_empty()
        && value.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !value.starts_with('-')
        && !value.ends_with('-')
}

fn is_field_name(value: &str) -> bool {
    value.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && value.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// A bare host name with at least one dot: no scheme, port, path or uppercase.
pub fn is_host(value: &str) -> bool {
    let valid_label = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    value.contains('.') && value.len() <= 253 && value.split('.').all(valid_label)
}

fn is_email(value: &str) -> bool {
    match value.split_once('@') {
        Some((user, host)) => !user.is_empty() && is_host(host),
        None => false,
    }
}

/// A Solana address: a 32-byte public key written in base58.
pub fn is_solana_address(value: &str) -> bool {
    bs58::decode(value).into_vec().is_ok_and(|bytes| bytes.len() == 32)
}

pub fn is_evm_address(value: &str) -> bool {
    value.len() == 42 && value.starts_with("0x") && value[2..].bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_real_days() {
        assert!(is_date("2026-02-28"));
        assert!(is_date("2024-02-29"));
        assert!(!is_date("2026-02-29"));
        assert!(!is_date("2026-13-01"));
        assert!(!is_date("2026-1-01"));
        assert!(!is_date("26-01-01"));
    }

    #[test]
    fn hosts_and_addresses() {
        assert!(is_host("galicia.ar"));
        assert!(is_host("ayuda.naranjax.com"));
        for bad in ["https://galicia.ar", "galicia.ar/x", "galicia", "Galicia.ar", "gal icia.ar", "galicia.ar:80"] {
            assert!(!is_host(bad), "{bad}");
        }
        assert!(is_evm_address("0x209693Bc6afc0C5328bA36FaF03C514EF312287C"));
        assert!(is_solana_address("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"));
        assert!(!is_solana_address("EPjFWdd5AufqSSqeM2qN1xzybapC8G4"), "too short");
        assert!(!is_solana_address("0x209693Bc6afc0C5328bA36FaF03C514EF312287C"), "not base58");
        assert!(!is_evm_address("0x209693Bc6afc0C5328bA36FaF03C514EF312287"));
    }
}
