-- The sales record shared by several gates (gate --ventas postgres://…).
--
-- eventos: every purchase step as the very JSON record a line of ventas.jsonl holds, in the
-- order the steps were committed (id). Folded exactly like the file.
CREATE TABLE eventos (
    id BIGSERIAL PRIMARY KEY,
    compra TEXT NOT NULL,
    evento TEXT NOT NULL,
    unix BIGINT NOT NULL,
    registro JSONB NOT NULL,
    -- Set only on the records `gate ventas importar` loaded from a journal file: the sha256
    -- of the record and how many identical records came before it in that journal, so loading
    -- the same journal again adds nothing.
    importado TEXT UNIQUE
);
CREATE INDEX eventos_compra ON eventos (compra);

-- compras: the replay memory, one row per authorization (network|payer|nonce). The primary
-- key is the reservation: of two gates racing one authorization, only one inserts its row.
--   en_curso  a gate holds it while its purchase runs (ficha, until plazo);
--   pagada    settled: a repeat of the same payload gets the study again;
--   incierta  the settlement may have moved the money: the same payload settles it again.
-- A purchase that fails for certain deletes its row (or, resumed, puts it back to incierta).
CREATE TABLE compras (
    compra TEXT PRIMARY KEY,
    estado TEXT NOT NULL CHECK (estado IN ('en_curso', 'pagada', 'incierta')),
    -- sha256 of the payment payload that reserved it.
    huella TEXT NOT NULL,
    valido_hasta BIGINT NOT NULL,
    identificador TEXT,
    -- From its aceptado step.
    estudio TEXT,
    vista TEXT,
    red TEXT,
    pagador TEXT,
    monto TEXT,
    -- From its liquidado step (or a pending transaction named by an uncertain answer).
    transaccion TEXT,
    liquidada_unix BIGINT,
    -- Some attempt ended uncertain: a failed retry puts it back to incierta, never frees it.
    dudosa BOOLEAN NOT NULL DEFAULT FALSE,
    -- The reservation holding it while en_curso, and when that hold is presumed dead (the
    -- gate stopped mid-purchase): then the purchase counts as uncertain.
    ficha TEXT,
    plazo BIGINT
);

-- identificadores: x402 payment-identifier ids, each bound to the payload that used it first
-- until its authorization expires.
CREATE TABLE identificadores (
    id TEXT PRIMARY KEY,
    compra TEXT NOT NULL,
    huella TEXT NOT NULL,
    valido_hasta BIGINT NOT NULL
);
CREATE INDEX identificadores_compra ON identificadores (compra);
