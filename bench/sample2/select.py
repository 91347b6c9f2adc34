#!/usr/bin/env python3
"""Orders the candidate tasks of the second SV-COMP sample (see README.md).

For each category of the public set (the subdirectories of
../shared/bench/sv), takes the candidate .yml stems of candidates.txt,
drops those of the same program family as a public task of that category,
and prints the rest in the order of the SHA-256 of their sv-benchmarks path
(`c/<category>/<stem>.yml`): a fixed pseudo-random order that knows nothing
of walkdown. The sample takes, per category, the first tasks of this order
that pass the checks made on the files themselves (README.md, "Rule").

A family is the stem up to its first '-' or '.', lower case, without '_'
and without a trailing `_label<N>`: `count_up_down-2` and `cohendiv-ll`
are of the families of the public `count_up_down-1` and `cohendiv`,
`gauss_sum.i.p+cfa-reducer` of `gauss_sum`, and every `Problem01_labelNN`
of the public `Problem01_label00` (one program, another error label).

Usage: bench/sample2/select.py [--shared DIR] [--first N]
"""
import argparse
import hashlib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def family(stem):
    """The program family of a task stem (see the module doc)."""
    head = re.split(r"[-.]", stem, maxsplit=1)[0]
    head = re.sub(r"_label\d+$", "", head)
    return head.lower().replace("_", "")


def read_candidates(path):
    """{category: [stem, ...]} from candidates.txt."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            cat, _, stems = line.partition(":")
            out[cat.strip()] = stems.split()
    return out


def public_families(sv_dir):
    """{category: {family, ...}} of the public set's program files."""
    out = {}
    for cat in sorted(os.listdir(sv_dir)):
        d = os.path.join(sv_dir, cat)
        if os.path.isdir(d):
            out[cat] = {family(os.path.splitext(f)[0]) for f in os.listdir(d)
                        if f.endswith((".c", ".i"))}
    return out


def ordered(cat, stems, excluded):
    """The stems of `cat` outside the excluded families, in hash order."""
    keep = [s for s in stems if family(s) not in excluded]
    key = lambda s: hashlib.sha256(f"c/{cat}/{s}.yml".encode()).hexdigest()
    return sorted(keep, key=key)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(ROOT), "shared"))
    ap.add_argument("--first", type=int, default=10, help="stems printed a category")
    args = ap.parse_args()
    sv = os.path.join(args.shared, "bench", "sv")
    if not os.path.isdir(sv):
        sys.exit(f"select.py: no public set at {sv}")
    pub = public_families(sv)
    cands = read_candidates(os.path.join(HERE, "candidates.txt"))
    for cat in sorted(pub):
        order = ordered(cat, cands.get(cat, []), pub[cat])
        print(f"{cat}: {' '.join(order[:args.first])}")


if __name__ == "__main__":
    main()
