//! What a run did: the summary `recolectar` prints at the end, with the sentence for the study's
//! methodology.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::time::Duration;

use crate::client::StopReason;

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub planned: usize,
    pub already_done: usize,
    pub answers: u64,
    pub refusals: u64,
    pub empty: u64,
    pub failures: BTreeMap<String, u64>,
    pub not_asked: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub searches: u64,
    pub cost: f64,
    pub elapsed: Duration,
    pub stop: Option<StopReason>,
    /// Versions each model reported, and the first and last day of the answers written.
    pub versions: BTreeMap<String, BTreeSet<String>>,
    pub days: Option<(String, String)>,
    pub repetitions: u32,
    /// Requests that may have been billed without giving an answer (timeouts, cuts mid-answer):
    /// how many, and what they count for.
    pub maybe_billed: u64,
    pub maybe_billed_cost: f64,
    /// What the study had spent when the run started and when it ended, and its cap.
    pub study_spent_before: f64,
    pub study_spent_after: f64,
    pub budget: f64,
    /// Batches sent by this run, and batches collected (this run's and earlier runs').
    pub batches_sent: u64,
    pub batches_collected: u64,
}

impl Summary {
    pub fn render(&self, budget: f64) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Resumen de la recolección");
        let _ = writeln!(out, "  llamadas planeadas:    {} ({} ya estaban hechas)", self.planned, self.already_done);
        let _ =
            writeln!(out, "  respuestas escritas:   {} (de ellas {} rechazos con texto)", self.answers, self.refusals);
        let _ = writeln!(out, "  respuestas vacías:     {}", self.empty);
        let failed: u64 = self.failures.values().sum();
        let causes = self.failures.iter().map(|(cause, n)| format!("{cause}: {n}")).collect::<Vec<_>>().join(", ");
        let _ = writeln!(
            out,
            "  fallas:                {failed}{}",
            if causes.is_empty() { String::new() } else { format!(" ({causes})") }
        );
        let _ = writeln!(out, "  sin preguntar:         {}", self.not_asked);
        if self.batches_sent + self.batches_collected > 0 {
            let _ = writeln!(
                out,
                "  lotes:                 {} enviados, {} recogidos (los que no terminaron siguen en el proveedor: `recolectar --lote` los recoge)",
                self.batches_sent, self.batches_collected
            );
        }
        let _ = writeln!(
            out,
            "  tokens:                {} de entrada, {} de salida; {} búsquedas",
            self.input_tokens, self.output_tokens, self.searches
        );
        let _ = writeln!(out, "  costo de esta corrida: {:.4} USD", self.cost + self.maybe_billed_cost);
        if self.maybe_billed > 0 {
            let _ = writeln!(
                out,
                "  quizá cobradas:        {} llamadas sin respuesta (tiempo agotado, corte a mitad), contadas a su costo reservado: {:.4} USD",
                self.maybe_billed, self.maybe_billed_cost
            );
        }
        let _ = writeln!(
            out,
            "  gastado en el estudio: {:.4} USD de {budget:.2} USD de presupuesto (antes de esta corrida: {:.4} USD)",
            self.study_spent_after, self.study_spent_before
        );
        let _ = writeln!(out, "  tiempo:                {:.1} s", self.elapsed.as_secs_f64());
        if let Some((first, last)) = &self.days {
            let versions = self
                .versions
                .iter()
                .map(|(model, v)| format!("{model} ({})", v.iter().cloned().collect::<Vec<_>>().join(", ")))
                .collect::<Vec<_>>()
                .join("; ");
            let when = if first == last { format!("el {first}") } else { format!("entre el {first} y el {last}") };
            let serp = self.versions.values().flatten().any(|v| v.starts_with("serpapi "));
            let how = if serp {
                "por la API de su proveedor y con búsqueda web (las superficies de consumo de Google, por SerpApi, como las ve una persona)"
            } else {
                "por la API de su proveedor y con búsqueda web"
            };
            let _ = writeln!(
                out,
                "  para la metodología:   «Cada pregunta se hizo {} {} a cada modelo de su nivel, {how}, {when} (UTC). Versiones informadas: {versions}.»",
                self.repetitions,
                if self.repetitions == 1 { "vez" } else { "veces" }
            );
        }
        match &self.stop {
            None => {}
            Some(StopReason::Interrupted) => {
                let _ = writeln!(out, "  detenida con Ctrl-C: lo escrito queda; vuelva a correr para seguir.");
            }
            Some(StopReason::Budget) => {
                let _ = writeln!(
                    out,
                    "  detenida por presupuesto: la próxima llamada habría llevado el estudio más allá de presupuesto_usd. El tope es del estudio, no de la corrida: volver a correr sin subirlo no pregunta nada más; para seguir, suba presupuesto_usd en recoleccion.toml y vuelva a correr."
                );
            }
            Some(StopReason::Fatal(why)) => {
                let _ = writeln!(out, "  detenida: {why}");
            }
        }
        out
    }

    /// The exit code: 0 when everything planned has its line.
    pub fn complete(&self) -> bool {
        self.stop.is_none() && self.failures.is_empty() && self.not_asked == 0
    }
}
