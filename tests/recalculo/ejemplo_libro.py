#!/usr/bin/env python3
"""Assemble the book's worked example into a content folder.

The snippets of the book's format pages (docs/src/publicar/: estudio.md, marcas.md,
preguntas-y-respuestas.md, hallazgos.md and tablas.md) together form a complete
study, `telefonia-movil-2026`: 3 models, 3 questions, 5 answers. This script cuts
them out of the pages and writes `<out>/content/` (with the site's servicio.toml
and metricas.toml from `content/` beside it), so the test command can check that
the example is valid, build it and recompute it independently with recalcular.py.
Each snippet must appear exactly once across the pages.

Usage: python3 tests/recalculo/ejemplo_libro.py OUT [docs/src/publicar [content]]
"""

import re
import shutil
import sys
from pathlib import Path


def main() -> None:
    out = Path(sys.argv[1])
    pages = Path(sys.argv[2] if len(sys.argv) > 2 else "docs/src/publicar")
    site = Path(sys.argv[3] if len(sys.argv) > 3 else "content")
    blocks = [
        (page, body)
        for page in sorted(pages.glob("*.md"))
        for _, body in re.findall(r"```(\w*)\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    ]

    def only(prefix: str) -> str:
        found = [(page, b) for page, b in blocks if b.startswith(prefix)]
        if len(found) != 1:
            where = ", ".join(sorted({str(page) for page, _ in found})) or "ninguna página"
            sys.exit(f"{pages}: {len(found)} bloques empiezan con {prefix!r} ({where}); se esperaba uno")
        return found[0][1]

    content = out / "content"
    study = content / "estudios" / "telefonia-movil-2026"
    if content.exists():
        shutil.rmtree(content)
    study.mkdir(parents=True)
    for name in ("servicio.toml", "metricas.toml"):
        shutil.copy(site / name, content / name)
    design = only('nombre = "Telefonía móvil')
    for i in range(3, 10):
        design += "\n" + only(f'[[analisis]]\nid = "A0{i}"')
    (study / "estudio.toml").write_text(design, encoding="utf-8")
    (study / "marcas.toml").write_text(only('[[marcas]]\nid = "personal"'), encoding="utf-8")
    (study / "preguntas.jsonl").write_text(only('{"id": "P001"'), encoding="utf-8")
    (study / "respuestas.jsonl").write_text(only('{"id": "R0001"'), encoding="utf-8")
    (study / "hallazgos.toml").write_text(only('[[hallazgos]]\nid = "H01"'), encoding="utf-8")
    print(f"ejemplo del libro armado en {content}")


if __name__ == "__main__":
    main()
