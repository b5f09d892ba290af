"""Validates Croissant files and loads their record sets with mlcroissant (pinned in
tests/tools/requirements.txt), printing JSON for the Rust tests to compare.

Usage:
  python3 tests/tools/croissant_check.py validate FILE...
      → {"FILE": {"errors": [...], "warnings": [...]}}: mlcroissant's own issues, as its
        `validate` command reports them (reading the file and building its operation graph).
  python3 tests/tools/croissant_check.py records FILE PLACES.json RECORD_SET...
      → {"RECORD_SET": [record, ...]}: every record of each record set, with each field's value
        as mlcroissant reads it (text decoded from bytes, dates in ISO 8601, numbers as JSON).
        PLACES.json maps a FileObject's @id to {"path": local file} (mlcroissant's `mapping`)
        or {"url": URL} (its `contentUrl` replaced, e.g. by a signed download link, which
        mlcroissant then downloads and checks against `sha256`).

CROISSANT_CACHE should name a fresh folder: mlcroissant caches downloads by URL there.
"""

import datetime
import json
import math
import sys

import mlcroissant as mlc
import numpy as np
import pandas as pd


def issues_of(path):
    """mlcroissant's errors and warnings for one file."""
    try:
        dataset = mlc.Dataset(jsonld=path)
    except mlc.ValidationError as error:
        return {"errors": [str(error)], "warnings": []}
    issues = dataset.metadata.ctx.issues
    return {"errors": sorted(issues.errors), "warnings": sorted(issues.warnings)}


def plain(value):
    """A value mlcroissant read, as JSON."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, (list, tuple, np.ndarray)):
        return [plain(v) for v in value]
    if isinstance(value, pd.Timestamp):
        value = value.to_pydatetime()
    if isinstance(value, datetime.datetime):
        midnight = value.time() == datetime.time(0) and value.tzinfo is None
        return value.date().isoformat() if midnight else value.isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return None if math.isnan(value) else float(value)
    if value is None or (not isinstance(value, (str, bool, int)) and pd.isna(value)):
        return None
    return value


def records(path, places_file, record_sets):
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    with open(places_file, encoding="utf-8") as f:
        places = json.load(f)
    mapping = {}
    for node in document.get("distribution", []):
        place = places.get(node.get("@id"))
        if place is None:
            continue
        if "url" in place:
            node["contentUrl"] = place["url"]
        if "path" in place:
            mapping[node["@id"]] = place["path"]
    dataset = mlc.Dataset(jsonld=document, mapping=mapping or None)
    found = {}
    for record_set in record_sets:
        rows = []
        for record in dataset.records(record_set=record_set):
            rows.append({key: plain(value) for key, value in record.items()})
        found[record_set] = rows
    return found


def main(args):
    if len(args) >= 2 and args[0] == "validate":
        json.dump({path: issues_of(path) for path in args[1:]}, sys.stdout, ensure_ascii=False)
        return 0
    if len(args) >= 4 and args[0] == "records":
        json.dump(records(args[1], args[2], args[3:]), sys.stdout, ensure_ascii=False)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
