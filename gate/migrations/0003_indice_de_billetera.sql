-- A settlement that updates its compras row in place (issue 36).
--
-- A settlement changes estado. While an index named estado, even only in its WHERE, every
-- settlement wrote a new version of its row and new entries in every index of compras; now it
-- is a HOT update (the new version on the same page, no index entry). The wallet's index
-- covers every row (a re-access still asks for estado = 'pagada'), and each page keeps room
-- for the settled versions of its rows. Gates of an earlier version run unchanged on it.
DROP INDEX compras_de_billetera;
CREATE INDEX compras_de_billetera ON compras (red, lower(pagador), estudio);
ALTER TABLE compras SET (fillfactor = 90);
