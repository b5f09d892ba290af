//! Analysis tables: the study's specs (`analisis` in `estudio.toml`) turned into numbers.
//!
//! Each spec crosses metrics with a grouping (by brand, by model, by a dimension, by model ×
//! dimension, model pairs, tone, sources). This module only arranges scopes and cells; the
//! numbers come from [`crate::metrics`]. The first column of every table is its row key, which
//! is what findings point at (`fila`).

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::metrics::mentions::{host_matches, host_of, normalize_host};
use crate::metrics::{
    self, AnswerFacts, Estimate, ModelWeights, Scope, ScopeStats, agreement, brand_stats, concentration,
};
use crate::model::{Metric, Study, TableKind, TableSpec};

/// One published table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    pub id: String,
    #[serde(rename = "nombre")]
    pub name: String,
    #[serde(rename = "titulo")]
    pub title: String,
    #[serde(rename = "titulo_en")]
    pub title_en: String,
    #[serde(rename = "columnas")]
    pub columns: Vec<String>,
    #[serde(rename = "filas")]
    pub rows: Vec<Vec<Cell>>,
    /// Scope and weighting of the numbers, in Spanish.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "nota")]
    pub note: Option<String>,
}

impl Table {
    /// The cell at the row whose first column is `row_key`, in column `column_name`.
    pub fn cell(&self, row_key: &str, column_name: &str) -> Option<&Cell> {
        let column = self.columns.iter().position(|c| c == column_name)?;
        self.rows
            .iter()
            .find(|row| matches!(row.first(), Some(Cell::Text(key)) if key == row_key))
            .and_then(|row| row.get(column))
    }

    /// Row keys (first column), in order.
    pub fn row_keys(&self) -> impl Iterator<Item = &str> {
        self.rows.iter().filter_map(|row| match row.first() {
            Some(Cell::Text(key)) => Some(key.as_str()),
            _ => None,
        })
    }

    /// True for a column that accompanies a rate or mean (`x_n`, `x_n_ef`, `x_ic95`).
    pub fn is_companion(&self, column: &str) -> bool {
        let has = |name: &str| self.columns.iter().any(|c| c == name);
        COMPANIONS
            .iter()
            .any(|suffix| column.strip_suffix(suffix).is_some_and(|base| has(base) && has(&format!("{base}_ic95"))))
    }

    /// The columns that are not companions (the table as it read before intervals).
    pub fn value_columns(&self) -> impl Iterator<Item = &str> {
        self.columns.iter().map(String::as_str).filter(|c| !self.is_companion(c))
    }

    /// The base `n` and 95% interval published beside the cell (`row`, `column`), when
    /// `column` is a rate or mean.
    pub fn uncertainty(&self, row: &str, column: &str) -> Option<CellUncertainty> {
        if !self.columns.iter().any(|c| *c == format!("{column}_ic95")) {
            return None;
        }
        let n = match self.cell(row, &format!("{column}_n")) {
            Some(Cell::Int(n)) => Some(*n),
            _ => None,
        };
        let ic95 = match self.cell(row, &format!("{column}_ic95")) {
            Some(Cell::Interval(low, high)) => Some((*low, *high)),
            _ => None,
        };
        Some((n, ic95))
    }
}

/// A cell's base `n` and 95% interval, as published beside it (`None`: null).
pub type CellUncertainty = (Option<i64>, Option<(f64, f64)>);

/// A table cell: text, a count, a rounded number, a 95% interval `[low, high]`, or null (not
/// defined for this scope).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Cell {
    Text(String),
    Int(i64),
    Num(f64),
    Interval(f64, f64),
    Null,
}

/// Suffixes of the columns published beside every rate or mean column `c`: `c_n` (answers in
/// its base), `c_n_ef` (effective sample size) and `c_ic95` (`[low, high]`).
pub const COMPANIONS: [&str; 3] = ["_n", "_n_ef", "_ic95"];

/// Pushes a rate or mean column and its companions.
fn push_estimate_column(columns: &mut Vec<String>, column: &str) {
    columns.push(column.to_owned());
    columns.extend(COMPANIONS.iter().map(|suffix| format!("{column}{suffix}")));
}

/// The four cells of an estimate: value, `n`, `n_ef`, `ic95` (null when not defined).
fn estimate_cells(estimate: Option<Estimate>) -> [Cell; 4] {
    match estimate {
        None => [Cell::Null, Cell::Int(0), Cell::Null, Cell::Null],
        Some(e) => {
            let u = e.uncertainty;
            [
                Cell::Num(e.value),
                Cell::count(u.n),
                Cell::Num(u.n_ef),
                u.ic95.map_or(Cell::Null, |(low, high)| Cell::Interval(low, high)),
            ]
        }
    }
}

impl Cell {
    fn num(value: Option<f64>) -> Cell {
        value.map_or(Cell::Null, Cell::Num)
    }

    fn count(n: usize) -> Cell {
        Cell::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }

    /// The cell as a number (counts included), for findings and charts.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Int(n) => Some(*n as f64),
            Cell::Num(x) => Some(*x),
            Cell::Text(_) | Cell::Interval(..) | Cell::Null => None,
        }
    }
}

/// Computes every analysis table of a study, in spec order.
pub fn analyze(study: &Study) -> Result<Vec<Table>> {
    analyze_facts(study, &metrics::extract_facts(study))
}

/// [`analyze`] with the answer facts already extracted.
pub fn analyze_facts(study: &Study, facts: &[AnswerFacts]) -> Result<Vec<Table>> {
    let context = Context_::new(study, facts);
    study
        .design
        .analyses
        .iter()
        .map(|spec| context.table(spec).with_context(|| format!("{}: tabla {}", study.slug, spec.id)))
        .collect()
}

/// What every table of one study shares: the study, its facts and weights.
struct Context_<'a> {
    study: &'a Study,
    facts: &'a [AnswerFacts],
    weights: ModelWeights,
}

impl<'a> Context_<'a> {
    fn new(study: &'a Study, facts: &'a [AnswerFacts]) -> Self {
        Context_ { study, facts, weights: metrics::model_weights(study) }
    }

    fn table(&self, spec: &TableSpec) -> Result<Table> {
        let base = self.filtered(spec)?;
        let (columns, rows) = match spec.kind {
            TableKind::Brands => self.brands_table(spec, &base)?,
            TableKind::BrandByModel => self.brand_by_model(spec, &base)?,
            TableKind::BrandByDimension => self.brand_by_dimension(spec, &base)?,
            TableKind::ModelByDimension => self.model_by_dimension(spec, &base)?,
            TableKind::Concentration => self.concentration_table(spec, &base)?,
            TableKind::Agreement => self.agreement_table(&base),
            TableKind::Stability => self.stability_table(&base),
            TableKind::Tone => self.tone_table(&base),
            TableKind::Sources => self.sources_table(spec, &base),
        };
        Ok(Table {
            id: spec.id.clone(),
            name: spec.name.clone(),
            title: spec.title.clone(),
            title_en: spec.title_en.clone(),
            columns,
            rows,
            note: Some(self.note(spec, base.len())),
        })
    }

    /// Answers to questions matching the spec's filter.
    fn filtered(&self, spec: &TableSpec) -> Result<Vec<&'a AnswerFacts>> {
        for dimension in spec.filter.keys() {
            self.dimension_values(dimension)?;
        }
        Ok(self
            .facts
            .iter()
            .filter(|a| spec.filter.iter().all(|(d, v)| self.dimension_of(a, d) == Some(v.as_str())))
            .collect())
    }

    /// The value of dimension `d` for an answer: its question's, or its own surface for
    /// `superficie`.
    fn dimension_of(&self, a: &AnswerFacts, d: &str) -> Option<&'a str> {
        self.study.answers[a.answer].dimension(&self.study.questions[a.question], d)
    }

    fn scope(&self, answers: Vec<&'a AnswerFacts>) -> Scope<'a> {
        Scope::new(answers, &self.weights)
    }

    /// Every brand's estimate of `metric` over `answers`, by brand index.
    fn estimates(&self, answers: Vec<&'a AnswerFacts>, metric: Metric) -> Vec<Option<Estimate>> {
        let scope = self.scope(answers);
        let stats = brand_stats(&scope, self.study.brands.len());
        (0..self.study.brands.len()).map(|b| stats.estimate(b, metric)).collect()
    }

    fn dimension_values(&self, id: &str) -> Result<&'a [String]> {
        match self.study.design.dimensions.iter().find(|d| d.id == id) {
            Some(d) => Ok(&d.values),
            None => bail!("la dimensión `{id}` no está declarada en `dimensiones`"),
        }
    }

    fn required_dimension<'s>(&self, spec: &'s TableSpec) -> Result<(&'s str, &'a [String])> {
        let Some(id) = spec.dimension.as_deref() else { bail!("el tipo `{}` necesita `dimension`", spec.kind.id()) };
        Ok((id, self.dimension_values(id)?))
    }

    fn single_metric(&self, spec: &TableSpec) -> Result<Metric> {
        match spec.metrics.as_slice() {
            [metric] => Ok(*metric),
            _ => bail!("este tipo de tabla lleva exactamente una métrica en `metricas`"),
        }
    }

    fn in_dimension(&self, answers: &[&'a AnswerFacts], dimension: &str, value: &str) -> Vec<&'a AnswerFacts> {
        answers.iter().copied().filter(|a| self.dimension_of(a, dimension) == Some(value)).collect()
    }

    fn of_model(&self, answers: &[&'a AnswerFacts], model: usize) -> Vec<&'a AnswerFacts> {
        answers.iter().copied().filter(|a| a.model == model).collect()
    }

    fn brand_name(&self, b: usize) -> Cell {
        Cell::Text(self.study.brands[b].name.clone())
    }

    fn brands_table(&self, spec: &TableSpec, base: &[&'a AnswerFacts]) -> Result<(Vec<String>, Vec<Vec<Cell>>)> {
        let Some(&sort_by) = spec.metrics.first() else {
            bail!("una tabla `marcas` lleva al menos una métrica en `metricas`")
        };
        let mut columns = vec!["marca".to_owned()];
        for metric in &spec.metrics {
            push_estimate_column(&mut columns, metric.id());
            match metric {
                Metric::Order => columns.push("n_orden".to_owned()),
                Metric::NetTone => columns.push("n_tono".to_owned()),
                _ => {}
            }
        }
        let scope = self.scope(base.to_vec());
        let stats = brand_stats(&scope, self.study.brands.len());
        let mut rows: Vec<(usize, Vec<Cell>)> = stats
            .brands
            .iter()
            .enumerate()
            .map(|(b, s)| {
                let mut row = vec![self.brand_name(b)];
                for metric in &spec.metrics {
                    row.extend(estimate_cells(stats.estimate(b, *metric)));
                    match metric {
                        Metric::Order => row.push(Cell::count(s.n_mention)),
                        Metric::NetTone => row.push(Cell::count(s.n_tone())),
                        _ => {}
                    }
                }
                (b, row)
            })
            .collect();
        sort_rows(&mut rows, sort_by, |b| value_of(&stats, *b, sort_by), self);
        Ok((columns, rows.into_iter().map(|(_, r)| r).collect()))
    }

    /// Rows: brands; columns: one scope each, plus the total over `base`.
    fn brand_cross(
        &self,
        metric: Metric,
        base: &[&'a AnswerFacts],
        first: &str,
        groups: Vec<(String, Vec<&'a AnswerFacts>)>,
    ) -> (Vec<String>, Vec<Vec<Cell>>) {
        let mut columns = vec![first.to_owned()];
        for (name, _) in &groups {
            push_estimate_column(&mut columns, name);
        }
        push_estimate_column(&mut columns, "total");
        let per_group: Vec<Vec<Option<Estimate>>> =
            groups.into_iter().map(|(_, answers)| self.estimates(answers, metric)).collect();
        let total = self.estimates(base.to_vec(), metric);
        let mut rows: Vec<(usize, Vec<Cell>)> = (0..self.study.brands.len())
            .map(|b| {
                let mut row = vec![self.brand_name(b)];
                for group in &per_group {
                    row.extend(estimate_cells(group[b]));
                }
                row.extend(estimate_cells(total[b]));
                (b, row)
            })
            .collect();
        sort_rows(&mut rows, metric, |b| total[*b].map(|e| e.value), self);
        (columns, rows.into_iter().map(|(_, r)| r).collect())
    }

    fn brand_by_model(&self, spec: &TableSpec, base: &[&'a AnswerFacts]) -> Result<(Vec<String>, Vec<Vec<Cell>>)> {
        let metric = self.single_metric(spec)?;
        let groups = self.model_groups(base);
        Ok(self.brand_cross(metric, base, "marca", groups))
    }

    fn brand_by_dimension(&self, spec: &TableSpec, base: &[&'a AnswerFacts]) -> Result<(Vec<String>, Vec<Vec<Cell>>)> {
        let metric = self.single_metric(spec)?;
        let (dimension, values) = self.required_dimension(spec)?;
        let groups = values.iter().map(|v| (v.clone(), self.in_dimension(base, dimension, v))).collect();
        Ok(self.brand_cross(metric, base, "marca", groups))
    }

    fn model_groups(&self, base: &[&'a AnswerFacts]) -> Vec<(String, Vec<&'a AnswerFacts>)> {
        self.study
            .design
            .models
            .iter()
            .enumerate()
            .map(|(m, model)| (model.id.clone(), self.of_model(base, m)))
            .collect()
    }

    fn model_by_dimension(&self, spec: &TableSpec, base: &[&'a AnswerFacts]) -> Result<(Vec<String>, Vec<Vec<Cell>>)> {
        let metric = self.single_metric(spec)?;
        let (dimension, values) = self.required_dimension(spec)?;
        let Some(brand_id) = spec.brand.as_deref() else { bail!("el tipo `modelo_por_dimension` necesita `marca`") };
        let Some(brand) = self.study.brands.iter().position(|b| b.id == brand_id) else {
            bail!("la marca `{brand_id}` no está en marcas.toml")
        };
        let cells = |answers: Vec<&'a AnswerFacts>| {
            let scope = self.scope(answers);
            estimate_cells(brand_stats(&scope, self.study.brands.len()).estimate(brand, metric))
        };
        let mut columns = vec!["modelo".to_owned()];
        for value in values {
            push_estimate_column(&mut columns, value);
        }
        push_estimate_column(&mut columns, "total");
        let mut rows = Vec::new();
        let mut groups = self.model_groups(base);
        groups.push(("total".to_owned(), base.to_vec()));
        for (name, answers) in groups {
            let mut row = vec![Cell::Text(name)];
            for v in values {
                row.extend(cells(self.in_dimension(&answers, dimension, v)));
            }
            row.extend(cells(answers));
            rows.push(row);
        }
        Ok((columns, rows))
    }

    fn concentration_table(&self, spec: &TableSpec, base: &[&'a AnswerFacts]) -> Result<(Vec<String>, Vec<Vec<Cell>>)> {
        let mut groups = match spec.dimension.as_deref() {
            Some(dimension) => self
                .dimension_values(dimension)?
                .iter()
                .map(|v| (v.clone(), self.in_dimension(base, dimension, v)))
                .collect(),
            None => self.model_groups(base),
        };
        groups.push(("total".to_owned(), base.to_vec()));
        let mut columns = vec!["grupo".to_owned(), "respuestas".to_owned()];
        push_estimate_column(&mut columns, "con_marca");
        columns.extend(["marcas_distintas", "lider"].map(str::to_owned));
        push_estimate_column(&mut columns, "top1_lider");
        columns.extend(["hhi_sov", "hhi_top1"].map(str::to_owned));
        let rows = groups
            .into_iter()
            .map(|(name, answers)| {
                let c = concentration(&self.scope(answers), self.study.brands.len());
                let mut row = vec![Cell::Text(name), Cell::count(c.answers)];
                row.extend(estimate_cells(c.with_brand));
                row.push(Cell::count(c.distinct_brands));
                row.push(c.leader.map_or(Cell::Null, |b| self.brand_name(b)));
                row.extend(estimate_cells(c.leader_top1));
                row.extend([Cell::num(c.hhi_sov), Cell::num(c.hhi_top1)]);
                row
            })
            .collect();
        Ok((columns, rows))
    }

    fn agreement_table(&self, base: &[&'a AnswerFacts]) -> (Vec<String>, Vec<Vec<Cell>>) {
        let (pairs, total) = agreement(&self.scope(base.to_vec()));
        let mut columns = ["par", "modelo_a", "modelo_b", "preguntas", "omitidas"].map(str::to_owned).to_vec();
        push_estimate_column(&mut columns, "jaccard");
        push_estimate_column(&mut columns, "top1_coincide");
        let model = |m: usize| self.study.design.models[m].id.clone();
        let row = |key: String, a: Cell, b: Cell, g: &metrics::Agreement| {
            let mut row = vec![Cell::Text(key), a, b, Cell::count(g.questions), Cell::count(g.skipped)];
            row.extend(estimate_cells(g.jaccard()));
            row.extend(estimate_cells(g.top1_match()));
            row
        };
        let mut rows: Vec<Vec<Cell>> = pairs
            .iter()
            .map(|((a, b), g)| {
                let key = format!("{} vs {}", model(*a), model(*b));
                row(key, Cell::Text(model(*a)), Cell::Text(model(*b)), g)
            })
            .collect();
        rows.push(row("total".to_owned(), Cell::Null, Cell::Null, &total));
        (columns, rows)
    }

    fn stability_table(&self, base: &[&'a AnswerFacts]) -> (Vec<String>, Vec<Vec<Cell>>) {
        let (models, total) = metrics::stability(&self.scope(base.to_vec()));
        let mut columns = ["modelo", "pares", "omitidos"].map(str::to_owned).to_vec();
        push_estimate_column(&mut columns, "jaccard");
        push_estimate_column(&mut columns, "top1_coincide");
        let row = |key: String, g: &metrics::Agreement| {
            let mut row = vec![Cell::Text(key), Cell::count(g.questions), Cell::count(g.skipped)];
            row.extend(estimate_cells(g.jaccard()));
            row.extend(estimate_cells(g.top1_match()));
            row
        };
        let mut rows: Vec<Vec<Cell>> =
            models.iter().map(|(m, g)| row(self.study.design.models[*m].id.clone(), g)).collect();
        rows.push(row("total".to_owned(), &total));
        (columns, rows)
    }

    fn tone_table(&self, base: &[&'a AnswerFacts]) -> (Vec<String>, Vec<Vec<Cell>>) {
        let scope = self.scope(base.to_vec());
        let stats = brand_stats(&scope, self.study.brands.len());
        let mut columns = ["marca", "pos", "neu", "neg", "n_tono"].map(str::to_owned).to_vec();
        push_estimate_column(&mut columns, "tono_neto");
        let mut rows: Vec<(usize, Vec<Cell>)> = stats
            .brands
            .iter()
            .enumerate()
            .filter(|(_, s)| s.n_tone() > 0)
            .map(|(b, s)| {
                let mut row = vec![
                    self.brand_name(b),
                    Cell::count(s.pos),
                    Cell::count(s.neu),
                    Cell::count(s.neg),
                    Cell::count(s.n_tone()),
                ];
                row.extend(estimate_cells(stats.estimate(b, Metric::NetTone)));
                (b, row)
            })
            .collect();
        sort_rows(&mut rows, Metric::NetTone, |b| value_of(&stats, *b, Metric::NetTone), self);
        (columns, rows.into_iter().map(|(_, r)| r).collect())
    }

    /// Most cited source domains. A host under a brand domain counts as that domain.
    fn sources_table(&self, spec: &TableSpec, base: &[&'a AnswerFacts]) -> (Vec<String>, Vec<Vec<Cell>>) {
        let brand_domains: Vec<(String, usize)> = self
            .study
            .brands
            .iter()
            .enumerate()
            .flat_map(|(b, brand)| brand.domains.iter().map(move |d| (normalize_host(d), b)))
            .collect();
        // domain → (answers citing it, owner brand)
        let mut citing: BTreeMap<String, (Vec<&'a AnswerFacts>, Option<usize>)> = BTreeMap::new();
        for a in base {
            let mut domains: Vec<(String, Option<usize>)> = self.study.answers[a.answer]
                .sources
                .iter()
                .filter_map(|s| host_of(&s.url))
                .map(|host| match brand_domains.iter().find(|(d, _)| host_matches(&host, d)) {
                    Some((d, b)) => (d.clone(), Some(*b)),
                    None => (host, None),
                })
                .collect();
            domains.sort();
            domains.dedup();
            for (domain, owner) in domains {
                let entry = citing.entry(domain).or_insert_with(|| (Vec::new(), owner));
                entry.0.push(a);
            }
        }
        let scope = self.scope(base.to_vec());
        // Rank every domain by its exact rate, then compute intervals for the rows kept.
        let mut ranked: Vec<(f64, String, Vec<&'a AnswerFacts>, Option<usize>)> = citing
            .into_iter()
            .map(|(domain, (answers, owner))| {
                let rate = scope.rounded_share(&answers).unwrap_or(0.0);
                (rate, domain, answers, owner)
            })
            .collect();
        // Highest (weighted) rate first, then by name.
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        ranked.truncate(spec.limit.unwrap_or(15));
        let mut columns = ["dominio", "respuestas"].map(str::to_owned).to_vec();
        push_estimate_column(&mut columns, "tasa");
        columns.push("marca".to_owned());
        let rows = ranked
            .into_iter()
            .map(|(_, domain, answers, owner)| {
                let cites: std::collections::BTreeSet<usize> = answers.iter().map(|a| a.answer).collect();
                let mut row = vec![Cell::Text(domain), Cell::count(answers.len())];
                row.extend(estimate_cells(scope.share(|a| cites.contains(&a.answer))));
                row.push(owner.map_or(Cell::Null, |b| self.brand_name(b)));
                row
            })
            .collect();
        (columns, rows)
    }

    /// Scope and weighting of a table, in words.
    fn note(&self, spec: &TableSpec, answers: usize) -> String {
        let mut note = format!("Base: {answers} respuestas");
        if !spec.filter.is_empty() {
            let filter: Vec<String> = spec.filter.iter().map(|(d, v)| format!("{d} = {v}")).collect();
            note.push_str(&format!(" (filtro: {})", filter.join(", ")));
        }
        note.push_str(". ");
        note.push_str(match spec.kind {
            TableKind::Agreement => {
                "Promedio simple por pregunta; se omiten los pares en que ningún modelo nombra una marca."
            }
            TableKind::Stability => {
                "Cada modelo contra sí mismo entre las repeticiones de una pregunta; promedio simple de los pares; se omiten los pares en que ninguna respuesta nombra una marca."
            }
            _ => match &self.study.design.weighting {
                Some(_) => "Modelos ponderados por cuota de mercado",
                None => "Modelos con igual peso.",
            },
        });
        if let (Some(w), false) =
            (&self.study.design.weighting, matches!(spec.kind, TableKind::Agreement | TableKind::Stability))
        {
            note.push_str(&format!(" (fuente: {}).", w.source));
        }
        if spec.metrics.contains(&Metric::ConsultedNotCited) {
            note.push(' ');
            note.push_str(&consulted_note(self.recorded(spec)));
        }
        note
    }

    /// Answers of the table (after its filter) that record their consulted sources.
    fn recorded(&self, spec: &TableSpec) -> usize {
        self.filtered(spec).map_or(0, |base| base.iter().filter(|a| a.brands.consulted.is_some()).count())
    }
}

/// What a table with `consultada_no_citada` says about its base: the answers that record
/// their consulted sources, or that none does (the column is then empty: not recorded, not 0).
pub fn consulted_note(recorded: usize) -> String {
    match recorded {
        0 => "Consultada y no citada: no registrada (ninguna respuesta de la tabla registra las fuentes que consultó el proveedor; la columna queda vacía, no en 0).".to_owned(),
        n => format!(
            "Consultada y no citada: sobre las {n} respuestas que registran las fuentes que consultó el proveedor (vacía donde ninguna las registra)."
        ),
    }
}

/// The published (rounded) value of one brand-level metric.
fn value_of(stats: &ScopeStats<'_, '_>, brand: usize, metric: Metric) -> Option<f64> {
    stats.estimate(brand, metric).map(|e| e.value)
}

/// Sorts brand rows best first by `metric` (lowest average order is best), nulls last, then
/// by brand name, so the order is total and stable.
fn sort_rows<T>(
    rows: &mut [(usize, T)],
    metric: Metric,
    value: impl Fn(&usize) -> Option<f64>,
    context: &Context_<'_>,
) {
    // Each row's key once (an estimate computes its interval too), not once per comparison.
    let keys: BTreeMap<usize, Option<f64>> = rows.iter().map(|(b, _)| (*b, value(b))).collect();
    let key = |b: &usize| keys.get(b).copied().flatten();
    rows.sort_by(|(a, _), (b, _)| {
        let by_value = match (key(a), key(b)) {
            (Some(x), Some(y)) if metric == Metric::Order => x.total_cmp(&y),
            (Some(x), Some(y)) => y.total_cmp(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        by_value.then_with(|| context.study.brands[*a].name.cmp(&context.study.brands[*b].name))
    });
}

#[cfg(test)]
mod tests;
