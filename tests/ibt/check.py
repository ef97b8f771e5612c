#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/ibt/check.py - no IBT-sealed kernel function is called by gtp.

On a kernel built with CONFIG_X86_KERNEL_IBT and a CPU that enforces it,
the kernel overwrites at boot the endbr64 of every function listed in its
.ibt_endbr_seal section (objtool lists those whose address the kernel never
takes); an indirect call into one is a #CP fault.  QEMU's TCG enforces no
IBT, so no guest test can see it: this check reads the real images of every
installed matrix kernel instead (kimage.py: the ELF inside the bzImage, the
seal list, and the kernel's own kallsyms tables for addresses).

What gtp asks of kallsyms is derived from module/'s C files (every room),
not listed here:

  gtp_kfunc_bind(SC, "NAME")  a function gtp calls, through its own static
                     call SC retargeted to it: a direct call, so a sealed
                     function is fine (the JIT's memory functions are
                     sealed on every IBT kernel);
  gtp_ksym_data("NAME", SIZE), gtp_ksym("NAME")
                     data, read, never called.

Fails when
  - a gtp_ksym() name is a function in some image (gtp would be reading
    code it might be tempted to call), or is in the seal list;
  - a gtp_kfunc_bind() name is not a function, or (IBT image) starts with
    neither endbr64 nor is sealed (the image or this parser is not what
    we think);
  - a gtp_kfunc_bind() name is not a string literal, or gtp_ksym_func()
    (the address behind the bind) is called anywhere but through it: that
    would be a function address gtp could call through a pointer.
Reports, per kernel, which bound functions an IBT CPU seals (the ones a
call through a pointer would trap on).
With --name NAME (repeatable), NAME is checked as a gtp_ksym() name too:
the way to see the check fail on a sealed function.
Kernels of the matrix that are not installed are skipped, with the reason.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import kimage  # noqa: E402

CALL = re.compile(r"\b(gtp_ksym(?:_data)?)\(\s*([^,)]*)")
BIND = re.compile(r"\bgtp_kfunc_bind\(\s*\w+\s*,\s*([^)]*)\)")
RAW = re.compile(r"\bgtp_ksym_func\(")
DEF = re.compile(r"^[a-z].*\b(\w+)\(\s*const char \*(\w+)\b[^;]*$")


def literals_of(fn, text):
    return re.findall(r"\b%s\(\s*\"([^\"]+)\"" % re.escape(fn), text)


def derive(srcdir):
    """({bound function names}, {ksym names}, [problems]) from the sources."""
    kfunc, ksym, problems = set(), set(), []
    for path in sorted(glob.glob(os.path.join(srcdir, "**", "*.c"),
                                 recursive=True)):
        text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                      open(path).read(), flags=re.S)
        lines = text.split("\n")
        rel = os.path.relpath(path, REPO)
        for m in BIND.finditer(text):
            lit = re.fullmatch(r'"([^"]+)"', m.group(1).strip())
            if lit:
                kfunc.add(lit.group(1))
            else:
                problems.append("%s: gtp_kfunc_bind(.., %s): the name is not "
                                "a string literal" % (rel, m.group(1).strip()))
        if os.path.basename(path) != "ksym.c" and RAW.search(text):
            problems.append("%s: calls gtp_ksym_func() itself: a kernel "
                            "function is bound only by gtp_kfunc_bind()" % rel)
        for m in CALL.finditer(text):
            arg = m.group(2).strip()
            if arg.startswith("const "):
                continue  # the definition
            lit = re.fullmatch(r'"([^"]+)"', arg)
            if lit:
                ksym.add(lit.group(1))
                continue
            # a wrapper forwarding its own 'const char *name' parameter
            lineno = text.count("\n", 0, m.start())
            owner = None
            for line in reversed(lines[:lineno]):
                d = DEF.match(line)
                if d:
                    owner = d
                    break
                if line.startswith("}"):
                    break
            if owner and owner.group(2) == arg:
                ksym.update(literals_of(owner.group(1), text))
    return kfunc, ksym, problems


def kernels():
    """[(label, kver, image path or None)] of the matrix."""
    env = dict(os.environ)
    out = subprocess.run(["bash", "-c", ". tests/vm/kernels; kv_matrix"],
                         cwd=REPO, env=env, capture_output=True,
                         text=True).stdout
    trixie = env.get("GTP_TRIXIE", os.path.join(REPO, "build", "trixie"))
    rows = []
    for line in out.split("\n"):
        if not line.strip():
            continue
        label, kv = line.split()
        img = None
        for cand in ("/boot/vmlinuz-" + kv,
                     os.path.join(trixie, "boot", "vmlinuz-" + kv)):
            if os.path.exists(cand):
                img = cand
        rows.append((label, kv, img))
    seen = {r[0] for r in rows}
    for label in ("6.1", "6.1-rt", "6.12", "6.12-rt", "newest"):
        if label not in seen:
            rows.append((label, None, None))
    return rows


def is_ibt(img, kv, im):
    cfg = os.path.join(os.path.dirname(img), "config-" + kv)
    if os.path.exists(cfg):
        return "CONFIG_X86_KERNEL_IBT=y" in open(cfg).read()
    return bool(im.sealed)


def check_image(im, ibt, kfunc, ksym, extra):
    """([failures], [sealed kfunc targets])"""
    fails, sealed = [], []
    for name in sorted(ksym | set(extra)):
        r = im.lookup(name)
        if not r:
            continue
        typ, addr = r
        if im.is_text(addr):
            fails.append("%s: resolved as data (gtp_ksym) but is a function%s"
                         % (name, ", sealed on IBT CPUs" if addr in im.sealed else ""))
        elif addr in im.sealed:
            fails.append("%s: in the seal list" % name)
    for name in sorted(kfunc):
        r = im.lookup(name)
        if not r:
            continue  # not in this kernel: the bind fails, the mode is not chosen
        typ, addr = r
        if not im.is_text(addr):
            fails.append("%s: gtp_kfunc_bind() of a non-function (%s)" % (name, typ))
            continue
        if not ibt:
            continue
        head = im.head(addr)
        if addr in im.sealed:
            sealed.append(name)
            if head != kimage.ENDBR64:
                fails.append("%s: sealed but has no endbr64 to seal (%s)" % (name, head.hex()))
        elif head != kimage.ENDBR64:
            fails.append("%s: no endbr64 and not sealed (%s)" % (name, head.hex()))
    return fails, sealed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", action="append", default=[],
                    help="also check NAME as a gtp_ksym() name")
    ap.add_argument("--src", default=os.path.join(REPO, "module"))
    args = ap.parse_args()
    kfunc, ksym, problems = derive(args.src)
    print("ibt: gtp_kfunc_bind() targets: %s" % " ".join(sorted(kfunc)))
    print("ibt: gtp_ksym() data: %s" % " ".join(sorted(ksym)))
    bad = list(problems)
    checked = 0
    for label, kv, img in kernels():
        if not img:
            print("ibt: %s: skipped (%s)" % (
                label, "not installed" if not kv else "no image for " + kv))
            continue
        try:
            im = kimage.Image(img)
        except kimage.ImageError as e:
            print("ibt:   FAIL %s" % e)
            bad.append("%s: %s" % (label, e))
            continue
        ibt = is_ibt(img, kv, im)
        fails, sealed = check_image(im, ibt, kfunc, ksym, args.name)
        checked += 1
        what = "IBT, %d sealed functions" % len(im.sealed) if ibt else "no IBT"
        print("ibt: %s (%s): %s; %d symbols" % (label, kv, what, len(im.ksyms.addr)))
        if sealed:
            print("ibt:   sealed on IBT CPUs, called directly (static calls): %s"
                  % " ".join(sealed))
        for f in fails:
            print("ibt:   FAIL %s" % f)
            bad.append("%s: %s" % (label, f))
    for p in problems:
        print("ibt: FAIL %s" % p)
    if not checked:
        print("ibt: skipped: no matrix kernel image installed")
    print("ibt: %s" % ("FAIL (%d)" % len(bad) if bad else "ok"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
