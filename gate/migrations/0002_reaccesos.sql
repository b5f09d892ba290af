-- Re-access (x402 sign-in-with-x) through any gate.
--
-- pruebas_usadas: the sign-in proofs already taken (network, wallet in lower case, nonce). The
-- primary key is the claim: of two gates given one proof, only one inserts its row, so a replay
-- is refused everywhere until the nonce expires (valido_hasta).
CREATE TABLE pruebas_usadas (
    red TEXT NOT NULL,
    pagador TEXT NOT NULL,
    nonce TEXT NOT NULL,
    valido_hasta BIGINT NOT NULL,
    PRIMARY KEY (red, pagador, nonce)
);

-- Which settled sales a wallet holds: the question a re-access asks of compras.
CREATE INDEX compras_de_billetera ON compras (red, lower(pagador), estudio) WHERE estado = 'pagada';
