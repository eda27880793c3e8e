#!/usr/bin/env python3
"""A warpsmith JSON report on stdin, printed with its wall-clock fields and its provenance
removed and its keys in canonical order: what two builds must print alike. Used by
fingerprint.sh and speed-ab.sh.

Removed: wall-clock figures at any depth; the configuration hash (it names the whole
configuration, which gains keys as the model grows); and the report's provenance at its top
level (schema, build, configuration name and command line), which says where a result comes
from, not what it is.

With --lines, stdin is a JSON-lines stream (`golden --block ot`, `mt-hwp`): its provenance line
(the object with a "schema") is dropped and every other line is printed as it was read."""
import json
import sys

CLOCK = {"seconds", "requests_per_second", "cycles_per_second", "timing", "build_seconds",
         "config_hash", "version", "git_rev", "command_line"}
PROVENANCE = {"schema", "version", "git_rev", "config", "config_hash", "command_line"}


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in CLOCK}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def is_provenance(line):
    try:
        v = json.loads(line)
    except ValueError:
        return False
    return isinstance(v, dict) and "schema" in v


if sys.argv[1:] == ["--lines"]:
    for line in sys.stdin:
        if not is_provenance(line):
            sys.stdout.write(line)
else:
    report = json.load(sys.stdin)
    if isinstance(report, dict):
        report = {k: x for k, x in report.items() if k not in PROVENANCE}
    print(json.dumps(strip(report), sort_keys=True))
