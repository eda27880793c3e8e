#!/usr/bin/env python3
"""A warpsmith JSON report on stdin, printed with its wall-clock fields (and the configuration
hash, which names the whole configuration and so changes as keys are added, and the build and
command line of a report's provenance) removed and its keys in canonical order: what two
builds must print alike. Used by fingerprint.sh and speed-ab.sh."""
import json
import sys

CLOCK = {"seconds", "requests_per_second", "cycles_per_second", "timing", "build_seconds",
         "config_hash", "version", "git_rev", "command_line"}


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in CLOCK}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


print(json.dumps(strip(json.load(sys.stdin)), sort_keys=True))
