"""Prints, as one JSON object, the JSON-LD data blocks of each HTML file named on the command line.

Usage: python3 tests/tools/json_ld_blocks.py PAGE.html...
Output: {"PAGE.html": ["<text of the first block>", ...], ...}

The standard library's HTML parser reads the text of a <script> element as raw text, as browsers
and crawlers do, so the blocks are exactly what a dataset search engine extracts. The texts are
printed unparsed: the Rust test parses them and says which file holds invalid JSON.
"""

import json
import sys
from html.parser import HTMLParser

JSON_LD = "application/ld+json"


class Blocks(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks = []
        self._inside = False
        self._text = []

    def handle_starttag(self, tag, attrs):
        kind = (dict(attrs).get("type") or "").strip().lower()
        if tag == "script" and kind == JSON_LD:
            self._inside = True
            self._text = []

    def handle_data(self, data):
        if self._inside:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._inside:
            self._inside = False
            self.blocks.append("".join(self._text))


def main(paths):
    found = {}
    for path in paths:
        parser = Blocks()
        with open(path, encoding="utf-8") as page:
            parser.feed(page.read())
        parser.close()
        found[path] = parser.blocks
    json.dump(found, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main(sys.argv[1:])
