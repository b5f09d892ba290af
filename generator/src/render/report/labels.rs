//! The fixed words of a report (headings, column titles, page footer) in each language.

use serde::Serialize;

use super::Lang;

/// Headings and fixed words of the template.
#[derive(Debug, Clone, Serialize)]
pub struct Labels {
    pub serie: &'static str,
    pub cifras: &'static str,
    pub hallazgos: &'static str,
    pub sin_hallazgos: &'static str,
    pub respaldo: &'static str,
    pub respaldo_columnas: [&'static str; 5],
    pub evidencia: &'static str,
    pub graficos: &'static str,
    pub graficos_intro: &'static str,
    pub tablas: &'static str,
    pub tablas_intro: &'static str,
    pub metodologia: &'static str,
    pub metricas: &'static str,
    pub metricas_columnas: [&'static str; 3],
    pub pagina: &'static str,
    pub de: &'static str,
    pub contenido: &'static str,
}

pub(super) fn labels(lang: Lang) -> Labels {
    match lang {
        Lang::Es => Labels {
            serie: "Informe de visibilidad en IA",
            cifras: "Cifras clave",
            hallazgos: "Hallazgos",
            sin_hallazgos: "Este estudio no publica hallazgos redactados: sus resultados son las tablas de análisis que siguen.",
            respaldo: "Respaldo",
            respaldo_columnas: ["Tabla", "Fila", "Columna", "Valor", "IC 95 %"],
            evidencia: "Respuestas de ejemplo",
            graficos: "Visibilidad por marca y por modelo",
            graficos_intro: "Tasa de mención y Protagonismo IA de las marcas seguidas, en el total del estudio y según el modelo que responde. Los valores salen de las tablas de análisis indicadas en cada gráfico.",
            tablas: "Tablas de análisis",
            tablas_intro: "Las tablas del paquete de datos, con los mismos números que el JSON y la planilla. Las tasas se muestran en porcentaje; Protagonismo IA va de 0 a 10 y el HHI de 0 a 10.000.",
            metodologia: "Metodología",
            metricas: "Definiciones de las métricas",
            metricas_columnas: ["Métrica", "Definición y fórmula", "Escala"],
            pagina: "Página",
            de: "de",
            contenido: "Contenido",
        },
        Lang::En => Labels {
            serie: "AI visibility report",
            cifras: "Key figures",
            hallazgos: "Findings",
            sin_hallazgos: "This study publishes no written findings: its results are the analysis tables that follow.",
            respaldo: "Backing",
            respaldo_columnas: ["Table", "Row", "Column", "Value", "95% CI"],
            evidencia: "Example answers",
            graficos: "Visibility by brand and by model",
            graficos_intro: "Mention rate and AI Prominence (Protagonismo IA) of the tracked brands, over the whole study and by the model answering. The values come from the analysis tables named under each chart.",
            tablas: "Analysis tables",
            tablas_intro: "The tables of the data package, with the same numbers as the JSON and the spreadsheet. Rates are shown as percentages; AI Prominence runs from 0 to 10 and HHI from 0 to 10,000.",
            metodologia: "Methodology",
            metricas: "Metric definitions",
            metricas_columnas: ["Metric", "Definition and formula", "Scale"],
            pagina: "Page",
            de: "of",
            contenido: "Contents",
        },
    }
}
