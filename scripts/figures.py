"""What the figure scripts (predictor-, prefetch-, scheduler-figures.py) share: one `warpsmith
run` with a preset, `--set` overrides and a workload, read as JSON.

Set WARPSMITH to the binary (default target/release/warpsmith).
"""
import json
import os
import subprocess

BIN = os.environ.get("WARPSMITH", "target/release/warpsmith")


def run(preset, sets, target):
    """`warpsmith run --preset PRESET --set S... TARGET` as (summary, None), or (None, the last
    line of its error) when it fails."""
    args = [BIN, "run", "--preset", preset, "--format", "json"] + target
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed"
    return json.loads(p.stdout), None
