"""Run the examples a documentation page shows and write what they print into the page.

    python examples/pages.py                 # rewrite every page's generated examples
    python examples/pages.py --check         # exit 1 if a page differs from a fresh run
    python examples/pages.py --page README.md --only conjecture-false   # one page, one block

A generated example sits between ``<!-- example:NAME:begin -->`` and
``<!-- example:NAME:end -->`` (NAME unique on its page) and is one of:

- a ``text`` block of shell commands, each on a line starting with ``$ ``: the commands
  are run in order in one scratch directory (the page's), from the repository, and the
  block shows each with what it printed (stdout, or the last line of stderr when it
  fails) and its exit code;
- a ``python`` block followed by a ``text`` block: the code is run (the page's python
  examples in page order, in one namespace, in a fresh interpreter) and the text block
  shows what it printed.

The page, not this script, says what is run: edit a command or the code and run the
script. `masked` says what may differ between two runs (wall-clock times and float64
rounding residues below 1e-12); everything else is compared. The "Your own runs" page
(`examples/own_run/page.py`) uses the same machinery with its steps in a table.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The pages whose examples are generated here (own-runs.md has its own script).
PAGES = ("README.md", "docs/guides/conjecture.md", "docs/guides/tighten.md",
         "docs/guides/python.md", "docs/guides/sweeps.md", "docs/guides/report.md",
         "docs/guides/packs.md", "docs/guides/certificates.md")
TIMEOUT = 900
#: Figures a page shows that an example writes: (page, example) -> (the file it writes in
#: the scratch directory, where the page's image is); copied when the page is rewritten.
FIGURES = {("docs/guides/tighten.md", "loss"): ("tighten.png", "docs/img/tighten_orthogonal.png")}


# -- running ---------------------------------------------------------------------------------
def refusal(err_lines: list[str]) -> list[str]:
    """What a failing command's stderr shows on the page: its closing ``error:`` lines (a
    command refusing several bad values says one line for each), else its last line (a
    traceback's)."""
    tail = []
    for line in reversed(err_lines):
        if not line.startswith("error:"):
            break
        tail.insert(0, line)
    return tail or err_lines[-1:]


def environment(cwd: Path | None = None) -> dict[str, str]:
    """The commands' environment: this checkout first on the path (then the packs an
    example installed in ``cwd``, `install_editable`), only those packs besides the
    built-in ones (whatever else this environment has installed), one BLAS thread with
    the same kernels on every x86-64 processor, and this interpreter's scripts (gfverify)
    first on PATH."""
    paths, packs = [str(ROOT)], []
    site = cwd / SITE if cwd is not None else None
    if site is not None and site.is_dir():
        paths += [str(site), *(site / "paths.txt").read_text().split()]
        packs = (site / "packs.txt").read_text().split()
    # OpenBLAS picks its kernels by the processor (DYNAMIC_ARCH), and their rounding
    # differs: an exact flow's step count was 582 on an AVX-512 Intel machine and 581 on
    # an AMD one. The pages' examples use the AVX2 kernels everywhere (x86-64).
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths), OMP_NUM_THREADS="1",
               OPENBLAS_CORETYPE="Haswell", GFVERIFY_PACKS=",".join(packs) or "builtin")
    bindir = Path(sys.executable).parent
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    return env


SITE = ".example-site"


def install_editable(directory: Path, cwd: Path) -> None:
    """What ``pip install -e DIRECTORY`` does for the commands after it, without pip or a
    network: the distribution's metadata and entry points (from its pyproject.toml) in a
    directory on the path, and DIRECTORY on the path (its packages import from it)."""
    import tomllib

    project = tomllib.loads((directory / "pyproject.toml").read_text())["project"]
    name = project["name"].replace("-", "_")
    info = cwd / SITE / f"{name}-{project['version']}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n")
    groups = project.get("entry-points", {})
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()) + "\n"
        for group, points in groups.items()))
    for listing, new in (("paths.txt", [str(directory)]),
                         ("packs.txt", list(groups.get("gfverify.packs", {})))):
        listed = cwd / SITE / listing
        known = listed.read_text().split() if listed.exists() else []
        listed.write_text("\n".join(dict.fromkeys([*known, *new])) + "\n")


def run_commands(commands, cwd: Path) -> str:
    """The commands and their output as a page shows them: ``$ command``, its stdout (or
    the last line of stderr when it fails: a refusal's one line) and ``(exit N)``. A
    ``pip install -e DIR`` of a directory in the repository is `install_editable`."""
    shown = []
    for command in commands:
        argv = shlex.split(command.replace("examples/", f"{ROOT}/examples/"))
        if argv[0] == "python":
            argv[0] = sys.executable
        if argv[:3] == ["pip", "install", "-e"] and len(argv) == 4:
            install_editable(Path(argv[3]), cwd)
            shown.append(f"$ {command}")
            continue
        proc = subprocess.run(argv, cwd=cwd, env=environment(cwd), capture_output=True,
                              text=True, timeout=TIMEOUT)
        out = proc.stdout.rstrip()
        err = proc.stderr.strip().splitlines()
        if proc.returncode and err:
            out = (out + "\n" if out else "") + "\n".join(refusal(err))
        shown.append(f"$ {command}\n{out}\n(exit {proc.returncode})")
    return "\n\n".join(shown)


_SEPARATOR = "\n--- gfverify example block {} ---\n"
_DRIVER = """
import sys
blocks = {blocks!r}
names = {{}}
for i, code in enumerate(blocks):
    exec(compile(code, {page!r} + f" (example {{i + 1}})", "exec"), names)
    sys.stdout.flush()
    sys.stdout.write({separator!r}.format(i))
"""


def run_python(codes: list[str], cwd: Path, page: str) -> list[str]:
    """What each code block printed, the blocks run in order in one namespace in a fresh
    interpreter (a failure ends the run: the failing block shows its error's last line)."""
    driver = _DRIVER.format(blocks=codes, page=page, separator=_SEPARATOR)
    proc = subprocess.run([sys.executable, "-c", driver], cwd=cwd, env=environment(cwd),
                          capture_output=True, text=True, timeout=TIMEOUT)
    parts = re.split(r"\n?--- gfverify example block \d+ ---\n", proc.stdout)
    outputs = [p.rstrip() for p in parts[:len(codes)]]
    if proc.returncode:
        err = proc.stderr.strip().splitlines()
        outputs[-1] = (outputs[-1] + "\n" if outputs[-1] else "") + (err[-1] if err else
                                                                      "(failed)")
    return outputs + ["(not run: an earlier block failed)"] * (len(codes) - len(outputs))


# -- the page --------------------------------------------------------------------------------
def blocks(text: str, tag: str = "example") -> dict[str, str]:
    """NAME -> the generated ``text`` block's content, for each block of the page."""
    return dict(re.findall(rf"<!-- {tag}:([\w-]+):begin -->\n(?:```python\n.*?```\n)?"
                           rf"```text\n(.*?)\n?```\n<!-- {tag}:\1:end -->", text, flags=re.S))


def render(text: str, outputs: dict[str, str], tag: str = "example") -> str:
    """The page with each named block's ``text`` part replaced by its output."""
    for name, out in outputs.items():
        text = re.sub(rf"(<!-- {tag}:{name}:begin -->\n(?:```python\n.*?```\n)?)```text\n"
                      rf".*?```\n(<!-- {tag}:{name}:end -->)",
                      lambda m, out=out: f"{m.group(1)}```text\n{out}\n```\n{m.group(2)}",
                      text, count=1, flags=re.S)
    return text


def examples(text: str) -> list[tuple[str, str, str]]:
    """(name, kind, source) of each generated example in page order: kind "shell" with
    its commands (one a line), or "python" with its code."""
    out = []
    for name, body in re.findall(r"<!-- example:([\w-]+):begin -->\n(.*?)<!-- example:\1:end -->",
                                 text, flags=re.S):
        code = re.match(r"```python\n(.*?)```\n", body, flags=re.S)
        if code:
            out.append((name, "python", code.group(1)))
        else:
            shown = re.match(r"```text\n(.*?)```\n", body, flags=re.S)
            commands = [line[2:] for line in (shown.group(1) if shown else "").splitlines()
                        if line.startswith("$ ")]
            out.append((name, "shell", "\n".join(commands)))
    return out


def outside_examples(text: str) -> str:
    """The page without its generated examples (what is typed by hand)."""
    return re.sub(r"<!-- example:([\w-]+):begin -->\n.*?<!-- example:\1:end -->", "", text,
                  flags=re.S)


def run_page(text: str, page: str, cwd: Path, only=None, keep=False) -> dict[str, str]:
    """NAME -> the fresh output of each generated example of the page (``only``: these);
    ``keep``: copy the figures the page shows (`FIGURES`) from where its examples wrote
    them."""
    found = examples(text)
    names = [n for n, _, _ in found]
    duplicated = {n for n in names if names.count(n) > 1}
    if duplicated:
        raise SystemExit(f"{page}: example names used twice: {sorted(duplicated)}")
    outputs = {}
    shell = [(n, src) for n, kind, src in found if kind == "shell"]
    python = [(n, src) for n, kind, src in found if kind == "python"]
    for name, commands in shell:
        if only is None or name in only:
            outputs[name] = run_commands(commands.splitlines(), cwd)
            figure = FIGURES.get((page, name))
            if keep and figure is not None:
                shutil.copyfile(cwd / figure[0], ROOT / figure[1])
                print(f"wrote {figure[1]}")
    if python and (only is None or any(n in only for n, _ in python)):
        printed = run_python([src for _, src in python], cwd, page)
        outputs.update({n: out for (n, _), out in zip(python, printed, strict=True)
                        if only is None or n in only})
    return outputs


# -- comparing -------------------------------------------------------------------------------
_TIME = re.compile(r"(?<![\w.])\d+(?:\.\d+)? ?(?:s|min)\b")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w.])")
ROUNDING_LEVEL = 1e-12


def _rounding_level(m: re.Match) -> str:
    return "~0" if abs(float(m.group(0))) < ROUNDING_LEVEL else m.group(0)


def masked(text: str) -> str:
    """The text as compared with a fresh run: wall-clock times (``8.6 s``, ``3.54s``,
    ``in 12 s``) masked, numbers below ROUNDING_LEVEL (float64 rounding residues, which
    differ with the machine's BLAS kernels) shown as ~0 together with where a table found
    them (an extreme among residues is anywhere), and runs of spaces (column widths) as
    one."""
    text = _NUMBER.sub(_rounding_level, _TIME.sub("(time)", text))
    text = re.sub(r"(~0 \([^)]*\)) +\S+", r"\1 (t)", text)
    return re.sub(r" +", " ", text)


def differences(have: dict[str, str], fresh: dict[str, str]) -> list[str]:
    """The names whose shown output differs from the fresh one (`masked`)."""
    return [n for n in fresh if masked(have.get(n, "")) != masked(fresh[n])]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with a fresh run instead of rewriting (exit 1 if any "
                             "example differs)")
    parser.add_argument("--page", action="append", default=None,
                        help=f"a page (repeatable; default: {', '.join(PAGES)})")
    parser.add_argument("--only", action="append", default=None, metavar="NAME",
                        help="only these examples (repeatable)")
    parser.add_argument("--workdir", default=None,
                        help="run the examples here (default: a scratch directory per page)")
    args = parser.parse_args(argv)
    bad = []
    for rel in args.page or PAGES:
        page = ROOT / rel if not Path(rel).is_absolute() else Path(rel)
        rel = str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else str(page)
        text = page.read_text()
        with tempfile.TemporaryDirectory() as tmp:
            where = Path(args.workdir or tmp)
            where.mkdir(parents=True, exist_ok=True)
            fresh = run_page(text, rel, where, args.only, keep=not args.check)
        if args.check:
            have = blocks(text)
            for name in differences(have, fresh):
                bad.append(f"{rel}: {name}")
                print(f"--- {rel}: {name}: the page shows\n{have.get(name)}\n"
                      f"--- a fresh run prints\n{fresh[name]}")
        else:
            page.write_text(render(text, fresh))
            print(f"wrote {rel} ({len(fresh)} examples)")
    if bad:
        print(f"{len(bad)} example(s) differ: {', '.join(bad)}; rerun "
              "`python examples/pages.py` and review the diff")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
