#!/usr/bin/env python3
"""The second SV-COMP sample's manifest (manifest.tsv): which task files, read
from sosy-lab/sv-benchmarks at which commit, with which expected verdict.

    bench/sample2/manifest.py check [DIR]   # DIR (default ../sample2) holds
                                            # exactly the files listed, unchanged
    bench/sample2/manifest.py build [DIR]   # write manifest.tsv from DIR and
                                            # DIR/fetched.tsv (the assembly log)

manifest.tsv has one line a task: category/program, the commit the program
was read at, its length in characters and SHA-256, the .yml and its commit,
the expected unreach-call verdict, and a note on how the file was written
(read in full, or derived from a sibling and checked; see README.md).
"""
import hashlib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "manifest.tsv")
DEFAULT_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "..", "sample2"))
COLUMNS = ["task", "commit", "chars", "sha256", "yml", "yml_commit", "unreach_call", "note"]


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def expected(yml):
    """The expected unreach-call verdict of a .yml ('true'/'false'/'none')."""
    m = re.search(r"unreach-call\.prp\s*\n\s*expected_verdict:\s*(true|false)",
                  open(yml, encoding="utf-8").read())
    return m.group(1) if m else "none"


def build(root):
    log = {}
    for line in open(os.path.join(root, "fetched.tsv"), encoding="utf-8"):
        path, commit, chars, note = line.rstrip("\n").split("\t", 3)
        log[path[2:]] = (commit, int(chars), note)  # the last entry of a path wins
    rows = []
    for rel in sorted(log):
        if not rel.endswith((".c", ".i")):
            continue
        prog = os.path.join(root, rel)
        yml_rel = os.path.splitext(rel)[0] + ".yml"
        if not os.path.isfile(prog) or yml_rel not in log:
            continue
        commit, chars, note = log[rel]
        text = open(prog, encoding="utf-8").read()
        if len(text) != chars:
            sys.exit(f"manifest: {rel} has {len(text)} characters, the index {chars}")
        rows.append([rel, commit, str(chars), sha256(prog), os.path.basename(yml_rel),
                     log[yml_rel][0], expected(os.path.join(root, yml_rel)),
                     "read in full" if note == "ok" else note])
    with open(MANIFEST, "w", encoding="utf-8") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    print(f"manifest: {len(rows)} tasks")


def check(root):
    bad = 0
    lines = open(MANIFEST, encoding="utf-8").read().splitlines()[1:]
    for line in lines:
        rec = dict(zip(COLUMNS, line.split("\t")))
        prog = os.path.join(root, rec["task"])
        yml = os.path.join(os.path.dirname(prog), rec["yml"])
        if not os.path.isfile(prog) or not os.path.isfile(yml):
            print(f"missing: {rec['task']}")
            bad += 1
        elif sha256(prog) != rec["sha256"] or expected(yml) != rec["unreach_call"]:
            print(f"differs: {rec['task']}")
            bad += 1
    print(f"manifest: {len(lines) - bad} of {len(lines)} tasks present and unchanged in {root}")
    return 1 if bad else 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("check", "build"):
        sys.exit(__doc__)
    root = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else DEFAULT_DIR)
    if sys.argv[1] == "build":
        build(root)
        return 0
    return check(root)


if __name__ == "__main__":
    sys.exit(main())
