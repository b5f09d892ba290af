"""Validates a JSON document against a JSON Schema (draft 7) and prints every error as JSON.

Usage: python3 tests/tools/validate_json_schema.py SCHEMA.json DOCUMENT.json
Output: a JSON list of {"path": "/json/pointer", "message": "..."}, empty when the document is
valid. Exit status 0 either way (the Rust test reads the list); 2 on bad usage.

Uses the `jsonschema` package of tests/tools/requirements.txt with the validator class the
schema's "$schema" names, and its format checker.
"""

import json
import sys

import jsonschema


def main(args):
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as f:
        schema = json.load(f)
    with open(args[1], encoding="utf-8") as f:
        document = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    errors = [
        {"path": "/" + "/".join(str(p) for p in error.absolute_path), "message": error.message}
        for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    ]
    json.dump(errors, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
