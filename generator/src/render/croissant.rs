//! Croissant 1.1 (MLCommons): each study, and the catalog, described for dataset tools.
//!
//! Written from `mlcommons/croissant` at 401f6ff (`docs/croissant-spec-1.1.md`, last changed
//! 0e5dcb7, and `docs/croissant-rai-spec.md`, last changed 7e5889f) and checked with
//! `mlcroissant` 1.1.1 (PyPI), which validates these files and loads their record sets. A
//! Croissant file is a schema.org `Dataset` (the same `@id`, name, dates and price as the
//! page's markup, [`super::jsonld`]) plus:
//!
//! - `distribution`: the study's files as `cr:FileObject`s with `contentUrl`, `sha256`,
//!   `contentSize` and `encodingFormat`: the free sheet, and the paid JSON package and ZIP,
//!   whose `contentUrl` is the download route (`/descarga/{archivo}`), which answers only the
//!   signed links a purchase returns;
//! - `usageInfo`: an ODRL `Offer` (W3C ODRL 2.2) whose permission to use the study carries the
//!   duty to pay its price (`odrl:compensate`, `odrl:payAmount` in USD), beside the schema.org
//!   `offers`, `isAccessibleForFree: false` and the license;
//! - `recordSet`s whose typed `field`s point into the files with `jsonPath`: the models and the
//!   analysis index of the free sheet; the questions, the raw answers (model, version, surface,
//!   date, cited and consulted sources, brands) and every analysis table of the paid package;
//! - provenance in PROV-O, as the specification's "Provenance Representation" shows: the
//!   collection activity (the run's dates), the models that answered as agents, the collector,
//!   and the generator that derived the tables;
//! - the RAI vocabulary filled with what the content says, including that sample studies are
//!   synthetic (their `nota` says so, and so do these files).
//!
//! `mlcroissant` 1.1.1 reads a JSON file once for every field that uses it, as one table, so
//! fields of record sets with different lengths cannot share a `FileObject`: each record set
//! reads the file through a `FileObject` of its own (same URL, size and sha256), named after it.

use std::fmt::Write as _;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::metrics::analysis::{Cell, Table};
use crate::model::Study;
use crate::paths;
use crate::render::json::Sheet;
use crate::render::jsonld;
use crate::render::site::Site;
use contract::Price;

/// What every file declares it conforms to.
pub const CONFORMS_TO: &str = "http://mlcommons.org/croissant/1.1";
/// The media type the gate serves them with (the specification's "Namespaces").
pub const MEDIA_TYPE: &str = "application/ld+json; profile=\"http://mlcommons.org/croissant/1.1\"";
/// How a synthetic study's `nota` says so (the sample generator writes it).
const SYNTHETIC_MARKER: &str = "sintético";

/// Lowercase hex sha256 of `bytes`.
fn sha256_hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(64);
    for byte in Sha256::digest(bytes) {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// The JSON-LD context: the specification's Appendix 1, plus RAI, PROV-O and ODRL.
fn context() -> Value {
    const TERMS: [(&str, &str); 44] = [
        ("@language", "es"),
        ("@vocab", "https://schema.org/"),
        ("sc", "https://schema.org/"),
        ("cr", "http://mlcommons.org/croissant/"),
        ("rai", "http://mlcommons.org/croissant/RAI/"),
        ("dct", "http://purl.org/dc/terms/"),
        ("prov", "http://www.w3.org/ns/prov#"),
        ("odrl", "http://www.w3.org/ns/odrl/2/"),
        ("xsd", "http://www.w3.org/2001/XMLSchema#"),
        ("annotation", "cr:annotation"),
        ("arrayShape", "cr:arrayShape"),
        ("citeAs", "cr:citeAs"),
        ("column", "cr:column"),
        ("conformsTo", "dct:conformsTo"),
        ("containedIn", "cr:containedIn"),
        ("equivalentProperty", "cr:equivalentProperty"),
        ("excludes", "cr:excludes"),
        ("extract", "cr:extract"),
        ("field", "cr:field"),
        ("fileProperty", "cr:fileProperty"),
        ("fileObject", "cr:fileObject"),
        ("fileSet", "cr:fileSet"),
        ("format", "cr:format"),
        ("includes", "cr:includes"),
        ("isArray", "cr:isArray"),
        ("isLiveDataset", "cr:isLiveDataset"),
        ("jsonPath", "cr:jsonPath"),
        ("key", "cr:key"),
        ("md5", "cr:md5"),
        ("parentField", "cr:parentField"),
        ("path", "cr:path"),
        ("recordSet", "cr:recordSet"),
        ("references", "cr:references"),
        ("regex", "cr:regex"),
        ("repeated", "cr:repeated"),
        ("replace", "cr:replace"),
        ("samplingRate", "cr:samplingRate"),
        ("sdVersion", "cr:sdVersion"),
        ("separator", "cr:separator"),
        ("source", "cr:source"),
        ("subField", "cr:subField"),
        ("transform", "cr:transform"),
        ("unArchive", "cr:unArchive"),
        ("value", "cr:value"),
    ];
    let mut context: Map<String, Value> = TERMS.iter().map(|(k, v)| ((*k).to_owned(), json!(v))).collect();
    context.insert("data".into(), json!({"@id": "cr:data", "@type": "@json"}));
    context.insert("dataType".into(), json!({"@id": "cr:dataType", "@type": "@vocab"}));
    context.insert("examples".into(), json!({"@id": "cr:examples", "@type": "@json"}));
    Value::Object(context)
}

/// A field's data type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Text,
    Integer,
    Float,
    Date,
    Url,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Text => "sc:Text",
            Kind::Integer => "sc:Integer",
            Kind::Float => "sc:Float",
            Kind::Date => "sc:Date",
            Kind::Url => "sc:URL",
        }
    }
}

/// One field of a record set: read with `path` from the record set's file (and, for a list of
/// objects, `each` from every one of them).
struct FieldSpec<'a> {
    name: &'a str,
    description: String,
    kind: Kind,
    path: String,
    each: Option<&'a str>,
    array: bool,
}

impl<'a> FieldSpec<'a> {
    fn new(name: &'a str, description: impl Into<String>, kind: Kind, path: impl Into<String>) -> FieldSpec<'a> {
        FieldSpec { name, description: description.into(), kind, path: path.into(), each: None, array: false }
    }

    fn list(mut self) -> FieldSpec<'a> {
        self.array = true;
        self
    }

    fn each(mut self, key: &'a str) -> FieldSpec<'a> {
        self.each = Some(key);
        self.array = true;
        self
    }
}

/// A file of the study, as a `FileObject` (`id` its name in the document).
struct FileSpec {
    id: String,
    name: String,
    description: String,
    url: String,
    bytes: u64,
    sha256: String,
    format: &'static str,
}

impl FileSpec {
    fn object(&self) -> Value {
        json!({
            "@type": "cr:FileObject",
            "@id": self.id,
            "name": self.name,
            "description": self.description,
            "contentUrl": self.url,
            "contentSize": format!("{} B", self.bytes),
            "encodingFormat": self.format,
            "sha256": self.sha256,
        })
    }

    /// The same file read for one record set (see the module's note on `mlcroissant`).
    fn read_for(&self, record_set: &str) -> FileSpec {
        FileSpec {
            id: format!("{}/{record_set}", self.id),
            name: self.name.clone(),
            description: format!("{} Leído para el conjunto de registros {record_set}.", self.description),
            url: self.url.clone(),
            bytes: self.bytes,
            sha256: self.sha256.clone(),
            format: self.format,
        }
    }
}

/// A record set over `file`, with a key field when `key` is set.
fn record_set(id: &str, description: &str, file: &FileSpec, fields: &[FieldSpec<'_>], key: Option<&str>) -> Value {
    let fields: Vec<Value> = fields
        .iter()
        .map(|f| {
            let mut source = json!({"fileObject": {"@id": file.id}, "extract": {"jsonPath": f.path}});
            if let Some(each) = f.each {
                source["transform"] = json!({"jsonPath": each});
            }
            let mut field = json!({
                "@type": "cr:Field",
                "@id": format!("{id}/{}", f.name),
                "name": f.name,
                "description": f.description,
                "dataType": f.kind.name(),
                "source": source,
            });
            if f.array {
                field["isArray"] = json!(true);
                field["arrayShape"] = json!("-1");
            }
            field
        })
        .collect();
    let mut set = json!({
        "@type": "cr:RecordSet",
        "@id": id,
        "name": id,
        "description": description,
        "field": fields,
    });
    if let Some(key) = key {
        set["key"] = json!({"@id": format!("{id}/{key}")});
    }
    set
}

fn publisher(site: &Site<'_>) -> Value {
    let service = &site.content.service;
    json!({"@type": "Organization", "name": service.editor, "url": service.web})
}

/// The license: the one `servicio.toml` declares, or the plain truth that the studies are sold
/// under the publisher's terms, all rights reserved.
fn license(site: &Site<'_>, page: &str) -> Value {
    match &site.content.service.license {
        Some(url) => json!(url),
        None => json!({
            "@type": "CreativeWork",
            "name": "Todos los derechos reservados por el editor; uso sujeto a la compra del estudio",
            "description": format!(
                "{} no publica una licencia abierta: quien compra el estudio puede usarlo; las condiciones y el precio están en {page}. / All rights reserved: the buyer of the study may use it; terms and price at {page}.",
                site.content.service.editor
            ),
            "url": page,
        }),
    }
}

/// `usageInfo`: the ODRL policy (an `odrl:Offer`) that permits the use of the study's paid
/// files (`assets`, their URLs) to whoever pays its price, and that names how. No node refers
/// back to the dataset that holds it (a cycle `mlcroissant` cannot read).
fn usage_policy(site: &Site<'_>, target: &str, assets: &[String], price: Price, buy: &str) -> Value {
    json!({
        "@type": ["CreativeWork", "odrl:Offer"],
        "@id": format!("{target}-politica"),
        "name": "Uso del estudio tras su compra",
        "description": format!(
            "Para usar el estudio hay que comprarlo: {} USD en {} con x402 v2 o MPP (GET {buy}) o con la herramienta MCP {}. Los archivos se descargan con los enlaces firmados que trae la compra. / Use requires buying the study for {} USD.",
            price.usd(),
            site.content.service.currency,
            contract::mcp::BUY_TOOL,
            price.usd()
        ),
        "url": buy,
        "odrl:assigner": {"@type": "odrl:Party", "name": site.content.service.editor, "url": site.content.service.web},
        "odrl:permission": {
            "@type": "odrl:Permission",
            "odrl:target": assets.iter().map(|url| json!({"@id": url})).collect::<Vec<_>>(),
            "odrl:action": {"@id": "odrl:use"},
            "odrl:duty": {
                "@type": "odrl:Duty",
                "odrl:action": {"@id": "odrl:compensate"},
                "odrl:constraint": {
                    "@type": "odrl:Constraint",
                    "odrl:leftOperand": {"@id": "odrl:payAmount"},
                    "odrl:operator": {"@id": "odrl:eq"},
                    "odrl:rightOperand": {"@value": price.usd(), "@type": "xsd:decimal"},
                    "odrl:unit": {"@id": "http://dbpedia.org/resource/United_States_dollar"},
                },
            },
        },
    })
}

/// Whether the study says its answers are synthetic sample data.
pub fn is_synthetic(study: &Study) -> bool {
    study.design.note.to_lowercase().contains(SYNTHETIC_MARKER)
}

/// Where the study's answers were seen, in words: "la API de cada proveedor", plus each
/// consumer surface by name (`crate::surfaces`).
fn surfaces_seen(study: &Study) -> String {
    let names: Vec<String> = crate::surfaces::counts(study)
        .into_iter()
        .map(|(id, _, _)| match crate::surfaces::known(&id) {
            _ if id == crate::model::API_SURFACE => "la API de cada proveedor".to_owned(),
            Some(surface) => surface.name.to_owned(),
            None => format!("la superficie `{id}`"),
        })
        .collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} y {last}", rest.join(", ")),
        None => "la API de cada proveedor".to_owned(),
    }
}

/// The RAI properties of a study, filled with what its content says.
fn rai(study: &Study, sheet: &Sheet) -> Map<String, Value> {
    let synthetic = is_synthetic(study);
    let models: Vec<String> = sheet.models.iter().map(|m| format!("{} ({})", m.name, m.provider)).collect();
    let mut map = Map::new();
    let collection = if synthetic {
        format!(
            "Datos sintéticos de demostración: las respuestas no las dio ningún asistente; las escribió el programa synth del proyecto para ilustrar el formato. {} / Synthetic demonstration data: no assistant gave these answers.",
            study.design.note
        )
    } else {
        format!(
            "Cada pregunta se hizo a cada modelo de su nivel ({}), con búsqueda web activada, en {}, y se guardó la respuesta tal como llegó, con el modelo, la versión que informó el proveedor, la fecha, la superficie y las fuentes citadas y consultadas. {}",
            models.join(", "),
            surfaces_seen(study),
            study.design.note
        )
    };
    map.insert("rai:dataCollection".into(), json!(collection));
    map.insert(
        "rai:dataCollectionType".into(),
        json!(if synthetic { vec!["Synthetic data"] } else { vec!["API", "Web search"] }),
    );
    map.insert(
        "rai:dataCollectionRawData".into(),
        json!(if synthetic {
            "Ninguno: las respuestas son sintéticas (generador synth, semilla fija).".to_owned()
        } else {
            format!("Las respuestas de {} a las preguntas del estudio.", models.join(", "))
        }),
    );
    map.insert("rai:dataCollectionTimeframe".into(), json!([sheet.run_date.since, sheet.run_date.until]));
    map.insert(
        "rai:dataPreprocessingProtocol".into(),
        json!("Las respuestas se publican sin cambios. Las marcas se detectan por nombre y alias como palabra completa, sin distinguir mayúsculas ni acentos; las tablas se calculan de las respuestas con las fórmulas de /metricas (ver metodologia en la ficha)."),
    );
    map.insert(
        "rai:dataAnnotationProtocol".into(),
        json!("Las etiquetas de tono por marca (tono) las asigna un modelo juez o el editor; ninguna otra anotación."),
    );
    map.insert(
        "rai:dataBiases".into(),
        json!(format!(
            "Un asistente responde distinto según la superficie (API o aplicación), la región, la fecha y la redacción de la pregunta; estas respuestas son de {}, de las fechas indicadas, y las preguntas las redactó el editor. Las marcas no seguidas en marcas.toml no se cuentan.",
            surfaces_seen(study)
        )),
    );
    map.insert(
        "rai:dataLimitations".into(),
        json!(if synthetic {
            "Datos sintéticos: sirven para probar herramientas y ver el formato; no dicen nada de lo que responden los asistentes reales.".to_owned()
        } else {
            "Una muestra de preguntas y de respuestas en unas fechas: los intervalos del 95 % de cada tabla dan su incertidumbre; las respuestas cambian con el tiempo.".to_owned()
        }),
    );
    map.insert(
        "rai:dataUseCases".into(),
        json!("Medir la visibilidad de marcas en asistentes de IA: quién aparece, en qué orden, con qué fuentes; comparar modelos y corridas. No sirve para entrenar modelos que se hagan pasar por los asistentes estudiados."),
    );
    map.insert(
        "rai:personalSensitiveInformation".into(),
        json!("Ninguna: las preguntas son de consumidores ficticios y las respuestas hablan de marcas y empresas; no hay datos de personas."),
    );
    map.insert(
        "rai:dataSocialImpact".into(),
        json!("Muestra qué marcas y fuentes favorecen los asistentes de IA ante preguntas de consumidores; puede usarse para auditar esa visibilidad o para intentar influir en ella."),
    );
    map.insert(
        "rai:dataReleaseMaintenancePlan".into(),
        json!("Cada corrida nueva del estudio se publica con otra version y la ficha la compara con la anterior; los archivos vendidos se conservan con su nombre y su sha256."),
    );
    map
}

/// PROV-O: the collection (the run's dates, the models that answered, the collector) from which
/// the package was generated.
fn provenance(site: &Site<'_>, study: &Study, sheet: &Sheet, target: &str) -> Map<String, Value> {
    let synthetic = is_synthetic(study);
    let mut models: Vec<Value> = sheet
        .models
        .iter()
        .map(|m| {
            json!({
                "@type": ["prov:SoftwareAgent", "prov:Agent"],
                "@id": format!("{target}-modelo-{}", m.model),
                "prov:label": format!("{} ({}, nivel {})", m.name, m.provider, m.level),
                "name": m.model,
            })
        })
        .collect();
    let collector = if synthetic {
        json!({"@type": ["prov:SoftwareAgent", "prov:Agent"], "@id": format!("{target}-synth"),
               "prov:label": "synth (generador de datos sintéticos del proyecto)"})
    } else {
        json!({"@type": ["prov:SoftwareAgent", "prov:Agent"], "@id": format!("{target}-recolector"),
               "prov:label": "recolector (el recolector del proyecto: pregunta a las API de los proveedores)"})
    };
    let mut associated = vec![collector];
    if !synthetic {
        associated.append(&mut models);
    }
    let mut map = Map::new();
    map.insert(
        "prov:wasGeneratedBy".into(),
        json!([
            {
                "@type": "prov:Activity",
                "@id": format!("{target}-recoleccion"),
                "prov:label": if synthetic { "Generación de respuestas sintéticas" } else { "Recolección de respuestas por API" },
                "prov:startedAtTime": {"@value": sheet.run_date.since, "@type": "xsd:date"},
                "prov:endedAtTime": {"@value": sheet.run_date.until, "@type": "xsd:date"},
                "prov:wasAssociatedWith": associated,
            },
            {
                "@type": "prov:Activity",
                "@id": format!("{target}-calculo"),
                "prov:label": format!("Cálculo de las tablas y armado del paquete (generator {})", env!("CARGO_PKG_VERSION")),
                "prov:wasAssociatedWith": {"@type": ["prov:SoftwareAgent", "prov:Agent"], "@id": format!("{target}-generator"),
                    "prov:label": format!("generator {}", env!("CARGO_PKG_VERSION"))},
            },
        ]),
    );
    map.insert(
        "prov:wasAttributedTo".into(),
        json!({"@type": ["prov:Organization", "prov:Agent"], "prov:label": site.content.service.editor, "url": site.content.service.web}),
    );
    map
}

/// The record sets read from the free sheet.
fn sheet_record_sets(sheet_file: &FileSpec) -> Vec<(FileSpec, Value)> {
    let models = sheet_file.read_for("modelos");
    let models_set = record_set(
        "modelos",
        "Los modelos que respondieron y cuántas respuestas dio cada uno (ficha gratuita).",
        &models,
        &[
            FieldSpec::new("modelo", "Id del modelo en las respuestas.", Kind::Text, "$.modelos[*].modelo"),
            FieldSpec::new("nombre", "Nombre del modelo.", Kind::Text, "$.modelos[*].nombre"),
            FieldSpec::new("proveedor", "Proveedor.", Kind::Text, "$.modelos[*].proveedor"),
            FieldSpec::new("nivel", "Nivel (estándar o avanzado).", Kind::Text, "$.modelos[*].nivel"),
            FieldSpec::new(
                "respuestas",
                "Respuestas de ese modelo en el estudio.",
                Kind::Integer,
                "$.modelos[*].respuestas",
            ),
        ],
        Some("modelo"),
    );
    let index = sheet_file.read_for("analisis_indice");
    let index_set = record_set(
        "analisis_indice",
        "Las tablas de análisis del paquete: id, título y columnas (ficha gratuita).",
        &index,
        &[
            FieldSpec::new("id", "Id de la tabla (A01, A02, …).", Kind::Text, "$.analisis_indice[*].id"),
            FieldSpec::new("titulo", "Título.", Kind::Text, "$.analisis_indice[*].titulo"),
            FieldSpec::new("titulo_en", "Title.", Kind::Text, "$.analisis_indice[*].titulo_en"),
            FieldSpec::new("columnas", "Columnas de la tabla.", Kind::Text, "$.analisis_indice[*].columnas").list(),
            FieldSpec::new("filas", "Filas de la tabla.", Kind::Integer, "$.analisis_indice[*].filas"),
        ],
        Some("id"),
    );
    vec![(models, models_set), (index, index_set)]
}

/// The record sets read from the paid package.
fn package_record_sets(study: &Study, tables: &[Table], package: &FileSpec) -> Vec<(FileSpec, Value)> {
    let mut sets = Vec::new();
    let questions = package.read_for("preguntas");
    let mut question_fields = vec![
        FieldSpec::new("id", "Id de la pregunta.", Kind::Text, "$.diseno.preguntas[*].id"),
        FieldSpec::new("texto", "La pregunta, tal como se hizo.", Kind::Text, "$.diseno.preguntas[*].texto"),
        FieldSpec::new("idioma", "Idioma de la pregunta.", Kind::Text, "$.diseno.preguntas[*].idioma"),
        FieldSpec::new(
            "modelo",
            "Nivel de los modelos que la respondieron.",
            Kind::Text,
            "$.diseno.preguntas[*].modelo",
        ),
    ];
    for dimension in &study.design.dimensions {
        if dimension.id == crate::model::LANGUAGE_DIMENSION {
            continue;
        }
        question_fields.push(FieldSpec::new(
            &dimension.id,
            format!("{} / {}", dimension.label, dimension.label_en),
            Kind::Text,
            format!("$.diseno.preguntas[*].{}", dimension.id),
        ));
    }
    let set = record_set(
        "preguntas",
        "Cada pregunta del estudio, con sus dimensiones.",
        &questions,
        &question_fields,
        Some("id"),
    );
    sets.push((questions, set));
    let answers = package.read_for("respuestas");
    let mut answer_fields = vec![
        FieldSpec::new("id", "Id de la respuesta.", Kind::Text, "$.respuestas[*].id"),
        FieldSpec::new("pregunta", "Id de la pregunta respondida (preguntas/id).", Kind::Text, "$.respuestas[*].pregunta"),
        FieldSpec::new("modelo", "Id del modelo que respondió.", Kind::Text, "$.respuestas[*].modelo"),
        FieldSpec::new("version", "Versión exacta que informó el proveedor.", Kind::Text, "$.respuestas[*].version"),
        FieldSpec::new("superficie", "Dónde se vio la respuesta: api (la API del proveedor) o una superficie de consumo.", Kind::Text, "$.respuestas[*].superficie"),
        FieldSpec::new("fecha", "Fecha de la respuesta.", Kind::Date, "$.respuestas[*].fecha"),
        FieldSpec::new("respuesta", "El texto de la respuesta, sin cambios.", Kind::Text, "$.respuestas[*].respuesta"),
        FieldSpec::new("fuentes", "URL de las fuentes que la respuesta cita.", Kind::Url, "$.respuestas[*].fuentes").each("url"),
        FieldSpec::new("fuentes_titulos", "Títulos de las fuentes citadas, en el mismo orden.", Kind::Text, "$.respuestas[*].fuentes").each("titulo"),
        FieldSpec::new(
            "fuentes_consultadas",
            "URL de todas las fuentes que el proveedor dice haber consultado (citadas o no); vacío si la recolección no las registró.",
            Kind::Url,
            "$.respuestas[*].fuentes_consultadas",
        )
        .each("url"),
        FieldSpec::new("marcas_nombradas", "Marcas nombradas, en orden de aparición.", Kind::Text, "$.respuestas[*].marcas_nombradas").list(),
        FieldSpec::new("marcas_citadas", "Marcas con un dominio propio entre las fuentes.", Kind::Text, "$.respuestas[*].marcas_citadas").list(),
    ];
    if study.answers.iter().all(|a| a.repetition.is_some()) && !study.answers.is_empty() {
        answer_fields.push(FieldSpec::new(
            "repeticion",
            "Qué vez se hizo la misma pregunta al mismo modelo.",
            Kind::Integer,
            "$.respuestas[*].repeticion",
        ));
    }
    let set = record_set(
        "respuestas",
        "Cada respuesta original, con su modelo, versión, superficie, fecha y fuentes.",
        &answers,
        &answer_fields,
        Some("id"),
    );
    sets.push((answers, set));
    for (position, table) in tables.iter().enumerate() {
        let id = format!("tabla_{}", table.id.to_lowercase());
        let file = package.read_for(&id);
        let names: Vec<String> = field_names(&table.columns);
        let fields: Vec<FieldSpec<'_>> = table
            .columns
            .iter()
            .enumerate()
            .map(|(column, title)| {
                let (kind, array) = column_kind(table, column);
                let spec = FieldSpec::new(
                    &names[column],
                    format!("Columna «{title}» de {}.", table.id),
                    kind,
                    format!("$.analisis[{position}].filas[*][{column}]"),
                );
                if array { spec.list() } else { spec }
            })
            .collect();
        let description = format!("{}: {} / {}", table.id, table.title, table.title_en);
        let set = record_set(&id, &description, &file, &fields, None);
        sets.push((file, set));
    }
    sets
}

/// Field names for a table's columns: lowercase ASCII letters, digits and `_`, unique.
fn field_names(columns: &[String]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for column in columns {
        let folded = contract::fold::strip_accents(column).to_lowercase();
        let mut name: String = folded.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            name.insert(0, 'c');
        }
        let base = name.clone();
        let mut n = 2;
        while names.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        names.push(name);
    }
    names
}

/// The data type of a table column, from its cells: text, integers, numbers, or 95% intervals
/// (a list of two numbers); nulls say nothing.
fn column_kind(table: &Table, column: usize) -> (Kind, bool) {
    let (mut text, mut int, mut num, mut interval) = (false, false, false, false);
    for row in &table.rows {
        match row.get(column) {
            Some(Cell::Text(_)) => text = true,
            Some(Cell::Int(_)) => int = true,
            Some(Cell::Num(_)) => num = true,
            Some(Cell::Interval(..)) => interval = true,
            Some(Cell::Null) | None => {}
        }
    }
    match (text, int, num, interval) {
        (false, _, _, true) if !int && !num => (Kind::Float, true),
        (false, true, false, false) => (Kind::Integer, false),
        (false, _, true, false) => (Kind::Float, false),
        (false, false, false, false) => (Kind::Float, false),
        _ => (Kind::Text, false),
    }
}

/// A study's Croissant file. `sheet` is its free sheet (with `archivos`), whose bytes hash to
/// `sheet_sha256`; `tables` are the analysis tables of its package.
pub fn study(
    site: &Site<'_>,
    study: &Study,
    sheet: &Sheet,
    sheet_bytes: &[u8],
    tables: &[Table],
    price: Price,
) -> Value {
    let slug = &sheet.slug;
    let page = site.url(&paths::study_page_url(slug));
    let buy = &sheet.urls.buy;
    let target = jsonld::dataset_id(site, slug);
    let mut distribution: Vec<Value> = Vec::new();
    let mut record_sets: Vec<Value> = Vec::new();

    let sheet_file = FileSpec {
        id: "ficha".to_owned(),
        name: "ficha.json".to_owned(),
        description: "La ficha gratuita del estudio (JSON).".to_owned(),
        url: site.url(&format!("/estudio/{slug}/ficha")),
        bytes: sheet_bytes.len() as u64,
        sha256: sha256_hex(sheet_bytes),
        format: "application/json",
    };
    distribution.push(sheet_file.object());
    for (file, set) in sheet_record_sets(&sheet_file) {
        distribution.push(file.object());
        record_sets.push(set);
    }
    if let Some(files) = &sheet.files {
        let paid = |name: &str| {
            format!(
                "Se descarga con el enlace firmado que trae la compra ({buy}): /descarga/{name} sin firma responde 403. Válido {} días.",
                site.content.service.link_validity_days
            )
        };
        let package = FileSpec {
            id: "paquete".to_owned(),
            name: files.json.name.clone(),
            description: format!(
                "El paquete completo (JSON): diseño, preguntas, tablas, hallazgos y respuestas. {}",
                paid(&files.json.name)
            ),
            url: site.url(&format!("/descarga/{}", files.json.name)),
            bytes: files.json.bytes,
            sha256: files.json.sha256.clone(),
            format: "application/json",
        };
        let zip = FileSpec {
            id: "zip".to_owned(),
            name: files.zip.name.clone(),
            description: format!("El ZIP: {}. {}", files.zip.contains.join(", "), paid(&files.zip.name)),
            url: site.url(&format!("/descarga/{}", files.zip.name)),
            bytes: files.zip.bytes,
            sha256: files.zip.sha256.clone(),
            format: "application/zip",
        };
        distribution.push(package.object());
        distribution.push(zip.object());
        for (file, set) in package_record_sets(study, tables, &package) {
            distribution.push(file.object());
            record_sets.push(set);
        }
    }
    let assets: Vec<String> = sheet
        .files
        .iter()
        .flat_map(|f| [&f.json.name, &f.zip.name])
        .map(|name| site.url(&format!("/descarga/{name}")))
        .collect();
    let mut value = json!({
        "@context": context(),
        "@type": "sc:Dataset",
        "@id": target,
        "conformsTo": CONFORMS_TO,
        "name": sheet.name,
        "alternateName": sheet.name_en,
        "description": sheet.description,
        "url": page,
        "license": license(site, &page),
        "creator": publisher(site),
        "publisher": publisher(site),
        "datePublished": sheet.generated,
        "version": sheet.package_version,
        "keywords": sheet.tags,
        "inLanguage": sheet.language,
        "citeAs": sheet.how_to_cite,
        "temporalCoverage": jsonld::temporal_coverage(&sheet.run_date.since, &sheet.run_date.until),
        "spatialCoverage": sheet.country.iter().map(|p| json!({"@type": "Place", "name": p})).collect::<Vec<_>>(),
        "isAccessibleForFree": false,
        "offers": {"@type": "Offer", "price": price.usd(), "priceCurrency": "USD", "url": buy},
        "usageInfo": usage_policy(site, &target, &assets, price, buy),
        "includedInDataCatalog": {"@type": "DataCatalog", "@id": jsonld::catalog_id(site), "name": site.content.service.name},
        "distribution": distribution,
        "recordSet": record_sets,
    });
    if let Some(object) = value.as_object_mut() {
        object.extend(rai(study, sheet));
        object.extend(provenance(site, study, sheet, &target));
    }
    value
}

/// The catalog's Croissant file: the free catalog (`/catalogo`) and one record per study.
pub fn catalog(site: &Site<'_>, catalog_bytes: &[u8]) -> Value {
    let service = &site.content.service;
    let file = FileSpec {
        id: "catalogo".to_owned(),
        name: "catalogo.json".to_owned(),
        description: "El catálogo gratuito (JSON).".to_owned(),
        url: site.url("/catalogo"),
        bytes: catalog_bytes.len() as u64,
        sha256: sha256_hex(catalog_bytes),
        format: "application/json",
    };
    let fields = [
        FieldSpec::new("slug", "Id del estudio.", Kind::Text, "$.estudios[*].slug"),
        FieldSpec::new("nombre", "Nombre.", Kind::Text, "$.estudios[*].nombre"),
        FieldSpec::new("nombre_en", "Name.", Kind::Text, "$.estudios[*].nombre_en"),
        FieldSpec::new("industria", "Industria.", Kind::Text, "$.estudios[*].industria"),
        FieldSpec::new("pais", "Países.", Kind::Text, "$.estudios[*].pais").list(),
        FieldSpec::new("publicado", "Fecha de publicación.", Kind::Date, "$.estudios[*].publicado"),
        FieldSpec::new("n_preguntas", "Preguntas.", Kind::Integer, "$.estudios[*].n_preguntas"),
        FieldSpec::new("n_respuestas", "Respuestas.", Kind::Integer, "$.estudios[*].n_respuestas"),
        FieldSpec::new("precio_usd", "Precio en USD (se paga en USDC).", Kind::Float, "$.estudios[*].precio_usd"),
        FieldSpec::new("ficha", "Ficha gratuita.", Kind::Url, "$.estudios[*].ficha"),
        FieldSpec::new("comprar", "Dónde se compra.", Kind::Url, "$.estudios[*].comprar"),
        FieldSpec::new("croissant", "Su archivo Croissant.", Kind::Url, "$.estudios[*].croissant"),
    ];
    let set = record_set("estudios", "Cada estudio a la venta.", &file, &fields, Some("slug"));
    let parts: Vec<Value> = site
        .content
        .studies
        .iter()
        // References only: a second `Dataset` node would make the file's entry ambiguous.
        .map(|s| json!({"@id": jsonld::dataset_id(site, &s.slug)}))
        .collect();
    let home = site.url("/");
    let latest = site.content.studies.iter().map(|s| s.design.published.as_str()).max().unwrap_or("1970-01-01");
    json!({
        "@context": context(),
        "@type": "sc:Dataset",
        "@id": format!("{home}#catalogo-croissant"),
        "conformsTo": CONFORMS_TO,
        "name": format!("{}: catálogo", service.name),
        "alternateName": format!("{}: catalog", service.name_en),
        "description": format!("{} El catálogo es gratuito; cada estudio se vende aparte y tiene su propio archivo Croissant (campo croissant de cada registro; hasPart nombra su Dataset).", service.description),
        "url": home,
        "license": license(site, &home),
        "citeAs": format!("{} ({}). {}: catálogo de estudios. {home}", service.editor, latest.get(..4).unwrap_or(latest), service.name),
        // The catalog's own format, as this generator writes it: the studies carry theirs.
        "version": env!("CARGO_PKG_VERSION"),
        "creator": publisher(site),
        "publisher": publisher(site),
        "datePublished": latest,
        "inLanguage": "es",
        "isAccessibleForFree": true,
        "hasPart": parts,
        "distribution": [file.object()],
        "recordSet": [set],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_names_are_unique_identifiers() {
        let names = field_names(&["marca".into(), "Tasa de mención".into(), "tasa_de_mencion".into(), "1 x".into()]);
        assert_eq!(names, ["marca", "tasa_de_mencion", "tasa_de_mencion_2", "c1_x"]);
    }
}
