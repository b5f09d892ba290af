#!/usr/bin/env python3
"""Independent recomputation of every analysis table of every study.

Written from the published texts only: the book's format and metrics pages
(docs/src/publicar/: estudio.md, marcas.md, preguntas-y-respuestas.md, tablas.md
and metricas.md, once sections 3.3 to 3.6, 4 and 5 of content/README.md) and
content/metricas.toml. No Rust source was read. It loads each study under
<content>/estudios/, detects the tracked brands in every answer following the
rules of marcas.md, builds every `[[analisis]]` table following tablas.md and
the formulas of metricas.md / metricas.toml, and compares
the result with the published package <dist>/private/descargas/<slug>.json
(field `analisis`).

Comparison rules:
  * columns, row order and row keys must match exactly;
  * point estimates (rates, means, HHI) are computed exactly with
    fractions.Fraction and rounded once, half away from zero, to 4 decimals:
    they must be equal to the published decimal;
  * counts (`_n`, `n_orden`, `respuestas`, `pos`...) and texts must be equal;
  * `_n_ef` may differ by 0.1 and interval bounds by 0.0001 (floating point);
  * nulls must be where the texts say.

Standard library only (Python 3.11+). Exit status: 0 if everything agrees,
1 on any mismatch.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tomllib
import unicodedata
import urllib.parse
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

Z = 1.959964
TOL_N_EF = 0.1
TOL_IC = 0.0001
EPS = 1e-9

BRAND_METRICS = (
    "mencion", "orden", "citacion", "citacion_fantasma", "consultada_no_citada",
    "protagonismo", "top1", "sov", "tono_neto",
)
SURFACE_DIMENSION = "superficie"   # read from each answer, `api` when absent (estudio.md, preguntas-y-respuestas.md)
# Means and the range their interval is cut to (metricas.md).
MEAN_RANGES = {
    "orden": (1.0, math.inf),
    "protagonismo": (0.0, 10.0),
    "tono_neto": (-1.0, 1.0),
    "jaccard": (0.0, 1.0),
}
POINTS = {1: 10, 2: 8, 3: 7, 4: 6}  # 5th or later: 5; absent: 0


# --------------------------------------------------------------------------
# Cell values produced by this script (they know how to compare themselves)
# --------------------------------------------------------------------------

@dataclass
class Exact:
    """A point estimate already rounded to 4 decimals (a Fraction k/10000)."""
    value: Fraction

    def __str__(self) -> str:
        return _fmt_fraction(self.value)


@dataclass
class Approx:
    """A floating-point number compared within a tolerance (`_n_ef`)."""
    value: float
    tol: float

    def __str__(self) -> str:
        return f"{self.value:.4f}"


@dataclass
class Interval:
    low: float
    high: float

    def __str__(self) -> str:
        return f"[{self.low:.5f}, {self.high:.5f}]"


def _fmt_fraction(f: Fraction) -> str:
    sign = "-" if f < 0 else ""
    k = abs(f) * 10000
    assert k.denominator == 1
    k = int(k)
    return f"{sign}{k // 10000}.{k % 10000:04d}"


def cell_matches(published, mine) -> bool:
    if mine is None:
        return published is None
    if published is None:
        return False
    if isinstance(mine, Exact):
        if isinstance(published, bool) or not isinstance(published, (int, float)):
            return False
        return Fraction(repr(published)) == mine.value
    if isinstance(mine, Approx):
        return (isinstance(published, (int, float))
                and abs(published - mine.value) <= mine.tol + EPS)
    if isinstance(mine, Significant):
        if isinstance(published, bool) or not isinstance(published, (int, float)):
            return False
        if mine.value == 0:
            return published == 0
        unit = 10 ** (math.floor(math.log10(abs(mine.value))) - 3)
        return abs(published - mine.value) <= unit
    if isinstance(mine, Interval):
        return (isinstance(published, list) and len(published) == 2
                and all(isinstance(v, (int, float)) for v in published)
                and abs(published[0] - mine.low) <= TOL_IC + EPS
                and abs(published[1] - mine.high) <= TOL_IC + EPS)
    if isinstance(mine, bool):
        return published is mine
    if isinstance(mine, int):
        return isinstance(published, int) and not isinstance(published, bool) and published == mine
    return published == mine


def show(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, (Exact, Approx, Interval, Significant)):
        return str(v)
    return json.dumps(v, ensure_ascii=False)


# --------------------------------------------------------------------------
# Rounding
# --------------------------------------------------------------------------

def round4(x: Fraction) -> Fraction:
    """Round a Fraction once to 4 decimals, half away from zero; never -0."""
    scaled = abs(x) * 10000
    k = scaled.numerator // scaled.denominator
    if scaled - k >= Fraction(1, 2):
        k += 1
    if x < 0:
        k = -k
    return Fraction(k, 10000)


def round_float(x: float, decimals: int) -> float:
    scaled = abs(x) * 10 ** decimals
    k = math.floor(scaled + 0.5)
    return math.copysign(k, x) / 10 ** decimals + 0.0


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------

def decimal_weight(v) -> Fraction:
    """A weight of ponderacion.pesos read as the decimal written (0.35 = 35/100)."""
    if isinstance(v, bool):
        raise ValueError("weight cannot be a boolean")
    if isinstance(v, int):
        return Fraction(v)
    # repr() of a float gives the shortest decimal that reads back to it,
    # which is what the author wrote.
    return Fraction(repr(v))


@dataclass
class Brand:
    id: str
    nombre: str
    index: int
    aliases: list[str]          # folded, unique
    exclusions: list[str]       # folded
    domains: list[str]          # lower case, without "www."


@dataclass
class Answer:
    id: str
    question: str
    model: str
    named: list[str]            # brand ids in order of first appearance
    cited: set[str]             # brand ids cited through a source domain
    source_keys: set[tuple[str, str | None]]  # (domain, owner) rows of `fuentes`
    tone: dict[str, str]        # brand id -> pos / neu / neg
    dims: dict[str, str]        # dimension id -> value (question's values; the answer's surface)
    repetition: int = 1         # `repeticion` (1 when the line does not say)
    surface: str = "api"        # `superficie` (preguntas-y-respuestas.md)
    consulted: set[str] | None = None  # brand ids consulted (fuentes_consultadas); None: not recorded

    @property
    def position(self) -> dict[str, int]:
        return {b: i + 1 for i, b in enumerate(self.named)}


@dataclass
class Study:
    slug: str
    config: dict
    models: list[str]
    weights: dict[str, Fraction]
    brands: list[Brand]
    answers: list[Answer] = field(default_factory=list)
    question_ids: list[str] = field(default_factory=list)

    def brand(self, bid: str) -> Brand:
        return next(b for b in self.brands if b.id == bid)


def read_jsonl(path: Path) -> list[dict]:
    out = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                out.append(json.loads(line))
    return out


def load_study(folder: Path) -> Study:
    with (folder / "estudio.toml").open("rb") as fh:
        config = tomllib.load(fh)
    with (folder / "marcas.toml").open("rb") as fh:
        marcas = tomllib.load(fh)

    models = [m["id"] for m in config["modelos"]]
    pesos = config.get("ponderacion", {}).get("pesos")
    weights = {m: (decimal_weight(pesos[m]) if pesos else Fraction(1)) for m in models}

    brands = []
    for i, m in enumerate(marcas["marcas"]):
        aliases = []
        for a in [m["nombre"], *m.get("alias", [])]:
            fa = fold(a.strip())
            if fa and fa not in aliases:
                aliases.append(fa)
        exclusions = [fe for fe in (fold(e.strip()) for e in m.get("excluir", [])) if fe]
        domains = [strip_www(d.strip().lower().rstrip(".")) for d in m.get("dominios", [])]
        brands.append(Brand(m["id"], m["nombre"], i, aliases, exclusions, domains))

    study = Study(folder.name, config, models, weights, brands)
    dim_ids = [d["id"] for d in config["dimensiones"]]
    questions = {}
    for q in read_jsonl(folder / "preguntas.jsonl"):
        dims = {d: (q["idioma"] if d == "idioma" else q[d]) for d in dim_ids if d != SURFACE_DIMENSION}
        questions[q["id"]] = dims
    for r in read_jsonl(folder / "respuestas.jsonl"):
        study.answers.append(read_answer(r, brands, questions, dim_ids))
    return study


def read_answer(r: dict, brands: list[Brand], questions: dict, dim_ids: list[str]) -> Answer:
    """One line of respuestas.jsonl: brands named, cited and consulted (marcas.md, preguntas-y-respuestas.md)."""
    named = detect_mentions(r["respuesta"], brands)
    hosts = [source_host(s["url"]) for s in r.get("fuentes", [])]
    cited = {b.id for b in brands for h in hosts if host_in_brand(h, b)}
    keys = {source_key(h, brands) for h in hosts}
    consulted = None
    if "fuentes_consultadas" in r:
        chosts = [source_host(s["url"]) for s in r["fuentes_consultadas"]]
        consulted = {b.id for b in brands for h in chosts if host_in_brand(h, b)}
    surface = r.get("superficie", "api")
    dims = dict(questions[r["pregunta"]])
    if SURFACE_DIMENSION in dim_ids:
        dims[SURFACE_DIMENSION] = surface
    return Answer(r["id"], r["pregunta"], r["modelo"], named, cited, keys,
                  dict(r.get("tono", {})), dims, r.get("repeticion", 1), surface, consulted)


# --------------------------------------------------------------------------
# Brand detection (marcas.md)
# --------------------------------------------------------------------------

def fold(s: str) -> str:
    """NFD, drop every combining mark (Unicode category M: accents, diaeresis, the
    tilde of ñ, the cedilla of ç...), then lower-case (marcas.md, rule 1)."""
    decomposed = unicodedata.normalize("NFD", s)
    return "".join(c for c in decomposed
                   if not unicodedata.category(c).startswith("M")).lower()


def is_word_char(c: str) -> bool:
    return c.isalnum()


def occurrences(text: str, phrase: str, whole_word: bool = True) -> list[tuple[int, int]]:
    """Every (start, end) where `phrase` appears in `text`, overlapping allowed."""
    out = []
    if not phrase:
        return out
    start = text.find(phrase)
    while start != -1:
        end = start + len(phrase)
        ok = True
        if whole_word:
            ok = ((start == 0 or not is_word_char(text[start - 1]))
                  and (end == len(text) or not is_word_char(text[end])))
        if ok:
            out.append((start, end))
        start = text.find(phrase, start + 1)
    return out


def detect_mentions(text: str, brands: list[Brand]) -> list[str]:
    """Brand ids named in `text`, in order of first appearance.

    1. fold text, names, aliases and exclusions; 2. whole words only (aliases
    and exclusion phrases alike); 3. literal otherwise; 4. one global
    resolution: every occurrence of every alias of every brand (overlapping
    ones included), taken longest alias first (length in UTF-8 bytes of the
    folded alias; ties by the folded alias text, then brand order), each alias
    in text order; 5. an occurrence lying entirely inside one of its own
    brand's exclusion phrases is not a candidate (so it blocks nothing), and
    one overlapping an occurrence already taken is dropped; 6. order = first
    appearance.
    """
    t = fold(text)
    candidates = []  # (alias sort key, start, end, brand index)
    for b in brands:
        excluded_spans = [sp for e in b.exclusions for sp in occurrences(t, e, whole_word=True)]
        for a in b.aliases:
            rank = (-len(a.encode("utf-8")), a, b.index)
            for s, e in occurrences(t, a):
                if any(xs <= s and e <= xe for xs, xe in excluded_spans):
                    continue
                candidates.append((rank, s, e, b.index))
    # longest alias first (ties: alias text, brand), each alias in text order;
    # keep those not overlapping a kept one
    candidates.sort()
    kept: list[tuple[int, int, int]] = []
    for _rank, s, e, bi in candidates:
        if all(e <= k[0] or k[1] <= s for k in kept):
            kept.append((s, e, bi))
    first: dict[int, int] = {}
    for s, _e, bi in kept:
        if bi not in first or s < first[bi]:
            first[bi] = s
    order = sorted(first, key=lambda bi: first[bi])
    return [brands[bi].id for bi in order]


def strip_www(host: str) -> str:
    return host[4:] if host.startswith("www.") else host


def source_host(url: str) -> str:
    """Host in lower case, without a leading www., a trailing dot or a port."""
    host = urllib.parse.urlsplit(url).hostname or ""
    return strip_www(host.lower().rstrip("."))


def host_in_domain(host: str, domain: str) -> bool:
    return host == domain or host.endswith("." + domain)


def host_in_brand(host: str, brand: Brand) -> bool:
    return any(host_in_domain(host, d) for d in brand.domains)


def source_key(host: str, brands: list[Brand]) -> tuple[str, str | None]:
    """Row of the `fuentes` table: (domain, owner brand name).

    The first brand domain the host falls in, going through the brands in
    marcas.toml order and each brand's `dominios` in the order written; a host
    under no brand domain is its own row, without an owner (tablas.md).
    """
    for b in brands:
        for d in b.domains:
            if host_in_domain(host, d):
                return d, b.nombre
    return host, None


# --------------------------------------------------------------------------
# Weights and the ratio estimator (metricas.md)
# --------------------------------------------------------------------------

def answer_weights(study: Study, scope: list[Answer]) -> list[Fraction]:
    """Weight of each answer: (w_m / sum of w of models present) / answers of m in scope."""
    counts: dict[str, int] = {}
    for a in scope:
        counts[a.model] = counts.get(a.model, 0) + 1
    total = sum(study.weights[m] for m in counts)
    per_model = {m: study.weights[m] / total / n for m, n in counts.items()}
    return [per_model[a.model] for a in scope]


@dataclass
class Estimate:
    value: Fraction | None      # unrounded R
    n: int
    n_ef: float | None
    ic: tuple[float, float] | None

    def cells(self) -> list:
        """value, _n, _n_ef, _ic95 as table cells."""
        if self.value is None:
            return [None, 0, None, None]
        return [Exact(round4(self.value)), self.n,
                Approx(round_float(self.n_ef, 1), TOL_N_EF),
                None if self.ic is None else Interval(*self.ic)]


NULL_ESTIMATE = Estimate(None, 0, None, None)


def ratio_estimate(obs: list[tuple[str, Fraction, int | Fraction, int]],
                   kind: str, mean_range: tuple[float, float] | None = None) -> Estimate:
    """Ratio R = sum c*y / sum c*x with question clusters.

    obs: (question id, c weight, y numerator, x denominator) per answer.
    kind: "rate" (Wilson interval at n_ef) or "mean" (R +- z*sqrt(V), cut to range).
    """
    # Exact part: answers of one model share one weight, so sum the integer
    # (or, for jaccard, fractional) y and x per weight first.
    sums: dict[Fraction, list] = {}
    for _q, c, y, x in obs:
        acc = sums.setdefault(c, [0, 0])
        acc[0] += y
        acc[1] += x
    den = sum(c * sx for c, (_sy, sx) in sums.items())
    if den == 0:
        return NULL_ESTIMATE
    r = sum(c * sy for c, (sy, _sx) in sums.items()) / den
    n_base = sum(1 for _q, _c, _y, x in obs if x != 0)
    # Floating-point part: V and n_kish (metricas.md).
    rf, denf = float(r), float(den)
    clusters: dict[str, float] = {}
    sq = 0.0
    for q, c, y, x in obs:
        cf, xf = float(c), float(x)
        clusters[q] = clusters.get(q, 0.0) + cf * (float(y) - rf * xf)
        sq += (cf * xf) ** 2
    v = sum(s * s for s in clusters.values()) / (denf * denf)
    n_kish = denf * denf / sq
    base_questions = len({q for q, _c, _y, x in obs if x != 0})
    if kind == "rate":
        n_ef = n_kish if v == 0 else min(rf * (1 - rf) / v, n_kish)
        ic = wilson(rf, n_ef)
    else:
        n_ef = n_kish
        lo_cut, hi_cut = mean_range
        half = Z * math.sqrt(v)
        ic = (max(lo_cut, rf - half), min(hi_cut, rf + half))
    if base_questions < 2:
        ic = None
    else:
        ic = (round_float(ic[0], 4), round_float(ic[1], 4))
    return Estimate(r, n_base, n_ef, ic)


def wilson(r: float, n: float) -> tuple[float, float]:
    z2 = Z * Z
    denom = 1 + z2 / n
    center = (r + z2 / (2 * n)) / denom
    half = Z / denom * math.sqrt(r * (1 - r) / n + z2 / (4 * n * n))
    return (center - half, center + half)


# --------------------------------------------------------------------------
# Brand metrics (one function per family)
# --------------------------------------------------------------------------

def weighted_obs(study: Study, scope: list[Answer], y_of, x_of):
    ws = answer_weights(study, scope)
    return [(a.question, c, int(y_of(a)), int(x_of(a))) for a, c in zip(scope, ws)]


def metric_mencion(study, scope, bid):
    return ratio_estimate(weighted_obs(study, scope, lambda a: bid in a.named, lambda a: 1), "rate")


def metric_orden(study, scope, bid):
    return ratio_estimate(
        weighted_obs(study, scope, lambda a: a.position.get(bid, 0), lambda a: bid in a.named),
        "mean", MEAN_RANGES["orden"])


def metric_citacion(study, scope, bid):
    return ratio_estimate(weighted_obs(study, scope, lambda a: bid in a.cited, lambda a: 1), "rate")


def metric_citacion_fantasma(study, scope, bid):
    return ratio_estimate(
        weighted_obs(study, scope, lambda a: bid in a.cited and bid not in a.named, lambda a: 1),
        "rate")


def metric_consultada_no_citada(study, scope, bid):
    """Over the answers that record fuentes_consultadas (x = 1, marcas.md and metricas.md): consulted a
    brand domain and cited none (y = 1). Null when none records them."""
    return ratio_estimate(
        weighted_obs(study, scope,
                     lambda a: a.consulted is not None and bid in a.consulted and bid not in a.cited,
                     lambda a: a.consulted is not None),
        "rate")


def prominence_points(a: Answer, bid: str) -> int:
    pos = a.position.get(bid)
    if pos is None:
        return 0
    return POINTS.get(pos, 5)


def metric_protagonismo(study, scope, bid):
    return ratio_estimate(
        weighted_obs(study, scope, lambda a: prominence_points(a, bid), lambda a: 1),
        "mean", MEAN_RANGES["protagonismo"])


def metric_top1(study, scope, bid):
    return ratio_estimate(
        weighted_obs(study, scope, lambda a: bool(a.named) and a.named[0] == bid,
                     lambda a: bool(a.named)),
        "rate")


def metric_sov(study, scope, bid):
    return ratio_estimate(
        weighted_obs(study, scope, lambda a: bid in a.named, lambda a: len(a.named)), "rate")


TONE_VALUE = {"pos": 1, "neu": 0, "neg": -1}


def metric_tono_neto(study, scope, bid):
    return ratio_estimate(
        weighted_obs(study, scope, lambda a: TONE_VALUE.get(a.tone.get(bid), 0),
                     lambda a: bid in a.tone),
        "mean", MEAN_RANGES["tono_neto"])


METRIC_FUNCS = {
    "mencion": metric_mencion,
    "orden": metric_orden,
    "citacion": metric_citacion,
    "citacion_fantasma": metric_citacion_fantasma,
    "consultada_no_citada": metric_consultada_no_citada,
    "protagonismo": metric_protagonismo,
    "top1": metric_top1,
    "sov": metric_sov,
    "tono_neto": metric_tono_neto,
}


def brand_metric(study, scope, metric, bid) -> Estimate:
    if not scope:
        return NULL_ESTIMATE
    return METRIC_FUNCS[metric](study, scope, bid)


def hhi(study: Study, scope: list[Answer], metric: str) -> Fraction | None:
    """10 000 x sum of squared shares (sov or top1) of the tracked brands, exact."""
    if not any(a.named for a in scope):
        return None  # no tracked brand named (hence none first) in the scope
    shares = [brand_metric(study, scope, metric, b.id).value for b in study.brands]
    return 10000 * sum(s * s for s in shares)


# --------------------------------------------------------------------------
# Tables (tablas.md), one function per type
# --------------------------------------------------------------------------

def table_scope(study: Study, spec: dict) -> list[Answer]:
    filt = spec.get("filtro", {})
    return [a for a in study.answers if all(a.dims[k] == v for k, v in filt.items())]


def sort_key_value(est: Estimate, lower_is_better: bool):
    """Sort key on the published (rounded) value: best first, nulls last."""
    if est.value is None:
        return (1, Fraction(0))
    v = round4(est.value)
    return (0, v if lower_is_better else -v)


def estimate_columns(name: str) -> list[str]:
    return [name, f"{name}_n", f"{name}_n_ef", f"{name}_ic95"]


def table_marcas(study, spec, scope):
    metrics = spec["metricas"]
    cols = ["marca"]
    for m in metrics:
        cols += estimate_columns(m)
        if m == "orden":
            cols.append("n_orden")
        if m == "tono_neto":
            cols.append("n_tono")
    rows = []
    for b in study.brands:
        row = [b.nombre]
        ests = {}
        for m in metrics:
            est = brand_metric(study, scope, m, b.id)
            ests[m] = est
            row += est.cells()
            if m == "orden":
                row.append(sum(1 for a in scope if b.id in a.named))
            if m == "tono_neto":
                row.append(sum(1 for a in scope if b.id in a.tone))
        rows.append((sort_key_value(ests[metrics[0]], metrics[0] == "orden"), b.nombre, row))
    rows.sort(key=lambda r: (r[0], r[1]))
    return cols, [r[2] for r in rows]


def crossed_brand_table(study, spec, scope, groups):
    """Brands x groups (models or dimension values) plus total, sorted by total."""
    metric = spec["metricas"][0]
    cols = ["marca"]
    for g, _ in groups:
        cols += estimate_columns(g)
    cols += estimate_columns("total")
    rows = []
    for b in study.brands:
        row = [b.nombre]
        for _g, sub in groups:
            row += brand_metric(study, sub, metric, b.id).cells()
        total = brand_metric(study, scope, metric, b.id)
        row += total.cells()
        rows.append((sort_key_value(total, metric == "orden"), b.nombre, row))
    rows.sort(key=lambda r: (r[0], r[1]))
    return cols, [r[2] for r in rows]


def model_groups(study, scope):
    return [(m, [a for a in scope if a.model == m]) for m in study.models]


def dimension_groups(study, scope, dim):
    values = next(d["valores"] for d in study.config["dimensiones"] if d["id"] == dim)
    return [(v, [a for a in scope if a.dims[dim] == v]) for v in values]


def table_marca_por_modelo(study, spec, scope):
    return crossed_brand_table(study, spec, scope, model_groups(study, scope))


def table_marca_por_dimension(study, spec, scope):
    return crossed_brand_table(study, spec, scope, dimension_groups(study, scope, spec["dimension"]))


def table_modelo_por_dimension(study, spec, scope):
    metric = spec["metricas"][0]
    bid = spec["marca"]
    values = [v for v, _ in dimension_groups(study, scope, spec["dimension"])]
    dim = spec["dimension"]
    cols = ["modelo"]
    for v in values:
        cols += estimate_columns(v)
    cols += estimate_columns("total")
    rows = []
    for key, sub in [*model_groups(study, scope), ("total", scope)]:
        row = [key]
        for v in values:
            row += brand_metric(study, [a for a in sub if a.dims[dim] == v], metric, bid).cells()
        row += brand_metric(study, sub, metric, bid).cells()
        rows.append(row)
    return cols, rows


def table_concentracion(study, spec, scope):
    cols = ["grupo", "respuestas", *estimate_columns("con_marca"), "marcas_distintas",
            "lider", *estimate_columns("top1_lider"), "hhi_sov", "hhi_top1"]
    if spec.get("dimension"):
        groups = dimension_groups(study, scope, spec["dimension"])
    else:
        groups = model_groups(study, scope)
    rows = []
    for key, sub in [*groups, ("total", scope)]:
        row = [key, len(sub)]
        if sub:
            ws = answer_weights(study, sub)
            con = ratio_estimate([(a.question, c, Fraction(bool(a.named)), Fraction(1))
                                  for a, c in zip(sub, ws)], "rate")
        else:
            con = NULL_ESTIMATE
        row += con.cells()
        row.append(sum(1 for b in study.brands if any(b.id in a.named for a in sub)))
        leader, leader_est = None, NULL_ESTIMATE
        best = Fraction(0)
        for b in study.brands:  # marcas.toml order: first wins ties
            est = brand_metric(study, sub, "top1", b.id)
            if est.value is not None and round4(est.value) > best:
                best, leader, leader_est = round4(est.value), b.nombre, est
        row.append(leader)
        row += leader_est.cells()
        for metric in ("sov", "top1"):
            h = hhi(study, sub, metric)
            row.append(None if h is None else Exact(round4(h)))
        rows.append(row)
    return cols, rows


def agreement_obs(pairs_by_question):
    """Jaccard and top-1 observations, c = 1, clustered by question."""
    jac, top = [], []
    preguntas = omitidas = 0
    for q, a, b in pairs_by_question:
        preguntas += 1
        sa, sb = set(a.named), set(b.named)
        union = sa | sb
        if not union:
            omitidas += 1
            continue
        jac.append((q, Fraction(1), Fraction(len(sa & sb), len(union)), Fraction(1)))
        if a.named and b.named:
            top.append((q, Fraction(1), Fraction(a.named[0] == b.named[0]), Fraction(1)))
        else:
            top.append((q, Fraction(1), Fraction(0), Fraction(0)))
    return (preguntas, omitidas,
            ratio_estimate(jac, "mean", MEAN_RANGES["jaccard"]),
            ratio_estimate(top, "rate"))


def table_acuerdo(study, spec, scope):
    cols = ["par", "modelo_a", "modelo_b", "preguntas", "omitidas",
            *estimate_columns("jaccard"), *estimate_columns("top1_coincide")]
    # question -> repetition -> model -> answer: with repetitions, each model's answer of a
    # repetition is compared with the other model's answer of the same repetition.
    by_q: dict[str, dict[int, dict[str, Answer]]] = {}
    for a in scope:
        by_q.setdefault(a.question, {}).setdefault(a.repetition, {}).setdefault(a.model, a)
    q_order = list(dict.fromkeys(a.question for a in scope))
    rows, all_pairs = [], []
    for i, ma in enumerate(study.models):
        for mb in study.models[i + 1:]:
            pairs = [(q, reps[r][ma], reps[r][mb]) for q in q_order
                     for reps in [by_q[q]] for r in sorted(reps)
                     if ma in reps[r] and mb in reps[r]]
            if not pairs:
                continue
            all_pairs += pairs
            p, o, jac, top = agreement_obs(pairs)
            rows.append([f"{ma} vs {mb}", ma, mb, p, o, *jac.cells(), *top.cells()])
    p, o, jac, top = agreement_obs(all_pairs)
    rows.append(["total", None, None, p, o, *jac.cells(), *top.cells()])
    return cols, rows


def table_estabilidad(study, spec, scope):
    """Each model against itself across the repetitions of a question (tablas.md)."""
    cols = ["modelo", "pares", "omitidos",
            *estimate_columns("jaccard"), *estimate_columns("top1_coincide")]
    by_q: dict[str, dict[str, dict[int, Answer]]] = {}
    for a in scope:
        by_q.setdefault(a.question, {}).setdefault(a.model, {}).setdefault(a.repetition, a)
    q_order = list(dict.fromkeys(a.question for a in scope))
    rows, all_pairs = [], []
    for m in study.models:
        pairs = []
        for q in q_order:
            reps = by_q[q].get(m, {})
            answers = [reps[r] for r in sorted(reps)]
            pairs += [(q, answers[i], answers[j])
                      for i in range(len(answers)) for j in range(i + 1, len(answers))]
        if not pairs:
            continue
        all_pairs += pairs
        p, o, jac, top = agreement_obs(pairs)
        rows.append([m, p, o, *jac.cells(), *top.cells()])
    p, o, jac, top = agreement_obs(all_pairs)
    rows.append(["total", p, o, *jac.cells(), *top.cells()])
    return cols, rows


def table_tono(study, spec, scope):
    cols = ["marca", "pos", "neu", "neg", "n_tono", *estimate_columns("tono_neto")]
    rows = []
    for b in study.brands:
        labels = [a.tone[b.id] for a in scope if b.id in a.tone]
        if not labels:
            continue
        est = brand_metric(study, scope, "tono_neto", b.id)
        row = [b.nombre, labels.count("pos"), labels.count("neu"), labels.count("neg"),
               len(labels), *est.cells()]
        rows.append((sort_key_value(est, False), b.nombre, row))
    rows.sort(key=lambda r: (r[0], r[1]))
    return cols, [r[2] for r in rows]


def table_fuentes(study, spec, scope):
    cols = ["dominio", "respuestas", *estimate_columns("tasa"), "marca"]
    domains = sorted({k for a in scope for k in a.source_keys})
    ws = answer_weights(study, scope) if scope else []
    rows = []
    for key in domains:
        d, owner = key
        est = ratio_estimate([(a.question, c, Fraction(key in a.source_keys), Fraction(1))
                              for a, c in zip(scope, ws)], "rate")
        row = [d, sum(1 for a in scope if key in a.source_keys), *est.cells(), owner]
        rows.append((sort_key_value(est, False), d, row))
    rows.sort(key=lambda r: (r[0], r[1]))
    return cols, [r[2] for r in rows[: spec.get("limite", 15)]]


TABLE_FUNCS = {
    "marcas": table_marcas,
    "marca_por_modelo": table_marca_por_modelo,
    "marca_por_dimension": table_marca_por_dimension,
    "modelo_por_dimension": table_modelo_por_dimension,
    "concentracion": table_concentracion,
    "acuerdo": table_acuerdo,
    "estabilidad": table_estabilidad,
    "tono": table_tono,
    "fuentes": table_fuentes,
}


# --------------------------------------------------------------------------
# Change since the previous run (metricas.md, "Cambio desde la corrida
# anterior"; metricas.toml, [cambio])
# --------------------------------------------------------------------------

CHANGE_METRICS = ("mencion", "orden", "citacion", "protagonismo", "top1", "sov", "tono_neto")
CHANGE_SUFFIXES = ("_anterior", "_anterior_n", "_actual", "_actual_n",
                   "_diferencia", "_diferencia_ic95", "_diferencia_p",
                   "_diferencia_ic_ajustado", "_veredicto")
FDR_Q = 0.05  # the false discovery rate of the change verdicts (metricas.md)
MIN_CLUSTERS = 10  # fewest shared questions behind a difference for it to be tested
GREW, FELL, NO_CHANGE = "creció", "cayó", "sin cambio más allá del ruido"
TIER_SLUG = {"estándar": "estandar", "avanzado": "avanzado"}


def load_previous(folder: Path, study: Study) -> tuple[Study, dict[str, str]] | None:
    """The previous run (`[corrida_anterior]`, `anterior/`) as a study: the same brands,
    its own models, weights, questions and answers; and the tier of each of its models."""
    spec = study.config.get("corrida_anterior")
    if spec is None:
        return None
    config = dict(study.config)
    config["modelos"] = spec["modelos"]
    config["ponderacion"] = spec.get("ponderacion", {})
    models = [m["id"] for m in spec["modelos"]]
    pesos = spec.get("ponderacion", {}).get("pesos")
    weights = {m: (decimal_weight(pesos[m]) if pesos else Fraction(1)) for m in models}
    prev = Study(study.slug, config, models, weights, study.brands)
    dim_ids = [d["id"] for d in config["dimensiones"]]
    questions = {}
    for q in read_jsonl(folder / "anterior" / "preguntas.jsonl"):
        questions[q["id"]] = {d: (q["idioma"] if d == "idioma" else q[d])
                              for d in dim_ids if d != SURFACE_DIMENSION}
    prev.question_ids = list(questions)
    for r in read_jsonl(folder / "anterior" / "respuestas.jsonl"):
        prev.answers.append(read_answer(r, study.brands, questions, dim_ids))
    return prev, {m["id"]: m["nivel"] for m in spec["modelos"]}


# y and x of one answer for each compared metric (metricas.md).
CHANGE_YX = {
    "mencion": lambda a, b: (int(b in a.named), 1),
    "orden": lambda a, b: (a.position.get(b, 0), int(b in a.named)),
    "citacion": lambda a, b: (int(b in a.cited), 1),
    "protagonismo": lambda a, b: (prominence_points(a, b), 1),
    "top1": lambda a, b: (int(bool(a.named) and a.named[0] == b), int(bool(a.named))),
    "sov": lambda a, b: (int(b in a.named), len(a.named)),
    "tono_neto": lambda a, b: (TONE_VALUE.get(a.tone.get(b), 0), int(b in a.tone)),
}


@dataclass
class Run:
    value: Fraction | None      # exact R
    n: int
    residuals: dict[str, float]  # question id -> e_g = sum c (y - R x) / sum c x
    variance: float
    bounds: tuple[float, float] | None  # unrounded 95% interval of the run
    base_questions: set[str] = field(default_factory=set)  # questions with x != 0


def run_estimate(study: Study, scope: list[Answer], metric: str, bid: str) -> Run:
    if not scope:
        return Run(None, 0, {}, 0.0, None)
    ws = answer_weights(study, scope)
    obs = [(a.question, c, *CHANGE_YX[metric](a, bid)) for a, c in zip(scope, ws)]
    den = sum(c * x for _q, c, _y, x in obs)
    if den == 0:
        return Run(None, 0, {}, 0.0, None)
    r = sum(c * y for _q, c, y, _x in obs) / den
    rf, denf = float(r), float(den)
    clusters: dict[str, float] = {}
    sq = 0.0
    for q, c, y, x in obs:
        clusters[q] = clusters.get(q, 0.0) + float(c) * (float(y) - rf * float(x))
        sq += (float(c) * float(x)) ** 2
    residuals = {q: v / denf for q, v in clusters.items()}
    variance = sum(e * e for e in residuals.values())
    n = sum(1 for _q, _c, _y, x in obs if x != 0)
    questions = len({q for q, _c, _y, x in obs if x != 0})
    if metric in MEAN_RANGES:
        lo, hi = MEAN_RANGES[metric]
        half = Z * math.sqrt(variance)
        bounds = (max(lo, min(hi, rf - half)), max(lo, min(hi, rf + half)))
    else:
        n_kish = denf * denf / sq
        n_ef = n_kish if variance == 0 else min(rf * (1 - rf) / variance, n_kish)
        bounds = wilson(rf, n_ef) if n_ef > 0 else None
        if bounds is not None:
            bounds = (max(0.0, bounds[0]), min(1.0, bounds[1]))
    if questions < 2:
        bounds = None
    return Run(r, n, residuals, variance, bounds, {q for q, _c, _y, x in obs if x != 0})


@dataclass
class Significant:
    """A p-value published with 4 significant digits: compared within one unit of the 4th."""
    value: float

    def __str__(self) -> str:
        return f"{self.value:.6g}"


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b): the continued fraction of Numerical Recipes
    (betacf, modified Lentz), on the side where it converges fast."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x > (a + 1) / (a + b + 2):
        return 1.0 - betainc(b, a, 1.0 - x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    f = d
    for m in range(1, 10000):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            f *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return front * f / a


def t_two_sided(t: float, df: int) -> float:
    """P(|T| >= t) for Student's t on df degrees of freedom: I_{df/(df+t²)}(df/2, 1/2)."""
    return betainc(df / 2, 0.5, df / (df + t * t))


def t_quantile(alpha: float, df: int) -> float:
    """The t with P(|T| >= t) = alpha, by bisection."""
    low, high = 0.0, 1.0
    while t_two_sided(high, df) > alpha:
        high *= 2
    for _ in range(200):
        mid = (low + high) / 2
        if t_two_sided(mid, df) > alpha:
            low = mid
        else:
            high = mid
    return (low + high) / 2


@dataclass
class ChangeTest:
    """A change cell with both runs' intervals: D and its unrounded 95% MOVER interval, the
    clusters G behind it and its p-value (metricas.md, «Valor p»)."""
    d: float
    low: float
    high: float
    clusters: int
    p: float | None  # None: fewer than MIN_CLUSTERS questions, not tested


def change_test(before: Run, now: Run) -> ChangeTest | None:
    if before.value is None or now.value is None or before.bounds is None or now.bounds is None:
        return None
    rho = 0.0
    if before.variance > 0 and now.variance > 0:
        cross = sum(e * now.residuals[q] for q, e in before.residuals.items() if q in now.residuals)
        rho = max(-1.0, min(1.0, cross / math.sqrt(before.variance * now.variance)))
    r1, r2 = float(before.value), float(now.value)
    (l1, u1), (l2, u2) = before.bounds, now.bounds
    d = r2 - r1
    a, b = r2 - l2, u1 - r1
    c, e = u2 - r2, r1 - l1
    low = d - math.sqrt(max(0.0, a * a + b * b - 2 * rho * a * b))
    high = d + math.sqrt(max(0.0, c * c + e * e - 2 * rho * c * e))
    # G: shared questions in the base (denominator not 0) of either run.
    clusters = len(before.base_questions | now.base_questions)
    if clusters < MIN_CLUSTERS:
        p = None
    elif d == 0:
        p = 1.0
    else:
        s = (d - low) / Z if d > 0 else (high - d) / Z
        p = 0.0 if s <= 0 else t_two_sided(abs(d) / s, max(clusters - 1, 1))
    return ChangeTest(d, low, high, clusters, p)


@dataclass
class Family:
    """Benjamini-Hochberg over every change cell of a study with a p-value (metricas.md,
    «Familia y control de multiplicidad», «Intervalo ajustado»)."""
    m: int
    r: int
    unadjusted: int
    threshold: float
    level: float
    alpha: float

    @staticmethod
    def of(p_values: list[float], unadjusted: int) -> "Family":
        m = len(p_values)
        ordered = sorted(p_values)
        r = 0
        for k in range(m, 0, -1):
            if ordered[k - 1] <= k * FDR_Q / m:
                r = k
                break
        alpha = max(r, 1) * FDR_Q / m if m else FDR_Q
        return Family(m, r, unadjusted, r * FDR_Q / m if m else 0.0, 1 - alpha, alpha)

    def is_change(self, p: float) -> bool:
        return self.r > 0 and p <= self.r * FDR_Q / self.m


def change_cells(before: Run, now: Run, test: ChangeTest | None, family: Family) -> list:
    cells = [None if before.value is None else Exact(round4(before.value)), before.n,
             None if now.value is None else Exact(round4(now.value)), now.n]
    if before.value is None or now.value is None:
        return cells + [None] * 5
    diff = Exact(round4(now.value) - round4(before.value))
    if test is None:
        return cells + [diff, None, None, None, None]
    if test.p is None:
        return cells + [diff, Interval(round_float(test.low, 4), round_float(test.high, 4)), None, None, None]
    sl, su = (test.d - test.low) / Z, (test.high - test.d) / Z
    t_star = t_quantile(family.alpha, max(test.clusters - 1, 1))
    adjusted = Interval(round_float(test.d - t_star * sl, 4), round_float(test.d + t_star * su, 4))
    if family.is_change(test.p):
        verdict = GREW if test.d > 0 else FELL
    else:
        verdict = NO_CHANGE
    return cells + [diff, Interval(round_float(test.low, 4), round_float(test.high, 4)),
                    Significant(test.p), adjusted, verdict]


def change_table_ids(study: Study, prev_tiers: dict[str, str]) -> list[tuple[str, tuple]]:
    now_tiers = {m["id"]: m["nivel"] for m in study.config["modelos"]}
    ids = [("cambio_total", ("total",))]
    for m in study.models:
        if prev_tiers.get(m) == now_tiers[m]:
            ids.append((f"cambio_{m}", ("modelo", m)))
    for tier in ("estándar", "avanzado"):
        now = {m for m, t in now_tiers.items() if t == tier}
        before = {m for m, t in prev_tiers.items() if t == tier}
        if now and before and now != before:
            ids.append((f"cambio_nivel_{TIER_SLUG[tier]}", ("nivel", tier)))
    return ids


def check_changes(report: Report, folder: Path, study: Study, package: dict) -> None:
    loaded = load_previous(folder, study)
    published = {t["id"]: t for t in (package.get("cambios") or {}).get("tablas", [])}
    if loaded is None:
        if published:
            report.add(study.slug, "cambios", "-", "-", "change tables", "no corrida_anterior")
        return
    prev, prev_tiers = loaded
    now_questions = [q["id"] for q in read_jsonl(folder / "preguntas.jsonl")]
    shared = set(now_questions) & set(prev.question_ids)
    counts = (len(shared), len(now_questions) - len(shared), len(prev.question_ids) - len(shared))
    sheet = package["ficha"].get("corrida_anterior") or {}
    mine = {"preguntas_compartidas": counts[0], "preguntas_agregadas": counts[1],
            "preguntas_retiradas": counts[2]}
    for key, value in mine.items():
        report.cells += 1
        if sheet.get(key) != value:
            report.add(study.slug, "ficha", "corrida_anterior", key, sheet.get(key), value)
    now_tiers = {m["id"]: m["nivel"] for m in study.config["modelos"]}
    cols = ["marca"] + [f"{m}{s}" for m in CHANGE_METRICS for s in CHANGE_SUFFIXES]
    ids = change_table_ids(study, prev_tiers)
    if sorted(published) != sorted(i for i, _ in ids):
        report.add(study.slug, "cambios", "-", "tablas", sorted(published), sorted(i for i, _ in ids))
    # Every cell of every change table first: the family of tests is the whole study's.
    computed = []
    for tid, scope in ids:
        def in_scope(a: Answer, tiers: dict[str, str]) -> bool:
            if scope[0] == "modelo":
                return a.model == scope[1]
            if scope[0] == "nivel":
                return tiers[a.model] == scope[1]
            return True
        before = [a for a in prev.answers if a.question in shared and in_scope(a, prev_tiers)]
        now = [a for a in study.answers if a.question in shared and in_scope(a, now_tiers)]
        rows = []
        for brand in study.brands:
            runs = [(run_estimate(prev, before, metric, brand.id), run_estimate(study, now, metric, brand.id))
                    for metric in CHANGE_METRICS]
            rows.append((brand.nombre, [(b, n, change_test(b, n)) for b, n in runs]))
        computed.append((tid, rows))
    tests = [t for _, rows in computed for _, cells in rows for _, _, t in cells if t is not None]
    # cambios_sin_ajuste: cells whose published (rounded) 95% interval excludes 0.
    unadjusted = sum(1 for t in tests if round_float(t.low, 4) > 0 or round_float(t.high, 4) < 0)
    family = Family.of([t.p for t in tests if t.p is not None], unadjusted)
    published_family = (package.get("cambios") or {}).get("multiplicidad") or {}
    for key, mine in (("pruebas", family.m), ("cambios", family.r), ("cambios_sin_ajuste", family.unadjusted),
                      ("umbral_p", Approx(family.threshold, 1e-12)),
                      ("nivel_ajustado", Approx(family.level, 1e-12))):
        report.cells += 1
        if not cell_matches(published_family.get(key), mine):
            report.add(study.slug, "cambios", "multiplicidad", key, published_family.get(key), mine)
    for tid, rows in computed:
        table_rows = []
        for name, cells in rows:
            row = [name]
            for before, now, test in cells:
                row += change_cells(before, now, test, family)
            table_rows.append(row)
        compare_table(report, study.slug, {"id": tid}, published.get(tid), cols, table_rows)


# --------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------

@dataclass
class Report:
    studies: int = 0
    tables: int = 0
    cells: int = 0
    mismatches: list[str] = field(default_factory=list)

    def add(self, slug, table, row, col, published, mine):
        self.mismatches.append(
            f"{slug} {table} {row} {col}: published {show(published)}, recomputed {show(mine)}")


def compare_table(report: Report, slug: str, spec: dict, published: dict | None,
                  cols: list[str], rows: list[list]) -> None:
    tid = spec["id"]
    report.tables += 1
    if published is None:
        report.add(slug, tid, "-", "-", "missing table", "table")
        return
    if published["columnas"] != cols:
        report.add(slug, tid, "-", "columnas", published["columnas"], cols)
        return
    pub_keys = [r[0] for r in published["filas"]]
    my_keys = [r[0] for r in rows]
    if pub_keys != my_keys:
        report.add(slug, tid, "-", "row keys", pub_keys, my_keys)
    mine_by_key = {r[0]: r for r in rows}
    for prow in published["filas"]:
        mrow = mine_by_key.get(prow[0])
        if mrow is None:
            continue
        for col, pv, mv in zip(cols[1:], prow[1:], mrow[1:]):
            report.cells += 1
            if not cell_matches(pv, mv):
                report.add(slug, tid, prow[0], col, pv, mv)


def check_study(report: Report, study: Study, package: dict) -> None:
    report.studies += 1
    published = {t["id"]: t for t in package["analisis"]}
    for spec in study.config["analisis"]:
        scope = table_scope(study, spec)
        cols, rows = TABLE_FUNCS[spec["tipo"]](study, spec, scope)
        compare_table(report, study.slug, spec, published.get(spec["id"]), cols, rows)
    extra = set(published) - {s["id"] for s in study.config["analisis"]}
    for tid in sorted(extra):
        report.add(study.slug, tid, "-", "-", "table", "no such analisis spec")
    check_answers(report, study, package)


def check_answers(report: Report, study: Study, package: dict) -> None:
    """Each published answer's surface and the brands it cites and consulted (marcas.md, preguntas-y-respuestas.md)."""
    published = {a["id"]: a for a in package["respuestas"]}
    order = [b.id for b in study.brands]
    for a in study.answers:
        pa = published.get(a.id)
        if pa is None:
            report.add(study.slug, "respuestas", a.id, "-", "missing answer", "answer")
            continue
        consulted = None if a.consulted is None else [b for b in order if b in a.consulted]
        for key, mine in (("superficie", a.surface), ("marcas_nombradas", a.named),
                          ("marcas_citadas", [b for b in order if b in a.cited]),
                          ("marcas_consultadas", consulted)):
            report.cells += 1
            if pa.get(key, "absent") != mine:
                report.add(study.slug, "respuestas", a.id, key, pa.get(key, "absent"), mine)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--content", default="content", type=Path)
    ap.add_argument("--dist", default="dist", type=Path)
    ap.add_argument("--estudio", action="append", help="only this slug (repeatable)")
    args = ap.parse_args(argv)

    report = Report()
    folders = sorted(p for p in (args.content / "estudios").iterdir()
                     if p.is_dir() and not p.name.startswith("."))
    for folder in folders:
        if args.estudio and folder.name not in args.estudio:
            continue
        study = load_study(folder)
        pkg_path = args.dist / "private" / "descargas" / f"{folder.name}.json"
        if not pkg_path.exists():
            report.add(folder.name, "-", "-", "-", "missing package", str(pkg_path))
            continue
        with pkg_path.open(encoding="utf-8") as fh:
            package = json.load(fh)
        check_study(report, study, package)
        check_changes(report, folder, study, package)

    for m in report.mismatches:
        print(m)
    print(f"recalculo: {report.studies} studies, {report.tables} tables, "
          f"{report.cells} cells checked, {len(report.mismatches)} mismatches")
    return 1 if report.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
