#!/usr/bin/env python3
"""Assemble the worked example of content/README.md into a content folder.

The README's snippets (sections 3.3 to 3.7 and 4) together form a complete study,
`telefonia-movil-2026`: 3 models, 3 questions, 5 answers. This script cuts them out
of the README and writes `<out>/content/` (with the site's servicio.toml and
metricas.toml beside it), so the test command can check that the example is valid,
build it and recompute it independently with recalcular.py.

Usage: python3 tests/recalculo/ejemplo_readme.py OUT [content/README.md]
"""

import re
import shutil
import sys
from pathlib import Path


def main() -> None:
    out = Path(sys.argv[1])
    readme = Path(sys.argv[2] if len(sys.argv) > 2 else "content/README.md")
    blocks = [body for _, body in re.findall(r"```(\w*)\n(.*?)```", readme.read_text(encoding="utf-8"), re.S)]

    def only(prefix: str) -> str:
        found = [b for b in blocks if b.startswith(prefix)]
        if len(found) != 1:
            sys.exit(f"{readme}: {len(found)} bloques empiezan con {prefix!r}; se esperaba uno")
        return found[0]

    content = out / "content"
    study = content / "estudios" / "telefonia-movil-2026"
    if content.exists():
        shutil.rmtree(content)
    study.mkdir(parents=True)
    for name in ("servicio.toml", "metricas.toml"):
        shutil.copy(readme.parent / name, content / name)
    design = only('nombre = "Telefonía móvil')
    for i in range(3, 10):
        design += "\n" + only(f'[[analisis]]\nid = "A0{i}"')
    (study / "estudio.toml").write_text(design, encoding="utf-8")
    (study / "marcas.toml").write_text(only('[[marcas]]\nid = "personal"'), encoding="utf-8")
    (study / "preguntas.jsonl").write_text(only('{"id": "P001"'), encoding="utf-8")
    (study / "respuestas.jsonl").write_text(only('{"id": "R0001"'), encoding="utf-8")
    (study / "hallazgos.toml").write_text(only('[[hallazgos]]\nid = "H01"'), encoding="utf-8")
    print(f"ejemplo del README armado en {content}")


if __name__ == "__main__":
    main()
