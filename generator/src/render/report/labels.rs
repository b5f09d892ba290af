//! The fixed words of a report (headings, column titles, page footer) in each language.

use serde::Serialize;

use super::Lang;

/// Headings and fixed words of the template.
#[derive(Debug, Clone, Serialize)]
pub struct Labels {
    #[serde(rename = "serie")]
    pub series: &'static str,
    #[serde(rename = "cifras")]
    pub figures: &'static str,
    #[serde(rename = "hallazgos")]
    pub findings: &'static str,
    #[serde(rename = "sin_hallazgos")]
    pub without_findings: &'static str,
    #[serde(rename = "respaldo")]
    pub backing: &'static str,
    #[serde(rename = "respaldo_columnas")]
    pub backing_columns: [&'static str; 5],
    #[serde(rename = "evidencia")]
    pub evidence: &'static str,
    #[serde(rename = "graficos")]
    pub charts: &'static str,
    #[serde(rename = "graficos_intro")]
    pub charts_intro: &'static str,
    #[serde(rename = "tablas")]
    pub tables: &'static str,
    #[serde(rename = "tablas_intro")]
    pub tables_intro: &'static str,
    #[serde(rename = "metodologia")]
    pub methodology: &'static str,
    #[serde(rename = "metricas")]
    pub metrics: &'static str,
    #[serde(rename = "metricas_columnas")]
    pub metric_columns: [&'static str; 3],
    #[serde(rename = "pagina")]
    pub page: &'static str,
    pub de: &'static str,
    #[serde(rename = "contenido")]
    pub content: &'static str,
}

pub(super) fn labels(lang: Lang) -> Labels {
    match lang {
        Lang::Es => Labels {
            series: "Informe de visibilidad en IA",
            figures: "Cifras clave",
            findings: "Hallazgos",
            without_findings: "Este estudio no publica hallazgos redactados: sus resultados son las tablas de análisis que siguen.",
            backing: "Respaldo",
            backing_columns: ["Tabla", "Fila", "Columna", "Valor", "IC 95 %"],
            evidence: "Respuestas de ejemplo",
            charts: "Visibilidad por marca y por modelo",
            charts_intro: "Tasa de mención y Protagonismo IA de las marcas seguidas, en el total del estudio y según el modelo que responde. Los valores salen de las tablas de análisis indicadas en cada gráfico.",
            tables: "Tablas de análisis",
            tables_intro: "Las tablas del paquete de datos, con los mismos números que el JSON y la planilla. Las tasas se muestran en porcentaje; Protagonismo IA va de 0 a 10 y el HHI de 0 a 10.000.",
            methodology: "Metodología",
            metrics: "Definiciones de las métricas",
            metric_columns: ["Métrica", "Definición y fórmula", "Escala"],
            page: "Página",
            de: "de",
            content: "Contenido",
        },
        Lang::En => Labels {
            series: "AI visibility report",
            figures: "Key figures",
            findings: "Findings",
            without_findings: "This study publishes no written findings: its results are the analysis tables that follow.",
            backing: "Backing",
            backing_columns: ["Table", "Row", "Column", "Value", "95% CI"],
            evidence: "Example answers",
            charts: "Visibility by brand and by model",
            charts_intro: "Mention rate and AI Prominence (Protagonismo IA) of the tracked brands, over the whole study and by the model answering. The values come from the analysis tables named under each chart.",
            tables: "Analysis tables",
            tables_intro: "The tables of the data package, with the same numbers as the JSON and the spreadsheet. Rates are shown as percentages; AI Prominence runs from 0 to 10 and HHI from 0 to 10,000.",
            methodology: "Methodology",
            metrics: "Metric definitions",
            metric_columns: ["Metric", "Definition and formula", "Scale"],
            page: "Page",
            de: "of",
            content: "Contents",
        },
    }
}
