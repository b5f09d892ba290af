//! The SQL of each step a purchase takes in the shared record, and the parameters each takes
//! from its record: kept apart from the connection and transaction logic of [`super`], so a
//! statement and the columns it binds are read side by side.

use super::super::group_commit::Param;
use super::super::journal::{Accepted, Record, Settled};
use super::DbError;
use super::to_i64;

/// What `liquidado` tells its row: `transaccion`, `red`, `pagador`.
pub(super) fn settled_row(s: &Settled) -> Vec<Param> {
    vec![Box::new(s.transaction.clone()), Box::new(s.network.clone()), Box::new(s.payer.clone())]
}

/// A record's own columns, in the order the statements take them: `evento`, `unix` and the
/// JSON record.
pub(super) fn record_columns(record: &Record) -> Result<Vec<Param>, DbError> {
    let json = serde_json::to_string(record).map_err(|e| DbError(e.to_string()))?;
    Ok(vec![Box::new(event_name(&json)), Box::new(to_i64(record.unix)), Box::new(json)])
}

/// What `aceptado` tells its purchase's row: `estudio`, `vista`, `red`, `pagador`, `monto`.
pub(super) fn accepted_row(a: &Accepted) -> Vec<Param> {
    [&a.study, &a.view, &a.network, &a.payer, &a.amount]
        .into_iter()
        .map(|field| Box::new(field.clone()) as Param)
        .collect()
}

/// The record's insert, as the first part of every step's statement ($1 compra, $2 evento,
/// $3 unix, $4 the JSON record).
macro_rules! with_record {
    ($rest:literal) => {
        concat!(
            "WITH evento AS (INSERT INTO eventos (compra, evento, unix, registro) VALUES ($1, $2, $3, $4::text::jsonb))",
            $rest
        )
    };
}

/// A step that changes no row: the record alone.
pub(super) const RECORD: &str =
    "INSERT INTO eventos (compra, evento, unix, registro) VALUES ($1, $2, $3, $4::text::jsonb)";
/// `aceptado`: the row learns what is being bought.
pub(super) const ACCEPTED: &str =
    with_record!(" UPDATE compras SET estudio = $5, vista = $6, red = $7, pagador = $8, monto = $9 WHERE compra = $1");
/// `liquidado` proven by the chain: the row is paid, and its transaction credited to it unless
/// another purchase holds it already.
pub(super) const SETTLED: &str = with_record!(
    ", credito AS (INSERT INTO transacciones (transaccion, compra) SELECT lower($5), $1 WHERE $5 <> ''
        ON CONFLICT (transaccion) DO NOTHING)
     UPDATE compras SET estado = 'pagada', ficha = NULL, dudosa = FALSE,
        transaccion = CASE WHEN $5 = '' THEN COALESCE(transaccion, '') ELSE $5 END,
        red = COALESCE(NULLIF($6, ''), red), pagador = COALESCE(NULLIF($7, ''), pagador),
        liquidada_unix = COALESCE(liquidada_unix, $3)
     WHERE compra = $1"
);
/// `liquidado` on a facilitator's word: the transaction is claimed for this purchase (or was
/// already), and only then is the record inserted and the row paid; a transaction another
/// purchase holds changes nothing (0 rows).
pub(super) const SETTLED_EXCLUSIVE: &str = "WITH credito AS (
        INSERT INTO transacciones (transaccion, compra) VALUES (lower($5), $1)
        ON CONFLICT (transaccion) DO UPDATE SET compra = EXCLUDED.compra WHERE transacciones.compra = EXCLUDED.compra
        RETURNING compra),
     evento AS (INSERT INTO eventos (compra, evento, unix, registro) SELECT $1, $2, $3, $4::text::jsonb FROM credito)
     UPDATE compras SET estado = 'pagada', ficha = NULL, dudosa = FALSE,
        transaccion = $5,
        red = COALESCE(NULLIF($6, ''), red), pagador = COALESCE(NULLIF($7, ''), pagador),
        liquidada_unix = COALESCE(liquidada_unix, $3)
     WHERE compra = $1 AND EXISTS (SELECT 1 FROM credito)";
/// `impugnado`: the sale is disputed for good (why in `motivo`).
pub(super) const DISPUTED: &str =
    with_record!(" UPDATE compras SET estado = 'impugnada', motivo = $5, ficha = NULL WHERE compra = $1");
/// `conciliado` without payment: the authorization is void (why in `motivo`); its repeats are
/// refused, and its identifier stays bound to it until it expires.
pub(super) const RECONCILED_UNPAID: &str = with_record!(
    " UPDATE compras SET estado = 'anulada', motivo = $5, ficha = NULL
     WHERE compra = $1 AND estado NOT IN ('pagada', 'impugnada')"
);
/// An uncertain `fallido`: the row is uncertain unless paid.
pub(super) const UNCERTAIN: &str = with_record!(
    " UPDATE compras SET estado = 'incierta', dudosa = TRUE, ficha = NULL, transaccion = COALESCE($5, transaccion)
     WHERE compra = $1 AND estado <> 'pagada'"
);
/// `conciliado` as paid: the row is paid, at the reconciliation's time.
pub(super) const RECONCILED_PAID: &str = with_record!(
    ", credito AS (INSERT INTO transacciones (transaccion, compra) SELECT lower($5), $1 WHERE COALESCE($5, '') <> ''
        ON CONFLICT (transaccion) DO NOTHING)
     UPDATE compras SET estado = 'pagada', ficha = NULL, dudosa = FALSE,
        transaccion = COALESCE($5, transaccion), liquidada_unix = $3
     WHERE compra = $1 AND estado <> 'pagada'"
);

/// The `evento` tag of a record's JSON, as the file journal writes it (so a new kind of event
/// needs no change here).
pub(super) fn event_name(json: &str) -> String {
    #[derive(serde::Deserialize)]
    struct Tag<'a> {
        #[serde(borrow)]
        #[serde(rename = "evento")]
        event: std::borrow::Cow<'a, str>,
    }
    serde_json::from_str::<Tag<'_>>(json).map(|tag| tag.event.into_owned()).unwrap_or_default()
}
