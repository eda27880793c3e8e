#!/usr/bin/env python3
"""warpsmith's adversarial test suite (issue 36): hostile and careless input, generated,
run through the binary, and every outcome judged by an oracle written here, independently
of warpsmith's code.

Usage:
    scripts/adversarial.py [--bin target/release/warpsmith] [--seed 1]
                           [--count N | --quick] [--classes trace,kernel,...]
                           [--jobs 1] [--timeout 60] [--out adversarial-out]

Exit 0 only when no case failed (3: the suite's own self-test, its oracles on inputs whose
answers are known, failed, and nothing was judged). `--out` receives `report.json` (every case), `summary.txt`
(counts per class and per outcome) and `failures/<case>/` (one self-contained reproducer per
failure: `repro.sh`, the input files it copies, `case.json`).

Every run is a fresh process under an address-space limit of 6 GiB (RLIMIT_AS) and a time
limit per case, with WARPSMITH_CACHE_DIR set to a scratch folder of the case (or of its
class, for the classes that need Verilator models, built once), in a scratch working folder.
`run` is bounded with `--max-cycles 2000000` when the binary has that option.

Classes (one generator and one oracle each):
  trace     Accel-Sim traces (the repository's samples and synthesized ones, every format
            version) mutated at every level: header values, block, warp and instruction
            structure, each instruction field, single bytes, truncation, addresses moved
            past 2^53, kernel lists. Oracle: an independent reader of the format (notes:
            ../shared/notes/gpgpusim-formats.md, section 3) that says valid (run it: the
            kernels' `blocks` and `instructions` must match), invalid (refuse it: exit 2
            naming the file and line), either (a lenient reading is also right: refuse, or
            match) or undecided (bytes the format does not define: exit 0 is unjudged).
  pack      packed trace copies ($WARPSMITH_CACHE_DIR/traces): a copy corrupted (single
            bytes, truncation, appended bytes, another trace's copy, empty, a directory),
            or the trace edited at the same size with its modification time restored.
            Oracle: every run is exit 0 and identical to the text's own result
            (`--no-trace-cache`), twice in a row.
  kernel    kernel files (TOML): the built-in kernels and synthesized ones, with fields
            set to edge values, removed, added, retyped, and raw-text damage. Oracle: the
            format's rules (golden/src/workload/kernel.rs) checked here, and the block and
            instruction counts computed from the program shape (golden/src/gpu/kernel.rs).
  config    --set KEY=VALUE for every key `describe --format json` lists. Oracle: legal by
            describe's own range (and the rules it lists) <=> exit 0, and then
            --emit-config shows the value as set; else exit 2 naming the key.
  gpgpusim  GPGPU-Sim option files (spec/tests-data/gpgpusim-configs) with mutated option
            values and lines. Oracle: exit 0 with every imported key in its legal range and
            no saturated value, or exit 2 naming the option and the file and line; an
            option whose value cannot be read or cannot fit its key is never accepted.
  regress   regression lists (TOML) with mutated counts, seeds, cycles, set matrices and
            fields, expanded with `regress --dry-run`. Oracle: the exact number of distinct
            jobs, or exit 2 naming the field; bounded time and memory however many jobs a
            list claims.
  output    output paths of generate, cost --emit-config, golden --command-trace, cosim
            --waves, regress --out and flow --out, and standard output, pointed at a
            symlink, a device node, a FIFO, a folder of a user's files (one holding a
            manifest.json), an earlier output with a user's file added, a read-only folder,
            a missing parent, a regular file. Oracle: the sandbox is hashed before and
            after: no user file lost or replaced, no device or FIFO replaced; exit 0 (and
            the output written) or exit 2 naming the path.
  results   regression results (results.jsonl) cut mid-line, with duplicated, blank and
            garbage lines, CRLF, emptied, replaced; then `regress --resume` and `regress
            merge`. Oracle: no figure that is an underflow, every intact result kept, every
            job with a result, and a second --resume runs nothing.
  huge      sizes claimed by input: grids, loop_trips and compute up to 2^32 - 1, trace
            grids of 2^32 blocks, addresses at and above 2^53, request cycles near 2^64,
            latencies of 100,000 cycles. Oracle: no oom and no hang; exact counts, or exit 2
            naming the field or --max-cycles.
  stimulus  JSON-lines stimuli of golden mc, golden memory and golden/cosim ot, mutated.
            Oracle: a valid file has every request served (`requests`), an OT file whose
            only transactions are observations checks nothing (exit 2), an invalid line is
            refused naming the file and line.

Outcomes: ok, rejected (exit 2 and the message names the file and line, or the key) and
unjudged (the oracle cannot decide; counted apart, never as ok); the failures: panic (a
signal, "panicked", exit 101 or 134), oom (the address-space limit, an allocation failure),
hang (the time limit), wrong (exit 0 with a result that differs from the oracle's), nothing
(exit 0 after 0 instructions, requests or cycles), internal (exit 1 on input, e.g. "the GPU
stalled"), bad-message (exit 2 without naming the key or file and line), lost-file (a user's
or an earlier result's file changed or gone) and refused-valid (exit 2 on input the oracle
holds valid: a check that refuses what it should run).

Standard library only (Python 3.11).
"""

import argparse
import dataclasses
import hashlib
import json
import math
import os
import random
import re
import resource
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

AS_LIMIT = 6 << 30
MAX_CYCLES = "2000000"

# ---- Outcomes -----------------------------------------------------------------------------

OK, REJECTED, UNJUDGED = "ok", "rejected", "unjudged"
PANIC, OOM, HANG, WRONG, NOTHING = "panic", "oom", "hang", "wrong", "nothing"
INTERNAL, BAD_MESSAGE, LOST_FILE, REFUSED = "internal", "bad-message", "lost-file", "refused-valid"
PASSING = [OK, REJECTED, UNJUDGED]
FAILURES = [PANIC, OOM, HANG, WRONG, NOTHING, INTERNAL, BAD_MESSAGE, LOST_FILE, REFUSED]
OUTCOMES = PASSING + FAILURES

U32, U64 = 1 << 32, 1 << 64
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
# Values a saturating or wrapping conversion produces.
SATURATED = [str(U64 - 1), str(I64_MAX), str(U32 - 1), str((1 << 31) - 1)]

OOM_RE = re.compile(r"memory allocation of \d+ bytes failed|out of memory|Cannot allocate memory|"
                    r"capacity overflow|failed to allocate", re.I)


class Failure(Exception):
    """A judge's verdict raised from deep inside a check."""

    def __init__(self, outcome, detail):
        super().__init__(detail)
        self.outcome, self.detail = outcome, detail


# ---- Running the binary -------------------------------------------------------------------


class Res:
    """One finished (or killed) warpsmith process."""

    def __init__(self, code, sig, timed_out, seconds, out_path, err_path, timeout):
        self.code, self.signal, self.timed_out = code, sig, timed_out
        self.seconds, self.timeout = seconds, timeout
        self.out_path, self.err_path = out_path, err_path
        self._out = self._err = None

    def _read(self, path, limit=32 << 20):
        if path is None or not os.path.exists(path):
            return ""
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")

    @property
    def out(self):
        if self._out is None:
            self._out = self._read(self.out_path)
        return self._out

    @property
    def err(self):
        if self._err is None:
            self._err = self._read(self.err_path)
        return self._err

    def json(self):
        try:
            return json.loads(self.out)
        except ValueError:
            return None

    def status(self):
        if self.timed_out:
            return "killed after %.0f s" % self.timeout
        if self.signal:
            return "signal %d" % self.signal
        return "exit %d" % self.code


def _limits():
    """In the child, before exec: its own process group (so a hang is killed whole) and
    the address-space limit."""
    os.setsid()
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))


def run_binary(argv, cwd, env, timeout, io_prefix, stdout_file=None, stdin_file=None):
    out_path = io_prefix + ".stdout"
    err_path = io_prefix + ".stderr"
    out = open(stdout_file, "wb") if stdout_file else open(out_path, "wb")
    err = open(err_path, "wb")
    inp = open(stdin_file, "rb") if stdin_file else subprocess.DEVNULL
    start = time.monotonic()
    timed_out = False
    try:
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=inp, stdout=out, stderr=err,
                             preexec_fn=_limits)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
    finally:
        out.close()
        err.close()
        if stdin_file:
            inp.close()
    code = p.returncode
    sig = -code if code < 0 else None
    return Res(None if sig else code, sig, timed_out, time.monotonic() - start,
               None if stdout_file else out_path, err_path, timeout)


def crash(res, what=""):
    """The failure a process shows whatever its input: hang, oom, panic or abort."""
    e = res.err
    tag = (what + ": ") if what else ""
    if res.timed_out:
        return HANG, tag + "still running after %.0f s" % res.timeout
    m = OOM_RE.search(e)
    if m:
        return OOM, tag + _line_of(e, m.start())
    if res.signal == signal.SIGKILL:
        return OOM, tag + "killed by SIGKILL (not the time limit): the system's OOM killer"
    if res.signal or res.code in (101, 134) or "panicked" in e:
        i = e.find("panicked")
        return PANIC, tag + (_line_of(e, i) if i >= 0 else res.status())
    if res.code not in (0, 1, 2):
        return PANIC, tag + res.status() + ": " + e.strip()[-200:]
    return None


def _line_of(text, at):
    s = text.rfind("\n", 0, at) + 1
    e = text.find("\n", at)
    return text[s:e if e >= 0 else len(text)].strip()[:300]


# ---- Cases: steps that run in a sandbox and render as a shell reproducer -----------------


@dataclasses.dataclass
class Case:
    cls: str
    index: int
    name: str
    body: object          # body(ctx): acts and runs, then returns (outcome, detail)
    timeout: float = None  # seconds per run (default: --timeout)
    shared_cache: bool = False

    @property
    def id(self):
        return "%s-%05d" % (self.cls, self.index)


class Var:
    """A path known only when the case runs (a packed copy's name); `$NAME` in the shell."""

    def __init__(self, name):
        self.name = name


class Ctx:
    """A case's sandbox and what happened in it; every act is also written down as the
    shell command that repeats it (the reproducer)."""

    def __init__(self, case, case_dir, runner, cache):
        self.case, self.dir, self.runner = case, case_dir, runner
        self.sb = os.path.join(case_dir, "sb")
        self.io = os.path.join(case_dir, "io")
        self.cache = cache
        os.makedirs(self.sb)
        os.makedirs(self.io)
        self.res = {}
        self.vars = {}
        self.shell = []
        self.payloads = []
        self.commands = []
        self._seen = set()

    # paths
    def p(self, rel):
        if isinstance(rel, Var):
            return self.vars[rel.name]
        return os.path.join(self.sb, rel)

    @staticmethod
    def q(rel):
        return '"$%s"' % rel.name if isinstance(rel, Var) else shlex.quote(rel)

    def _payload(self, data):
        n = len(self.payloads)
        self.payloads.append(data)
        return "../files/%d" % n

    # acts
    def write(self, rel, data):
        if isinstance(data, str):
            data = data.encode()
        path = self.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        d = os.path.dirname(rel)
        self.shell.append(("mkdir -p %s && " % shlex.quote(d) if d else "")
                          + "cp %s %s" % (self._payload(data), self.q(rel)))

    def mkdir(self, rel):
        os.makedirs(self.p(rel), exist_ok=True)
        self.shell.append("mkdir -p %s" % self.q(rel))

    def symlink(self, rel, target):
        os.symlink(target, self.p(rel))
        self.shell.append("ln -s %s %s" % (shlex.quote(target), self.q(rel)))

    def fifo(self, rel):
        os.mkfifo(self.p(rel))
        self.shell.append("mkfifo %s" % self.q(rel))

    def chardev(self, rel, kind):
        """A character device of our own (never the machine's /dev nodes): null or full."""
        minor = {"null": 3, "full": 7}[kind]
        os.mknod(self.p(rel), 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        self.shell.append("mknod -m 666 %s c 1 %d" % (self.q(rel), minor))

    def chmod(self, rel, mode):
        os.chmod(self.p(rel), mode)
        self.shell.append("chmod %o %s" % (mode, self.q(rel)))

    def patch(self, rel, offset, data, from_end=False):
        """Overwrite bytes at `offset`; `from_end`: the reproducer counts it from the file's
        end (a packed copy's head holds its path, whose length differs there)."""
        size = os.path.getsize(self.p(rel))
        with open(self.p(rel), "r+b") as f:
            f.seek(offset)
            f.write(data)
        seek = "$(($(stat -c %%s %s) - %d))" % (self.q(rel), size - offset) if from_end else str(offset)
        self.shell.append("dd if=%s of=%s bs=1 seek=%s conv=notrunc status=none"
                          % (self._payload(data), self.q(rel), seek))

    def truncate(self, rel, size, from_end=False):
        old = os.path.getsize(self.p(rel))
        os.truncate(self.p(rel), size)
        arg = "-%d" % (old - size) if from_end and size else "%d" % size
        self.shell.append("truncate -s %s %s" % (arg, self.q(rel)))

    def append(self, rel, data):
        with open(self.p(rel), "ab") as f:
            f.write(data)
        self.shell.append("cat %s >> %s" % (self._payload(data), self.q(rel)))

    def copy(self, src, dst):
        shutil.copyfile(self.p(src), self.p(dst))
        self.shell.append("cp %s %s" % (self.q(src), self.q(dst)))

    def remove(self, rel):
        path = self.p(rel)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
        self.shell.append("rm -rf %s" % self.q(rel))

    def set_mtime(self, rel, ns):
        os.utime(self.p(rel), ns=(ns, ns))
        self.shell.append("touch -d @%d.%09d %s" % (ns // 10**9, ns % 10**9, self.q(rel)))

    def mtime(self, rel):
        return os.stat(self.p(rel)).st_mtime_ns

    def note_copies(self, var):
        """The packed copy the last run wrote (a file new under the cache), as `$var`."""
        now = set()
        for d, _, fs in os.walk(self.cache):
            now.update(os.path.join(d, f) for f in fs if f.endswith(".wspack"))
        new = sorted(now - self._seen)
        self._seen = now
        self.shell.append("find \"$WARPSMITH_CACHE_DIR\" -name '*.wspack' | sort > ../io.now; "
                          "%s=$(comm -13 ../io.seen ../io.now | head -n1); mv ../io.now ../io.seen"
                          % var)
        if new:
            self.vars[var] = new[0]
        return new[0] if new else None

    # runs
    def run(self, name, args, timeout=None, stdout=None, stdin=None, cwd=None):
        timeout = timeout or self.case.timeout or self.runner.timeout
        env = dict(os.environ)
        env["WARPSMITH_CACHE_DIR"] = self.cache
        env.pop("WARPSMITH_BIN", None)
        argv = [self.runner.bin] + args
        cwd_path = self.p(cwd) if cwd else self.sb
        res = run_binary(argv, cwd_path, env, timeout, os.path.join(self.io, name),
                         stdout_file=self.p(stdout) if stdout else None,
                         stdin_file=self.p(stdin) if stdin else None)
        self.res[name] = res
        line = "timeout -k 5 %d \"$W\" %s" % (int(timeout), shlex.join(args))
        if stdout:
            line += " > %s" % shlex.quote(stdout)
        if stdin:
            line += " < %s" % shlex.quote(stdin)
        if cwd:
            line = "(cd %s && %s)" % (shlex.quote(cwd), line)
        self.commands.append("warpsmith " + shlex.join(args))
        self.shell.append("%s; echo \"[%s] exit $?\"" % (line, name))
        return res

    def snapshot(self, skip=("cache",)):
        return snapshot(self.sb, skip)


def snapshot(root, skip=()):
    """Every entry under `root` (symlinks not followed): its kind and content, link target
    or device number."""
    out = {}
    for d, dirs, files in os.walk(root):
        rel_d = os.path.relpath(d, root)
        if rel_d == ".":
            dirs[:] = [x for x in dirs if x not in skip]
        for name in dirs + files:
            p = os.path.join(d, name)
            rel = os.path.normpath(os.path.join(rel_d, name))
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir",)
            elif stat.S_ISREG(st.st_mode):
                h = hashlib.sha256()
                try:
                    with open(p, "rb") as f:
                        for chunk in iter(lambda: f.read(1 << 20), b""):
                            h.update(chunk)
                except OSError:
                    pass
                out[rel] = ("file", h.hexdigest())
            elif stat.S_ISFIFO(st.st_mode):
                out[rel] = ("fifo",)
            elif stat.S_ISCHR(st.st_mode):
                out[rel] = ("chardev", st.st_rdev)
            else:
                out[rel] = ("other", st.st_mode)
    return out


def lost_files(before, after, allowed=lambda rel: False):
    """User files (in `before`, not `allowed` to change) that are gone or changed."""
    lost = []
    for rel, what in before.items():
        if allowed(rel):
            continue
        now = after.get(rel)
        if now != what:
            lost.append("%s (%s -> %s)" % (rel, what[0], now[0] if now else "gone"))
    return lost


def rmtree(path):
    def fix(func, p, _):
        try:
            os.chmod(os.path.dirname(p), 0o755)
            os.chmod(p, 0o755)
        except OSError:
            pass
        try:
            func(p)
        except OSError:
            pass
    if os.path.lexists(path):
        shutil.rmtree(path, onerror=fix)


# ---- Judging helpers ----------------------------------------------------------------------


def strip_volatile(v):
    """A JSON result without its wall-clock figures and the command line that produced it."""
    if isinstance(v, dict):
        return {k: strip_volatile(x) for k, x in v.items()
                if k not in ("timing", "command_line")}
    if isinstance(v, list):
        return [strip_volatile(x) for x in v]
    return v


def names_file_line(err, files):
    """The message names one of `files` and a line (`FILE:N`, `FILE line N`, or the file
    and `line N` elsewhere in it)."""
    for f in files:
        if re.search(re.escape(f) + r"(:\d+| line \d+|, line \d+)", err):
            return True
        if f in err and re.search(r"\bline \d+", err):
            return True
    return False


def names_any(err, words):
    return any(w and w in err for w in words)


def saturated_in(text, given=""):
    """Saturated or wrapped values in `text` that `given` (the input, in any integer
    spelling) did not hold."""
    held = given + " " + " ".join(str(_toml_int(t)) for t in re.split(r"[\s=,:;]+", given)
                                  if _toml_int(t) is not None)
    return [s for s in SATURATED if s in text and s not in held]


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def rejection(res, ok_words, ok_file_lines=(), valid=False, what="input"):
    """Judge an exit 2: the message must name the key or the file and line."""
    e = res.err
    if not (names_any(e, ok_words) or names_file_line(e, ok_file_lines)):
        return BAD_MESSAGE, "exit 2 without naming %s: %s" % (
            " or ".join(list(ok_words)[:4] + list(ok_file_lines)[:2]) or "it", first_line(e))
    if valid:
        return REFUSED, "refused valid %s: %s" % (what, first_line(e))
    return REJECTED, first_line(e)


# Interesting numbers, as text.
EDGE_UNSIGNED = ["0", "1", "2", "3", "31", "32", "33", "255", "256", "1023", "1024", "1025",
                 "65535", "65536", "2147483647", "2147483648", "4294967295", "4294967296",
                 "4294967297", "9007199254740992", "9223372036854775807", "9223372036854775808",
                 "18446744073709551615", "18446744073709551616", "100000000000000000000000000"]
EDGE_SIGNED = ["-1", "-2", "-2147483648", "-9223372036854775808", "-9223372036854775809"]
EDGE_TEXT = ["", "x", "+1", "01", "1.5", "1e3", "0x10", "-0", "nan", "1 2", "١"]
EDGE_HEX = ["0", "1", "ffffffff", "100000000", "1fffffffffffff", "20000000000000",
            "7fffffffffffffff", "8000000000000000", "ffffffffffffffff", "10000000000000000",
            "0x20000000000000", "0xfffffffffffffff0", "0000000000000000000000001", "g", "-1",
            "0x", "FFFFFFFFFFFFFFFF"]


def edge_number(rng, signed=False):
    r = rng.random()
    if r < 0.6:
        return rng.choice(EDGE_UNSIGNED)
    if r < 0.75 and signed:
        return rng.choice(EDGE_SIGNED)
    if r < 0.85:
        return str(rng.randrange(0, 100))
    return rng.choice(EDGE_TEXT + EDGE_SIGNED)


# ==== Class trace: Accel-Sim traces ========================================================
#
# The reader below is the oracle: it follows the format as the notes describe it (header
# `-key = value` lines up to the first `#` line; blocks `#BEGIN_TB`, `thread block = x,y,z`,
# `warp = N`, `insts = n` and n instruction lines, `#END_TB`; instruction fields by tracer
# version) and GPGPU-Sim's occupancy rule, and returns a verdict:
#   valid      the trace must run, its kernels' blocks and instructions as counted here;
#   either     a lenient reading is also right (a non-canonical number, fewer blocks than
#              the grid, a warp without a section, a duplicated header key): refusing it is
#              right, running it must give the counts of that reading;
#   invalid    it must be refused (exit 2 naming the file and line);
#   undecided  a byte the format does not define (control characters, non-ASCII) or a
#              spelling only one reader could take: refusing is right, exit 0 is unjudged.

VALID, EITHER, UNDECIDED, INVALID = "valid", "either", "undecided", "invalid"
_RANK = {VALID: 0, EITHER: 1}

TRACE_SPLIT = re.compile(r"[ \t\r\n\x0c]+")


def _toks(line):
    return [t for t in TRACE_SPLIT.split(line) if t]


def _weird(line):
    return re.search(r"[^\x20-\x7e\t\r]", line) is not None


def _dec(tok, hi, signed=False, lo=0):
    """A decimal field: ('ok', v) canonical and in range, ('either', v) a spelling a lenient
    reader takes (a sign, leading zeros), ('bad', v) anything else."""
    canon = r"-?(0|[1-9][0-9]*)" if signed else r"(0|[1-9][0-9]*)"
    if re.fullmatch(canon, tok) and tok != "-0":
        v = int(tok)
        return ("ok", v) if lo <= v <= hi else ("bad", v)
    if re.fullmatch(r"[+-]?[0-9]+", tok) and (signed or not tok.startswith("-")):
        v = int(tok)
        return ("either", v) if lo <= v <= hi else ("bad", v)
    return ("bad", None)


def _hexv(tok, bits=64, prefix_ok=True):
    """A hex field: ('ok', v), ('either', v) for a spelling only some readers take, ('bad',)."""
    m = re.fullmatch(r"(0[xX])?([0-9a-fA-F]+)", tok)
    if m and (prefix_ok or not m.group(1)):
        v = int(m.group(2), 16)
        return ("ok", v) if v < (1 << bits) else ("bad", v)
    m = re.fullmatch(r"(\+|0[xX])([0-9a-fA-F]+)", tok)
    if m:
        v = int(m.group(2), 16)
        return ("either", v) if v < (1 << bits) else ("bad", v)
    return ("bad", None)


class TraceVerdict(Exception):
    def __init__(self, status, why, line=0):
        super().__init__(why)
        self.status, self.why, self.line = status, why, line


class _Reader:
    def __init__(self, text, gpu):
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.i = 0
        self.gpu = gpu
        self.status = VALID
        self.notes = []

    def either(self, why):
        self.status = EITHER
        if len(self.notes) < 3:
            self.notes.append("%s (line %d)" % (why, self.i))

    def bad(self, why):
        raise TraceVerdict(INVALID, why, self.i)

    def next(self):
        """The next line that is not blank (stripped), or None at the end."""
        while self.i < len(self.lines):
            raw = self.lines[self.i]
            self.i += 1
            s = raw.strip(" \t\r\n\x0c")
            if s:
                if _weird(s):
                    raise TraceVerdict(UNDECIDED, "bytes the format does not define", self.i)
                return s
        return None


def _dims(value, r):
    """`(x,y,z)`: three u32."""
    m = re.fullmatch(r"\((0|[1-9][0-9]*),(0|[1-9][0-9]*),(0|[1-9][0-9]*)\)", value)
    if m:
        v = [int(x) for x in m.groups()]
        if any(x >= U32 for x in v):
            r.bad("a dimension above 2^32 - 1: " + value)
        return v
    m = re.fullmatch(r"\(\s*(\+?[0-9]+)\s*,\s*(\+?[0-9]+)\s*,\s*(\+?[0-9]+)\s*\)", value)
    if m:
        v = [int(x) for x in m.groups()]
        if any(x >= U32 for x in v):
            r.bad("a dimension above 2^32 - 1: " + value)
        r.either("dimensions spelled loosely: " + value)
        return v
    r.bad("not (x,y,z): " + value)


def read_kernel_trace(text, gpu):
    """The verdict on one kernel trace's text and, unless invalid, its counts."""
    r = _Reader(text, gpu)
    h = {}
    while True:
        line = r.next()
        if line is None:
            r.bad("the file ends inside the header")
        if line.startswith("#"):
            break
        if not line.startswith("-") or "=" not in line:
            # Accel-Sim skips such a line; warpsmith refuses it.
            r.either("a header line that is not -key = value")
            continue
        key, value = line[1:].split("=", 1)
        key, value = key.strip(" \t\r"), value.strip(" \t\r")
        if re.sub(r"[ \t]+", " ", key) != key:
            raise TraceVerdict(UNDECIDED, "a header key spelled with extra spaces", r.i)
        if key in h:
            r.either("-%s given twice (the last one counts)" % key)
        h[key] = (value, r.i)

    def number(key, hi=U64 - 1):
        if key not in h:
            return None
        value, r.i = h[key]
        st, v = _dec(value, hi)
        if st == "bad":
            r.bad("-%s = %s is not a number below 2^64" % (key, value))
        if st == "either":
            r.either("-%s spelled loosely" % key)
        return v

    end_of_header = r.i
    k = {"name": None, "id": None, "shmem": 0, "nregs": 0}
    if "kernel name" not in h:
        r.bad("no -kernel name")
    k["name"] = h["kernel name"][0]
    if k["name"] == "":
        r.either("an empty kernel name")
    k["id"] = number("kernel id")
    if k["id"] is None:
        r.either("no -kernel id")
    shmem = number("shmem")
    nregs = number("nregs")
    if (number("binary version") or 0) >= U32:
        r.either("-binary version above 2^32 - 1 (no real SM version)")
    number("cuda stream id")
    for key in ("shmem base_addr", "local mem base_addr"):
        if key in h:
            value, r.i = h[key]
            st, _ = _hexv(value)
            if st == "bad":
                r.bad("-%s is not a 64-bit hex address" % key)
            if st == "either":
                r.either("-%s spelled loosely" % key)
    version = number("accelsim tracer version")
    if version is None:
        version = 0
    elif version in (0, 1, 2):
        r.either("tracer version %d given explicitly" % version)
    elif version not in (3, 4, 5):
        r.bad("unknown tracer version %d" % version)
    lineinfo = number("enable lineinfo")
    if lineinfo not in (None, 0, 1):
        r.either("-enable lineinfo = %d" % lineinfo)
    lineinfo = bool(lineinfo)
    for key in ("grid dim", "block dim"):
        if key not in h:
            r.bad("no -%s" % key)
    r.i = h["grid dim"][1]
    grid = _dims(h["grid dim"][0], r)
    r.i = h["block dim"][1]
    block = _dims(h["block dim"][0], r)
    if 0 in grid:
        r.bad("a zero grid dimension: nothing to run")
    if 0 in block:
        r.bad("a zero block dimension")
    threads = block[0] * block[1] * block[2]
    if threads > 1024:
        r.bad("%d threads in a block (at most 1024)" % threads)
    warps = -(-threads // 32)
    g = gpu
    if warps > g["warps_per_sm"]:
        r.bad("a block of %d warps does not fit an SM (gpu.warps_per_sm = %d)"
              % (warps, g["warps_per_sm"]))
    if shmem is not None:
        k["shmem"] = shmem
        if shmem > g["shmem_bytes"]:
            r.bad("-shmem = %d does not fit an SM (gpu.shmem_bytes = %d)" % (shmem, g["shmem_bytes"]))
    if nregs is not None:
        k["nregs"] = nregs
        if nregs > 255:
            r.either("-nregs = %d is no real kernel's (ignored, or refused)" % nregs)
        elif warps * 32 * (-(-nregs // 4) * 4) > g["registers"]:
            r.bad("-nregs = %d: a block needs more registers than gpu.registers = %d"
                  % (nregs, g["registers"]))
    r.i = end_of_header

    seen_ids = set()
    blocks = instructions = 0
    while True:
        line = r.next()
        if line is None:
            break
        if line != "#BEGIN_TB":
            if _toks(line)[0] == "#BEGIN_TB":
                r.either("#BEGIN_TB followed by text")
            else:
                r.bad("expected #BEGIN_TB: " + line[:40])
        line = r.next()
        if line is None:
            r.bad("the file ends after #BEGIN_TB")
        m = re.fullmatch(r"thread block = (0|[1-9][0-9]*),(0|[1-9][0-9]*),(0|[1-9][0-9]*)", line)
        if not m:
            m = re.fullmatch(r"thread block[ \t]*=[ \t]*(\+?[0-9]+)[ \t]*,[ \t]*(\+?[0-9]+)[ \t]*,"
                             r"[ \t]*(\+?[0-9]+)", line)
            if not m:
                r.bad("expected thread block = x,y,z: " + line[:40])
            r.either("thread block spelled loosely")
        tb = tuple(int(x) for x in m.groups())
        if any(x >= U32 for x in tb):
            r.bad("a block index above 2^32 - 1")
        if any(tb[d] >= grid[d] for d in range(3)):
            r.bad("block %s is outside the grid %s" % (tb, tuple(grid)))
        if tb in seen_ids:
            r.bad("block %s given twice" % (tb,))
        seen_ids.add(tb)
        blocks += 1
        seen_warps = set()
        while True:
            line = r.next()
            if line is None:
                r.bad("the file ends inside a thread block")
            if line == "#END_TB":
                break
            if _toks(line)[0] == "#END_TB":
                r.either("#END_TB followed by text")
                break
            w = _field(r, line, "warp")
            if w >= warps:
                r.bad("warp %d in a block of %d warps" % (w, warps))
            if w in seen_warps:
                r.bad("warp %d given twice in block %s" % (w, tb))
            seen_warps.add(w)
            line = r.next()
            if line is None:
                r.bad("the file ends after warp =")
            n = _field(r, line, "insts")
            lanes_in_warp = min(32, threads - 32 * w)
            for _ in range(n):
                line = r.next()
                if line is None:
                    r.bad("the file ends inside warp %d's instructions" % w)
                if line.startswith("#") or "=" in line:
                    r.bad("fewer instruction lines than insts = %d" % n)
                _inst(r, _toks(line), version, lineinfo, lanes_in_warp)
                instructions += 1
        if len(seen_warps) < warps:
            r.either("a block with warps that have no section")
    if blocks < grid[0] * grid[1] * grid[2] and blocks:
        r.either("fewer blocks than the grid")
    k.update(blocks=blocks, instructions=instructions, threads=threads, warps=warps)
    return r.status, "; ".join(r.notes), k


def _field(r, line, name):
    m = re.fullmatch(name + r" = (0|[1-9][0-9]*)", line)
    if m:
        return int(m.group(1))
    m = re.fullmatch(name + r"[ \t]*=[ \t]*(\+?[0-9]+)", line)
    if m:
        r.either(name + " spelled loosely")
        v = int(m.group(1))
        if v >= U64:
            r.bad(name + " above 2^64 - 1")
        return v
    r.bad("expected %s = N: %s" % (name, line[:40]))


def _inst(r, t, version, lineinfo, lanes_in_warp):
    """One instruction line's fields, by tracer version."""
    t = list(t)

    def take(what):
        if not t:
            r.bad("no " + what)
        return t.pop(0)

    def dec(what, hi, signed=False):
        st, v = _dec(take(what), hi, signed=signed, lo=-(1 << 63) if signed else 0)
        if st == "bad":
            r.bad("%s is not a number in range" % what)
        if st == "either":
            r.either(what + " spelled loosely")
        return v

    def reg(what):
        tok = take(what)
        m = re.fullmatch(r"R(0|[1-9][0-9]*)", tok)
        if m:
            if int(m.group(1)) > 255:
                r.bad("register %s (at most R255)" % tok)
            return
        m = re.fullmatch(r"R\+?[0-9]+", tok)
        if m and int(tok[1:]) <= 255:
            r.either("register spelled loosely")
            return
        r.bad("%s is not a register R0..R255" % tok)

    if version < 3:
        for what in ("tb_x", "tb_y", "tb_z", "warpid_tb"):
            if not re.fullmatch(r"(0|[1-9][0-9]*)", take(what)):
                r.either("a legacy " + what + " that is not a number")
    if lineinfo:
        n = take("line number")
        if not re.fullmatch(r"(0|[1-9][0-9]*)", n):
            r.either("a line number that is not a number")
        elif int(n) >= 1 << 64:
            r.either("a line number beyond 64 bits")
    st, _ = _hexv(take("PC"), prefix_ok=False)
    if st == "bad":
        r.bad("the PC is not 64-bit hex")
    if st == "either":
        r.either("the PC spelled loosely")
    st, mask = _hexv(take("mask"), bits=32, prefix_ok=False)
    if st == "bad":
        r.bad("the mask is not 32-bit hex")
    if st == "either":
        r.either("the mask spelled loosely")
    if mask >> lanes_in_warp:
        r.bad("mask %08x names lanes past the block's %d threads in this warp"
              % (mask, lanes_in_warp))
    if dec("destination count", 1):
        reg("destination register")
    op = take("opcode")
    del op
    for _ in range(dec("source count", 4)):
        reg("source register")
    width = dec("memory width", U32 - 1)
    if width > 0:
        mode = take("address mode")
        if mode not in ("0", "1", "2"):
            st, v = _dec(mode, 2)
            if st == "bad":
                r.bad("address mode " + mode)
            r.either("address mode spelled loosely")
            mode = str(v)
        lanes = bin(mask).count("1")

        def addr(what):
            st, _ = _hexv(take(what))
            if st == "bad":
                r.bad("%s is not a 64-bit hex address" % what)
            if st == "either":
                r.either(what + " spelled loosely")

        if mode == "0":
            for _ in range(lanes):
                addr("lane address")
        elif mode == "1":
            addr("base address")
            dec("stride", I64_MAX, signed=True)
        else:
            addr("base address")
            for _ in range(max(lanes - 1, 0)):
                dec("delta", I64_MAX, signed=True)
    if version >= 5:
        imm = take("immediate")
        if not re.fullmatch(r"-?(0|[1-9][0-9]*)", imm):
            r.either("an immediate that is not a number")
    if t:
        r.bad("a field after the last one: " + t[0][:20])


def read_trace_folder(folder, gpu):
    """The verdict on a trace folder (kernelslist.g and the traces it names): (status, why,
    kernels)."""
    lst = os.path.join(folder, "kernelslist.g")
    try:
        text = open(lst, "rb").read().decode("latin-1")
    except OSError as e:
        return INVALID, "kernelslist.g: %s" % e, []
    kernels, status, why = [], VALID, []
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.strip(" \t\r\n\x0c")
        if _weird(line):
            return UNDECIDED, "kernelslist.g:%d: bytes the format does not define" % n, []
        if line.startswith("MemcpyHtoD,"):
            parts = line[len("MemcpyHtoD,"):].split(",", 1)
            if len(parts) != 2 or _hexv(parts[0].strip())[0] != "ok" or \
                    _dec(parts[1].strip(), U64 - 1)[0] == "bad":
                return INVALID, "kernelslist.g:%d: a bad MemcpyHtoD line" % n, []
            if _dec(parts[1].strip(), U64 - 1)[0] == "either":
                status = EITHER
        elif ".traceg" in line:
            name = os.path.join(folder, line)
            if line.endswith(".xz") or not os.path.isfile(name):
                return INVALID, "kernelslist.g:%d: %s is not a trace file" % (n, line), []
            try:
                st, note, k = read_kernel_trace(open(name, "rb").read().decode("latin-1"), gpu)
            except TraceVerdict as v:
                return v.status, "%s:%d: %s" % (line, v.line, v), []
            k["file"] = line
            kernels.append(k)
            if st == EITHER:
                status = EITHER
                why.append("%s: %s" % (line, note))
    if not kernels:
        return INVALID, "kernelslist.g names no kernel trace", []
    if sum(k["instructions"] for k in kernels) == 0:
        return INVALID, "no instruction in any kernel: nothing to simulate", kernels
    if any(k["blocks"] == 0 for k in kernels):
        status = EITHER
        why.append("a kernel with no block")
    return status, "; ".join(why), kernels


# -- Synthesized traces

ALU_OPS = ["IADD3", "IMAD.WIDE", "MOV", "FFMA", "FADD", "ISETP.GE.AND", "SHF.L.U32", "LOP3.LUT",
           "S2R", "MUFU.RCP", "DFMA", "HMMA.16816.F32", "BRA", "BSSY", "UMOV", "TEX", "BAR.SYNC",
           "NOP", "CS2R"]
MEM_OPS = [("LDG.E", 4), ("LDG.E.64", 8), ("LDG.E.128.SYS", 16), ("STG.E", 4), ("STG.E.64", 8),
           ("LDS.U.32", 4), ("STS", 4), ("ATOMG.E.ADD.STRONG.GPU", 4), ("RED.E.ADD", 4),
           ("LDL", 4), ("STL.64", 8), ("LD.E", 4), ("ST.E", 4), ("LDG.E.STRONG.GPU", 4),
           ("LDC", 4)]
TRACE_FORMATS = {
    0: "#traces format = threadblock_x threadblock_y threadblock_z warpid_tb PC mask dest_num "
       "reg_dests opcode src_num reg_srcs mem_width mem_addresses",
    3: "#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
       "[adrrescompress?] [mem_addresses]",
    4: "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
       "mem_width [adrrescompress?] [mem_addresses]",
    5: "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
       "mem_width [adrrescompress?] [mem_addresses] immediate",
}


def synth_kernel_trace(rng, name, kid, gpu, max_blocks=6, big=False):
    """A valid kernel trace of a random shape, every format version, every address mode."""
    version = rng.choice([0, 3, 4, 5, 5])
    lineinfo = version >= 4 and rng.random() < 0.3
    shapes = [(32, 1, 1), (64, 1, 1), (96, 1, 1), (100, 1, 1), (128, 1, 1), (33, 1, 1),
              (1, 1, 1), (16, 8, 1), (8, 8, 2), (250, 1, 1), (256, 1, 1), (16, 16, 1)]
    shapes = [s for s in shapes if -(-s[0] * s[1] * s[2] // 32) <= gpu["warps_per_sm"]]
    block = rng.choice(shapes)
    if big:
        grid = [rng.randint(60, 120), 1, 1]
    else:
        grid = rng.choice([[1, 1, 1], [2, 1, 1], [3, 1, 1], [2, 2, 1], [1, 2, 1], [1, 1, 2],
                           [2, 1, 2], [max_blocks, 1, 1]])
    threads = block[0] * block[1] * block[2]
    warps = -(-threads // 32)
    nregs = rng.choice([0, 8, 16, 24, 32])
    while warps * 32 * nregs > gpu["registers"]:
        nregs //= 2
    shmem = rng.choice([0, 0, 256, 1024, min(4096, gpu["shmem_bytes"])])
    shmem_base, local_base = 0x7f5000000000, 0x7f4000000000
    head = ["-kernel name = %s" % name, "-kernel id = %d" % kid,
            "-grid dim = (%d,%d,%d)" % tuple(grid), "-block dim = (%d,%d,%d)" % block,
            "-shmem = %d" % shmem, "-nregs = %d" % nregs, "-binary version = 75",
            "-cuda stream id = 0"]
    if version >= 3:
        head += ["-shmem base_addr = 0x%016x" % shmem_base,
                 "-local mem base_addr = 0x%016x" % local_base,
                 "-nvbit version = 1.5.5", "-accelsim tracer version = %d" % version]
    if version >= 4:
        head.append("-enable lineinfo = %d" % lineinfo)
    out = head + ["", TRACE_FORMATS[version], ""]
    ids = [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]
    if rng.random() < 0.2:
        rng.shuffle(ids)
    region = rng.choice([0x7f5800000000, 0xC0000000, 0x10000, 0x7f5000000100])
    for tb in ids:
        out += ["#BEGIN_TB", "", "thread block = %d,%d,%d" % tb, ""]
        for w in range(warps):
            lanes = min(32, threads - 32 * w)
            full = (1 << lanes) - 1
            n = rng.randint(2, 8) if not big else 5
            out.append("warp = %d" % w)
            out.append("insts = %d" % n)
            pc = 0
            for i in range(n):
                mask = full
                if rng.random() < 0.2:
                    mask = full & rng.getrandbits(32)
                last = i == n - 1
                f = []
                if version < 3:
                    f += [str(tb[0]), str(tb[1]), str(tb[2]), str(w)]
                if lineinfo:
                    f.append(str(rng.randint(1, 900)))
                f += ["%04x" % pc, "%08x" % mask]
                pc += 16
                if last:
                    f += ["0", "EXIT", "0", "0"]
                elif rng.random() < 0.45:
                    op, size = rng.choice(MEM_OPS)
                    store = op.startswith(("ST", "RED"))
                    f += ["0"] if store else ["1", "R%d" % rng.randint(0, 254)]
                    f.append(op)
                    srcs = rng.randint(1, 2)
                    f.append(str(srcs))
                    f += ["R%d" % rng.randint(0, 255) for _ in range(srcs)]
                    f.append(str(size))
                    active = [l for l in range(32) if mask >> l & 1]
                    base = region + rng.randrange(0, 1 << 16) * 4
                    if op.startswith(("LDS", "STS")):
                        base = shmem_base + rng.randrange(0, 1024) * 4
                    if op.startswith(("LDL", "STL")):
                        base = local_base + rng.randrange(0, 1024) * 8
                    mode = rng.choice([0, 1, 1, 2]) if active else rng.choice([0, 1])
                    if mode == 0:
                        f.append("0")
                        f += ["0x%016x" % (base + size * k) for k in range(len(active))]
                    elif mode == 1:
                        f += ["1", "0x%016x" % base, str(rng.choice([size, size, 0, -size, 128]))]
                    else:
                        f += ["2", "0x%016x" % base]
                        f += [str(rng.choice([size, -size, 4096, 0])) for _ in active[1:]]
                else:
                    op = rng.choice(ALU_OPS)
                    if rng.random() < 0.8:
                        f += ["1", "R%d" % rng.randint(0, 254)]
                    else:
                        f += ["0"]
                    f.append(op)
                    srcs = rng.randint(0, 4)
                    f.append(str(srcs))
                    f += ["R%d" % rng.randint(0, 255) for _ in range(srcs)]
                    f.append("0")
                if version >= 5:
                    f.append(str(rng.choice([0, 0, 16, -1, 1024])))
                out.append(" ".join(f))
            out.append("")
        out += ["#END_TB", ""]
    return "\n".join(out) + "\n"


def lud_trace():
    d = os.path.join(ROOT, "golden/tests-data/accelsim-traces/rodinia2-lud-kernel8-volta-legacy-format")
    return {"kernelslist.g": "kernel-8.traceg\n",
            "kernel-8.traceg": open(os.path.join(d, "kernel-8.traceg")).read()}


def pytorch_trace():
    """The v5 excerpt, its grid made the two blocks it holds (upstream has 55)."""
    d = os.path.join(ROOT, "golden/tests-data/accelsim-traces/pytorch-pow-kernel593-tracer-v5-excerpt")
    name = [f for f in os.listdir(d) if ".traceg" in f][0]
    text = open(os.path.join(d, name)).read().replace("-grid dim = (55,1,1)", "-grid dim = (2,1,1)")
    return {"kernelslist.g": "kernel-593.traceg\n", "kernel-593.traceg": text}


def synth_trace(rng, gpu, big=False):
    files = {}
    n = 1 if big or rng.random() < 0.8 else 2
    lines = []
    for k in range(1, n + 1):
        if rng.random() < 0.5:
            lines.append("MemcpyHtoD,0x00007f5800000000,%d" % rng.choice([4096, 65536]))
        files["kernel-%d.traceg" % k] = synth_kernel_trace(rng, "synth_%d" % k, k, gpu, big=big)
        lines.append("kernel-%d.traceg" % k)
    files["kernelslist.g"] = "\n".join(lines) + "\n"
    return files


# -- Mutations of a trace's text

def _inst_roles(toks, version, lineinfo):
    """The role of each field of a well-formed instruction line."""
    roles, t = [], list(toks)
    if version < 3:
        roles += ["legacy"] * 4
    if lineinfo:
        roles.append("line")
    roles += ["pc", "mask", "dnum"]
    i = len(roles)
    if toks[i - 1] == "1":
        roles.append("dreg")
    roles.append("op")
    roles.append("snum")
    ns = int(t[len(roles) - 1])
    roles += ["sreg"] * ns
    roles.append("width")
    if int(t[len(roles) - 1]) > 0:
        roles.append("mode")
        mode = t[len(roles) - 1]
        rest = len(t) - len(roles) - (1 if version >= 5 else 0)
        if mode == "0":
            roles += ["addr"] * rest
        elif mode == "1":
            roles += ["base", "stride"]
        else:
            roles += ["base"] + ["delta"] * (rest - 1)
    if version >= 5:
        roles.append("imm")
    return roles[:len(toks)] + ["extra"] * (len(toks) - len(roles))


def _role_value(rng, role):
    if role in ("pc", "mask"):
        return rng.choice(["ffffffff", "0", "1", "80000000", "100000000", "fffffffff",
                           "%08x" % rng.getrandbits(32), "0xffffffff", "+ff", "g", "-1",
                           "0000000000ffffffff", "FFFFFFFF"] + EDGE_HEX)
    if role in ("dnum", "snum", "mode"):
        return rng.choice(["0", "1", "2", "3", "4", "5", "6", "-1", "01", "+1", "4294967297",
                           "18446744073709551617", "x", ""])
    if role in ("dreg", "sreg"):
        return rng.choice(["R0", "R254", "R255", "R256", "R257", "R1000", "R65535", "R65536",
                           "R4294967296", "r5", "R", "R-1", "R+3", "R007", "Q5", "5", "RZ"])
    if role == "op":
        return rng.choice(["EXIT", "BAR.SYNC", "BAR", "LDG.E.128", "STG.E", "ATOMG.ADD", "LD.E",
                           "ST.E", "LDS", "LDC", "FFMA", "#X", "a=b", "LDG.E.0", "LDG.E.4294967296",
                           "LDG.E.U8", "NOP", "X" * 300, "RED", "LDL", "STL", "LDGSTS"])
    if role in ("addr", "base"):
        return rng.choice(EDGE_HEX + ["0x%016x" % rng.getrandbits(64)])
    if role in ("stride", "delta", "imm", "width", "legacy", "line"):
        return edge_number(rng, signed=True)
    return edge_number(rng)


HEADER_VALUES = {
    "grid dim": ["(1,1,1)", "(0,1,1)", "(2,2,1)", "(65536,65536,1)", "(4294967295,1,1)",
                 "(4294967296,1,1)", "(1,1)", "(1,1,1,1)", "1,1,1", "( 2, 1, 1 )", "(-1,1,1)",
                 "(x,1,1)", "()", "(+2,1,1)", "(3,1,1)", "(1,3,1)", "(4294967295,4294967295,4294967295)"],
    "block dim": ["(32,1,1)", "(1,1,1)", "(0,1,1)", "(1024,1,1)", "(1025,1,1)", "(33,1,1)",
                  "(65536,65537,1)", "(4294967296,1,1)", "(16,2,1)", "(64,1,1)", "(512,1,1)",
                  "(31,1,1)", "( 32, 1, 1 )", "(32,1)", "(x,1,1)"],
    "accelsim tracer version": ["0", "1", "2", "3", "4", "5", "6", "99", "4294967299", "-1", "x",
                                "5.0", ""],
    "enable lineinfo": ["0", "1", "2", "-1", "x", ""],
    "shmem base_addr": EDGE_HEX, "local mem base_addr": EDGE_HEX,
    "kernel name": ["", "x", "a b", "=", "k" * 5000],
}


def _trace_lines(text):
    return text.split("\n")


def mutate_trace(rng, files, gpu):
    """One or more mutations of a trace folder's files (a dict name -> text); what was done."""
    kernels = [n for n in files if n.endswith(".traceg")]
    done = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        try:
            _mutate_trace_once(rng, files, kernels, done)
        except (StopIteration, ValueError, IndexError):
            pass  # an earlier mutation removed what this one edits
    return done


def _mutate_trace_once(rng, files, kernels, done):
    """One mutation of a kernel trace (or of the list), recorded in `done`."""
    name = rng.choice(kernels)
    text = files[name]
    lines = _trace_lines(text)
    head_end = next(i for i, l in enumerate(lines) if l.startswith("#"))
    version = 0
    lineinfo = False
    for l in lines[:head_end]:
        if l.startswith("-accelsim tracer version"):
            version = int(l.split("=")[1])
        if l.startswith("-enable lineinfo"):
            lineinfo = l.split("=")[1].strip() == "1"
    begins = [i for i, l in enumerate(lines) if l.strip() == "#BEGIN_TB"]
    ends = [i for i, l in enumerate(lines) if l.strip() == "#END_TB"]
    warps = [i for i, l in enumerate(lines) if l.startswith("warp = ")]
    insts = [i for i in range(head_end + 1, len(lines))
             if lines[i].strip() and not lines[i].startswith(("#", "warp", "insts", "thread"))]
    kind = rng.choices(
        ["header", "header-line", "block", "warp", "inst", "inst-token", "byte", "cut",
         "shift", "mask", "list"],
        [10, 5, 8, 10, 8, 30, 12, 4, 4, 4, 3])[0]
    if kind == "header":
        i = rng.randrange(head_end)
        if not lines[i].startswith("-") or "=" not in lines[i]:
            return
        key = lines[i][1:].split("=")[0].strip()
        value = rng.choice(HEADER_VALUES.get(key, [])) if key in HEADER_VALUES and \
            rng.random() < 0.8 else edge_number(rng)
        lines[i] = "-%s = %s" % (key, value)
        done.append("%s: -%s = %s" % (name, key, value[:40]))
    elif kind == "header-line":
        op = rng.choice(["delete", "dup", "garbage", "unknown", "no-format"])
        i = rng.randrange(head_end)
        if op == "delete":
            del lines[i]
        elif op == "dup" and "=" in lines[i]:
            key = lines[i].split("=")[0]
            lines.insert(i + 1, "%s= %s" % (key, edge_number(rng)))
        elif op == "garbage":
            lines.insert(i, rng.choice(["garbage", "kernel name = x", "-", "-=", "- = 3"]))
        elif op == "unknown":
            lines.insert(i, "-new key = %s" % edge_number(rng))
        else:
            del lines[head_end]
        done.append("%s: header line %d: %s" % (name, i + 1, op))
    elif kind == "block" and begins:
        b = rng.randrange(len(begins))
        s, e = begins[b], next(x for x in ends if x > begins[b])
        op = rng.choice(["dup", "delete", "no-begin", "no-end", "id", "id", "swap"])
        if op == "dup":
            lines[e + 1:e + 1] = lines[s:e + 1]
        elif op == "delete":
            del lines[s:e + 1]
        elif op == "no-begin":
            del lines[s]
        elif op == "no-end":
            del lines[e]
        elif op == "id":
            t = next(i for i in range(s, e) if lines[i].startswith("thread block"))
            lines[t] = "thread block = %s" % rng.choice(
                ["0,0,0", "1,0,0", "0,1,0", "0,0,1", "100,0,0", "4294967295,0,0",
                 "4294967296,0,0", "-1,0,0", "x,0,0", "0,0", "0,0,0,0", "0, 0, 0", "+1,0,0"])
        elif op == "swap" and len(begins) > 1:
            o = rng.randrange(len(begins))
            if o != b:
                s2, e2 = begins[o], next(x for x in ends if x > begins[o])
                a_, b_ = (s, e), (s2, e2)
                if a_ > b_:
                    a_, b_ = b_, a_
                lines = (lines[:a_[0]] + lines[b_[0]:b_[1] + 1] + lines[a_[1] + 1:b_[0]]
                         + lines[a_[0]:a_[1] + 1] + lines[b_[1] + 1:])
        done.append("%s: block %d: %s" % (name, b, op))
    elif kind == "warp" and warps:
        i = rng.choice(warps)
        op = rng.choice(["warp", "insts", "insts", "delete", "dup"])
        n = int(lines[i + 1].split("=")[1])
        if op == "warp":
            lines[i] = "warp = %s" % rng.choice(["0", "1", "2", "3", "4", "31", "32", "47",
                                                 "48", "1000", "4294967296", "-1", "x", "01"])
        elif op == "insts":
            lines[i + 1] = "insts = %s" % rng.choice(
                [str(n + 1), str(max(n - 1, 0)), "0", str(n * 2), "1000000000000",
                 "18446744073709551615", "18446744073709551616", "-1", "x", "+%d" % n])
        elif op == "delete":
            del lines[i:i + 2 + n]
        else:
            lines[i + 2 + n:i + 2 + n] = lines[i:i + 2 + n]
        done.append("%s: warp line %d: %s" % (name, i + 1, op))
    elif kind == "inst" and insts:
        i = rng.choice(insts)
        op = rng.choice(["delete", "dup", "blank", "garbage"])
        if op == "delete":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "blank":
            lines[i] = ""
        else:
            lines.insert(i, rng.choice(["x", "0", "ffff", "0000 ffffffff", "# comment"]))
        done.append("%s: instruction line %d: %s" % (name, i + 1, op))
    elif kind == "inst-token" and insts:
        i = rng.choice(insts)
        toks = _toks(lines[i])
        try:
            roles = _inst_roles(toks, version, lineinfo)
        except (ValueError, IndexError):
            roles = ["extra"] * len(toks)
        j = rng.randrange(len(toks))
        op = rng.choice(["set", "set", "set", "set", "delete", "insert"])
        if op == "set":
            toks[j] = _role_value(rng, roles[j])
        elif op == "delete":
            del toks[j]
        else:
            toks.insert(j, _role_value(rng, rng.choice(roles)))
        lines[i] = " ".join(toks)
        done.append("%s:%d: %s %s" % (name, i + 1, op, roles[j]))
    elif kind == "byte":
        data = bytearray("\n".join(lines).encode("latin-1"))
        at = rng.randrange(len(data))
        op = rng.choice(["set", "set", "insert", "delete"])
        b = rng.choice(b"0123456789abcdefxR#=,-+ ()\n\t") if rng.random() < 0.9 \
            else rng.randrange(256)
        if op == "set":
            data[at] = b
        elif op == "insert":
            data.insert(at, b)
        else:
            del data[at]
        lines = data.decode("latin-1").split("\n")
        done.append("%s: byte %d: %s %r" % (name, at, op, bytes([b])))
    elif kind == "cut":
        data = "\n".join(lines)
        if rng.random() < 0.7:
            at = rng.randrange(len(data))
            lines = data[:at].split("\n")
            done.append("%s: cut at byte %d" % (name, at))
        else:
            junk = rng.choice(["\n#BEGIN_TB\n", "junk\n", "\n\n\n", "#END_TB\n",
                               "\x00" * 8, "#BEGIN_TB\nthread block = 0,0,0\n#END_TB\n"])
            lines = (data + junk).split("\n")
            done.append("%s: appended %r" % (name, junk[:20]))
    elif kind == "shift":
        k = rng.choice([1 << 53, (1 << 53) - 64, 1 << 60, 1 << 63, U64 - (1 << 20)])
        lines = [re.sub(r"0x([0-9a-fA-F]{8,16})",
                        lambda m: "0x%016x" % ((int(m.group(1), 16) + k) % U64), l)
                 if not l.startswith("-") else l for l in lines]
        done.append("%s: every address + %#x (mod 2^64)" % (name, k))
    elif kind == "mask" and insts:
        i = rng.choice(insts)
        toks = _toks(lines[i])
        try:
            roles = _inst_roles(toks, version, lineinfo)
            j = roles.index("mask")
            toks[j] = rng.choice(["ffffffff", "fffffffe", "80000000", "0000ffff", "ffff0000",
                                  "00000001", "00000002"])
            lines[i] = " ".join(toks)
            done.append("%s:%d: mask %s" % (name, i + 1, toks[j]))
        except (ValueError, IndexError):
            pass
    elif kind == "list":
        op = rng.choice(["missing", "empty", "twice", "memcpy", "xz", "dir", "comment"])
        lst = files["kernelslist.g"]
        if op == "missing":
            lst += "kernel-99.traceg\n"
        elif op == "empty":
            lst = ""
        elif op == "twice":
            lst += name + "\n"
        elif op == "memcpy":
            lst = rng.choice(["MemcpyHtoD,0xg,12\n", "MemcpyHtoD,0x10\n",
                              "MemcpyHtoD,0x10,18446744073709551616\n",
                              "MemcpyHtoD,0x10,-1\n", "MemcpyHtoD,,\n"]) + lst
        elif op == "xz":
            lst += name + ".xz\n"
        elif op == "dir":
            lst += "sub.traceg\n"
            files["sub.traceg/"] = ""
        else:
            lst = "# a comment\n" + lst + "\n\n  \n"
        files["kernelslist.g"] = lst
        done.append("kernelslist.g: " + op)
    files[name] = "\n".join(lines)


def trace_bytes(text):
    """A trace's text as bytes: characters below 256 are the bytes they were read from (or
    a mutation set), others in UTF-8."""
    return b"".join(bytes([ord(c)]) if ord(c) < 256 else c.encode() for c in text) \
        if any(ord(c) > 255 for c in text) else text.encode("latin-1")


def write_trace(ctx, folder, files):
    for n, text in sorted(files.items()):
        if n.endswith("/"):
            ctx.mkdir(os.path.join(folder, n))
        else:
            ctx.write(os.path.join(folder, n), trace_bytes(text))


def trace_file_names(files):
    """The files a refusal of this trace folder may name: its own and those its list names."""
    names = [n.rstrip("/") for n in files]
    names += [l.strip() for l in files.get("kernelslist.g", "").split("\n") if ".traceg" in l]
    return [n for n in names if n]


def run_args(env, preset, *rest):
    args = ["run", "--preset", preset] + list(rest) + ["--format", "json"]
    if env.max_cycles:
        args += ["--max-cycles", MAX_CYCLES]
    return args


def judge_trace_run(res, folder_files, verdict, what="trace", bounded_words=()):
    """The oracle's verdict against one `run --trace`."""
    status, why, kernels = verdict
    c = crash(res)
    if c:
        return c
    if res.code == 1:
        return INTERNAL, "exit 1 on a trace (%s): %s" % (status, first_line(res.err))
    if res.code == 2:
        out = rejection(res, ["gpu.warps_per_sm", "gpu.shmem_bytes", "gpu.registers"]
                        + list(bounded_words), folder_files,
                        valid=(status == VALID), what="%s (%s)" % (what, why or "valid"))
        return out
    j = res.json()
    if not isinstance(j, dict):
        return WRONG, "exit 0 without a JSON report"
    if j.get("instructions") == 0:
        return NOTHING, "exit 0 after 0 instructions (%s)" % status
    if status == INVALID:
        return WRONG, "ran an invalid trace: %s" % why
    if status == UNDECIDED:
        return UNJUDGED, why
    got = j.get("kernels") or []
    if len(got) != len(kernels):
        return WRONG, "%d kernels reported, %d in the list" % (len(got), len(kernels))
    for g, k in zip(got, kernels):
        for field in ("blocks", "instructions"):
            if g.get(field) != k[field]:
                return WRONG, "%s: %s = %s, the trace holds %s (%s)" % (
                    k["file"], field, g.get(field), k[field], status)
        if k["id"] is not None and g.get("id") != k["id"]:
            return WRONG, "%s: id = %s, the header says %s" % (k["file"], g.get("id"), k["id"])
        if g.get("name") != k["name"]:
            return WRONG, "%s: name %r, the header says %r" % (k["file"], g.get("name"), k["name"])
        occ = g.get("occupancy") or {}
        if "block_shmem" in occ and occ["block_shmem"] != k["shmem"]:
            return WRONG, "%s: block_shmem = %s, -shmem = %s" % (k["file"], occ["block_shmem"], k["shmem"])
        if k["nregs"] > 255:
            if occ.get("ignored_regs") != k["nregs"]:
                return WRONG, "%s: -nregs = %d neither refused nor reported as ignored (%s)" % (
                    k["file"], k["nregs"], occ.get("ignored_regs"))
        elif "block_registers" in occ:
            want = k["warps"] * 32 * (-(-k["nregs"] // 4) * 4)
            if occ["block_registers"] != want:
                return WRONG, "%s: block_registers = %s, expected %d" % (k["file"], occ["block_registers"], want)
    return OK, "%s: %d kernel(s), %d instructions" % (status, len(kernels),
                                                       sum(k["instructions"] for k in kernels))


def gen_trace(rng, index, env):
    src = rng.choices(["lud", "pytorch", "synth"], [3, 2, 5])[0]
    preset = "tiny"
    gpu = env.gpu(preset)
    files = {"lud": lud_trace, "pytorch": pytorch_trace}[src]() if src != "synth" \
        else synth_trace(rng, gpu)
    done = mutate_trace(rng, files, gpu)

    def body(ctx):
        write_trace(ctx, "trace", files)
        verdict = read_trace_folder(ctx.p("trace"), gpu)
        before = ctx.snapshot()
        res = ctx.run("run", run_args(env, preset, "--trace", "trace", "--no-trace-cache"))
        out = judge_trace_run(res, trace_file_names(files), verdict)
        lost = lost_files(before, ctx.snapshot())
        if lost and out[0] not in FAILURES:
            return LOST_FILE, ", ".join(lost)
        return out

    return Case("trace", index, "%s: %s" % (src, "; ".join(done)), body)


# ==== Class pack: packed trace copies ======================================================
#
# Oracle: the text is what counts. Whatever happened to the copy (corrupted, cut, grown,
# another trace's, a directory) or to the text since (edited at the same size, its
# modification time restored), a run reads the trace as its text says, twice in a row, and
# gives exactly the result of `--no-trace-cache` on the same text.


def json_diff(a, b, path="$"):
    """The first place two JSON values differ."""
    if type(a) is not type(b):
        return "%s: %r vs %r" % (path, a, b)
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return "%s.%s only in one" % (path, k)
            d = json_diff(a[k], b[k], path + "." + k)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d vs %d items" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = json_diff(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %r vs %r" % (path, a, b)


def big_trace(rng, gpu):
    """A trace above 2 x 64 KiB, so that an edit in its middle is outside the first and last
    64 KiB a copy's key samples."""
    while True:
        files = {"kernelslist.g": "kernel-1.traceg\n",
                 "kernel-1.traceg": synth_kernel_trace(rng, "big", 1, gpu, big=True)}
        if len(files["kernel-1.traceg"]) > 200_000:
            return files


def gen_pack(rng, index, env):
    preset = "tiny"
    gpu = env.gpu(preset)
    kind = rng.choices(["flip", "set", "truncate", "append", "foreign", "empty", "dir",
                        "symlink", "stale-middle", "stale-any"],
                       [25, 10, 12, 10, 8, 3, 3, 3, 16, 10])[0]
    if kind == "stale-middle":
        src, files = "big", big_trace(rng, gpu)
    else:
        src = rng.choice(["lud", "pytorch", "synth", "synth"])
        files = {"lud": lud_trace, "pytorch": pytorch_trace}[src]() if src != "synth" \
            else synth_trace(rng, gpu)
        while src == "synth" and read_trace_folder_text(files, gpu)[0] != VALID:
            files = synth_trace(rng, gpu)
    other = synth_trace(rng, gpu) if kind == "foreign" else None
    seed = rng.getrandbits(32)
    kernel = [n for n in files if n.endswith(".traceg")][0]

    def body(ctx):
        r = random.Random(seed)
        write_trace(ctx, "trace", files)
        if other:
            write_trace(ctx, "other", other)
        ctx.shell.append(": > ../io.seen")
        args = run_args(env, preset, "--trace", "trace")
        clean = ctx.run("clean", args + ["--no-trace-cache"])
        if crash(clean) or clean.code != 0:
            return crash(clean, "clean run") or (UNJUDGED, "the text itself does not run: %s"
                                                 % first_line(clean.err))
        ref = strip_volatile(clean.json())
        first = ctx.run("pack", args)
        out = _same_as(first, ref, "the run that packs the copy")
        if out:
            return out
        copy = ctx.note_copies("COPY")
        if copy is None:
            return UNJUDGED, "no packed copy was written (nothing to corrupt)"
        size = os.path.getsize(copy)
        detail = kind
        if kind in ("flip", "set"):
            at = r.randrange(min(size, 200)) if r.random() < 0.3 else r.randrange(size)
            old = open(copy, "rb").read()[at]
            new = old ^ r.randrange(1, 256) if kind == "flip" else r.choice([0, 0xff, r.randrange(256)])
            if new == old:
                new = old ^ 1
            ctx.patch(Var("COPY"), at, bytes([new]), from_end=at >= 12)
            detail = "copy byte %d of %d: %02x -> %02x" % (at, size, old, new)
        elif kind == "truncate":
            to = r.choice([1, 8, 12, size // 2, size - 1, size - 5, r.randrange(size)])
            ctx.truncate(Var("COPY"), to, from_end=to >= 12)
            detail = "copy cut to %d of %d bytes" % (to, size)
        elif kind == "append":
            tail = open(copy, "rb").read()[-64:]
            extra = r.choice([bytes(r.randrange(256) for _ in range(r.randint(1, 64))),
                              b"\x00" * r.randint(1, 16), tail, b"\x01" + bytes(40)])
            ctx.append(Var("COPY"), extra)
            detail = "%d bytes appended to the copy" % len(extra)
        elif kind == "foreign":
            ctx.run("other", run_args(env, preset, "--trace", "other"))
            if ctx.note_copies("OTHER") is None:
                return UNJUDGED, "no packed copy of the other trace"
            ctx.copy(Var("OTHER"), Var("COPY"))
            detail = "the copy replaced by another trace's copy"
        elif kind == "empty":
            ctx.truncate(Var("COPY"), 0)
        elif kind == "dir":
            ctx.remove(Var("COPY"))
            os.mkdir(copy)
            ctx.shell.append('mkdir "$COPY"')
        elif kind == "symlink":
            ctx.remove(Var("COPY"))
            os.symlink(ctx.p(os.path.join("trace", kernel)), copy)
            ctx.shell.append('ln -s "$PWD/trace/%s" "$COPY"' % kernel)
        else:
            rel = os.path.join("trace", kernel)
            text = open(ctx.p(rel), "rb").read()
            lo, hi = (70_000, len(text) - 70_000) if kind == "stale-middle" else (0, len(text))
            spots = [m.start() for m in re.finditer(rb"0x[0-9a-f]{16}", text) if lo <= m.start() < hi]
            if not spots:
                return UNJUDGED, "no address to edit"
            at = r.choice(spots) + r.randint(8, 17)
            old = text[at:at + 1]
            new = r.choice([c for c in b"0123456789abcdef" if c != old[0]])
            mtime = ctx.mtime(rel)
            ctx.patch(rel, at, bytes([new]))
            ctx.set_mtime(rel, mtime)
            detail = "%s byte %d edited (%s -> %s), same size, modification time restored" % (
                rel, at, old.decode(), chr(new))
            clean = ctx.run("clean-edited", args + ["--no-trace-cache"])
            if crash(clean) or clean.code != 0:
                return crash(clean, "clean run of the edited text") or (
                    UNJUDGED, "the edited text does not run: " + first_line(clean.err))
            ref = strip_volatile(clean.json())
        before = ctx.snapshot()
        for name in ("after", "again"):
            out = _same_as(ctx.run(name, args), ref, "the run after: " + detail)
            if out:
                return out
        lost = lost_files(before, ctx.snapshot())
        if lost:
            return LOST_FILE, ", ".join(lost)
        return OK, detail

    return Case("pack", index, "%s: %s" % (src, kind), body)


def _same_as(res, ref, what):
    c = crash(res, what)
    if c:
        return c
    if res.code == 2:
        return REFUSED, "%s: exit 2 on a valid trace: %s" % (what, first_line(res.err))
    if res.code == 1:
        return INTERNAL, "%s: %s" % (what, first_line(res.err))
    got = res.json()
    if got is None:
        return WRONG, "%s: no JSON report" % what
    d = json_diff(strip_volatile(got), ref)
    if d:
        return WRONG, "%s differs from the text's result: %s" % (what, d)
    return None


def read_trace_folder_text(files, gpu):
    """The oracle's verdict on a trace held in memory."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        for n, t in files.items():
            if n.endswith("/"):
                os.makedirs(os.path.join(d, n), exist_ok=True)
            else:
                with open(os.path.join(d, n), "wb") as f:
                    f.write(trace_bytes(t))
        return read_trace_folder(d, gpu)


# ==== Class kernel: kernel files (TOML) ====================================================
#
# Oracle: the kernel format's rules (golden/src/workload/kernel.rs: fields, types, unknown
# fields refused, shapes, arrays, loads, every index and byte address in range), at most 254
# loads per group (golden/src/gpu/kernel.rs), a block that fits an SM's warp slots; then the
# counts from the program shape: every warp runs its loads outside the loop once, then
# `loop_trips` times its loads in the loop; each group (the loads before the loop, each
# iteration's loads) is followed by `compute` arithmetic instructions, and the warp ends with
# EXIT. So a warp runs n_out + trips * n_in + compute * groups + 1 instructions, and the kernel
# blocks * ceil(threads / 32) warps.

KERNEL_TOP = {"name": "str", "grid": "dims", "block": "dims", "loop_trips": "u32",
              "compute": "u32", "arrays": "arrays", "loads": "loads"}
KERNEL_REQUIRED = ["name", "grid", "block", "arrays", "loads"]
ARRAY_FIELDS = {"name": "str", "base": "u64", "elem_bytes": "u32", "row_pitch": "u64", "len": "u64"}
LOAD_FIELDS = {"pc": "u64", "array": "str", "index": "index", "in_loop": "bool", "irregular": "bool"}
INDEX_FIELDS = ["c", "bx", "by", "bz", "tx", "ty", "tz", "it"]


def _is_int(v):
    return type(v) is int


def kernel_verdict(text, gpu):
    """(valid, problems, counts): problems are (what, words the message may name)."""
    try:
        d = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError) as e:
        return False, [("not TOML: %s" % e, ["line"])], None
    probs = []
    lenient = []

    def typed(v, t, where):
        if t == "str":
            ok = isinstance(v, str)
        elif t == "bool":
            ok = isinstance(v, bool)
        elif t in ("u32", "u64"):
            ok = _is_int(v) and 0 <= v <= (U32 - 1 if t == "u32" else U64 - 1)
            if ok and v > I64_MAX:
                # TOML's integers are i64; a TOML reader may take a larger u64 losslessly.
                lenient.append(where)
        elif t == "i64":
            ok = _is_int(v) and I64_MIN <= v <= I64_MAX
        elif t == "dims":
            ok = isinstance(v, list) and len(v) == 3 and all(_is_int(x) and 0 <= x < U32 for x in v)
        else:
            ok = True
        if not ok:
            probs.append(("%s has the wrong type or range: %r" % (where, v)[:200], ["line", where.split(".")[-1].split("[")[0]]))
        return ok

    def table(tbl, fields, required, where):
        if not isinstance(tbl, dict):
            probs.append(("%s is not a table" % where, ["line"]))
            return False
        ok = True
        for k, v in tbl.items():
            if k not in fields:
                probs.append(("%s.%s is not a field" % (where, k), ["line", k]))
                ok = False
            elif fields[k] not in ("arrays", "loads", "index"):
                ok &= typed(v, fields[k], "%s.%s" % (where, k) if where else k)
        for k in required:
            if k not in tbl:
                probs.append(("%s has no %s" % (where or "the kernel", k), ["line", k, "missing"]))
                ok = False
        return ok

    ok = table(d, KERNEL_TOP, KERNEL_REQUIRED, "")
    arrays = d.get("arrays", [])
    loads = d.get("loads", [])
    if not isinstance(arrays, list):
        probs.append(("arrays is not a list of tables", ["line", "arrays"]))
        arrays, ok = [], False
    if not isinstance(loads, list):
        probs.append(("loads is not a list of tables", ["line", "loads"]))
        loads, ok = [], False
    for i, a in enumerate(arrays):
        ok &= table(a, ARRAY_FIELDS, ["name", "base", "elem_bytes"], "arrays[%d]" % i)
    for i, l in enumerate(loads):
        ok &= table(l, LOAD_FIELDS, ["pc", "array"], "loads[%d]" % i)
        if isinstance(l, dict) and "index" in l:
            idx = l["index"]
            if not isinstance(idx, dict):
                probs.append(("loads[%d].index is not a table" % i, ["line", "index"]))
                ok = False
            else:
                for k, v in idx.items():
                    if k not in INDEX_FIELDS:
                        probs.append(("loads[%d].index.%s is not a field" % (i, k), ["line", k]))
                        ok = False
                    else:
                        ok &= typed(v, "i64", "loads[%d].index.%s" % (i, k))
    if not ok:
        return False, probs, None

    # The rules, on well-typed values.
    name, grid, block = d["name"], d["grid"], d["block"]
    trips, compute = d.get("loop_trips", 1), d.get("compute", 0)

    def bad(what, *words):
        probs.append((what, list(words)))

    if not name.strip():
        bad("an empty name", "name")
    for i, ax in enumerate("xyz"):
        if grid[i] == 0:
            bad("grid[%d] = 0" % i, "grid")
        if block[i] == 0:
            bad("block[%d] = 0" % i, "block")
    threads = block[0] * block[1] * block[2]
    nblocks = grid[0] * grid[1] * grid[2]
    if threads > 1024:
        bad("%d threads in a block" % threads, "block")
    if nblocks > U32 - 1:
        bad("%d blocks" % nblocks, "grid")
    if trips == 0:
        bad("loop_trips = 0", "loop_trips")
    names = set()
    for i, a in enumerate(arrays):
        if a["name"] in names:
            bad("array %s twice" % a["name"], a["name"], "arrays")
        names.add(a["name"])
        if a["elem_bytes"] not in (1, 2, 4, 8, 16):
            bad("elem_bytes = %d" % a["elem_bytes"], "elem_bytes")
        elif a["base"] % a["elem_bytes"]:
            bad("base not a multiple of elem_bytes", "base")
        if a.get("len", 0) > 0 and a.get("row_pitch", 0) > a.get("len", 0):
            bad("row_pitch > len", "row_pitch")
    if not loads:
        bad("no loads", "loads")
    pcs = set()
    by_name = {}
    for a in arrays:
        by_name.setdefault(a["name"], a)
    for i, l in enumerate(loads):
        words = ["loads[%d]" % i, "%#x" % l["pc"]]
        if l["pc"] in pcs:
            bad("pc %#x twice" % l["pc"], "pc", *words)
        pcs.add(l["pc"])
        a = by_name.get(l["array"])
        if a is None:
            bad("load of unknown array %r" % l["array"], "array", l["array"], *words)
            continue
        idx = {k: l.get("index", {}).get(k, 0) for k in INDEX_FIELDS}
        length, eb = a.get("len", 0), a["elem_bytes"]
        if l.get("irregular", False):
            if any(idx.values()):
                bad("an irregular load with an index", "index", "irregular", *words)
                continue
            if length == 0:
                bad("an irregular load of an array without len", "len", "irregular", *words)
                continue
            lo, hi = 0, length - 1
        else:
            if not l.get("in_loop", False) and idx["it"] != 0:
                bad("index.it outside the loop", "in_loop", "index.it", "it", *words)
                continue
            n = {"bx": grid[0], "by": grid[1], "bz": grid[2], "tx": block[0], "ty": block[1],
                 "tz": block[2], "it": trips if l.get("in_loop", False) else 1}
            lo = hi = idx["c"]
            for k, cnt in n.items():
                last = idx[k] * (cnt - 1)
                lo += min(last, 0)
                hi += max(last, 0)
            if length > 0 and (lo < 0 or hi >= length):
                bad("index range %d..=%d outside len %d" % (lo, hi, length), "len", "index", *words)
                continue
        if eb in (1, 2, 4, 8, 16) and (a["base"] + lo * eb < 0 or a["base"] + hi * eb + eb - 1 > U64 - 1):
            bad("byte addresses outside 0..2^64", "address", "base", *words)
    if probs:
        return False, probs, None
    n_out = sum(1 for l in loads if not l.get("in_loop", False))
    n_in = len(loads) - n_out
    if n_out > 254 or n_in > 254:
        bad("more than 254 loads in one group", "loads", "254")
    warps = -(-threads // 32)
    if warps > gpu["warps_per_sm"]:
        bad("a block of %d warps on an SM of %d" % (warps, gpu["warps_per_sm"]), "gpu.warps_per_sm", "warps")
    if probs:
        return False, probs, None
    groups = (1 if n_out else 0) + (trips if n_in else 0)
    per_warp = n_out + trips * n_in + compute * groups + 1
    return ("either" if lenient else True), [("a u64 above 2^63 - 1 in " + lenient[0], ["line", lenient[0].split(".")[-1]])] if lenient else [], {"blocks": nblocks, "instructions": nblocks * warps * per_warp,
                      "per_warp": per_warp, "name": name}


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ("nan" if v != v else ("inf" if v > 0 else "-inf"))
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join("%s = %s" % (toml_key(k), toml_value(x)) for k, x in v.items()) + " }"
    return json.dumps(str(v))


def toml_key(k):
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def toml_doc(d):
    """A TOML document: scalars and inline values first, then arrays of tables."""
    out, tables = [], []
    for k, v in d.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            tables.append((k, v))
        else:
            out.append("%s = %s" % (toml_key(k), toml_value(v)))
    for k, rows in tables:
        for row in rows:
            out.append("")
            out.append("[[%s]]" % toml_key(k))
            for f, x in row.items():
                out.append("%s = %s" % (toml_key(f), toml_value(x)))
    return "\n".join(out) + "\n"


def kernel_sources():
    out = {}
    for sub in ("", "dispatch", "gpu"):
        d = os.path.join(ROOT, "golden/kernels", sub)
        for f in sorted(os.listdir(d)):
            if f.endswith(".toml"):
                out[os.path.join(sub, f)] = open(os.path.join(d, f)).read()
    return out


def synth_kernel(rng):
    arrays = []
    for i in range(rng.randint(1, 3)):
        eb = rng.choice([1, 2, 4, 8, 16])
        arrays.append({"name": "a%d" % i, "base": rng.choice([0x100000, 0x7f0000000000, 0, 1 << 40]) + eb * 4096 * i,
                       "elem_bytes": eb, "len": rng.choice([0, 1 << 20])})
    grid = [rng.randint(1, 4), rng.randint(1, 2), 1]
    block = rng.choice([[32, 1, 1], [64, 1, 1], [16, 4, 1], [100, 1, 1], [8, 8, 2], [1, 1, 1]])
    loads = []
    for j in range(rng.randint(1, 5)):
        a = rng.choice(arrays)
        l = {"pc": 0x100 + 8 * j, "array": a["name"]}
        if rng.random() < 0.5:
            l["in_loop"] = True
        if a["len"] and rng.random() < 0.2:
            l["irregular"] = True
        else:
            idx = {"tx": 1, "bx": block[0]}
            if block[1] > 1:
                idx["ty"] = block[0]
            if l.get("in_loop"):
                idx["it"] = rng.choice([0, 1, 64])
            l["index"] = idx
        loads.append(l)
    d = {"name": "synth", "grid": grid, "block": block, "loop_trips": rng.randint(1, 4),
         "compute": rng.choice([0, 1, 3, 8]), "arrays": arrays, "loads": loads}
    return toml_doc(d)


U32_EDGES = [0, 1, 2, 3, 31, 32, 33, 255, 256, 1023, 1024, 1025, 65535, 65536, (1 << 31) - 1,
             1 << 31, U32 - 1, U32, -1, I64_MAX, 1 << 63, "1", 1.0, True]
U64_EDGES = [0, 1, 8, 16, 1 << 32, 1 << 53, (1 << 53) + 8, 1 << 60, (1 << 63) - 16, I64_MAX,
             1 << 63, U64, -1, -8, "0", 2.5]
I64_EDGES = [0, 1, -1, 2, 1 << 31, -(1 << 31), 1 << 40, 1 << 62, -(1 << 62), I64_MAX, I64_MIN,
             1 << 63, 4096, -4096, "1"]


def mutate_kernel(rng, d):
    """One mutation of a kernel description (a dict from TOML); what was done."""
    paths = [("grid", i) for i in range(3)] + [("block", i) for i in range(3)]
    paths += [("loop_trips",), ("compute",), ("name",)]
    for i, a in enumerate(d.get("arrays", [])):
        paths += [("arrays", i, f) for f in ("base", "elem_bytes", "row_pitch", "len", "name")]
    for i, l in enumerate(d.get("loads", [])):
        paths += [("loads", i, f) for f in ("pc", "array", "in_loop", "irregular")]
        paths += [("loads", i, "index", k) for k in INDEX_FIELDS]
    kind = rng.choices(["value", "delete", "unknown", "dup-array", "dup-load", "no-loads",
                        "unknown-array", "many-loads", "type"], [60, 8, 5, 4, 5, 2, 4, 3, 5])[0]
    if kind in ("value", "type", "delete"):
        path = rng.choice(paths)
        obj = d
        for p in path[:-1]:
            if isinstance(obj, dict):
                obj = obj.setdefault(p, {} if p == "index" else obj.get(p))
            else:
                obj = obj[p]
        last = path[-1]
        field = path[-1] if isinstance(path[-1], str) else path[0]
        if kind == "delete":
            if isinstance(obj, dict) and last in obj:
                del obj[last]
            elif isinstance(obj, list):
                del obj[last]
            return "delete %s" % ".".join(map(str, path))
        if kind == "type":
            v = rng.choice(["x", 1.5, True, [1], {"a": 1}, "", -1])
        elif field in ("grid", "block", "loop_trips", "compute", "elem_bytes"):
            v = rng.choice(U32_EDGES)
        elif field in ("base", "row_pitch", "len", "pc"):
            v = rng.choice(U64_EDGES)
        elif field in INDEX_FIELDS:
            v = rng.choice(I64_EDGES)
        elif field in ("in_loop", "irregular"):
            v = rng.choice([True, False, 1, "true"])
        else:
            v = rng.choice(["", " ", "x", "a0", d["arrays"][0]["name"] if d.get("arrays") else "y",
                            "ü", "a\"b"])
        obj[last] = v
        return "%s = %r" % (".".join(map(str, path)), v)
    if kind == "unknown":
        where = rng.choice(["top", "array", "load", "index"])
        if where == "top":
            d["extra"] = 1
        elif where == "array" and d.get("arrays"):
            d["arrays"][0]["stride"] = 4
        elif d.get("loads"):
            if where == "load":
                d["loads"][0]["kind"] = "x"
            else:
                d["loads"][0].setdefault("index", {})["q"] = 1
        return "an unknown field in %s" % where
    if kind == "dup-array" and d.get("arrays"):
        d["arrays"].append(dict(d["arrays"][0]))
        return "an array given twice"
    if kind == "dup-load" and d.get("loads"):
        d["loads"].append(dict(d["loads"][0]))
        return "a load given twice (same pc)"
    if kind == "no-loads":
        d["loads"] = []
        return "no loads"
    if kind == "unknown-array" and d.get("loads"):
        rng.choice(d["loads"])["array"] = "nope"
        return "a load of an unknown array"
    if kind == "many-loads" and d.get("loads") and d.get("arrays"):
        n = rng.choice([253, 254, 255, 300])
        a = d["arrays"][0]["name"]
        in_loop = rng.random() < 0.5
        base = max(l["pc"] for l in d["loads"] if _is_int(l.get("pc"))) + 8 \
            if all(_is_int(l.get("pc")) for l in d["loads"]) else 1 << 20
        d["loads"] = [{"pc": base + 8 * k, "array": a, "in_loop": in_loop} for k in range(n)]
        d["arrays"][0]["len"] = 0
        return "%d loads %s the loop" % (n, "in" if in_loop else "outside")
    return "unchanged"


def mutate_kernel_text(rng, text):
    """Damage to the text itself."""
    kind = rng.choice(["byte", "cut", "dup-key", "garbage"])
    if kind == "byte":
        b = bytearray(text.encode())
        at = rng.randrange(len(b))
        b[at] = rng.choice(b"0123456789=[]{},\"#\n x-.") if rng.random() < 0.9 else rng.randrange(256)
        return b.decode("latin-1"), "byte %d set" % at
    if kind == "cut":
        at = rng.randrange(len(text))
        return text[:at], "cut at byte %d" % at
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    if kind == "dup-key":
        lines.insert(i, lines[i])
        return "\n".join(lines), "line %d twice" % (i + 1)
    lines.insert(i, rng.choice(["x", "[[loads]]", "[arrays]", "name =", "= 1", "grid = [1,1]"]))
    return "\n".join(lines), "garbage at line %d" % (i + 1)


def judge_kernel_run(res, fname, valid, probs, counts, bounded_words=()):
    c = crash(res)
    if c:
        return c
    if res.code == 1:
        return INTERNAL, "exit 1 on a kernel (%s): %s" % ("valid" if valid else "invalid",
                                                          first_line(res.err))
    if res.code == 2:
        words = [w for _, ws in probs for w in ws if w != "line"] + list(bounded_words)
        need_line = any("line" in ws for _, ws in probs)
        files = [fname] if need_line else []
        return rejection(res, words + ([fname] if not need_line else []), files,
                         valid=valid is True, what="kernel")
    j = res.json()
    if not isinstance(j, dict):
        return WRONG, "exit 0 without a JSON report"
    if j.get("instructions") == 0:
        return NOTHING, "exit 0 after 0 instructions"
    if not valid:
        return WRONG, "ran an invalid kernel: %s" % probs[0][0]
    k = (j.get("kernels") or [{}])[0]
    for field in ("blocks", "instructions"):
        if k.get(field) != counts[field]:
            return WRONG, "%s = %s, the kernel has %s" % (field, k.get(field), counts[field])
    return OK, "%d blocks, %d instructions" % (counts["blocks"], counts["instructions"])


def gen_kernel(rng, index, env, huge=False):
    preset = "tiny"
    gpu = env.gpu(preset)
    sources = env.kernels
    for _ in range(40):
        src = rng.choice(sorted(sources) + ["synth"] * 4)
        text = synth_kernel(rng) if src == "synth" else sources[src]
        if rng.random() < 0.15:
            text, what = mutate_kernel_text(rng, text)
        else:
            d = tomllib.loads(text)
            done = []
            for _ in range(rng.choice([1, 1, 2])):
                try:
                    done.append(mutate_kernel(rng, d))
                except (KeyError, IndexError, TypeError, AttributeError):
                    pass
            what = "; ".join(done)
            text = toml_doc(d)
        valid, probs, counts = kernel_verdict(text, gpu)
        # Valid kernels whose runs would be long belong to the huge class.
        if not valid or (counts["instructions"] <= 400_000 and counts["per_warp"] <= 20_000):
            break

    def body(ctx):
        ctx.write("k.toml", text)
        res = ctx.run("run", run_args(env, preset, "--kernel", "k.toml"))
        # A few instructions can take many cycles (a stride that misses every time): a valid
        # kernel stopped at the suite's cycle bound, saying so, is not refused.
        bounded = _bounded(res, True, ()) if valid is True else None
        return bounded or judge_kernel_run(res, "k.toml", valid, probs, counts)

    return Case("kernel", index, "%s: %s" % (src, what), body)


# ==== Class config: --set KEY=VALUE =========================================================
#
# Oracle: `describe --format json` gives each key's type and legal values; a value is legal
# when it is of that type and in that range (an integer spelled as TOML spells one, `0x10`,
# `+5`, `1_0`, or with spaces around, is "either": refusing it or taking its value are both
# right). A legal value must also keep the rules `describe` lists true; they are checked here
# for the rest of the preset's resolved configuration (`--emit-config`). A rule this oracle
# cannot evaluate (the cache strings, the address map against the channel count) makes the
# case unjudged. Then: legal => exit 0 and --emit-config shows the value as set; illegal =>
# exit 2 naming the key (or, for a broken rule, one of the rule's keys).


def clog2(n):
    return max(int(n) - 1, 0).bit_length()


def _get(c, key):
    sec, name = key.split(".", 1)
    return c[sec][name]


def _cache_line(s):
    try:
        first = s.split(",")[0].split(":")
        return int(first[2] if first[0].isalpha() else first[1])
    except (ValueError, IndexError):
        return None


def _bank_bits(amap):
    body = amap.split(";", 1)[1] if ";" in amap else amap
    return sum(1 for ch in body if ch in "Bb")


def _partition_hash_ok(c):
    """`describe`'s rule of dram.partition_indexing: xor and ipoly need a dramid@ map with a
    power-of-two channel count, and ipoly 16, 32 or 64 sub-partitions in all."""
    how = _get(c, "dram.partition_indexing")
    if how == "linear":
        return True
    channels, subs = _get(c, "dram.channels"), _get(c, "dram.sub_partitions")
    if not _get(c, "dram.address_map").startswith("dramid@") or channels & (channels - 1):
        return False
    return how != "ipoly" or channels * subs in (16, 32, 64)


CONFIG_RULES = [
    (["ot.ways", "ot.entries"], lambda c: _get(c, "ot.ways") <= _get(c, "ot.entries")),
    (["ot.mispredict_threshold", "ot.counter_bits"],
     lambda c: _get(c, "ot.mispredict_threshold") <= 2 ** _get(c, "ot.counter_bits") - 2),
    (["ot.pc_bits", "ot.lec_bits", "ot.entries", "ot.ways"],
     lambda c: max(_get(c, "ot.pc_bits"), _get(c, "ot.lec_bits"))
     >= clog2(_get(c, "ot.entries") // max(_get(c, "ot.ways"), 1))),
    (["dram.bank_groups", "dram.banks"], lambda c: _get(c, "dram.bank_groups") <= _get(c, "dram.banks")),
    (["dram.t_ccdl", "dram.t_ccds", "dram.t_rrdl", "dram.t_rrds", "dram.t_wtrl", "dram.t_wtrs"],
     lambda c: _get(c, "dram.t_ccdl") >= _get(c, "dram.t_ccds")
     and _get(c, "dram.t_rrdl") >= _get(c, "dram.t_rrds")
     and _get(c, "dram.t_wtrl") >= _get(c, "dram.t_wtrs")),
    (["dram.t_rc", "dram.t_ras", "dram.t_rp", "dram.t_rrdl"],
     lambda c: max(_get(c, "dram.t_rc"), _get(c, "dram.t_ras") + _get(c, "dram.t_rp"))
     >= _get(c, "dram.t_rrdl")),
    (["dram.refresh", "dram.t_refi", "dram.t_rfc", "dram.t_rcd", "dram.t_rcdwr"],
     lambda c: not _get(c, "dram.refresh") or _get(c, "dram.t_refi")
     > _get(c, "dram.t_rfc") + max(_get(c, "dram.t_rcd"), _get(c, "dram.t_rcdwr"))),
    (["dram.banks", "dram.address_map"],
     lambda c: 2 ** _bank_bits(_get(c, "dram.address_map")) == _get(c, "dram.banks")),
    (["dram.address_map", "dram.channels", "dram.sub_partitions"], lambda c: None),
    (["dram.sub_partitions", "dram.banks"], lambda c: _get(c, "dram.sub_partitions") <= _get(c, "dram.banks")),
    (["dram.partition_indexing", "dram.address_map", "dram.channels", "dram.sub_partitions"],
     _partition_hash_ok),
    (["mc.write_low", "mc.write_high", "mc.queue_entries"],
     lambda c: _get(c, "mc.write_low") < _get(c, "mc.write_high") <= _get(c, "mc.queue_entries")),
    (["l2.cache"], lambda c: None),
    (["gpu.l1_cache"], lambda c: None),
    # A unified L1 needs gpu.l1_cache's size and the carve-outs' text: not evaluated here.
    (["gpu.unified_l1_kb", "gpu.l1_cache", "gpu.shmem_carveouts", "gpu.shmem_bytes"],
     lambda c: True if _get(c, "gpu.unified_l1_kb") == 0 else None),
    (["gpu.line_bytes", "l2.cache", "icnt.flit_bytes", "icnt.in_buffer", "icnt.out_buffer"],
     lambda c: None if _cache_line(_get(c, "l2.cache")) is None else
     -(-(8 + max(_get(c, "gpu.line_bytes"), _cache_line(_get(c, "l2.cache"))))
       // _get(c, "icnt.flit_bytes")) <= min(_get(c, "icnt.in_buffer"), _get(c, "icnt.out_buffer"))),
    (["warped_mc.pc_hash_bits", "gpu.sms", "gpu.warps_per_sm"],
     lambda c: _get(c, "warped_mc.pc_hash_bits")
     <= max(clog2(_get(c, "gpu.sms")), 1) + max(clog2(_get(c, "gpu.warps_per_sm")), 1)),
    (["warped_mc.controllers_per_wet", "dram.channels"],
     lambda c: _get(c, "dram.channels") % _get(c, "warped_mc.controllers_per_wet") == 0),
    (["warped_mc.wet_scope", "warped_mc.controllers_per_wet", "dram.channels"],
     lambda c: (lambda scope: scope % _get(c, "warped_mc.controllers_per_wet") == 0
                and _get(c, "dram.channels") % scope == 0)(
         _get(c, "warped_mc.wet_scope") or _get(c, "dram.channels"))),
    (["dispatch.scored_per_cycle", "dispatch.queue_entries"],
     lambda c: _get(c, "dispatch.scored_per_cycle") <= _get(c, "dispatch.queue_entries")),
    (["prefetch.early_low_permille", "prefetch.early_high_permille"],
     lambda c: _get(c, "prefetch.early_low_permille") <= _get(c, "prefetch.early_high_permille")),
    (["prefetch.merge_frac_bits", "prefetch.period"],
     lambda c: _get(c, "prefetch.merge_frac_bits") + 1 < _get(c, "prefetch.period")),
    (["prefetch.stride_bits", "prefetch.addr_bits"],
     lambda c: _get(c, "prefetch.stride_bits") <= _get(c, "prefetch.addr_bits")),
    (["prefetch.demand_first", "prefetch.kind", "mc.scheduler"],
     lambda c: not (_get(c, "prefetch.demand_first") and _get(c, "prefetch.kind") != "none"
                    and _get(c, "mc.scheduler") == "warped")),
    (["prefetch.promote_count", "prefetch.pws_entries"],
     lambda c: _get(c, "prefetch.promote_count") <= _get(c, "prefetch.pws_entries")),
    (["prefetch.wid_bits", "gpu.warps_per_sm"],
     lambda c: 2 ** _get(c, "prefetch.wid_bits") >= _get(c, "gpu.warps_per_sm")),
    (["prefetch.cache_kb", "prefetch.cache_ways", "gpu.line_bytes"],
     lambda c: _get(c, "prefetch.cache_kb") * 1024 >= _get(c, "prefetch.cache_ways") * _get(c, "gpu.line_bytes")),
]

TOML_INT = re.compile(r"[+-]?(0|[1-9](_?[0-9])*)|0x[0-9a-fA-F](_?[0-9a-fA-F])*|0o[0-7](_?[0-7])*|0b[01](_?[01])*")


def _toml_int(s):
    if not TOML_INT.fullmatch(s):
        return None
    t = s.replace("_", "")
    for p, base in (("0x", 16), ("0o", 8), ("0b", 2)):
        if t.startswith(p):
            return int(t[2:], base)
    return int(t)


class KeyInfo:
    def __init__(self, d):
        self.key, self.type, self.legal = d["key"], d["type"], d["legal"]
        m = re.fullmatch(r"(a power of two in )?(\d+)\.\.=(\d+)", self.legal)
        self.pow2 = bool(m and m.group(1))
        self.range = (int(m.group(2)), int(m.group(3))) if m else None
        m = re.fullmatch(r"one of (.*)", self.legal)
        self.choices = m.group(1).split(", ") if m else None

    def classify(self, s):
        """(legal | illegal | either | text, the value as typed)."""
        if self.type == "string" and self.choices is None:
            return "text", s
        stripped = s.strip(" \t")
        if self.type == "integer":
            if re.fullmatch(r"0|[1-9][0-9]*", s):
                v = int(s)
            else:
                v = _toml_int(stripped)
                if v is None:
                    return "illegal", None
            lo, hi = self.range
            ok = lo <= v <= hi and (not self.pow2 or v & (v - 1) == 0)
            if not ok:
                return "illegal", v
            return ("legal" if re.fullmatch(r"0|[1-9][0-9]*", s) else "either"), v
        if self.type == "boolean":
            if s in ("true", "false"):
                return "legal", s == "true"
            if stripped in ("true", "false"):
                return "either", stripped == "true"
            return "illegal", None
        if s in self.choices:
            return "legal", s
        if stripped in self.choices or stripped.strip('"') in self.choices and \
                re.fullmatch(r'"[^"]*"', stripped):
            return "either", stripped.strip('"')
        return "illegal", None

    def values(self, rng, preset_value):
        """Values to try: edges of the range, both sides, and what users mistype."""
        if self.type == "integer":
            lo, hi = self.range
            pool = [lo, hi, lo - 1, hi + 1, (lo + hi) // 2, preset_value, preset_value + 1,
                    U32 + lo, U32 + hi, U64 + lo, U64 - 1, I64_MAX, -1, hi * 2, 0, 1]
            if self.pow2:
                pool += [1 << rng.randrange(0, 20), (1 << rng.randrange(1, 12)) + 1,
                         lo * 2, hi // 2, 3]
            else:
                pool += [rng.randint(lo, hi) for _ in range(3)]
            v = rng.choice(pool)
            r = rng.random()
            if r < 0.8:
                return str(v)
            if r < 0.9:
                return rng.choice(["0x%x" % abs(v), "+%d" % v, " %d" % v, "%d " % v, "0%d" % v,
                                   "1_0", "%d.0" % v, "1e3", '"%d"' % v])
            return rng.choice(EDGE_TEXT + ["true", "99999999999999999999999"])
        if self.type == "boolean":
            return rng.choice(["true", "false", "TRUE", "1", "0", "yes", "", " true", "truee", '"true"'])
        if self.choices:
            c = rng.choice(self.choices)
            return rng.choice([c, c, c.upper(), " " + c, '"%s"' % c, c + "x", "", "none", "1"])
        return rng.choice([preset_value, preset_value[:-1], preset_value + ",1", "", "x",
                           preset_value.replace(":", "::", 1), preset_value.replace("4", "0", 1),
                           preset_value.replace("8", "99999999999", 1), "S:0:128:4,L:T:m:L:L,A:16:4,4:0,32",
                           preset_value.replace("R", "B", 1), preset_value.upper(), preset_value + ";"])


def apply_sets(cfg, sets):
    c = {k: dict(v) if isinstance(v, dict) else v for k, v in cfg.items()}
    for key, v in sets:
        sec, name = key.split(".", 1)
        c[sec][name] = v
    return c


def rule_verdict(cfg, changed):
    """(broken rules' keys, whether a rule touching a changed key cannot be evaluated)."""
    broken, unknown = [], False
    for keys, check in CONFIG_RULES:
        try:
            ok = check(cfg)
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            ok = None
        if ok is None:
            if any(k in keys for k in changed):
                unknown = True
        elif not ok:
            broken.append(keys)
    return broken, unknown


def config_expectation(env, preset, sets):
    """For `--set` pairs (key, text) on `preset`: (expect, detail, words) where expect is
    ok | reject | either | unjudged-ok."""
    typed, kinds = [], set()
    for key, text in sets:
        info = env.keys.get(key)
        if info is None:
            return "reject", "unknown key %s" % key, [key]
        kind, v = info.classify(text)
        kinds.add(kind)
        if kind == "illegal":
            return "reject", "%s = %r is not legal (%s)" % (key, text, info.legal), [key]
        typed.append((key, v))
    cfg = apply_sets(env.config(preset), typed)
    broken, unknown = rule_verdict(cfg, [k for k, _ in typed])
    if broken:
        return "reject", "breaks the rule on " + ", ".join(broken[0]), \
            [k for keys in broken for k in keys] + [k for k, _ in typed]
    if unknown or "text" in kinds:
        return "unknown", "a rule or a text value this oracle does not check", [k for k, _ in typed]
    return ("either" if "either" in kinds else "ok"), "legal", typed


def judge_config(res, emitted_path, expect, detail, words, given=""):
    c = crash(res)
    if c:
        return c
    if res.code == 1:
        return INTERNAL, "exit 1 on a configuration value: " + first_line(res.err)
    if res.code == 2:
        keys = [w if isinstance(w, str) else w[0] for w in words]
        if saturated_in(res.err, given):
            return BAD_MESSAGE, "the message gives a saturated value: " + first_line(res.err)
        out = rejection(res, keys, valid=(expect == "ok"), what="value (%s)" % detail)
        if out[0] == REJECTED and expect == "unknown":
            return UNJUDGED, "refused; " + detail + ": " + out[1]
        return out
    if expect == "reject":
        return WRONG, "accepted: " + detail
    try:
        emitted = tomllib.load(open(emitted_path, "rb"))
    except (OSError, ValueError) as e:
        return WRONG, "exit 0 but --emit-config unreadable: %s" % e
    if expect == "unknown":
        return UNJUDGED, "accepted; " + detail
    for key, v in words:
        got = _get(emitted, key)
        if got != v or type(got) is not type(v):
            return WRONG, "%s set to %r, --emit-config shows %r" % (key, v, got)
    return OK, ", ".join("%s=%r" % kv for kv in words)


def gen_config(rng, index, env):
    preset = rng.choice(env.presets)
    key = rng.choice(sorted(env.keys))
    info = env.keys[key]
    value = info.values(rng, _get(env.config(preset), key))
    arg = "%s=%s" % (key, value)
    sets = [(key, value)]
    r = rng.random()
    if r < 0.04:
        arg = rng.choice([key, "=" + value, key.upper() + "=" + value, key + ".x=" + value,
                          key.replace(".", "..") + "=" + value, "nokey.x=1"])
        sets = None
    expect, detail, words = config_expectation(env, preset, sets) if sets else \
        ("reject", "malformed --set %r" % arg, [arg.split("=")[0] or "--set", "--set", "KEY=VALUE"])

    def body(ctx):
        res = ctx.run("cost", ["cost", "--block", "all", "--preset", preset, "--set", arg,
                               "--emit-config", "emitted.toml"])
        return judge_config(res, ctx.p("emitted.toml"), expect, detail, words, given=arg)

    return Case("config", index, "%s --set %s" % (preset, arg), body)


# ==== Class gpgpusim: GPGPU-Sim option files ===============================================
#
# Oracle: an option's value, mutated, either imports (exit 0: every key of the resolved
# configuration in its legal range, no value saturated or wrapped; a value out of its key's
# range, or one no number reader takes, is never accepted for an option the clean file
# imports one to one) or is refused naming the option (`-gpgpu_...`) and the file and line,
# never through a derived key's saturated value.

GPGPUSIM_SOURCES = [("GTX480/gpgpusim-3.2.2", ["gpgpusim.config"]),
                    ("GTX480/gpgpusim-4.x", ["gpgpusim.config"]),
                    ("RTX2060", ["gpgpusim.config", "trace.config"]),
                    ("QV100", ["gpgpusim.config", "trace.config"]),
                    ("RTX3070", ["gpgpusim.config", "trace.config"])]
GARBAGE = ["abc", "x", "1.2.3", "--", "@"]
NUMERIC_EDGES = ["0", "-1", "1e308", "-1e308", "4294967296", "4294967295", "18446744073709551616",
                 "9223372036854775808", "2147483648", "1.5", "nan", "inf", "99999999999999999999999999999",
                 "0x10", "-0", "3e9", "1e-300", "65536", "1000000"] + GARBAGE


def in_legal(info, v):
    if info.type == "integer":
        lo, hi = info.range
        return _is_int(v) and lo <= v <= hi and (not info.pow2 or v & (v - 1) == 0)
    if info.type == "boolean":
        return isinstance(v, bool)
    if info.choices:
        return v in info.choices
    return isinstance(v, str)


def gen_gpgpusim(rng, index, env):
    src, names = rng.choice(GPGPUSIM_SOURCES)
    folder = os.path.join(ROOT, "spec/tests-data/gpgpusim-configs", src)
    files = {f: open(os.path.join(folder, f), encoding="latin-1").read() for f in os.listdir(folder)}
    info = env.gpgpusim_clean(src, names)
    fname = rng.choice(names)
    lines = files[fname].split("\n")
    opts = [i for i, l in enumerate(lines) if l.strip().startswith("-")]
    i = rng.choice(opts)
    code_part = lines[i].split("#", 1)[0]
    toks = code_part.split()
    option = toks[0]
    value = " ".join(toks[1:])
    kind = rng.choices(["value", "field", "no-value", "dup", "unknown", "delete", "quote", "case"],
                       [40, 25, 6, 8, 5, 6, 5, 5])[0]
    new_value = value
    words = [option]
    if kind == "value":
        new_value = rng.choice(NUMERIC_EDGES) if re.fullmatch(r"-?[0-9.]+", value) or rng.random() < 0.5 \
            else value[:-1] + rng.choice("x9:,0")
        lines[i] = "%s %s" % (option, new_value)
    elif kind == "field":
        parts = re.split(r"([:,=;])", value)
        fields = [k for k in range(0, len(parts), 2)]
        k = rng.choice(fields)
        parts[k] = rng.choice(NUMERIC_EDGES)
        new_value = "".join(parts)
        lines[i] = "%s %s" % (option, new_value)
    elif kind == "no-value":
        lines[i] = option
        new_value = ""
    elif kind == "dup":
        new_value = rng.choice(NUMERIC_EDGES)
        lines.insert(i + 1, "%s %s" % (option, new_value))
        i += 1
    elif kind == "unknown":
        option = "-gpgpu_bogus_option"
        words = [option]
        new_value = rng.choice(["1", "x"])
        lines.insert(i, "%s %s" % (option, new_value))
    elif kind == "delete":
        lines[i] = "# deleted"
    elif kind == "quote":
        new_value = '"' + value
        lines[i] = "%s %s" % (option, new_value)
    else:
        option = option.upper()
        words = [option, toks[0]]
        lines[i] = "%s %s" % (option, value)
    files[fname] = "\n".join(lines)
    line_no = i + 1
    imported = info["imported"].get(toks[0], [])
    single = [(k, v) for k, v in imported if str(v) == value and re.fullmatch(r"\d+", value)]
    garbage = kind == "value" and imported and new_value in GARBAGE and re.fullmatch(r"-?[0-9.]+", value)
    out_of_range = None
    if kind == "value" and single and re.fullmatch(r"-?\d+", new_value) and int(new_value) != 0:
        key = single[0][0]
        if not in_legal(env.keys[key], int(new_value)):
            out_of_range = key

    def body(ctx):
        for n, t in sorted(files.items()):
            ctx.write(os.path.join("cfg", n), t.encode("latin-1"))
        args = ["cost", "--block", "all", "--preset", "fermi-gtx480"]
        for n in names:
            args += ["--gpgpusim-config", os.path.join("cfg", n)]
        res = ctx.run("cost", args + ["--emit-config", "emitted.toml"])
        c = crash(res)
        if c:
            return c
        if res.code == 1:
            return INTERNAL, "exit 1 on a GPGPU-Sim file: " + first_line(res.err)
        if res.code == 2:
            e = res.err
            sat = saturated_in(e, new_value + value)
            if sat:
                return BAD_MESSAGE, "the message gives a saturated value %s: %s" % (sat[0], first_line(e))
            if kind == "delete":
                ok = fname in e or "-gpgpu" in e or re.search(r"`[a-z_0-9]+\.[a-z_0-9]+`", e)
            elif kind in ("no-value", "quote"):
                # The tokens that follow are read as its value: the error is where they end.
                ok = names_file_line(e, [fname])
            else:
                ok = names_any(e, words) and names_file_line(e, [fname])
            if not ok:
                return BAD_MESSAGE, "exit 2 without naming %s and %s line %d: %s" % (
                    words[0], fname, line_no, first_line(e))
            return REJECTED, first_line(e)
        try:
            emitted = tomllib.load(open(ctx.p("emitted.toml"), "rb"))
        except (OSError, ValueError) as e:
            return WRONG, "exit 0 but --emit-config unreadable: %s" % e
        for key, ki in env.keys.items():
            v = _get(emitted, key)
            if not in_legal(ki, v):
                return WRONG, "imported %s = %r, outside %s" % (key, v, ki.legal)
            if str(v) in SATURATED and str(v) not in info["emitted_text"] and str(v) not in new_value:
                return WRONG, "imported %s = %s, a saturated value" % (key, v)
        if garbage:
            return WRONG, "accepted %s %r, a value no number reader takes" % (option, new_value)
        if out_of_range:
            return WRONG, "accepted %s %s: %s = %r (its range is %s)" % (
                option, new_value, out_of_range, _get(emitted, out_of_range),
                env.keys[out_of_range].legal)
        return OK, "imported"

    return Case("gpgpusim", index, "%s/%s:%d %s: %s %s" % (src, fname, line_no, kind, option,
                                                          new_value[:60]), body)


# ==== Class regress: regression lists ======================================================
#
# Oracle: the jobs of a list are every distinct (block, preset, --set combination, stimulus,
# seed) of each entry; every --set value is judged as the config class judges it. A list
# within 20,000 jobs must expand to exactly that many (`--dry-run`); a larger one may be
# refused naming the field (seed_count, seeds, set, ...) but never exhaust memory or time.

REG_FIELDS = ["description", "blocks", "presets", "configs", "set", "stimuli", "seeds",
              "seed_count", "cycles", "mutants", "mutant_stimulus", "mutant_cycles", "timeout",
              "random_configs", "random_seed"]
BLOCKS = ["ot", "warped-mc", "dispatch", "mt-hwp"]
SET_KEYS = ["ot.ways", "ot.entries", "ot.counter_bits", "gpu.sms", "dram.t_rcd", "mc.queue_entries",
            "dispatch.queue_entries", "prefetch.degree", "gpu.scheduler", "gpu.skip_l1", "l2.rop_latency"]


def regress_entry(rng):
    e = {"blocks": rng.sample(BLOCKS, rng.randint(1, 2)),
         "presets": rng.sample(["tiny", "turing-rtx2060s", "fermi-gtx480"], rng.randint(1, 2)),
         "stimuli": ["random"], "cycles": rng.choice([100, 20000])}
    if rng.random() < 0.5:
        e["seed_count"] = rng.randint(1, 4)
    else:
        e["seeds"] = [rng.randint(1, 9) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.6:
        e["set"] = {}
        for k in rng.sample(SET_KEYS, rng.randint(1, 2)):
            e["set"][k] = [rng.choice([1, 2, 4, 8, 16, 32, 64, 100, 1000]) for _ in range(rng.randint(1, 3))]
    return e


def mutate_regress(rng, lst):
    if not lst["entry"]:
        lst["entry"].append(regress_entry(rng))
    e = rng.choice(lst["entry"])
    kind = rng.choices(["seed_count", "seeds", "cycles", "set", "set-huge", "blocks", "presets",
                        "unknown", "delete", "both-seeds", "empty", "dup-entry", "timeout",
                        "random_configs", "type"], [14, 8, 6, 14, 2, 5, 5, 4, 6, 3, 2, 4, 3, 3, 6])[0]
    if kind == "seed_count":
        e.pop("seeds", None)
        e["seed_count"] = rng.choice([0, 1, 5, 100, 5000, 100000, 100_000_000, I64_MAX, -1, U64])
    elif kind == "seeds":
        e.pop("seed_count", None)
        e["seeds"] = rng.choice([[], [0], [1, 1, 1], [I64_MAX, 0], [-1], [1 << 63], list(range(50))])
    elif kind == "cycles":
        e["cycles"] = rng.choice([0, 1, I64_MAX, -1, 1 << 63, "100", 1.5])
    elif kind == "set":
        key = rng.choice(SET_KEYS + ["nokey", "gpu.sms"])
        e.setdefault("set", {})[key] = rng.choice([[], [0], [1, 1], [-1], [U32 + 4], ["x"], [True],
                                                   [1.5], [4, 4096], ["lrr", "gto"], [I64_MAX]])
    elif kind == "set-huge":
        e["set"] = {k: list(range(1, rng.choice([20, 40, 100]))) for k in
                    rng.sample(["l2.rop_latency", "l2.dram_latency", "gpu.l1_latency", "icnt.latency"],
                               rng.randint(2, 4))}
    elif kind == "blocks":
        e["blocks"] = rng.choice([[], ["all"], ["nope"], ["ot", "ot"], ["OT"], ["all", "ot"]])
    elif kind == "presets":
        e["presets"] = rng.choice([[], ["all"], ["nope"], ["tiny", "tiny"], ["TINY"]])
    elif kind == "unknown":
        e[rng.choice(["seed", "cycle", "block", "extra"])] = 1
    elif kind == "delete":
        e.pop(rng.choice(["blocks", "presets", "cycles", "stimuli"]), None)
    elif kind == "both-seeds":
        e["seeds"], e["seed_count"] = [1], 2
    elif kind == "empty":
        lst["entry"] = []
    elif kind == "dup-entry":
        lst["entry"].append(json.loads(json.dumps(e)))
    elif kind == "timeout":
        e["timeout"] = rng.choice([0, 1, I64_MAX, -1])
    elif kind == "random_configs":
        e.pop("set", None)
        e["random_configs"] = rng.choice([0, 1, 3, 1_000_000_000, -1])
    else:
        f = rng.choice(["blocks", "presets", "stimuli", "cycles", "seed_count"])
        e[f] = rng.choice(["x", 1, [1], {"a": 1}, True])
    return kind


def regress_expectation(env, lst):
    """(expect: count | reject | big | unknown, the job count or the fields to name)."""
    if not isinstance(lst.get("entry"), list):
        return "reject", ["entry"]
    total = set()
    lenient = False
    for n, e in enumerate(lst["entry"], 1):
        where = ["entry %d" % n, "entry"]
        for k in e:
            if k not in REG_FIELDS:
                return "reject", [k] + where
        for k in ("blocks", "presets", "cycles"):
            if k not in e:
                return "reject", [k, "missing"] + where
        for k in ("blocks", "presets", "stimuli"):
            if k in e and not (isinstance(e[k], list) and all(isinstance(x, str) for x in e[k])):
                return "reject", [k] + where
        for k in ("cycles", "seed_count", "timeout", "random_seed", "mutant_cycles"):
            if k in e and not (_is_int(e[k]) and 0 <= e[k] <= U64 - 1):
                return "reject", [k] + where
            if k in e and e[k] > I64_MAX:
                lenient = True
        if "random_configs" in e and not (_is_int(e["random_configs"]) and 0 <= e["random_configs"] <= I64_MAX):
            return "reject", ["random_configs"] + where
        if "seeds" in e and not (isinstance(e["seeds"], list) and all(_is_int(s) and 0 <= s <= U64 - 1
                                                                     for s in e["seeds"])):
            return "reject", ["seeds"] + where
        if any(_is_int(s) and s > I64_MAX for s in e.get("seeds") or []):
            lenient = True
        if "set" in e and not (isinstance(e["set"], dict) and all(isinstance(v, list) for v in e["set"].values())):
            return "reject", ["set"] + where
        for k in ("blocks", "presets"):
            if not e[k]:
                # An entry of no jobs hides its mistakes (its `set` would never be checked).
                return "reject", [k, "empty"] + where
        blocks = BLOCKS if "all" in e["blocks"] else e["blocks"]
        if any(b not in BLOCKS for b in blocks):
            return "reject", ["blocks"] + [b for b in blocks if b not in BLOCKS] + where
        presets = env.presets if "all" in e["presets"] else e["presets"]
        if any(p not in env.presets for p in presets):
            return "reject", ["presets"] + [p for p in presets if p not in env.presets] + where
        if "seeds" in e and e.get("seed_count") is not None:
            return "reject", ["seeds", "seed_count"] + where
        seeds = list(range(1, e["seed_count"] + 1)) if "seed_count" in e and e["seed_count"] <= 10**6 \
            else (e.get("seeds") or [1])
        if e.get("seed_count") == 0:
            return "reject", ["seed_count", "seeds"] + where
        if e["cycles"] == 0:
            return "reject", ["cycles"] + where
        if e.get("random_configs", 0) > 0:
            if e.get("set"):
                return "reject", ["random_configs", "set"] + where
            return "unknown", None
        if e.get("mutants"):
            return "unknown", None
        matrix = [[]]
        for k, values in sorted((e.get("set") or {}).items()):
            if not values:
                return "reject", ["set." + k, k] + where
            matrix = [m + [(k, v)] for m in matrix for v in values]
            if len(matrix) > 10**6:
                return "big", ["set"] + where
        n_seeds = e["seed_count"] if "seed_count" in e else len(set(seeds)) if seeds else 1
        if n_seeds * len(matrix) * len(blocks) * len(presets) > 10**6:
            return "big", ["seed_count", "seeds", "set"] + where
        for p in presets:
            for m in matrix:
                sets = []
                for k, v in m:
                    text = v if isinstance(v, str) else toml_value(v)
                    sets.append((k, text))
                if sets:
                    expect, _, words = config_expectation(env, p, sets)
                    if expect == "reject":
                        return "reject", [w if isinstance(w, str) else w[0] for w in words] + where
                    if expect == "unknown":
                        return "unknown", None
                for b in dict.fromkeys(blocks):
                    for stim in e.get("stimuli") or ["flow"]:
                        if stim == "flow":
                            return "unknown", None
                        for s in (seeds if "seed_count" not in e else range(1, n_seeds + 1)):
                            total.add((b, p, tuple("%s=%s" % kv for kv in sets), stim, s, e["cycles"]))
                            if len(total) > 20000:
                                return "big", ["seed_count", "seeds", "set"] + where
    return ("count-either" if lenient else "count"), len(total)


def gen_regress(rng, index, env):
    lst = {"entry": [regress_entry(rng) for _ in range(rng.choice([1, 1, 2]))]}
    kinds = [mutate_regress(rng, lst) for _ in range(rng.choice([1, 1, 2]))]
    text = toml_doc({"description": "adversarial"}) + "".join(
        "\n[[entry]]\n" + toml_doc(e) for e in lst["entry"])
    if rng.random() < 0.05:
        text = text[:rng.randrange(len(text))]
        kinds.append("cut")
    try:
        parsed = tomllib.loads(text)
        expect, what = regress_expectation(env, parsed)
    except tomllib.TOMLDecodeError:
        expect, what = "reject", ["line"]
    except (KeyError, TypeError, AttributeError):
        expect, what = "unknown", None

    def body(ctx):
        ctx.write("list.toml", text)
        res = ctx.run("dry", ["regress", "--list", "list.toml", "--dry-run"])
        c = crash(res)
        if c:
            return c
        if res.code == 1:
            return INTERNAL, "exit 1 on a list: " + first_line(res.err)
        if res.code == 2:
            if expect == "count" and what == 0:
                # A list of no jobs would check nothing: it is refused, naming the list.
                return rejection(res, ["list.toml", "no jobs"], ["list.toml"])
            if expect == "count":
                return REFUSED, "refused a list of %d jobs: %s" % (what, first_line(res.err))
            if expect == "count-either":
                return rejection(res, ["list.toml", "line"], ["list.toml"])
            if expect == "unknown":
                return UNJUDGED, "refused: " + first_line(res.err)
            return rejection(res, (what or []) + ["list.toml"], ["list.toml"])
        jobs = sum(1 for line in open(res.out_path, errors="replace")
                   if re.match(r"[0-9a-f]{16}  ", line))
        if jobs == 0:
            return NOTHING, "exit 0 with no job"
        if expect == "reject":
            return WRONG, "expanded a list that breaks its format (%s): %d jobs" % (", ".join(what[:2]), jobs)
        if expect in ("unknown", "big"):
            return UNJUDGED if expect == "unknown" else OK, "%d jobs" % jobs
        if jobs != what:
            return WRONG, "%d jobs listed, the list has %d" % (jobs, what)
        return OK, "%d jobs" % jobs

    return Case("regress", index, ", ".join(kinds), body)


# ==== Class output: output paths ===========================================================
#
# Oracle: the sandbox is hashed before and after. Every user's file (and every device node,
# FIFO and symlink) is as it was, except what the command was asked to write: a file output
# may replace a regular file at its path (or, through a symlink, the regular file it names);
# a folder output may replace what an earlier run of warpsmith wrote there. Exit 0 means the
# output was written (a manifest, a results file, a non-empty file); exit 2 names the path;
# writing to a full device is never a success.

FILE_OUTPUTS = {
    "emit-config": ["cost", "--block", "ot", "--preset", "tiny", "--emit-config", "{T}"],
    "command-trace": ["golden", "--block", "mc", "--preset", "tiny", "--stimulus", "hoa",
                      "--cycles", "300", "--command-trace", "{T}"],
    "waves": ["cosim", "--block", "ot", "--preset", "tiny", "--stimulus", "random", "--cycles",
              "40", "--waves", "{T}"],
}
FOLDER_OUTPUTS = {
    "generate": ["generate", "--block", "ot", "--preset", "tiny", "--out", "{T}"],
    "generate-all": ["generate", "--block", "all", "--preset", "tiny", "--out", "{T}"],
    "regress": ["regress", "--list", "one.toml", "--out", "{T}", "-j", "1"],
    "flow": ["flow", "--preset", "tiny", "--cycles", "3000", "--out", "{T}"],
}
STDOUT_COMMANDS = [["describe"], ["presets"], ["cost", "--block", "ot", "--preset", "tiny"],
                   ["run", "--preset", "tiny", "--kernel", "cp"],
                   ["generate", "--block", "ot", "--preset", "tiny", "--out", "fresh"],
                   ["golden", "--block", "ot", "--preset", "tiny", "--stimulus", "random",
                    "--cycles", "50"],
                   ["regress", "--list", "smoke", "--dry-run"]]
ONE_JOB_LIST = ('[[entry]]\nblocks = ["ot"]\npresets = ["tiny"]\nstimuli = ["random"]\n'
                'seeds = [1]\ncycles = 40\n')
TARGETS = ["missing", "missing-parent", "empty-dir", "user-dir", "manifest-dir", "earlier",
           "earlier+user", "symlink-dir", "symlink-file", "dangling-symlink", "regular-file",
           "fifo", "dev-null", "dev-full", "readonly-parent", "readonly-dir", "dot",
           "trailing-slash"]


def gen_output(rng, index, env):
    r = rng.random()
    if r < 0.12:
        cmd = rng.choice(STDOUT_COMMANDS)
        return Case("output", index, "stdout of %s to a full device" % cmd[0],
                    lambda ctx: _stdout_full(ctx, env, cmd), shared_cache=True)
    folder = rng.random() < 0.55
    table = FOLDER_OUTPUTS if folder else FILE_OUTPUTS
    names = sorted(n for n in table if env.flow or n != "flow")
    weights = [1 if n == "flow" else 10 for n in names]
    what = rng.choices(names, weights)[0]
    target = rng.choice(TARGETS)
    return Case("output", index, "%s -> %s" % (what, target),
                lambda ctx: _output_case(ctx, what, table[what], folder, target),
                shared_cache=True, timeout=300 if what == "flow" else 90)


def _user_files(ctx, rel):
    ctx.write(os.path.join(rel, "notes.txt"), "a user's notes\n")
    ctx.write(os.path.join(rel, "sub", "data.bin"), bytes(range(256)))


def _output_case(ctx, what, template, folder, target):
    ctx.write("one.toml", ONE_JOB_LIST)
    ctx.write("home/keep.txt", "a file beside the output\n")
    T = "out"
    earlier = set()
    if target == "missing-parent":
        T = "no/such/parent/out"
    elif target == "empty-dir":
        ctx.mkdir(T)
    elif target == "user-dir":
        _user_files(ctx, T)
    elif target == "manifest-dir":
        ctx.write(os.path.join(T, "manifest.json"), '{"name": "my-web-app", "version": "1.0.0"}\n')
        ctx.write(os.path.join(T, "src", "main.js"), "console.log('hello');\n")
    elif target in ("earlier", "earlier+user"):
        pre = ctx.snapshot()
        first = ctx.run("earlier", [a.replace("{T}", T) for a in template])
        if first.code != 0:
            return crash(first, "the earlier run") or (UNJUDGED, "the earlier run failed: %s"
                                                        % first_line(first.err))
        earlier = set(ctx.snapshot()) - set(pre)
        if target == "earlier+user":
            if folder:
                ctx.write(os.path.join(T, "my-notes.txt"), "added by the user\n")
            else:
                ctx.write("out-notes.txt", "beside it\n")
    elif target == "symlink-dir":
        _user_files(ctx, "elsewhere")
        ctx.symlink(T, "elsewhere")
    elif target == "symlink-file":
        ctx.write("elsewhere.txt", "a user's file\n")
        ctx.symlink(T, "elsewhere.txt")
    elif target == "dangling-symlink":
        ctx.symlink(T, "nowhere")
    elif target == "regular-file":
        ctx.write(T, "a user's file\n")
    elif target == "fifo":
        ctx.fifo(T)
    elif target in ("dev-null", "dev-full"):
        ctx.chardev(T, target[4:])
    elif target == "readonly-parent":
        _user_files(ctx, "ro")
        ctx.chmod("ro", 0o555)
        T = "ro/out"
    elif target == "readonly-dir":
        _user_files(ctx, T)
        ctx.chmod(T, 0o555)
    elif target == "dot":
        _user_files(ctx, "")
        T = "."
    elif target == "trailing-slash":
        T = "out/"
    before = ctx.snapshot()
    res = ctx.run("main", [a.replace("{T}", T) for a in template])
    after = ctx.snapshot()
    c = crash(res)
    if c:
        return c
    base = os.path.normpath(T)
    link_target = before.get(base, ("",))[1] if before.get(base, ("",))[0] == "link" else None

    def allowed(rel):
        if rel in earlier:
            return True
        if folder:
            return rel == base and before.get(rel, ("",))[0] in ("dir",) and target != "dot"
        if rel == base:
            return before[rel][0] == "file"
        return link_target is not None and rel == os.path.normpath(link_target) and \
            before[rel][0] == "file"

    lost = lost_files(before, after, allowed)
    if lost:
        return LOST_FILE, "%s: %s" % (res.status(), ", ".join(lost[:4]))
    if res.code == 1:
        return INTERNAL, "exit 1 on an output path: " + first_line(res.err)
    if res.code == 2:
        words = [T, base, os.path.basename(base) if base != "." else "."]
        if not names_any(res.err, words):
            return BAD_MESSAGE, "exit 2 without naming %s: %s" % (T, first_line(res.err))
        plain = ("missing", "empty-dir", "earlier", "trailing-slash") if folder else \
            ("missing", "earlier", "regular-file")
        if what == "regress":
            plain = ("missing", "empty-dir", "trailing-slash")  # an earlier run: --resume
        if target in plain:
            return REFUSED, "refused a plain output path: " + first_line(res.err)
        return REJECTED, first_line(res.err)
    if target == "dev-full":
        return WRONG, "exit 0 after writing to a full device"
    # Exit 0: the output is there.
    real = os.path.realpath(ctx.p(T))
    if folder:
        marks = ["manifest.json", "results.jsonl", "ot"]
        if not any(os.path.exists(os.path.join(real, m)) for m in marks):
            return WRONG, "exit 0 but no output in %s" % T
    elif target not in ("dev-null", "fifo"):
        if not os.path.isfile(real) or os.path.getsize(real) == 0:
            return WRONG, "exit 0 but %s is not a written file" % T
    return OK, "written"


def _stdout_full(ctx, env, cmd):
    ctx.write("one.toml", ONE_JOB_LIST)
    ctx.chardev("full", "full")
    args = list(cmd)
    if args[0] == "run" and env.max_cycles:
        args += ["--max-cycles", MAX_CYCLES]
    res = ctx.run("main", args, stdout="full")
    c = crash(res)
    if c:
        return c
    if res.code == 0:
        return WRONG, "exit 0 although nothing it printed could be written"
    if res.code == 1:
        return INTERNAL, "exit 1 on a full standard output: " + first_line(res.err)
    if not re.search(r"stdout|standard output|write|space", res.err, re.I):
        return BAD_MESSAGE, "exit 2 without saying standard output could not be written: " + \
            first_line(res.err)
    return REJECTED, first_line(res.err)


# ==== Class results: results.jsonl of regressions ==========================================
#
# Oracle: a results file is a record of finished jobs. Whatever was done to it (its last line
# cut by a kill, lines doubled, garbage lines, CRLF, emptied), `regress --resume` keeps every
# intact result (byte for byte), gives every job of the plan a result, prints no figure that
# is an underflow, and a second --resume runs nothing; or it refuses, naming the file, and
# leaves it as it was. `regress merge` keeps every intact result of its shards.

RESULTS_LIST = ('[[entry]]\nblocks = ["ot"]\npresets = ["tiny"]\nstimuli = ["random"]\n'
                'seed_count = 4\ncycles = 40\n')


def _folder_files(root):
    out = {}
    for d, _, fs in os.walk(root):
        for f in fs:
            p = os.path.join(d, f)
            out[os.path.relpath(p, root)] = open(p, "rb").read()
    return out


def mutate_results(rng, text):
    lines = text.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    kind = rng.choices(["cut-last", "cut-newline", "cut-middle", "dup-line", "dup-all",
                        "garbage", "blank", "crlf", "nul", "empty", "reorder", "huge-field",
                        "unknown-id", "bom"], [16, 6, 6, 12, 5, 14, 5, 4, 4, 4, 4, 6, 6, 3])[0]
    body = b"\n".join(lines) + b"\n"
    if kind == "cut-last":
        last = lines[-1]
        cut = rng.randrange(1, len(last))
        body = b"\n".join(lines[:-1] + [last[:cut]])
    elif kind == "cut-newline":
        body = b"\n".join(lines)
    elif kind == "cut-middle":
        i = rng.randrange(len(lines))
        lines[i] = lines[i][:rng.randrange(1, len(lines[i]))]
        body = b"\n".join(lines) + b"\n"
    elif kind == "dup-line":
        i = rng.randrange(len(lines))
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
        body = b"\n".join(lines) + b"\n"
    elif kind == "dup-all":
        body = body + body
    elif kind == "garbage":
        g = rng.choice([b"garbage", b"{", b"null", b"[]", b"{}", b"\"x\"", b"{\"id\":1}",
                        bytes(rng.randrange(32, 127) for _ in range(40)), b"\xff\xfe\x00"])
        lines.insert(rng.randrange(len(lines) + 1), g)
        body = b"\n".join(lines) + b"\n"
    elif kind == "blank":
        lines.insert(rng.randrange(len(lines) + 1), b"")
        body = b"\n".join(lines) + b"\n"
    elif kind == "crlf":
        body = body.replace(b"\n", b"\r\n")
    elif kind == "nul":
        body = body + b"\x00" * rng.randint(1, 64)
    elif kind == "empty":
        body = b""
    elif kind == "reorder":
        rng.shuffle(lines)
        body = b"\n".join(lines) + b"\n"
    elif kind in ("huge-field", "unknown-id"):
        i = rng.randrange(len(lines))
        j = json.loads(lines[i])
        if kind == "huge-field":
            # The line itself damaged: it is no longer an intact result.
            j[rng.choice(["cycles", "cycles_run", "seed", "seconds"])] = rng.choice(
                [U64, U64 - 1, -1, 1e308, "x"])
            lines[i] = json.dumps(j).encode()
        else:
            j["id"] = "0123456789abcdef"
            lines.insert(rng.randrange(len(lines) + 1), json.dumps(j).encode())
        body = b"\n".join(lines) + b"\n"
    return kind, body


def intact_results(text, plan_ids, clean_lines):
    """The intact results a file holds: clean result lines (first per job)."""
    keep = {}
    for line in text.split(b"\n"):
        line = line.rstrip(b"\r")
        if line in clean_lines:
            jid = json.loads(line).get("id")
            if jid in plan_ids and jid not in keep:
                keep[jid] = line
    return keep


def gen_results(rng, index, env):
    merge = rng.random() < 0.35
    seed = rng.getrandbits(32)

    def body(ctx):
        r = random.Random(seed)
        ref = env.results_reference()
        if isinstance(ref, tuple):
            return ref
        kinds = []
        ctx.write("list.toml", RESULTS_LIST)
        folders = ["s1", "s2"] if merge else ["out"]
        srcs = {"s1": ref["s1"], "s2": ref["s2"], "out": ref["all"]}
        inputs = {}
        for f in folders:
            files = dict(srcs[f])
            if f == folders[-1] or r.random() < 0.5:
                kind, files["results.jsonl"] = mutate_results(r, files["results.jsonl"])
                kinds.append("%s: %s" % (f, kind))
            for n, data in sorted(files.items()):
                ctx.write(os.path.join(f, n), data)
            inputs[f] = files["results.jsonl"]
        ctx.case.name += ": " + "; ".join(kinds)
        plan_ids = ref["plan_ids"]
        clean = ref["clean_lines"]
        given = b"".join(inputs.values()).decode("latin-1")
        before = ctx.snapshot()
        if merge:
            res = ctx.run("merge", ["regress", "merge", "s1", "s2", "--out", "m"])
        else:
            res = ctx.run("resume", ["regress", "--list", "list.toml", "--out", "out", "--resume",
                                     "-j", "1"])
        c = crash(res)
        if c:
            return c
        shown = res.out + res.err
        final_name = "m/results.jsonl" if merge else "out/results.jsonl"
        for extra in ("summary.txt", "junit.xml"):
            p = ctx.p(os.path.join("m" if merge else "out", extra))
            if os.path.isfile(p):
                shown += open(p, errors="replace").read()
        for m in re.finditer(r"\b\d{19,}\b", shown):
            if m.group(0) not in given:
                return WRONG, "an underflow figure: %s" % _line_of(shown, m.start())
        after = ctx.snapshot()
        keep = {}
        for f in folders:
            for jid, line in intact_results(inputs[f], plan_ids, clean).items():
                keep.setdefault(jid, line)
        out_dir = "m" if merge else "out"
        lost = lost_files(before, after, lambda rel: rel == out_dir or rel.startswith(out_dir + "/"))
        if lost:
            return LOST_FILE, ", ".join(lost)
        if res.code == 2:
            if not names_any(res.err, ["results.jsonl", "s1", "s2", "out"]):
                return BAD_MESSAGE, "exit 2 without naming the results file: " + first_line(res.err)
            if not merge and before.get("out/results.jsonl") != after.get("out/results.jsonl"):
                return LOST_FILE, "refused, yet out/results.jsonl changed"
            return REJECTED, first_line(res.err)
        if res.code == 1 and (not merge or not os.path.isfile(ctx.p(final_name))):
            return INTERNAL, "exit 1 on a results file: " + first_line(res.err)
        if not os.path.isfile(ctx.p(final_name)):
            return WRONG, "exit %d but no %s" % (res.code, final_name)
        final = open(ctx.p(final_name), "rb").read()
        final_lines = set(l.rstrip(b"\r") for l in final.split(b"\n"))
        missing = [jid for jid, line in keep.items() if line not in final_lines]
        if missing:
            return LOST_FILE, "intact result(s) lost: %s" % ", ".join(missing)
        if merge:
            return OK, "merge exit %d, %d intact results kept" % (res.code, len(keep))
        have = set()
        for line in final.split(b"\n"):
            try:
                j = json.loads(line)
                if isinstance(j, dict):
                    have.add(j.get("id"))
            except ValueError:
                pass
        if plan_ids - have:
            return WRONG, "exit 0 but job(s) without a result: %s" % ", ".join(sorted(plan_ids - have))
        again = ctx.run("again", ["regress", "--list", "list.toml", "--out", "out", "--resume", "-j", "1"])
        c = crash(again, "the second --resume")
        if c:
            return c
        m = re.search(r"(\d+) run, ", again.out + again.err)
        if again.code != 0 or not m or m.group(1) != "0":
            return WRONG, "the second --resume: %s, %s" % (again.status(), first_line(
                (again.out + again.err)[-400:]) if again.code == 0 else first_line(again.err))
        return OK, "resumed; %d intact results kept" % len(keep)

    return Case("results", index, "merge" if merge else "resume", body, shared_cache=True)


# ==== Class huge: sizes claimed by input ===================================================
#
# Oracle: the same oracles as above (the trace reader, the kernel rules and counts, the
# request count), on inputs whose size is in a claim: a grid, loop_trips or compute up to
# 2^32 - 1, a trace header's grid of 2^32 blocks, addresses at or above 2^53, request cycles
# near 2^64, latencies of 100,000 cycles. Memory must follow what the input holds, and a run
# must end within the time limit: with its counts, or refused naming the field or the cycle
# bound (--max-cycles).

BOUND_WORDS = ["max-cycles", "max_cycles", "--max-cycles", "cycle limit", "cycle budget"]


def _bounded(res, valid, words):
    """A run that stopped at its bound and said so is rejected, not refused."""
    if res.code == 2 and names_any(res.err, BOUND_WORDS + list(words)):
        return REJECTED, ("bounded: " if valid else "") + first_line(res.err)
    return None


def _requests(rng, n, cycle_at, addr_at):
    lines = []
    for k in range(n):
        lines.append(json.dumps({"cycle": cycle_at(k), "op": "req", "sm": k % 4, "warp": k % 8,
                                 "pc": 16 * (k % 5), "addr": addr_at(k), "write": k % 3 == 0}))
    return "\n".join(lines) + "\n"


def gen_huge(rng, index, env):
    preset = "tiny"
    gpu = env.gpu(preset)
    scenario = ["kernel-grid", "kernel-trips", "kernel-compute", "kernel-high-base", "trace-grid",
                "trace-high-addr", "trace-insts", "trace-block", "latency", "mc-cycle",
                "memory-high-addr", "regress-seeds", "kernel-long-program"][index % 13]
    base = tomllib.loads(env.kernels["scalarprod.toml"])
    base["grid"] = [1, 1, 1]
    words = []
    if scenario.startswith("kernel"):
        d = json.loads(json.dumps(base))
        if scenario == "kernel-grid":
            d["grid"] = rng.choice([[4294967295, 1, 1], [65536, 65536, 1], [2147483648, 1, 1],
                                    [65535, 65535, 1], [100000000, 1, 1]])
            d["arrays"] = [dict(a, len=0) for a in d["arrays"]]
            words = ["grid"]
        elif scenario == "kernel-trips":
            d["loop_trips"] = rng.choice([4294967295, 1000000000, 10000000])
            d["loads"] = [dict(l, index={"tx": 1}) for l in d["loads"]]
            words = ["loop_trips"]
        elif scenario == "kernel-compute":
            d["compute"] = rng.choice([4294967295, 1000000000, 100000000])
            words = ["compute"]
        elif scenario == "kernel-high-base":
            b = rng.choice([1 << 53, (1 << 53) + 4096, 1 << 60, (1 << 63) - (1 << 24), 0x7fff_ffff_fff0_0000])
            d["arrays"] = [dict(a, base=b + k * (1 << 22), len=0) for k, a in enumerate(d["arrays"])]
        else:
            d["loop_trips"] = rng.choice([100000, 1000000])
            d["loads"] = [{"pc": 0x100 + 8 * k, "array": "d_A", "in_loop": True} for k in range(254)]
            d["arrays"] = [dict(a, len=0) for a in d["arrays"]]
            words = ["loop_trips", "loads"]
        text = toml_doc(d)
        valid, probs, counts = kernel_verdict(text, gpu)

        def body(ctx):
            ctx.write("k.toml", text)
            res = ctx.run("run", run_args(env, preset, "--kernel", "k.toml"))
            return crash(res) or _bounded(res, valid, words) or \
                judge_kernel_run(res, "k.toml", valid, probs, counts)

        return Case("huge", index, "%s: %s" % (scenario, " ".join(
            "%s=%s" % (k, d[k]) for k in ("grid", "loop_trips", "compute") if k in d)), body)

    if scenario.startswith("trace"):
        files = lud_trace() if rng.random() < 0.6 else synth_trace(rng, gpu)
        name = [n for n in files if n.endswith(".traceg")][0]
        t = files[name]
        if scenario == "trace-grid":
            g = rng.choice(["(65536,65536,1)", "(4294967295,4294967295,4294967295)", "(4294967295,1,1)"])
            t = re.sub(r"-grid dim = \([^)]*\)", "-grid dim = " + g, t)
            what, words = "grid " + g, ["grid"]
        elif scenario == "trace-high-addr":
            k = rng.choice([1 << 53, (1 << 53) - 64, 1 << 60, 1 << 63, U64 - (1 << 20), U64 - 4096])
            t = re.sub(r"0x([0-9a-fA-F]{8,16})", lambda m: "0x%016x" % ((int(m.group(1), 16) + k) % U64), t)
            t = "\n".join(l if not l.startswith("-") else re.sub(r"0x[0-9a-f]{16}", "0x0000000000000000", l)
                          for l in t.split("\n"))
            what = "addresses + %#x" % k
        elif scenario == "trace-insts":
            t = re.sub(r"insts = \d+", "insts = " + rng.choice(["1000000000000", "18446744073709551615",
                                                                 "4294967296"]), t, count=1)
            what, words = "insts", ["insts"]
        else:
            b = rng.choice(["(65536,65537,1)", "(4294967295,1,1)", "(2048,1,1)", "(1024,1024,1024)"])
            t = re.sub(r"-block dim = \([^)]*\)", "-block dim = " + b, t)
            what, words = "block " + b, ["block"]
        files[name] = t

        def body(ctx):
            write_trace(ctx, "trace", files)
            verdict = read_trace_folder(ctx.p("trace"), gpu)
            res = ctx.run("run", run_args(env, preset, "--trace", "trace", "--no-trace-cache"))
            if scenario == "trace-block" and res.code == 2:
                dims = [int(x) for x in re.findall(r"\d+", b)]
                warps = -(-dims[0] * dims[1] * dims[2] // 32)
                m = re.search(r"(\d+) warps", res.err)
                if m and int(m.group(1)) != warps:
                    return BAD_MESSAGE, "a wrapped figure: %s (the block has %d warps)" % (
                        first_line(res.err), warps)
            return crash(res) or _bounded(res, verdict[0] == VALID, words) or \
                judge_trace_run(res, trace_file_names(files), verdict)

        return Case("huge", index, "%s: %s" % (scenario, what), body)

    if scenario == "latency":
        key, v = rng.choice([("l2.dram_latency", 100000), ("l2.rop_latency", 100000),
                             ("gpu.l1_latency", 10000), ("icnt.latency", 1000),
                             ("dispatch.block_cycles", 100000000), ("gpu.alu_latency", 1000)])
        kernel = rng.random() < 0.5
        files = lud_trace()
        text = env.kernels["cp.toml"]
        valid, probs, counts = kernel_verdict(text, gpu)

        def body(ctx):
            if kernel:
                ctx.write("k.toml", text)
                res = ctx.run("run", run_args(env, preset, "--kernel", "k.toml", "--set", "%s=%d" % (key, v)))
                return crash(res) or _bounded(res, True, [key]) or \
                    judge_kernel_run(res, "k.toml", valid, probs, counts)
            write_trace(ctx, "trace", files)
            verdict = read_trace_folder(ctx.p("trace"), gpu)
            res = ctx.run("run", run_args(env, preset, "--trace", "trace", "--no-trace-cache",
                                          "--set", "%s=%d" % (key, v)))
            return crash(res) or _bounded(res, True, [key]) or \
                judge_trace_run(res, trace_file_names(files), verdict)

        return Case("huge", index, "latency: %s=%d on %s" % (key, v, "cp" if kernel else "lud"), body)

    if scenario in ("mc-cycle", "memory-high-addr"):
        block = "mc" if scenario == "mc-cycle" else rng.choice(["memory", "mc"])
        n = rng.choice([2, 5, 20])
        valid, words = True, ()
        if scenario == "mc-cycle":
            top = rng.choice([U64 - 1, U64 - 100, 1 << 63, U64 - 1000, MAX_REQ_CYCLE])
            if top > MAX_REQ_CYCLE:
                valid, words = False, ("cycle",)
            step = rng.choice([0, 1, 3])
            text = _requests(rng, n, lambda k: top - (n - 1 - k) * step if k else 1,
                             lambda k: 4096 * (k + 1))
        else:
            high = rng.choice([1 << 53, 1 << 60, U64 - 4096, (1 << 63) + 128])
            text = _requests(rng, n, lambda k: 1 + 10 * k, lambda k: (high + 128 * k) % U64)
        return Case("huge", index, "%s: golden --block %s, %d requests" % (scenario, block, n),
                    lambda ctx: _judge_requests(ctx, block, text, n, preset, valid, words))

    if scenario == "regress-seeds":
        count = rng.choice([100_000_000, 10_000_000, I64_MAX])
        text = RESULTS_LIST.replace("seed_count = 4", "seed_count = %d" % count)

        def body(ctx):
            ctx.write("list.toml", text)
            res = ctx.run("dry", ["regress", "--list", "list.toml", "--dry-run"])
            c = crash(res)
            if c:
                return c
            if res.code == 2:
                return rejection(res, ["seed_count", "list.toml"], ["list.toml"])
            if res.code == 1:
                return INTERNAL, first_line(res.err)
            return OK, "listed within the limits"

        return Case("huge", index, "regress seed_count = %d" % count, body)


def _judge_requests(ctx, block, text, n, preset, valid=True, words=()):
    """golden --block mc|memory on a request file holding `n` requests (`valid`: True,
    "either" or False)."""
    ctx.write("reqs.jsonl", text)
    res = ctx.run("golden", ["golden", "--block", block, "--preset", preset, "--stimulus",
                             "reqs.jsonl", "--format", "json"])
    c = crash(res)
    if c:
        return c
    if res.code == 1:
        return INTERNAL, "exit 1 on requests: " + first_line(res.err)
    if res.code == 2:
        return rejection(res, list(words), ["reqs.jsonl"], valid=valid is True and n > 0,
                         what="request file")
    j = res.json() or {}
    got = j.get("requests")
    if got == 0 or n == 0:
        return NOTHING, "exit 0 after %s requests" % got
    if valid is False:
        return WRONG, "ran an invalid request file (%s requests)" % got
    if got != n or j.get("completed", n) != n:
        return WRONG, "requests %s, completed %s, the file holds %d" % (got, j.get("completed"), n)
    return OK, "%d requests served" % n


# ==== Class stimulus: JSON-lines stimuli ===================================================
#
# Oracle: the README's formats. A request file (golden mc, golden memory): every line an
# object with `cycle`, `op` = "req", `sm`, `warp`, `pc`, `addr` (unsigned integers below
# 2^64) and `write` (a boolean), optionally `load` and `prefetch`; valid => every request
# served (`requests`, `completed`); a bad line => exit 2 naming the file and line; no request
# => nothing simulated. An OT file whose transactions are only launches compares nothing (a
# prediction and an observation each have compared outputs): `cosim` must report NOTHING
# CHECKED (exit 2).

REQ_FIELDS = {"cycle": "u64", "op": "req", "sm": "u64", "warp": "u64", "pc": "u64", "addr": "u64",
              "write": "bool", "load": "u64", "prefetch": "bool"}
# The last cycle a request may arrive at (README: the request format; a run's clocks must count
# on past it to the request's completion).
MAX_REQ_CYCLE = 1 << 62


def request_verdict(text):
    """(valid | either | invalid, requests)."""
    n, status, last = 0, VALID, 0
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            j = json.loads(line)
        except ValueError:
            return INVALID, n
        if not isinstance(j, dict):
            return INVALID, n
        for k in ("cycle", "op", "sm", "warp", "pc", "addr", "write"):
            if k not in j:
                return INVALID, n
        for k, v in j.items():
            t = REQ_FIELDS.get(k)
            if t is None:
                status = EITHER
            elif v is None and k in ("load", "prefetch"):
                # JSON's null for an optional field: read as absent, or refused.
                status = EITHER
            elif t == "u64" and not (_is_int(v) and 0 <= v < U64):
                return INVALID, n
            elif t == "bool" and not isinstance(v, bool):
                return INVALID, n
            elif t == "req" and v != "req":
                return INVALID, n
        if j["cycle"] > MAX_REQ_CYCLE:
            return INVALID, n
        if j["cycle"] == 0 or j["cycle"] < last:
            status = EITHER
        last = j["cycle"]
        # An SM, warp, PC or load label beyond what a GPU has may be refused (the model's
        # fields are narrower than the file's 64 bits); cycles and addresses may not.
        if any(_is_int(j.get(k)) and j[k] >= (4 if k == "sm" else 1 << 16)
               for k in ("sm", "warp", "pc", "load")):
            status = EITHER
        n += 1
    return status, n


def gen_stimulus(rng, index, env):
    preset = "tiny"
    if rng.random() < 0.25:
        mode = rng.choice(["launches only", "observations only", "with a prediction"])
        lines = [json.dumps({"op": "launch", "grid": [2, 2, 1], "block": [64, 1, 1]})]
        if mode != "launches only":
            for k in range(rng.randint(1, 6)):
                lines.append(json.dumps({"op": "observe", "pc": 240, "lec": k,
                                         "tb": [k % 2, 0, 0], "warp": k % 2,
                                         "addr": 4096 + 64 * k}))
        if mode == "with a prediction":
            lines.append(json.dumps({"op": "predict", "pc": 240, "lec": 1, "tb": [1, 1, 0],
                                     "warp": 0}))
        text = "\n".join(lines) + "\n"

        def body(ctx):
            ctx.write("ot.jsonl", text)
            res = ctx.run("cosim", ["cosim", "--block", "ot", "--preset", preset, "--stimulus",
                                    "ot.jsonl", "--format", "json"])
            c = crash(res)
            if c:
                return c
            if mode == "launches only":
                if res.code == 0:
                    return NOTHING, "exit 0 (%s) on launches alone: nothing was compared" % (
                        (res.json() or {}).get("verdict"))
                if res.code == 2:
                    return REJECTED, first_line(res.err)
                return INTERNAL, first_line(res.err)
            if res.code == 0:
                return OK, "compared"
            return (INTERNAL if res.code == 1 else REFUSED), first_line(res.err)

        return Case("stimulus", index, "cosim ot, " + mode, body, shared_cache=True)
    block = rng.choice(["mc", "memory"])
    n = rng.randint(1, 12)
    reqs = [{"cycle": 1 + 7 * k, "op": "req", "sm": k % 4, "warp": k % 6, "pc": 8 * (k % 3),
             "addr": 4096 * rng.randrange(1, 1000) + 64 * (k % 2), "write": rng.random() < 0.3}
            for k in range(n)]
    for q in reqs:
        if rng.random() < 0.2:
            q["load"] = rng.randrange(4)
        if rng.random() < 0.1:
            q["prefetch"] = True
    kind = rng.choices(["none", "field", "delete", "extra", "json", "comment", "empty", "op"],
                       [5, 40, 12, 6, 12, 6, 4, 6])[0]
    q = rng.choice(reqs)
    if kind == "field":
        f = rng.choice(list(q))
        q[f] = rng.choice([-1, U64, U64 - 1, I64_MAX, 1.5, "1", None, True, [], 0, 1 << 53])
    elif kind == "delete":
        del q[rng.choice(list(q))]
    elif kind == "extra":
        q[rng.choice(["size", "x", "Cycle"])] = 1
    elif kind == "op":
        q["op"] = rng.choice(["read", "REQ", "", "req "])
    lines = [json.dumps(q) for q in reqs]
    if kind == "json":
        i = rng.randrange(len(lines))
        lines[i] = lines[i][:rng.randrange(1, len(lines[i]))]
    elif kind == "comment":
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(["# a comment", "", "   "]))
    elif kind == "empty":
        lines = rng.choice([[], ["# only a comment"], ["", ""]])
    text = "\n".join(lines) + "\n"
    status, count = request_verdict(text)
    valid = {VALID: True, EITHER: "either", INVALID: False}[status]
    return Case("stimulus", index, "golden %s: %s" % (block, kind),
                lambda ctx: _judge_requests(ctx, block, text, count, preset, valid=valid,
                                            words=["reqs.jsonl"]))


# ==== What the classes share: the binary's own description, built once ====================


class Env:
    def __init__(self, binary, work, timeout):
        self.bin, self.work, self.timeout = binary, work, timeout
        self.lock = threading.RLock()
        self.shared_cache = os.path.join(work, "shared-cache")
        self.setup_dir = os.path.join(work, "setup")
        os.makedirs(self.setup_dir, exist_ok=True)
        os.makedirs(self.shared_cache, exist_ok=True)
        self._n = 0
        help_run = self.call(["run", "--help"]).out
        self.max_cycles = "--max-cycles" in help_run
        d = self.call(["describe", "--format", "json"]).json()
        if not d:
            sys.exit("adversarial: `%s describe --format json` gave no JSON" % binary)
        self.keys = {k["key"]: KeyInfo(k) for k in d["keys"]}
        self.presets = [l.split()[0] for l in self.call(["presets"]).out.splitlines() if l.strip()]
        self._configs = {}
        self._gpgpusim = {}
        self._results = None
        self.kernels = kernel_sources()
        # `flow --out` builds every block's model: the full suite only.
        self.flow = True

    def call(self, args, timeout=600, cwd=None, cache=None):
        with self.lock:
            self._n += 1
            n = self._n
        env = dict(os.environ, WARPSMITH_CACHE_DIR=cache or self.shared_cache)
        return run_binary([self.bin] + args, cwd or self.setup_dir, env, timeout,
                          os.path.join(self.setup_dir, "call-%d" % n))

    def config(self, preset):
        with self.lock:
            if preset not in self._configs:
                path = os.path.join(self.setup_dir, "preset-%s.toml" % preset)
                self.call(["cost", "--block", "ot", "--preset", preset, "--emit-config", path])
                self._configs[preset] = tomllib.load(open(path, "rb"))
            return self._configs[preset]

    def gpu(self, preset):
        return self.config(preset)["gpu"]

    def gpgpusim_clean(self, src, names):
        """What the clean files import (option -> [(key, value)]) and resolve to."""
        with self.lock:
            if src not in self._gpgpusim:
                folder = os.path.join(ROOT, "spec/tests-data/gpgpusim-configs", src)
                args = []
                for n in names:
                    args += ["--gpgpusim-config", os.path.join(folder, n)]
                d = self.call(["describe"] + args + ["--format", "json"]).json() or {}
                imported = {}
                for e in d.get("imported", []):
                    imported.setdefault(e["from"].split()[0], []).append((e["key"], e["value"]))
                path = os.path.join(self.setup_dir, "gpgpusim-%s.toml" % src.replace("/", "-"))
                self.call(["cost", "--block", "ot"] + args + ["--emit-config", path])
                text = open(path).read() if os.path.exists(path) else ""
                self._gpgpusim[src] = {"imported": imported, "emitted_text": text}
            return self._gpgpusim[src]

    def prewarm(self, classes):
        """Build the Verilator models the output, results and stimulus classes use, once,
        so that no case pays (or times out on) a build."""
        if not set(classes) & {"output", "results", "stimulus"}:
            return
        print("adversarial: building the Verilator models the cases share (once)...", file=sys.stderr)
        self.call(["cosim", "--block", "ot", "--preset", "tiny", "--stimulus", "random", "--cycles", "20"],
                  timeout=1800)
        if "output" in classes:
            self.call(["cosim", "--block", "ot", "--preset", "tiny", "--stimulus", "random",
                       "--cycles", "20", "--waves", os.path.join(self.setup_dir, "w.vcd")], timeout=1800)
        if "output" in classes and self.flow:
            self.call(FOLDER_OUTPUTS["flow"][:-1] + [os.path.join(self.setup_dir, "flow")], timeout=3600)

    def results_reference(self):
        """A finished regression of 4 jobs, whole and in 2 shards (its folders' files), or
        why there is none."""
        with self.lock:
            if self._results is None:
                d = os.path.join(self.setup_dir, "results")
                rmtree(d)
                os.makedirs(d)
                with open(os.path.join(d, "list.toml"), "w") as f:
                    f.write(RESULTS_LIST)
                runs = [self.call(["regress", "--list", "list.toml", "--out", o, "-j", "1"] + extra,
                                  cwd=d, timeout=1800)
                        for o, extra in (("all", []), ("s1", ["--shard", "1/2"]), ("s2", ["--shard", "2/2"]))]
                if any(r.code != 0 for r in runs):
                    self._results = (UNJUDGED, "the reference regression did not pass: %s"
                                     % first_line(runs[0].err + runs[0].out))
                else:
                    ref = {o: _folder_files(os.path.join(d, o)) for o in ("all", "s1", "s2")}
                    plan = json.loads(ref["all"]["plan.json"])
                    ref["plan_ids"] = {j["id"] for j in plan["jobs"]}
                    ref["clean_lines"] = set()
                    for o in ("all", "s1", "s2"):
                        ref["clean_lines"].update(l for l in ref[o]["results.jsonl"].split(b"\n") if l)
                    self._results = ref
            return self._results


# ==== The run: plan, execute, report =======================================================

CLASSES = {"trace": gen_trace, "pack": gen_pack, "kernel": gen_kernel, "config": gen_config,
           "gpgpusim": gen_gpgpusim, "regress": gen_regress, "output": gen_output,
           "results": gen_results, "huge": gen_huge, "stimulus": gen_stimulus}
# Shares of --count, and the --quick counts (every class, a few hundred cases in all).
WEIGHTS = {"trace": 30, "pack": 9, "kernel": 15, "config": 16, "gpgpusim": 9, "regress": 7,
           "output": 5, "results": 3, "huge": 1.3, "stimulus": 4}
QUICK = {"trace": 60, "pack": 20, "kernel": 45, "config": 60, "gpgpusim": 30, "regress": 25,
         "output": 26, "results": 10, "huge": 13, "stimulus": 14}


def case_seed(seed, cls, index):
    return int.from_bytes(hashlib.sha256(("%s:%s:%d" % (seed, cls, index)).encode()).digest()[:8], "big")


def execute(cls, index, env, args):
    rng = random.Random(case_seed(args.seed, cls, index))
    start = time.monotonic()
    case_dir = os.path.join(env.work, cls, "%05d" % index)
    rmtree(case_dir)
    os.makedirs(case_dir)
    case = None
    try:
        case = CLASSES[cls](rng, index, env)
        cache = env.shared_cache if case.shared_cache else os.path.join(case_dir, "sb", "cache")
        ctx = Ctx(case, case_dir, env, cache)
        outcome, detail = case.body(ctx)
    except Failure as f:
        outcome, detail = f.outcome, f.detail
    except Exception as e:  # the harness itself: never a verdict on warpsmith
        import traceback
        outcome, detail = UNJUDGED, "the oracle failed: %s: %s" % (type(e).__name__, e)
        traceback.print_exc()
        ctx = None
    rec = {"id": "%s-%05d" % (cls, index), "class": cls, "name": case.name if case else "?",
           "outcome": outcome, "detail": detail, "seconds": round(time.monotonic() - start, 2),
           "commands": ctx.commands if ctx else []}
    if outcome in FAILURES and ctx is not None:
        write_reproducer(os.path.join(args.out, "failures", rec["id"]), ctx, rec, env)
    if not args.keep:
        rmtree(case_dir)
    return rec


def write_reproducer(folder, ctx, rec, env):
    rmtree(folder)
    os.makedirs(os.path.join(folder, "files"))
    for n, data in enumerate(ctx.payloads):
        with open(os.path.join(folder, "files", str(n)), "wb") as f:
            f.write(data)
    tails = {}
    for name, res in ctx.res.items():
        tails[name] = {"status": res.status(), "stderr": res.err[-2000:],
                       "stdout": res.out[-2000:] if res.out_path else "(redirected)"}
    with open(os.path.join(folder, "case.json"), "w") as f:
        json.dump(dict(rec, runs=tails), f, indent=2)
    lines = ["#!/bin/sh",
             "# %s: %s" % (rec["id"], rec["name"][:300].replace("\n", " ")),
             "# %s: %s" % (rec["outcome"], rec["detail"][:300].replace("\n", " ")),
             "# Re-run: sh repro.sh (WARPSMITH=/path/to/warpsmith to try another binary).",
             'cd "$(dirname "$0")" || exit 1',
             'W=${WARPSMITH:-%s}' % shlex.quote(env.bin),
             "rm -rf sandbox && mkdir sandbox && : > io.seen || exit 1",
             "cd sandbox || exit 1",
             'export WARPSMITH_CACHE_DIR="$PWD/cache"',
             "ulimit -v %d" % (AS_LIMIT // 1024)]
    lines += ctx.shell
    with open(os.path.join(folder, "repro.sh"), "w") as f:
        f.write("\n".join(lines) + "\n")
    os.chmod(os.path.join(folder, "repro.sh"), 0o755)


def plan(args):
    classes = args.classes.split(",") if args.classes else list(CLASSES)
    for c in classes:
        if c not in CLASSES:
            sys.exit("adversarial: unknown class %r (classes: %s)" % (c, ", ".join(CLASSES)))
    if args.quick:
        counts = {c: QUICK[c] for c in classes}
    else:
        total = sum(WEIGHTS[c] for c in classes)
        counts = {c: max(13 if c == "huge" else 1, round(args.count * WEIGHTS[c] / total)) for c in classes}
    # Interleaved, so that every class progresses together and the ETA means something.
    order = sorted(((i + 0.5) / n, c, i) for c, n in counts.items() for i in range(n))
    return counts, [(c, i) for _, c, i in order]


def summarize(records, counts, env, args, elapsed):
    table = {c: {o: 0 for o in OUTCOMES} for c in counts}
    for r in records:
        table[r["class"]][r["outcome"]] += 1
    cols = ["cases"] + OUTCOMES
    w = max(len(c) for c in list(counts) + ["total"]) + 2
    out = ["warpsmith adversarial suite: %s" % env.bin,
           "seed %s, %d cases, %.0f s, %s" % (args.seed, len(records), elapsed,
                                             "run bounded with --max-cycles %s" % MAX_CYCLES
                                             if env.max_cycles else
                                             "run has no --max-cycles: runs are unbounded"),
           "",
           "class".ljust(w) + " ".join(c.rjust(max(len(c), 5)) for c in cols)]
    totals = {o: 0 for o in OUTCOMES}
    for c in counts:
        row = table[c]
        for o in OUTCOMES:
            totals[o] += row[o]
        out.append(c.ljust(w) + " ".join(str(v).rjust(max(len(k), 5)) for k, v in
                                         [("cases", sum(row.values()))] + [(o, row[o]) for o in OUTCOMES]))
    out.append("total".ljust(w) + " ".join(str(v).rjust(max(len(k), 5)) for k, v in
                                           [("cases", len(records))] + [(o, totals[o]) for o in OUTCOMES]))
    failures = [r for r in records if r["outcome"] in FAILURES]
    out.append("")
    out.append("%d failure(s)" % len(failures))
    for o in FAILURES:
        some = [r for r in failures if r["outcome"] == o]
        if not some:
            continue
        out.append("")
        out.append("%s (%d):" % (o, len(some)))
        seen = set()
        for r in some:
            key = (r["class"], re.sub(r"\d+", "N", r["detail"])[:60])
            if key in seen:
                continue
            seen.add(key)
            out.append("  %s  %s" % (r["id"], r["name"][:110]))
            out.append("      %s" % r["detail"][:200])
            out.append("      sh %s" % os.path.join(args.out, "failures", r["id"], "repro.sh"))
            if len(seen) >= 6:
                break
    return "\n".join(out) + "\n", table


def self_test(env):
    """The oracles on inputs whose answer is known, and the judges against deliberately
    wrong results: a suite whose oracle is broken must not report anything."""
    gpu = env.gpu("tiny")
    errors = []

    def check(what, got, want):
        if got != want:
            errors.append("%s: %r, expected %r" % (what, got, want))

    def trace(files):
        return read_trace_folder_text(files, gpu)

    st, _, ks = trace(lud_trace())
    check("LUD", (st, [(k["blocks"], k["instructions"]) for k in ks]), (VALID, [(1, 1027)]))
    st, _, ks = trace(pytorch_trace())
    check("pytorch (-nregs 21955)", (st, [(k["blocks"], k["instructions"]) for k in ks]), (EITHER, [(2, 264)]))
    rng = random.Random(0)
    for n in range(30):
        files = synth_trace(rng, gpu)
        v = trace(files)
        check("synthesized trace %d" % n, v[0], VALID)
    lud = lud_trace()
    line = next(l for l in lud["kernel-8.traceg"].split("\n") if " LDG" in l)
    wrong = {
        "a register above R255": line.replace(" R2 ", " R256 ", 1),
        "a mask past the block": line.replace("ffffffff", "ffffffff").replace(line.split()[5], "1ffffffff", 1),
    }
    for what, new in wrong.items():
        files = dict(lud, **{"kernel-8.traceg": lud["kernel-8.traceg"].replace(line, new, 1)})
        check(what, trace(files)[0], INVALID)
    for what, old, new in [("a block outside the grid", "thread block = 0,0,0", "thread block = 1,0,0"),
                           ("tracer version 6", "-binary version = 70", "-binary version = 70\n-accelsim tracer version = 6"),
                           ("1025 threads", "-block dim = (32,1,1)", "-block dim = (1025,1,1)"),
                           ("insts one too many", "insts = 1027", "insts = 1028"),
                           ("a block twice", "#END_TB", "#END_TB\n#BEGIN_TB\nthread block = 0,0,0\n#END_TB")]:
        files = dict(lud, **{"kernel-8.traceg": lud["kernel-8.traceg"].replace(old, new, 1)})
        check(what, trace(files)[0], INVALID)
    valid, _, counts = kernel_verdict(env.kernels["cp.toml"], gpu)
    check("cp", (valid, counts["blocks"], counts["instructions"]), (True, 256, 52224))
    for text, field in [(env.kernels["cp.toml"].replace("grid = [8, 32, 1]", "grid = [0, 32, 1]"), "grid"),
                        (env.kernels["cp.toml"] + "\nextra = 1\n", "extra"),
                        (env.kernels["scalarprod.toml"].replace("loop_trips = 4", "loop_trips = 0"), "loop_trips")]:
        valid, probs, _ = kernel_verdict(text, gpu)
        check("kernel with a bad " + field, (valid, any(field in w for _, ws in probs for w in ws)), (False, True))
    sms = env.keys["gpu.sms"]
    for text, want in [("0", "illegal"), ("16", "legal"), ("0x10", "either"), ("4294967297", "illegal"),
                       ("16.0", "illegal"), ("257", "illegal")]:
        check("gpu.sms=" + text, sms.classify(text)[0], want)
    check("ot.ways above ot.entries", config_expectation(env, "tiny", [("ot.ways", "64")])[0], "reject")
    # The judges catch what they are for.
    io = os.path.join(env.setup_dir, "self-test")
    os.makedirs(io, exist_ok=True)

    def fake(code, out="", err="", sig=None, timed_out=False):
        op, ep = os.path.join(io, "o"), os.path.join(io, "e")
        open(op, "w").write(out)
        open(ep, "w").write(err)
        return Res(code, sig, timed_out, 0, op, ep, 1)

    verdict = trace(lud_trace())
    report = {"instructions": 1027, "kernels": [{"name": "_Z13lud_perimeterPfii", "id": 8, "blocks": 1,
                                                 "instructions": 1027,
                                                 "occupancy": {"block_shmem": 3072, "block_registers": 5376}}]}
    check("the right counts", judge_trace_run(fake(0, json.dumps(report)), ["kernel-8.traceg"], verdict)[0], OK)
    report["kernels"][0]["instructions"] = 1026
    check("one instruction short", judge_trace_run(fake(0, json.dumps(report)), ["kernel-8.traceg"], verdict)[0], WRONG)
    check("0 instructions", judge_trace_run(fake(0, '{"instructions": 0, "kernels": []}'), [], verdict)[0], NOTHING)
    check("a panic", crash(fake(101, err="thread 'main' panicked at x"))[0], PANIC)
    check("an abort", crash(fake(None, sig=6))[0], PANIC)
    check("an allocation failure", crash(fake(None, sig=6, err="memory allocation of 8 bytes failed"))[0], OOM)
    check("a hang", crash(fake(None, sig=9, timed_out=True))[0], HANG)
    check("a stall", judge_trace_run(fake(1, err="the GPU stalled"), [], verdict)[0], INTERNAL)
    check("a refusal of a valid trace", judge_trace_run(fake(2, err="x.traceg:3: no"), ["x.traceg"], verdict)[0], REFUSED)
    check("a message without file and line", judge_trace_run(fake(2, err="bad trace"), ["x.traceg"],
                                                              (INVALID, "", []))[0], BAD_MESSAGE)
    check("a lost file", lost_files({"a": ("file", "1")}, {"a": ("file", "2")}), ["a (file -> file)"])
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/warpsmith"))
    ap.add_argument("--seed", default="1")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--count", type=int, default=10000)
    g.add_argument("--quick", action="store_true", help="a few hundred cases, every class")
    ap.add_argument("--classes", default="", help="comma-separated: " + ",".join(CLASSES))
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60, help="seconds per run before it is a hang")
    ap.add_argument("--out", default="adversarial-out")
    ap.add_argument("--keep", action="store_true", help="keep every case's sandbox under OUT/work")
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    args.out = os.path.abspath(args.out)
    if not os.access(args.bin, os.X_OK):
        sys.exit("adversarial: no binary at %s (build it: cargo build --release)" % args.bin)
    rmtree(os.path.join(args.out, "failures"))
    work = os.path.join(args.out, "work")
    rmtree(work)
    os.makedirs(work)
    env = Env(args.bin, work, args.timeout)
    env.flow = not args.quick
    broken = self_test(env)
    if broken:
        print("adversarial: the suite's own oracles are broken; nothing was judged:\n  "
              + "\n  ".join(broken), file=sys.stderr)
        return 3
    counts, order = plan(args)
    env.prewarm(list(counts))
    print("adversarial: %d cases (%s) against %s, %d job(s)%s" % (
        len(order), ", ".join("%s %d" % kv for kv in counts.items()), args.bin, args.jobs,
        "" if env.max_cycles else "; run has no --max-cycles"), file=sys.stderr)
    start = time.monotonic()
    records, fails, last = [], 0, 0.0
    with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        futures = [pool.submit(execute, c, i, env, args) for c, i in order]
        for n, fut in enumerate(futures, 1):
            rec = fut.result()
            records.append(rec)
            if rec["outcome"] in FAILURES:
                fails += 1
            now = time.monotonic()
            if now - last > 5 or n == len(futures):
                last = now
                el = now - start
                eta = el / n * (len(futures) - n)
                print("[%d/%d] %3.0f%%  %s elapsed, ETA %s  failures %d  (last: %s %s)" % (
                    n, len(futures), 100.0 * n / len(futures), _hms(el), _hms(eta), fails,
                    rec["id"], rec["outcome"]), file=sys.stderr, flush=True)
    elapsed = time.monotonic() - start
    text, table = summarize(records, counts, env, args, elapsed)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "report.json"), "w") as f:
        json.dump({"bin": args.bin, "seed": args.seed, "max_cycles": env.max_cycles,
                   "seconds": round(elapsed), "counts": table, "cases": records}, f, indent=1)
    if not args.keep:
        rmtree(work)
    sys.stdout.write(text)
    return 1 if fails else 0


def _hms(s):
    s = int(s)
    return "%d:%02d:%02d" % (s // 3600, s % 3600 // 60, s % 60) if s >= 3600 else "%d:%02d" % (s // 60, s % 60)


if __name__ == "__main__":
    sys.exit(main())
