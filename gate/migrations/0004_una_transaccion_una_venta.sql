-- One transaction, one sale; a disputed sale stays disputed (issue 44).
--
-- transacciones: every transaction credited to a sale, with the purchase it paid. The primary
-- key is the claim: a facilitator's success naming a transaction another purchase already holds
-- inserts nothing, and the gate does not believe it (it asks the chain, or leaves the purchase
-- to reconcile). A separate table, so a settlement's update of compras stays HOT (no index of
-- compras names transaccion).
CREATE TABLE transacciones (
    transaccion TEXT PRIMARY KEY,
    compra TEXT NOT NULL
);
INSERT INTO transacciones (transaccion, compra)
    SELECT DISTINCT ON (lower(transaccion)) lower(transaccion), compra
    FROM compras
    WHERE estado = 'pagada' AND transaccion IS NOT NULL AND transaccion <> ''
    ORDER BY lower(transaccion), liquidada_unix, compra;

-- Two more states, each with why in motivo:
--   impugnada  the chain did not confirm the settlement its facilitator reported (the
--              `impugnado` step): a repeat of its payment and a re-access are refused;
--   anulada    resolved as never paid (a `conciliado` without payment, by the chain or by hand):
--              a repeat of its payment is refused, never settled again (it used to be deleted,
--              and a repeat settled it anew).
-- A gate of an earlier version reads either as a purchase stopped mid-settle (uncertain).
ALTER TABLE compras DROP CONSTRAINT compras_estado_check;
ALTER TABLE compras ADD CONSTRAINT compras_estado_check
    CHECK (estado IN ('en_curso', 'pagada', 'incierta', 'impugnada', 'anulada'));
ALTER TABLE compras ADD COLUMN motivo TEXT;
UPDATE compras SET estado = 'impugnada', motivo = e.registro->>'motivo'
    FROM eventos e
    WHERE e.compra = compras.compra AND e.evento = 'impugnado';
