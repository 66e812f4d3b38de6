#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run the examples of README.md as a user would (tests/docs/test_readme_examples.sh).

    readme_examples.py README.md WORKDIR

Every fenced block in sh, bash, python or c is an example. An HTML comment
on the line before its fence may name it and say what it needs:

    <!-- example: NAME needs=gdal,python:numpy -->      run it (sh or python)
    <!-- example: NAME file=five.c needs=c-api -->      write it to five.c
    <!-- example: skip WHY -->                          not run (WHY is printed)
    <!-- output of: NAME -->                            a ```text block: what
                                                        example NAME prints

Blocks without a comment run too, their needs read from what they use
(`import winent`, `gdalinfo`, ...), so the examples other branches add are
run as well; a C block without one is a fragment and is not run. All run
in order in WORKDIR, one shell (sh -e) or python3 each, so a block may use
the files an earlier one made; examples/ and samples/ of the repository
are there too, as in its root. What a block needs and the build lacks
skips it with the reason. Needs:

    gdal            the gdalinfo and gdal_translate commands
    zstd            the zstd command
    python:MOD      Debian's python3 imports MOD
    winent-python   the Python package of the tree (python/winent) loads
                    the build's libwinent (not in sanitizer builds)
    c-api           include/winent.h has the C API (winent_entropy,
                    winent_error)
    install         the build installed into a temporary prefix, with
                    PKG_CONFIG_PATH and LD_LIBRARY_PATH set to it
    venv            the quick start's Python: a venv made by
                    tools/install-venv.sh (Debian's /usr/bin/python3,
                    --system-site-packages, pip install
                    --no-build-isolation of a clean copy of the tree), and
                    a python block runs with that venv's python, nothing
                    pointing at the build (no PYTHONPATH, WINENT_LIBRARY)

Environment (tests/docs/docs.cmake): PYTHON, WINENT_BIN, WINENT_TOOLS,
WINENT_SRC, WINENT_BUILD, CMAKE, CC, WINENT_SAN_FLAGS. Prints a line per
example and "N passed, N failed, N skipped"; exits 1 on a failure, 77 when
nothing ran.
"""
import os
import re
import shutil
import subprocess
import sys

RUNNABLE = {"sh": "sh", "shell": "sh", "bash": "sh", "python": "python", "c": "c"}
MARK = re.compile(r"^\s*<!--\s*(example|output of):\s*(.*?)\s*-->\s*$")


def parse(path):
    """Examples in order: dicts with name, lang, text, needs, file, skip,
    line, and output (the expected text, or None)."""
    lines = open(path, encoding="utf-8").read().splitlines()
    examples, outputs = [], {}
    i, mark = 0, None
    while i < len(lines):
        m = MARK.match(lines[i])
        if m:
            mark = (m.group(1), m.group(2), i + 1)
            i += 1
            continue
        fence = re.match(r"^```\s*([A-Za-z0-9_+-]*)\s*$", lines[i])
        if not fence:
            if lines[i].strip():
                mark = None  # a marker belongs to the block right below it
            i += 1
            continue
        lang, start = fence.group(1).lower(), i + 1
        j = start
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        text = "\n".join(lines[start:j]) + "\n"
        i = j + 1
        kind, spec, at = mark if mark else (None, "", start)
        mark = None
        if kind == "output of":
            outputs[spec.strip()] = text
            continue
        if lang not in RUNNABLE:
            continue
        ex = {"lang": RUNNABLE[lang], "text": text, "line": start, "needs": [], "file": None,
              "skip": None, "name": "%s block at %s:%d" % (lang, os.path.basename(path), start), "marked": kind}
        if kind == "example":
            words = spec.split()
            if words and words[0] == "skip":
                ex["skip"] = " ".join(words[1:]) or "marked skip"
            elif words:
                ex["name"] = words[0]
                for w in words[1:]:
                    key, _, value = w.partition("=")
                    if key == "needs":
                        ex["needs"] += [n for n in value.split(",") if n]
                    elif key == "file":
                        ex["file"] = value
                    else:
                        sys.exit("%s:%d: unknown marker word %r" % (os.path.basename(path), at, w))
        ex["needs"] += inferred_needs(ex)
        examples.append(ex)
    for ex in examples:
        ex["output"] = outputs.pop(ex["name"], None)
    if outputs:
        sys.exit("%s: output blocks of no example: %s" % (os.path.basename(path), ", ".join(outputs)))
    return examples


def inferred_needs(ex):
    t, needs = ex["text"], []
    if ex["lang"] == "python":
        for mod, need in (("numpy", "python:numpy"), ("zstandard", "python:zstandard"),
                          ("winent", "winent-python"), ("osgeo", "python:osgeo"),
                          ("dask", "python:dask"), ("skimage", "python:skimage")):
            if re.search(r"^\s*(import|from)\s+%s\b" % mod, t, re.M):
                needs.append(need)
    if ex["lang"] == "sh":
        if re.search(r"\bgdal(info|_translate)\b", t):
            needs.append("gdal")
        if re.search(r"(^|[|;&]\s*|\s)zstd\b", t):
            needs.append("zstd")
        if "pkg-config" in t:
            needs.append("install")
    return needs


class Env:
    def __init__(self, work):
        self.work = work
        self.py = os.environ.get("PYTHON", "/usr/bin/python3")
        self.src = os.environ["WINENT_SRC"]
        self.build = os.environ.get("WINENT_BUILD", "")
        self.san = os.environ.get("WINENT_SAN_FLAGS", "").strip()
        self.cache = {}
        self.env = dict(os.environ)
        bindir = os.path.join(work, ".bin")
        os.makedirs(bindir, exist_ok=True)
        # `python3` and `cc` as the README means them: Debian's python3, and
        # the build's compiler (with the sanitizer build's flags, since its
        # libwinent is instrumented).
        os.symlink(self.py, os.path.join(bindir, "python3"))
        cc = os.environ.get("CC") or shutil.which("cc") or "cc"
        with open(os.path.join(bindir, "cc"), "w") as f:
            f.write('#!/bin/sh\nexec "%s" %s "$@"\n' % (cc, self.san))
        os.chmod(os.path.join(bindir, "cc"), 0o755)
        # Paths of the repository (examples/dask_entropy.py, samples/...)
        # work as from its root.
        for d in ("examples", "samples"):
            if os.path.isdir(os.path.join(self.src, d)):
                os.symlink(os.path.join(self.src, d), os.path.join(work, d))
        self.env["PATH"] = os.pathsep.join([bindir, os.environ["WINENT_BIN"],
                                            os.environ["WINENT_TOOLS"], os.environ["PATH"]])

    def have(self, need):
        """None when the need is met, else why not."""
        if need not in self.cache:
            self.cache[need] = self._have(need)
        return self.cache[need]

    def _have(self, need):
        if need == "gdal":
            missing = [c for c in ("gdalinfo", "gdal_translate") if not shutil.which(c)]
            return "no %s command (Debian gdal-bin)" % " or ".join(missing) if missing else None
        if need == "zstd":
            return None if shutil.which("zstd") else "no zstd command (Debian zstd)"
        if need.startswith("python:"):
            mod = need.split(":", 1)[1]
            r = subprocess.run([self.py, "-c", "import " + mod], capture_output=True)
            return None if r.returncode == 0 else "%s has no module %s" % (self.py, mod)
        if need == "c-api":
            header = open(os.path.join(self.src, "include", "winent.h")).read()
            if "winent_entropy" not in header or "winent_error" not in header:
                return "include/winent.h has no winent_entropy/winent_error (the C API)"
            return None
        if need == "winent-python":
            if not os.path.exists(os.path.join(self.src, "python", "winent", "__init__.py")):
                return "no Python package in this tree yet (python/winent: branch python)"
            if self.san:
                return "a sanitizer build's libwinent loads into python3 only with its runtime"
            lib = os.path.join(self.build, "lib", "libwinent.so.0")
            self.env["PYTHONPATH"] = os.pathsep.join(
                [os.path.join(self.src, "python")] +
                [p for p in [os.environ.get("PYTHONPATH")] if p])
            self.env["WINENT_LIBRARY"] = lib
            r = subprocess.run([self.py, "-c", "import winent"], capture_output=True,
                               env=self.env, text=True)
            if r.returncode != 0:
                return "import winent failed: %s" % (r.stderr.strip().splitlines() or ["?"])[-1]
            return None
        if need == "venv":
            return self._make_venv()
        if need == "install":
            if not shutil.which("pkg-config"):
                return "no pkg-config command"
            prefix = os.path.join(self.work, ".prefix")
            r = subprocess.run([os.environ.get("CMAKE", "cmake"), "--install", self.build,
                                "--prefix", prefix], capture_output=True, text=True)
            if r.returncode != 0:
                return "cmake --install failed: %s" % r.stderr.strip()[-300:]
            libs = [os.path.dirname(os.path.join(d, f))
                    for d, _, files in os.walk(prefix) for f in files if f == "winent.pc"]
            if not libs:
                return "the install has no winent.pc"
            pcdir = libs[0]
            self.env["PKG_CONFIG_PATH"] = pcdir
            self.env["LD_LIBRARY_PATH"] = os.path.dirname(pcdir)
            return None
        return "unknown need %r (tests/docs/readme_examples.py)" % need

    def _user_env(self):
        """The environment of a user's shell: nothing pointing at the build."""
        env = dict(self.env)
        for k in ("PYTHONPATH", "WINENT_LIBRARY", "LD_LIBRARY_PATH", "PYTHONHOME"):
            env.pop(k, None)
        return env

    def _make_venv(self):
        """The quick start's venv step, on a clean copy of the tree (pip
        builds in the tree it installs)."""
        if self.san:
            return "a sanitizer build's libwinent loads into python3 only with its runtime"
        for mod in ("venv", "ensurepip", "pip", "setuptools", "wheel"):
            r = subprocess.run(["/usr/bin/python3", "-c",
                                "import importlib.util, sys; "
                                "sys.exit(importlib.util.find_spec(%r) is None)" % mod])
            if r.returncode != 0:
                return ("/usr/bin/python3 has no module %s (Debian: python3-venv python3-pip "
                        "python3-setuptools python3-wheel)" % mod)
        lib = os.path.join(self.build, "lib", "libwinent.so.0")
        if not os.path.exists(lib):
            return "no %s in the build" % lib
        src = os.path.join(self.work, ".src")
        shutil.copytree(self.src, src, ignore=shutil.ignore_patterns(
            ".git", "build*", "Testing", "__pycache__", "*.egg-info", "libwinent.so*",
            "_install.py", ".devdebs", ".whl", "demo", "venv"))
        venv = os.path.join(self.work, "venv")
        r = subprocess.run(["sh", os.path.join(src, "tools", "install-venv.sh"), self.build, venv],
                           env=self._user_env(), capture_output=True, text=True)
        if r.returncode != 0:
            # A failure of the quick start's own step is a failure, not a skip.
            sys.exit("FAILED tools/install-venv.sh: exit %d\n%s%s" %
                     (r.returncode, r.stdout[-1500:], r.stderr[-1500:]))
        self.venv_py = os.path.join(venv, "bin", "python")
        # The package and its library are the venv's, not the tree's.
        r = subprocess.run([self.venv_py, "-c", "import winent; print(winent.__file__); "
                            "print(winent.library_path())"], env=self._user_env(),
                           capture_output=True, text=True, cwd=self.work)
        where = r.stdout.split()
        if r.returncode != 0 or len(where) < 2 or not all(w.startswith(venv) for w in where[:2]):
            sys.exit("FAILED tools/install-venv.sh: winent in the venv is %r (%s)" %
                     (where, r.stderr.strip()[-500:]))
        return None

    def run(self, ex):
        env = self.env
        if ex["lang"] == "python" and "venv" in ex["needs"]:
            cmd, env = [self.venv_py, "-"], self._user_env()
        elif ex["lang"] == "python":
            cmd = [self.py, "-"]
        else:
            cmd = ["sh", "-e", "-"]
        return subprocess.run(cmd, input=ex["text"], cwd=self.work, env=env,
                              capture_output=True, text=True, timeout=600)


def same_output(got, want):
    norm = lambda s: "\n".join(l.rstrip() for l in s.strip("\n").splitlines())  # noqa: E731
    return norm(got) == norm(want)


def main():
    readme, work = sys.argv[1], sys.argv[2]
    page = os.path.basename(readme)
    examples = parse(readme)
    env = Env(work)
    passed = failed = skipped = 0
    for ex in examples:
        name = ex["name"]
        if ex["skip"]:
            print("SKIP %s: %s" % (name, ex["skip"]))
            skipped += 1
            continue
        if ex["lang"] == "c" and not ex["file"]:
            print("SKIP %s: a C fragment (no example marker with file=)" % name)
            skipped += 1
            continue
        why = next((w for w in (env.have(n) for n in ex["needs"]) if w), None)
        if why:
            print("SKIP %s: %s" % (name, why))
            skipped += 1
            continue
        if ex["file"]:
            with open(os.path.join(work, ex["file"]), "w") as f:
                f.write(ex["text"])
            print("ok   %s (wrote %s)" % (name, ex["file"]))
            passed += 1
            continue
        try:
            r = env.run(ex)
        except subprocess.TimeoutExpired:
            print("FAILED %s: still running after 600 s" % name)
            failed += 1
            continue
        if r.returncode != 0:
            print("FAILED %s (%s:%d): exit %d\n--- stderr:\n%s\n--- stdout:\n%s"
                  % (name, page, ex["line"], r.returncode, r.stderr[-2000:], r.stdout[-1000:]))
            failed += 1
        elif ex["output"] is not None and not same_output(r.stdout, ex["output"]):
            print("FAILED %s (%s:%d): its output is not the page's\n--- got:\n%s"
                  "--- the page says:\n%s" % (name, page, ex["line"], r.stdout, ex["output"]))
            failed += 1
        else:
            print("ok   %s%s" % (name, " (output as shown)" if ex["output"] is not None else ""))
            passed += 1
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    if failed:
        return 1
    return 0 if passed else 77


if __name__ == "__main__":
    sys.exit(main())
