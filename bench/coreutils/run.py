#!/usr/bin/env python3
"""The benchmark of real command-line tools: GNU coreutils 9.1 (Debian 12's
source package `coreutils`), its small tools built three ways, AFL++ on
them, and native line and branch coverage of each tool's main unit.

Steps (each a subcommand; `all` runs fetch, build, afl, walkdown and
measure, and prints the two tools' coverage side by side; it runs AFL++
and walkdown on a tool at the same time, one core each, so that both see
the same machine):

  fetch    apt-get source --download-only coreutils=VERSION into
           WORK/download, unpacked with dpkg-source -x (Debian's patches
           applied) into WORK/coreutils-9.1.  Nothing of it is committed.
  build    configure once (clang-14, WORK/build-config), then copy that
           configured tree into one build per variant and make only what
           the chosen tools need:
             units  clang-14 -O0 -g under `bear`: WORK/build-units/
                    compile_commands.json, and per tool
                    WORK/units/TOOL/compile_commands.json holding just the
                    units its link uses (main unit first)
             gcov   gcc -O0 -g --coverage, for the measurement
             afl    afl-clang-fast -O2 -g, for AFL++
           Each build writes tools.json: per tool the unit defining main,
           the link command, and the archive members it links.
  afl      per tool: the main unit renamed (main -> tool_main) and linked
           with bench/coreutils/afl_driver.c; a CmpLog binary and an
           AFL_LLVM_DICT2FILE dictionary unless --no-cmplog / --no-dict;
           afl-fuzz -V BUDGET; the queue written as JSON tests to
           OUT/TOOL/tests/ (OUT defaults to WORK/afl/BUDGETs).
  walkdown per tool: walkdown gen --compile-commands
           WORK/units/TOOL/compile_commands.json --target MAIN_UNIT --time
           BUDGET --jobs 1 (one core, as afl-fuzz has) with the same
           --args and --stdin bounds; its env-tests/ are the JSON tests
           measure replays (OUT defaults to WORK/walkdown/BUDGETs).
  measure  replays a directory of JSON tests per tool against the gcov
           build (a fresh temporary working directory per test, standard
           input a pipe, output to /dev/null) and prints, per tool, line and
           branch coverage of its main unit (gcov -b: a branch counts when
           taken at least once).
  decode   prints AFL input files as the JSON tests they map to.

The AFL input mapping and the JSON test format are in README.md beside this
script.  Bounds: --args N:L (up to N arguments of up to L bytes, default
3:8) and --stdin LEN (default 32), as walkdown's defaults.

Examples:
  bench/coreutils/run.py all --budget 60                 # the whole pipeline
  bench/coreutils/run.py build --tools echo tr
  bench/coreutils/run.py afl --budget 30 --tools echo
  bench/coreutils/run.py walkdown --budget 30 --tools echo
  bench/coreutils/run.py measure --tests target/coreutils/afl/60s
  bench/coreutils/run.py measure --tests SUITES --tools seq   # SUITES/seq/*.json

Exit code: 0 success, 1 a step failed, 2 bad usage, 130 interrupted.
"""

import argparse
import base64
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_WORK = REPO / "target" / "coreutils"
PACKAGE = "coreutils"
DEFAULT_VERSION = "9.1-1"
SOURCE_DIR = "coreutils-9.1"
DEFAULT_TOOLS = ["basename", "cut", "echo", "expr", "fold", "nl", "printf", "seq", "tr", "uniq"]
# Features that need libraries or system state the benchmark does without:
# no NLS, ACLs, xattrs, capabilities, SMACK, SELinux, GMP (expr uses gnulib's
# mini-gmp), OpenSSL, threads (gnulib's locks become no-ops).
CONFIGURE_FLAGS = [
    "--disable-nls", "--disable-acl", "--disable-xattr", "--disable-libcap",
    "--disable-libsmack", "--without-selinux", "--without-libgmp",
    "--without-openssl", "--disable-threads",
]
CONFIGURE_CC = "clang-14"
VARIANTS = {
    "units": {"CC": "clang-14", "CFLAGS": "-O0 -g"},
    "gcov": {"CC": "gcc", "CFLAGS": "-O0 -g --coverage"},
    "afl": {"CC": "afl-clang-fast", "CFLAGS": "-O2 -g"},
}
# The environment every tool runs in, under AFL and in the replay.
TOOL_ENV = {"LC_ALL": "C", "PATH": "/usr/bin:/bin"}
MAX_STDIN = 65536  # what a pipe holds: the driver writes it before the tool runs


class Failure(Exception):
    pass


def log(msg):
    print(f"coreutils: {msg}", file=sys.stderr, flush=True)


def need(*programs, package_hint=None):
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        hint = f" (Debian package {package_hint})" if package_hint else ""
        raise Failure(f"{', '.join(missing)} not found{hint}; scripts/setup or "
                      f"'apt-get install {package_hint or ' '.join(missing)}' installs it")


# Debian packages each step needs; missing ones are installed (as
# scripts/setup does for walkdown's own).
PACKAGES = {
    "fetch": ["dpkg-dev"],
    "build": ["dpkg-dev", "clang-14", "gcc", "make", "binutils", "bear", "afl++"],
    "afl": ["dpkg-dev", "clang-14", "gcc", "make", "binutils", "afl++"],
    "measure": ["dpkg-dev", "clang-14", "gcc", "make", "binutils"],
}


def ensure_packages(step):
    missing = []
    for p in PACKAGES.get(step, []):
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", p], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        if b"install ok installed" not in r.stdout:
            missing.append(p)
    if not missing:
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    log(f"installing {' '.join(missing)} (Debian packages)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    run(sudo + ["apt-get", "update", "-qq"], env=env, what="apt-get update")
    run(sudo + ["apt-get", "install", "-y", "-qq", *missing], env=env,
        what=f"apt-get install {' '.join(missing)}")


def run(cmd, cwd=None, env=None, log_file=None, check=True, what=None):
    """Runs cmd; its output goes to log_file (appended) or is captured."""
    if log_file is not None:
        with open(log_file, "ab") as f:
            f.write(("$ " + shlex.join(str(c) for c in cmd) + "\n").encode())
            f.flush()
            r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, stdout=f,
                               stderr=subprocess.STDOUT)
        out = None
    else:
        r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        out = r.stdout.decode(errors="replace")
    if check and r.returncode != 0:
        where = f"; see {log_file}" if log_file else (":\n" + out[-3000:] if out else "")
        raise Failure(f"{what or cmd[0]} failed (exit {r.returncode}){where}")
    return out


# ---------------------------------------------------------------- fetch


def source_tree(work):
    return work / SOURCE_DIR


def cmd_fetch(a):
    work = a.work
    src = source_tree(work)
    stamp = src / ".wd-fetched"
    if stamp.exists() and stamp.read_text().strip() == a.version:
        log(f"fetch: {src} already holds {PACKAGE} {a.version}")
        return
    need("apt-get", "dpkg-source", package_hint="dpkg-dev")
    dl = work / "download"
    shutil.rmtree(dl, ignore_errors=True)
    dl.mkdir(parents=True)
    log(f"fetch: apt-get source --download-only {PACKAGE}={a.version}")
    r = subprocess.run(["apt-get", "source", "--download-only", "-qq", f"{PACKAGE}={a.version}"],
                       cwd=dl, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise Failure(f"'apt-get source {PACKAGE}={a.version}' failed; is there a deb-src "
                      f"entry? (scripts/setup adds one)\n{r.stdout.decode(errors='replace')}")
    dsc = sorted(dl.glob("*.dsc"))
    if not dsc:
        raise Failure(f"no .dsc in {dl}")
    shutil.rmtree(src, ignore_errors=True)
    log(f"fetch: dpkg-source -x {dsc[0].name} (applies Debian's patches)")
    run(["dpkg-source", "-x", dsc[0], src], what="dpkg-source -x")
    stamp.write_text(a.version + "\n")
    log(f"fetch: {PACKAGE} {a.version} source in {src}")


# ---------------------------------------------------------------- build


def configure(a):
    work = a.work
    src = source_tree(work)
    if not (src / "configure").exists():
        raise Failure(f"no {src}/configure: run the fetch step first")
    cfg = work / "build-config"
    stamp = cfg / ".wd-configured"
    want = json.dumps({"cc": CONFIGURE_CC, "flags": CONFIGURE_FLAGS})
    if stamp.exists() and stamp.read_text() == want:
        return cfg
    need(CONFIGURE_CC, package_hint="clang-14")
    shutil.rmtree(cfg, ignore_errors=True)
    cfg.mkdir(parents=True)
    logf = work / "logs" / "configure.log"
    logf.parent.mkdir(parents=True, exist_ok=True)
    logf.unlink(missing_ok=True)
    log(f"build: configuring (CC={CONFIGURE_CC}; a few minutes; log {logf})")
    t0 = time.time()
    # coreutils' configure refuses root unless told.
    env = dict(os.environ, FORCE_UNSAFE_CONFIGURE="1")
    run([os.path.relpath(src / "configure", cfg), f"CC={CONFIGURE_CC}",
         f"CFLAGS={VARIANTS['units']['CFLAGS']}", *CONFIGURE_FLAGS],
        cwd=cfg, env=env, log_file=logf, what="configure")
    stamp.write_text(want)
    log(f"build: configured in {time.time() - t0:.0f}s")
    return cfg


def make_vars(variant, extra=None):
    v = dict(VARIANTS[variant])
    v.update(extra or {})
    return [f"{k}={val}" for k, val in v.items()]


def make_print(build, var):
    mk = build / ".wd-print.mk"
    mk.write_text("wd-print-%:\n\t@echo $($*)\n")
    out = run(["make", "-s", "-f", "Makefile", "-f", mk.name, f"wd-print-{var}"], cwd=build,
              what=f"make print {var}")
    return out.split()


def parse_map(map_file, build):
    """Archive members the link pulled in, from a GNU ld map file."""
    members = []
    for line in map_file.read_text(errors="replace").splitlines():
        if line.startswith(("Discarded input sections", "Memory Configuration")):
            break
        m = re.match(r"^(\S+\.a)\(([^)]+)\)", line)
        if m and not m.group(1).startswith("/"):
            members.append((m.group(1), m.group(2)))
    seen, out = set(), []
    for arch, mem in members:
        if (arch, mem) not in seen:
            seen.add((arch, mem))
            out.append((arch, mem))
    return out


def defines_main(obj):
    out = subprocess.run(["nm", "--defined-only", "-P", str(obj)], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL).stdout.decode(errors="replace")
    return any(line.split()[:2] == ["main", "T"] for line in out.splitlines())


def build_variant(a, variant, tools):
    work = a.work
    cfg = configure(a)
    build = work / f"build-{variant}"
    if not (build / "Makefile").exists():
        shutil.rmtree(build, ignore_errors=True)
        # cp -a keeps the timestamps, so make does not rerun configure.
        run(["cp", "-a", cfg, build], what="cp -a build-config")
    logf = work / "logs" / f"make-{variant}.log"
    vars_ = make_vars(variant)
    env = dict(os.environ)
    if variant == "afl":
        env.update(AFL_QUIET="1")
    t0 = time.time()
    log(f"build: {variant}: make {' '.join(vars_)} (log {logf})")
    built_sources = make_print(build, "BUILT_SOURCES")
    wrap = []
    if variant == "units":
        need("bear", package_hint="bear")
        wrap = ["bear", "--append", "--output", str(build / "compile_commands.json"), "--"]
    run(wrap + ["make", f"-j{a.jobs}", "V=1", *vars_, *built_sources], cwd=build, env=env,
        log_file=logf, what=f"make ({variant}) of the generated headers")
    targets = [f"src/{t}" for t in tools]
    run(wrap + ["make", f"-j{a.jobs}", "V=1", *vars_, *targets], cwd=build, env=env,
        log_file=logf, what=f"make ({variant}) {' '.join(targets)}")
    # Relink each tool with a map file: the link command and the archive
    # members it pulls in (which gnulib units the tool really uses).
    info_file = build / "tools.json"
    info = json.loads(info_file.read_text()) if info_file.exists() else {}
    cc_entries = {}
    if variant == "units":
        for e in json.loads((build / "compile_commands.json").read_text()):
            out = e.get("output")
            if out:
                cc_entries[os.path.normpath(os.path.join(e["directory"], out))] = e
    for t in tools:
        (build / "src" / t).unlink(missing_ok=True)
        map_file = build / "src" / f"{t}.map"
        out = run(["make", "V=1", *vars_, f"LDFLAGS=-Wl,-Map=src/{t}.map", f"src/{t}"],
                  cwd=build, env=env, what=f"relink of src/{t} ({variant})")
        link = None
        for line in out.splitlines():
            try:
                toks = shlex.split(line) if f"-o src/{t}" in line else []
            except ValueError:
                toks = []
            if "-c" not in toks and f"src/{t}" in toks and toks.index(f"src/{t}") > 0 \
                    and toks[toks.index(f"src/{t}") - 1] == "-o":
                link = toks
        if link is None:
            raise Failure(f"no link command for src/{t} in make's output ({variant})")
        link = [x for x in link if not x.startswith("-Wl,-Map=")]
        objects = [x for x in link[1:] if x.endswith(".o") and not x.startswith("/")]
        archives = [x for x in link[1:] if x.endswith(".a") and not x.startswith("/")]
        mains = [o for o in objects if defines_main(build / o)]
        if len(mains) != 1:
            raise Failure(f"src/{t}: expected one object defining main, found {mains}")
        members = parse_map(map_file, build)
        rec = {
            "binary": f"src/{t}",
            "main_object": mains[0],
            "link": link,
            "objects": objects,
            "archives": list(dict.fromkeys(archives)),
            "archive_members": [f"{arch}({mem})" for arch, mem in members],
        }
        if variant == "units":
            # ar keeps only a member's base name: find its object among the
            # compiled ones under the archive's directory.
            member_objs = []
            for arch, mem in members:
                top = os.path.normpath(str(build / os.path.dirname(arch)))
                cands = [o for o in cc_entries
                         if os.path.basename(o) == mem and o.startswith(top + "/")]
                if len(cands) != 1:
                    raise Failure(f"{arch}({mem}): {len(cands)} compiled objects match")
                member_objs.append(os.path.relpath(cands[0], build))
            entries = []
            for o in [mains[0]] + [o for o in objects if o != mains[0]] + member_objs:
                e = cc_entries.get(os.path.normpath(str(build / o)))
                if e is None:
                    raise Failure(f"{o} (linked into src/{t}) has no compile_commands entry")
                entries.append(e)
            rec["main_unit"] = os.path.relpath(entries[0]["file"], source_tree(work))
            # Relative to the source tree (a generated unit is in the build:
            # ../build-units/src/version.c).
            rec["units"] = [os.path.relpath(e["file"], source_tree(work)) for e in entries]
            per_tool = work / "units" / t / "compile_commands.json"
            per_tool.parent.mkdir(parents=True, exist_ok=True)
            per_tool.write_text(json.dumps(entries, indent=2) + "\n")
            rec["compile_commands"] = str(per_tool)
        info[t] = rec
    info_file.write_text(json.dumps(info, indent=2) + "\n")
    log(f"build: {variant}: {len(tools)} tools in {time.time() - t0:.0f}s ({info_file})")
    return info


def built(a, variant, tools):
    """Whether the build of `variant` has every one of `tools`."""
    f = a.work / f"build-{variant}" / "tools.json"
    return f.exists() and all(t in json.loads(f.read_text()) for t in tools)


def cmd_build(a):
    cmd_fetch(a)
    for v in a.variants:
        if v == "afl":
            need("afl-clang-fast", "afl-fuzz", package_hint="afl++")
        if v == "gcov":
            need("gcc", "gcov", package_hint="gcc")
        build_variant(a, v, a.tools)
    if "units" in a.variants:
        info = json.loads((a.work / "build-units" / "tools.json").read_text())
        for t in a.tools:
            r = info[t]
            lib = sum(1 for u in r["units"] if u.startswith("lib/"))
            log(f"build: {t}: main unit {r['main_unit']}, {len(r['units'])} units "
                f"({lib} from lib/), {r['compile_commands']}")


# ---------------------------------------------------------------- the mapping


def parse_bounds(s):
    m = re.fullmatch(r"(\d+):(\d+)", s)
    if not m:
        raise argparse.ArgumentTypeError(f"--args wants N:L (e.g. 3:8), not {s!r}")
    return int(m.group(1)), int(m.group(2))


def decode(data, n_args, arg_len, stdin_len):
    """AFL input bytes -> (args, stdin); the mapping of afl_driver.c."""
    pos, k = 0, 0
    if data:
        k = data[0] % (n_args + 1)
        pos = 1
    args = []
    for _ in range(k):
        end = data.find(b"\0", pos)
        if end < 0:
            end = len(data)
        args.append(data[pos:end][:arg_len])
        pos = min(end + 1, len(data))
    return args, data[pos:pos + stdin_len]


def arg_to_json(b):
    try:
        s = b.decode("utf-8")
        return s
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(b).decode()}


def test_to_json(args, stdin, files=None, **extra):
    d = {"args": [arg_to_json(x) for x in args], "stdin": base64.b64encode(stdin).decode()}
    if files:
        d["files"] = {k: base64.b64encode(v).decode() for k, v in files.items()}
    d.update(extra)
    return d


def load_test(path):
    """A JSON test -> (args, stdin, files) as bytes; raises ValueError."""
    d = json.loads(Path(path).read_text())
    if not isinstance(d, dict) or not isinstance(d.get("args", []), list):
        raise ValueError("not an object with an 'args' list")
    if str(d.get("format", "")).startswith("walkdown-env-test/"):
        # walkdown's own tests (env-tests/*.json): byte strings as Latin-1.
        def raw(s):
            return s.encode("latin-1")
        return ([raw(x) for x in d.get("args", [])], raw(d.get("stdin", "")),
                {k: raw(v) for k, v in (d.get("files") or {}).items()})
    args = []
    for x in d.get("args", []):
        if isinstance(x, str):
            b = x.encode("utf-8")
        elif isinstance(x, dict) and isinstance(x.get("base64"), str):
            b = base64.b64decode(x["base64"], validate=True)
        else:
            raise ValueError(f"argument {x!r} is neither a string nor {{'base64': ...}}")
        if b"\0" in b:
            raise ValueError("an argument holds a NUL byte")
        args.append(b)
    stdin = base64.b64decode(d.get("stdin", ""), validate=True)
    files = {}
    for name, content in (d.get("files") or {}).items():
        if not name or name.startswith("/") or ".." in Path(name).parts:
            raise ValueError(f"file name {name!r} leaves the working directory")
        files[name] = base64.b64decode(content, validate=True)
    return args, stdin, files


def cmd_decode(a):
    n, l_ = a.args
    for f in a.inputs:
        args, stdin = decode(Path(f).read_bytes(), n, l_, a.stdin)
        print(json.dumps(test_to_json(args, stdin, source=str(f))))


# ---------------------------------------------------------------- afl


SEEDS = {
    # Generic seeds, the same for every tool: no knowledge of any tool.
    "no-args": b"\x00hello world\n",
    "one-arg": b"\x01a\x00a b\nc\n",
}


def afl_env(extra=None):
    env = dict(TOOL_ENV)
    for k in ("HOME",):
        if k in os.environ:
            env[k] = os.environ[k]
    env.update(AFL_SKIP_CPUFREQ="1", AFL_NO_AFFINITY="1", AFL_NO_UI="1",
               AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES="1", AFL_QUIET="1")
    env.update(extra or {})
    return env


def build_harness(a, tool, info, hdir):
    """The AFL binaries of one tool: its main unit with main renamed, and
    the driver; the same again with CmpLog instrumentation."""
    build = a.work / "build-afl"
    rec = info[tool]
    main_obj = rec["main_object"]
    n, l_ = a.args
    hdir.mkdir(parents=True, exist_ok=True)
    logf = hdir / "build.log"
    logf.unlink(missing_ok=True)
    vars_ = make_vars("afl")
    dict_file = hdir / "dict.txt"
    dict_file.unlink(missing_ok=True)
    kinds = [("", {})]
    if a.cmplog:
        kinds.append((".cmplog", {"AFL_LLVM_CMPLOG": "1"}))
    outputs = {}
    try:
        for suffix, kenv in kinds:
            env = dict(os.environ, AFL_QUIET="1", **kenv)
            if a.dict and not suffix:
                env["AFL_LLVM_DICT2FILE"] = str(dict_file)
            # make recompiles the main unit with the build's own flags.
            (build / main_obj).unlink(missing_ok=True)
            run(["make", "V=1", *vars_, main_obj], cwd=build, env=env, log_file=logf,
                what=f"compile of {main_obj} ({suffix or 'afl'})")
            renamed = hdir / f"main{suffix}.o"
            run(["objcopy", "--redefine-sym", "main=tool_main", build / main_obj, renamed],
                log_file=logf, what="objcopy")
            driver = hdir / f"driver{suffix}.o"
            run(["afl-clang-fast", "-O2", "-g", f"-DWD_TOOL=\"{tool}\"", f"-DWD_ARGS={n}",
                 f"-DWD_ARG_LEN={l_}", f"-DWD_STDIN={a.stdin}", "-c", HERE / "afl_driver.c",
                 "-o", driver], env=env, log_file=logf, what="compile of afl_driver.c")
            link = list(rec["link"])
            link[0] = "afl-clang-fast"
            i = link.index("-o")
            link[i + 1] = str(hdir / f"{tool}{suffix}")
            j = link.index(main_obj)
            link[j:j + 1] = [str(renamed), str(driver)]
            run(link, cwd=build, env=env, log_file=logf, what=f"link of the {tool} harness")
            outputs[suffix] = hdir / f"{tool}{suffix}"
    finally:
        # Leave the build as make made it.
        (build / main_obj).unlink(missing_ok=True)
        run(["make", *vars_, main_obj], cwd=build, env=dict(os.environ, AFL_QUIET="1"),
            log_file=logf, check=False)
    return outputs[""], outputs.get(".cmplog"), (dict_file if dict_file.exists()
                                                  and dict_file.stat().st_size else None)


def read_stats(path):
    stats = {}
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            k, _, v = line.partition(":")
            stats[k.strip()] = v.strip()
    return stats


def fuzz_one(a, tool, info, out_root):
    n, l_ = a.args
    d = out_root / tool
    for sub in ("out", "tests", "seeds", "cwd"):
        shutil.rmtree(d / sub, ignore_errors=True)
    harness, cmplog, dict_file = build_harness(a, tool, info, d / "harness")
    seeds = d / "seeds"
    seeds.mkdir(parents=True)
    for name, data in SEEDS.items():
        (seeds / name).write_bytes(data)
    cwd = d / "cwd"
    (cwd / "tmp").mkdir(parents=True)
    maxlen = 1 + n * (l_ + 1) + a.stdin
    cmd = ["afl-fuzz", "-i", seeds, "-o", d / "out", "-V", str(a.budget), "-t", str(a.afl_timeout),
           "-G", str(maxlen)]
    if cmplog:
        cmd += ["-c", cmplog]
    if dict_file:
        cmd += ["-x", dict_file]
    cmd += ["--", harness, "@@"]
    logf = d / "afl.log"
    (d / "command.txt").write_text(shlex.join(str(c) for c in cmd) + "\n")
    env = afl_env({"TMPDIR": str(cwd / "tmp")})
    log(f"afl: {tool}: {a.budget}s (cmplog {'on' if cmplog else 'off'}, dictionary "
        f"{'on' if dict_file else 'off'}, inputs up to {maxlen} bytes; log {logf})")
    t0 = time.time()
    with open(logf, "wb") as f:
        p = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=env, stdout=f,
                             stderr=subprocess.STDOUT, start_new_session=True)
        guard = a.budget + 180  # calibration and the seeds' dry run come first
        try:
            while True:
                try:
                    p.wait(timeout=min(30, max(1, a.budget // 4)))
                    break
                except subprocess.TimeoutExpired:
                    el = time.time() - t0
                    q = len(list((d / "out" / "default" / "queue").glob("id:*")))
                    log(f"afl: {tool}: {el:.0f}s, queue {q}")
                    if el > guard:
                        log(f"afl: {tool}: still running {guard}s after the start; stopping it")
                        os.killpg(p.pid, signal.SIGINT)
                        try:
                            p.wait(timeout=20)
                        except subprocess.TimeoutExpired:
                            os.killpg(p.pid, signal.SIGKILL)
                            p.wait()
                        break
        except BaseException:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            raise
    stats = read_stats(d / "out" / "default" / "fuzzer_stats")
    queue = sorted((d / "out" / "default" / "queue").glob("id:*"))
    if not queue:
        tail = logf.read_text(errors="replace")[-2000:]
        raise Failure(f"afl-fuzz on {tool} left no queue (exit {p.returncode}); {logf}:\n{tail}")
    tests = d / "tests"
    tests.mkdir()
    for qf in queue:
        args, stdin = decode(qf.read_bytes(), n, l_, a.stdin)
        m = re.match(r"id:(\d+)", qf.name)
        (tests / f"afl-{m.group(1)}.json").write_text(
            json.dumps(test_to_json(args, stdin, afl=qf.name)) + "\n")
    rec = {
        "tool": tool, "budget_s": a.budget, "wall_s": round(time.time() - t0, 1),
        "afl_exit": p.returncode, "queue": len(queue),
        "execs": int(stats.get("execs_done", "0") or 0),
        "crashes": int(stats.get("saved_crashes", stats.get("unique_crashes", "0")) or 0),
        "hangs": int(stats.get("saved_hangs", stats.get("unique_hangs", "0")) or 0),
        "command": shlex.join(str(c) for c in cmd), "tests": str(tests),
    }
    log(f"afl: {tool}: done in {rec['wall_s']}s: {rec['execs']} execs, queue {rec['queue']}, "
        f"crashes {rec['crashes']}, hangs {rec['hangs']} -> {tests}")
    return rec


def afl_root(a):
    """The AFL++ builds of the chosen tools (built when missing) and the
    output directory."""
    need("afl-fuzz", "afl-clang-fast", "objcopy", "nm", package_hint="afl++")
    info_file = a.work / "build-afl" / "tools.json"
    info = json.loads(info_file.read_text()) if info_file.exists() else {}
    missing = [t for t in a.tools if t not in info or not (a.work / "build-afl" / "src" / t).exists()]
    if missing:
        cmd_fetch(a)
        info = build_variant(a, "afl", missing)
    out_root = a.out or a.work / "afl" / f"{a.budget}s"
    out_root.mkdir(parents=True, exist_ok=True)
    return info, out_root


def write_afl_json(a, out_root, recs):
    (out_root / "afl.json").write_text(json.dumps(
        {"args": list(a.args), "stdin": a.stdin, "budget_s": a.budget, "cmplog": a.cmplog,
         "dict": a.dict, "tools": recs}, indent=2) + "\n")
    log(f"afl: tests in {out_root}/TOOL/tests ({out_root / 'afl.json'})")


def cmd_afl(a):
    info, out_root = afl_root(a)
    recs = [fuzz_one(a, t, info, out_root) for t in a.tools]
    write_afl_json(a, out_root, recs)
    return out_root


# ---------------------------------------------------------------- measure


def preload_lib(work):
    so = work / "measure" / "gcov_on_term.so"
    src = HERE / "gcov_on_term.c"
    if not so.exists() or so.stat().st_mtime < src.stat().st_mtime:
        so.parent.mkdir(parents=True, exist_ok=True)
        run(["gcc", "-shared", "-fPIC", "-O2", src, "-o", so], what="compile of gcov_on_term.c")
    return so


def replay(binary, tool, test, env, timeout, scratch):
    args, stdin, files = load_test(test)
    with tempfile.TemporaryDirectory(dir=scratch, ignore_cleanup_errors=True) as tmp:
        wd = Path(tmp) / "cwd"
        wd.mkdir()
        (Path(tmp) / "tmp").mkdir()
        for name, content in files.items():
            p = wd / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(content)
        e = dict(env, TMPDIR=str(Path(tmp) / "tmp"))
        p = subprocess.Popen([tool.encode()] + args, executable=str(binary), cwd=wd, env=e,
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            try:
                p.stdin.write(stdin)
                p.stdin.close()
            except BrokenPipeError:  # the tool did not read it all
                pass
            p.wait(timeout=timeout)
            return "ok" if p.returncode >= 0 else "signal"
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGTERM)  # gcov_on_term.so writes the counters
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            return "timeout"


def gcov_counts(build, gcda_dir, main_unit_src):
    out = subprocess.run(["gcov", "-b", "-t", "-j", "-o", str(gcda_dir), main_unit_src],
                         cwd=build, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if out.returncode != 0:
        raise Failure(f"gcov failed: {out.stderr.decode(errors='replace')[-2000:]}")
    doc = json.loads(out.stdout)
    for f in doc["files"]:
        if os.path.normpath(os.path.join(build, f["file"])) == os.path.normpath(
                os.path.join(build, main_unit_src)):
            lines = f["lines"]
            return {
                "lines_total": len(lines),
                "lines_covered": sum(1 for ln in lines if ln["count"] > 0),
                "branches_total": sum(len(ln["branches"]) for ln in lines),
                "branches_covered": sum(1 for ln in lines for b in ln["branches"] if b["count"] > 0),
            }
    raise Failure(f"gcov's output has no record of {main_unit_src}")


def pct(c, t):
    return 100.0 * c / t if t else 0.0


def measure_tool(a, tool, tests_dir, info, out_dir, so):
    build = (a.work / "build-gcov").resolve()
    rec = info[tool]
    binary = build / rec["binary"]
    main_obj = rec["main_object"]
    tests = sorted(tests_dir.glob("*.json"))
    d = out_dir / tool
    shutil.rmtree(d, ignore_errors=True)
    gcda_root = d / "gcda"
    gcda_dir = gcda_root / os.path.dirname(main_obj)
    gcda_dir.mkdir(parents=True)
    scratch = d / "scratch"
    scratch.mkdir()
    env = dict(TOOL_ENV, GCOV_PREFIX=str(gcda_root), GCOV_PREFIX_STRIP=str(len(build.parts) - 1),
               LD_PRELOAD=str(so))
    log(f"measure: {tool}: replaying {len(tests)} tests from {tests_dir}")
    outcomes = {"ok": 0, "signal": 0, "timeout": 0, "invalid": 0}
    invalid = []
    t0 = time.time()

    def one(t):
        try:
            return replay(binary, tool, t, env, a.timeout, scratch)
        except (ValueError, UnicodeDecodeError) as e:  # JSONDecodeError is a ValueError
            invalid.append(f"{t.name}: {e}")
            return "invalid"

    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for i, r in enumerate(pool.map(one, tests), 1):
            outcomes[r] += 1
            if i % 500 == 0:
                log(f"measure: {tool}: {i}/{len(tests)}")
    for msg in invalid[:5]:
        log(f"measure: {tool}: invalid test {msg}")
    shutil.rmtree(scratch, ignore_errors=True)
    gcno = build / (os.path.splitext(main_obj)[0] + ".gcno")
    shutil.copy2(gcno, gcda_dir / gcno.name)
    main_src = os.path.relpath(source_tree(a.work).resolve() / rec_main_unit(a, tool), build)
    # With no .gcda (no test ran to an exit) gcov reads the notes alone: every count 0.
    counts = gcov_counts(build, gcda_dir, main_src)
    r = {"tool": tool, "main_unit": rec_main_unit(a, tool), "tests": len(tests),
         "outcomes": outcomes, "wall_s": round(time.time() - t0, 1), **counts,
         "lines_pct": round(pct(counts["lines_covered"], counts["lines_total"]), 2),
         "branches_pct": round(pct(counts["branches_covered"], counts["branches_total"]), 2)}
    log(f"measure: {tool}: lines {r['lines_pct']:.2f}%, branches {r['branches_pct']:.2f}% "
        f"({outcomes['timeout']} timeouts, {outcomes['signal']} signals, "
        f"{outcomes['invalid']} invalid)")
    return r


def rec_main_unit(a, tool):
    info = json.loads((a.work / "build-units" / "tools.json").read_text()) \
        if (a.work / "build-units" / "tools.json").exists() else {}
    if tool in info:
        return info[tool]["main_unit"]
    # No units build: the gcov build's main object is src/TOOL.o for src/TOOL.c.
    g = json.loads((a.work / "build-gcov" / "tools.json").read_text())[tool]
    return os.path.splitext(g["main_object"])[0] + ".c"


def print_table(results, title):
    print(title)
    print(f"{'tool':<10} {'unit':<14} {'tests':>6} {'lines':>16} {'branches':>16} {'timeouts':>8}")
    for r in results:
        print(f"{r['tool']:<10} {r['main_unit']:<14} {r['tests']:>6} "
              f"{r['lines_pct']:>6.2f}% {r['lines_covered']:>4}/{r['lines_total']:<4} "
              f"{r['branches_pct']:>6.2f}% {r['branches_covered']:>4}/{r['branches_total']:<4} "
              f"{r['outcomes']['timeout']:>8}")
    if results:
        ml = sum(r["lines_pct"] for r in results) / len(results)
        mb = sum(r["branches_pct"] for r in results) / len(results)
        print(f"{'mean':<10} {'':<14} {'':>6} {ml:>6.2f}% {'':<9} {mb:>6.2f}% {'':<9}")


def cmd_measure(a):
    need("gcc", "gcov", package_hint="gcc")
    tests = Path(a.tests)
    if not tests.is_dir():
        raise Failure(f"--tests {tests}: not a directory")
    def tool_dir(d):
        # walkdown's output directory holds report.json beside env-tests/.
        return next((c for c in (d / "env-tests", d / "tests", d) if c.is_dir() and any(c.glob("*.json"))), None)

    subdirs = [p for p in tests.iterdir() if p.is_dir() and tool_dir(p)]
    if not subdirs and any(tests.glob("*.json")):
        if not a.tools or len(a.tools) != 1:
            raise Failure(f"{tests} holds tests itself: name its one tool with --tools")
        dirs = {a.tools[0]: tests}
    else:
        names = a.tools or sorted(p.name for p in subdirs)
        dirs = {}
        for t in names:
            found = tool_dir(tests / t)
            if found is None:
                raise Failure(f"no JSON tests for {t} in {tests}/{t}/ or {tests}/{t}/tests/")
            dirs[t] = found
    if not dirs:
        raise Failure(f"no tool directories in {tests}")
    info_file = a.work / "build-gcov" / "tools.json"
    info = json.loads(info_file.read_text()) if info_file.exists() else {}
    missing = [t for t in dirs if t not in info or not (a.work / "build-gcov" / "src" / t).exists()]
    if missing:
        cmd_fetch(a)
        info = build_variant(a, "gcov", missing)
    out_dir = (Path(a.out) if a.out else a.work / "measure" / tests.resolve().name).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    so = preload_lib(a.work)
    results = [measure_tool(a, t, d, info, out_dir, so) for t, d in dirs.items()]
    (out_dir / "results.json").write_text(json.dumps(
        {"tests": str(tests), "timeout_s": a.timeout, "results": results}, indent=2) + "\n")
    print_table(results, f"coverage of each tool's main unit ({tests}):")
    log(f"measure: results in {out_dir / 'results.json'}")
    return results


def walkdown_binary(a):
    b = Path(a.walkdown) if a.walkdown else REPO / "target" / "release" / "walkdown"
    if not b.exists():
        raise Failure(f"no walkdown binary at {b}: cargo build --release, or give --walkdown")
    return b


def walkdown_one(a, binary, tool, out_root):
    n, l_ = a.args
    d = out_root / tool
    shutil.rmtree(d, ignore_errors=True)
    cmd = [str(binary), "gen", "--compile-commands", str(a.work / "units" / tool / "compile_commands.json"),
           "--target", rec_main_unit(a, tool), "--time", str(a.budget), "--jobs", "1",
           "--args", f"{n}:{l_}", "--stdin", str(a.stdin), "--no-error-exit", "--out", str(d)]
    log(f"walkdown: {tool}: {a.budget}s")
    t0 = time.time()
    logf = out_root / f"{tool}.log"
    with open(logf, "wb") as f:
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        tail = logf.read_text(errors="replace")[-2000:]
        raise Failure(f"walkdown on {tool} failed (exit {r.returncode}); {logf}:\n{tail}")
    report = json.loads((d / "report.json").read_text())
    rec = {"tool": tool, "budget_s": a.budget, "wall_s": round(time.time() - t0, 1),
           "tests": len(list((d / "env-tests").glob("*.json"))),
           "goals": report.get("goals_total"), "covered": report.get("goals_covered"),
           "command": shlex.join(cmd)}
    log(f"walkdown: {tool}: done in {rec['wall_s']}s: {rec['tests']} tests, "
        f"{rec['covered']}/{rec['goals']} goals covered")
    return rec


def walkdown_root(a):
    binary = walkdown_binary(a)
    missing = [t for t in a.tools if not (a.work / "units" / t / "compile_commands.json").exists()]
    if missing:
        cmd_fetch(a)
        build_variant(a, "units", missing)
    out_root = a.out or a.work / "walkdown" / f"{a.budget}s"
    out_root.mkdir(parents=True, exist_ok=True)
    return binary, out_root


def write_walkdown_json(a, out_root, recs):
    (out_root / "walkdown.json").write_text(json.dumps(
        {"args": list(a.args), "stdin": a.stdin, "budget_s": a.budget, "tools": recs}, indent=2) + "\n")
    log(f"walkdown: tests in {out_root}/TOOL/env-tests")


def cmd_walkdown(a):
    binary, out_root = walkdown_root(a)
    recs = [walkdown_one(a, binary, t, out_root) for t in a.tools]
    write_walkdown_json(a, out_root, recs)
    return out_root


def print_comparison(afl, wd, budget):
    print(f"coverage of each tool's main unit, {budget} s per tool (lines / branches):")
    print(f"{'tool':<10} {'walkdown':>17} {'AFL++':>17}")
    by_tool = {r["tool"]: r for r in afl}
    for w in wd:
        f = by_tool[w["tool"]]
        print(f"{w['tool']:<10} {w['lines_pct']:>7.2f}% {w['branches_pct']:>7.2f}% "
              f"{f['lines_pct']:>7.2f}% {f['branches_pct']:>7.2f}%")


def cmd_all(a):
    """Both tools on each tool at the same time, one core each: on a shared
    machine whose load changes from minute to minute, the two runs of a
    pair see the same load, and their ratio is what the table compares."""
    walkdown_binary(a)  # before an hour of fuzzing, not after
    # A variant built before is kept: a second make changes nothing and
    # bear would record no compilation.
    a.variants = [v for v in a.variants if not built(a, v, a.tools)]
    if a.variants:
        cmd_build(a)
    a.out = None
    info, afl_root_dir = afl_root(a)
    binary, wd_root = walkdown_root(a)
    afl_recs, wd_recs = [], []
    for t in a.tools:
        with ThreadPoolExecutor(max_workers=2) as pool:
            fa = pool.submit(fuzz_one, a, t, info, afl_root_dir)
            fw = pool.submit(walkdown_one, a, binary, t, wd_root)
            afl_recs.append(fa.result())
            wd_recs.append(fw.result())
    write_afl_json(a, afl_root_dir, afl_recs)
    write_walkdown_json(a, wd_root, wd_recs)
    a.tools = list(a.tools)
    a.tests, a.out = str(afl_root_dir), a.work / "measure" / f"afl-{a.budget}s"
    afl = cmd_measure(a)
    a.tests, a.out = str(wd_root), a.work / "measure" / f"walkdown-{a.budget}s"
    wd = cmd_measure(a)
    print_comparison(afl, wd, a.budget)


# ---------------------------------------------------------------- main


def main(argv=None):
    p = argparse.ArgumentParser(prog="bench/coreutils/run.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", type=Path, default=DEFAULT_WORK,
                   help=f"working directory (default {os.path.relpath(DEFAULT_WORK)})")
    p.add_argument("--jobs", type=int, default=2, help="make -j and parallel replays (default 2)")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="STEP")

    def tools_opt(sp, default=DEFAULT_TOOLS):
        sp.add_argument("--tools", nargs="+", default=default, metavar="TOOL",
                        help=f"tools (default: {' '.join(default) if default else 'every subdirectory'})")

    def fetch_opt(sp):
        sp.add_argument("--version", default=DEFAULT_VERSION,
                        help=f"Debian version of {PACKAGE} (default {DEFAULT_VERSION})")

    def bound_opts(sp, out_default):
        sp.add_argument("--budget", type=int, default=300, help="seconds per tool (default 300)")
        sp.add_argument("--args", type=parse_bounds, default=(3, 8), metavar="N:L",
                        help="up to N arguments of up to L bytes (default 3:8)")
        sp.add_argument("--stdin", type=int, default=32, metavar="LEN",
                        help="standard input of up to LEN bytes (default 32)")
        if out_default:
            sp.add_argument("--out", type=Path, help=f"output directory (default {out_default})")

    def afl_opts(sp, out=True):
        bound_opts(sp, "WORK/afl/BUDGETs" if out else None)
        sp.add_argument("--afl-timeout", type=int, default=1000, metavar="MS",
                        help="afl-fuzz -t (default 1000)")
        sp.add_argument("--no-cmplog", dest="cmplog", action="store_false",
                        help="no CmpLog binary (afl-fuzz -c)")
        sp.add_argument("--no-dict", dest="dict", action="store_false",
                        help="no AFL_LLVM_DICT2FILE dictionary (afl-fuzz -x)")

    def measure_opts(sp):
        sp.add_argument("--timeout", type=float, default=5.0,
                        help="seconds per replayed test before SIGTERM (default 5)")

    sp = sub.add_parser("fetch", help="download and unpack the source package")
    fetch_opt(sp)
    sp = sub.add_parser("build", help="configure and build the units, gcov and afl variants")
    fetch_opt(sp)
    tools_opt(sp)
    sp.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    sp = sub.add_parser("afl", help="run AFL++ on each tool and write its queue as JSON tests")
    fetch_opt(sp)
    tools_opt(sp)
    afl_opts(sp)
    sp = sub.add_parser("walkdown", help="run walkdown gen on each tool (its env-tests are JSON tests)")
    fetch_opt(sp)
    tools_opt(sp)
    bound_opts(sp, "WORK/walkdown/BUDGETs")
    sp.add_argument("--walkdown", help="the walkdown binary (default target/release/walkdown)")
    sp = sub.add_parser("measure", help="replay JSON tests on the gcov build; print coverage")
    fetch_opt(sp)
    tools_opt(sp, default=None)
    sp.add_argument("--tests", required=True,
                    help="directory of TOOL/ (or TOOL/tests/) subdirectories of JSON tests, "
                         "or of JSON tests for the one tool --tools names")
    sp.add_argument("--out", help="where results go (default WORK/measure/NAME-OF-TESTS)")
    measure_opts(sp)
    sp = sub.add_parser("all", help="fetch, build, afl, walkdown and measure")
    fetch_opt(sp)
    tools_opt(sp)
    afl_opts(sp, out=False)
    sp.add_argument("--walkdown", help="the walkdown binary (default target/release/walkdown)")
    measure_opts(sp)
    sp.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS),
                    help=argparse.SUPPRESS)
    sp = sub.add_parser("decode", help="print AFL input files as JSON tests")
    sp.add_argument("inputs", nargs="+")
    sp.add_argument("--args", type=parse_bounds, default=(3, 8), metavar="N:L")
    sp.add_argument("--stdin", type=int, default=32, metavar="LEN")
    a = p.parse_args(argv)
    a.work = a.work.resolve()
    if getattr(a, "stdin", 0) > MAX_STDIN:
        p.error(f"--stdin is at most {MAX_STDIN} (the driver's pipe)")
    if getattr(a, "args", (1, 1))[0] > 255:
        p.error("--args: N is at most 255 (one byte gives the count)")
    if getattr(a, "budget", 1) <= 0:
        p.error("--budget must be positive")
    if a.jobs < 1:
        p.error("--jobs must be at least 1")
    try:
        ensure_packages("build" if a.cmd == "all" else a.cmd)
        {"fetch": cmd_fetch, "build": cmd_build, "afl": cmd_afl, "walkdown": cmd_walkdown, "measure": cmd_measure,
         "all": cmd_all, "decode": cmd_decode}[a.cmd](a)
    except Failure as e:
        print(f"coreutils: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("coreutils: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
