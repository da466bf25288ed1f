"""Find a project's own checks when it has no verify spec (porter.toml still wins when present).

A user's project already says how it is tested: a Make target (`run`, `test`, `check`), a
CTest `add_test`, a pytest suite, a `run` script beside a Makefile (Rodinia), or a program
whose source prints PASS/FAIL markers ("Test passed", "Result = FAIL", "mismatch"). Each
becomes a `DiscoveredCheck`: a build step and a run step, both shell commands run in the
check's directory, so the same check runs on the original (built with nvcc) and on the port
(built by its ported build files with a hipcc) and the two outputs are compared
(porter.verify.outputs).

What cannot become a check is listed with the reason (`Undiscovered`): a run step that reads a
data file that is not in the tree (or lies outside it), a program that needs arguments nobody
wrote down, a Makefile with nothing to run. Reads files only; runs nothing.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import Field

from porter.state import Frozen
from porter.verify.outputs import _FAIL, _PASS, printf_templates
from porter.verify.spec import CommandSpec

CheckKind = Literal["make-target", "run-script", "ctest", "pytest", "self-checking", "spec"]
CHECK_TIMEOUT_S = 300
MAKE_CHECK_TARGETS = ("run", "test", "check")
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
RUN_SCRIPTS = ("run", "run.sh")
CMAKE_BUILD_DIR = ".porter-build"  # inside the (copied) project tree: nothing is written outside it
SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c", ".hip")
SKIP_DIRS = {".git", ".porter", CMAKE_BUILD_DIR, "__pycache__", "node_modules", ".venv", "build"}
# A run-step argument that names a file: has a folder part or a file extension (not a number, not a flag).
_FILE_LIKE = re.compile(r"^(?!-)(?:[^\s=]*/[^\s=]*|[^\s/=]+\.[A-Za-z][A-Za-z0-9]{0,7})$")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_MAIN = re.compile(r"\bint\s+main\s*\(")
_ARGV_NEEDED = re.compile(r"\bargc\s*(?:<|!=|==)\s*([2-9])\b|\bargc\s*<=\s*([1-9])\b")


class DiscoveredCheck(Frozen):
    """One of the project's own checks: build and run steps, run in `directory` (relative to the root)."""

    name: str
    kind: CheckKind
    origin: str  # the file (and line) it was read from, relative to the root
    directory: str = ""  # "" for the project root
    build: str | None = None
    run: str
    data_files: tuple[str, ...] = ()  # files the run step reads, found in the tree
    sources: tuple[str, ...] = ()  # the units it builds, where the build file names them
    timeout_s: int = Field(default=CHECK_TIMEOUT_S, ge=1)
    # Templates of lines its sources print from a measured time (`timed_lines`): timings, whatever their words.
    timed_lines: tuple[str, ...] = ()

    @property
    def exit_status_is_check(self) -> bool:
        """Its exit status is its verdict: a self-checking program, a CTest test, a pytest run."""
        return self.kind in ("self-checking", "ctest", "pytest")

    def covers(self, unit: str) -> bool:
        """Whether this check exercises `unit` (a path relative to the root)."""
        in_folder = not self.directory or unit.startswith(self.directory.rstrip("/") + "/")
        if self.sources and unit.endswith(SOURCE_SUFFIXES):
            return unit in self.sources
        return in_folder  # a header: whatever builds in its folder includes it, as far as porter knows

    def command_spec(self) -> CommandSpec:
        """The same check as a `[[verify.command]]` entry run from the project root."""
        cd = f"cd {shlex.quote(self.directory)} && " if self.directory else ""
        return CommandSpec(name=self.name, build=cd + self.build if self.build else None, run=cd + self.run,
                           timeout_s=self.timeout_s)


class Undiscovered(Frozen):
    """Something that looked like a check but cannot be run as one, and why."""

    where: str
    reason: str


class Discovery(Frozen):
    checks: tuple[DiscoveredCheck, ...] = ()
    undiscovered: tuple[Undiscovered, ...] = ()

    def covering(self, unit: str) -> list[DiscoveredCheck]:
        return [c for c in self.checks if c.covers(unit)]


def discover_checks(root: Path) -> Discovery:
    """Every check the project at `root` carries, and what could not become one."""
    root = root.resolve()
    checks: list[DiscoveredCheck] = []
    skipped: list[Undiscovered] = []
    for directory in _directories(root):
        makefile = next((directory / m for m in MAKEFILES if (directory / m).is_file()), None)
        if makefile is not None:
            found, missing = _make_checks(makefile, root)
            checks += found
            skipped += missing
        cmake = directory / "CMakeLists.txt"
        if cmake.is_file() and re.search(r"^\s*project\s*\(", _read(cmake), re.M | re.I):
            found, missing = _cmake_checks(directory, root)
            checks += found
            skipped += missing
    found, missing = _pytest_checks(root)
    checks = [c.model_copy(update={"timed_lines": timed_lines(_check_sources(c, root))}) for c in checks]
    return Discovery(checks=tuple(checks + found), undiscovered=tuple(skipped + missing))


# ---------------------------------------------------------------------------------- timings

# What a timer writes: the out-parameter of the event API, or a variable assigned from a clock.
_TIMER_OUT = re.compile(r"\b(?:cuda|hip)EventElapsedTime\s*\(\s*&\s*(\w+)")
_TIMER_ASSIGN = re.compile(r"\b(\w+)\s*[-+*/]?=[^;=]*?\b(?:sdkGet(?:Average)?TimerValue|omp_get_wtime|MPI_Wtime|clock|"
                           r"cpuSecond|gettime|wtime)\s*\(|\b(\w+)\s*[-+*/]?=[^;=]*?\.count\s*\(\s*\)")
_PRINTF = re.compile(r"\bf?printf\s*\(\s*(?:\w+\s*,\s*)?((?:" + _STRING.pattern + r"\s*)+),(?P<args>[^;]*?)\)\s*;")
_HEADER_SUFFIXES = (".h", ".cuh", ".hpp", ".inl")


def timed_lines(texts: list[str]) -> tuple[str, ...]:
    """Templates (porter.verify.outputs.numbers_of) of the lines `texts` print from a measured time:
    printf/fprintf calls whose arguments hold a timer's result (cudaEventElapsedTime's out-parameter,
    sdkGetTimerValue, omp_get_wtime, clock, chrono's count()), or a variable computed from one
    (`elapsed_time / nreps`, two steps). cuda-samples' simpleStreams prints "non-streamed:\t1.31": a
    time in ms with no word that says so; two runs of the original can print the same."""
    text = "\n".join(texts)
    names = {m[1] for m in _TIMER_OUT.finditer(text)}
    names |= {m[1] or m[2] for m in _TIMER_ASSIGN.finditer(text)}
    for _ in range(2):  # what is computed from a time is a time
        if not names:
            break
        used = re.compile(r"\b(\w+)\s*[-+*/]?=[^;=]*?\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")
        names |= {m[1] for m in used.finditer(text)}
    if not names:
        return ()
    mention = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")
    out: list[str] = []
    for m in _PRINTF.finditer(text):
        if mention.search(m["args"]):
            fmt = "".join(literal[1:-1] for literal in _STRING.findall(m[1]))
            out += [t for t in printf_templates(fmt) if t not in out]
    return tuple(out)


def _check_sources(check: DiscoveredCheck, root: Path) -> list[str]:
    """The texts of what a check builds: its named sources, else the sources and headers of its folder."""
    folder = root / check.directory
    paths = [root / s for s in check.sources] or [
        p for p in sorted(folder.glob("*")) if p.suffix in SOURCE_SUFFIXES]
    paths += [p for p in sorted(folder.glob("*")) if p.suffix in _HEADER_SUFFIXES]
    return [_read(p) for p in paths if p.is_file() and p.stat().st_size < 4 << 20]


# ---------------------------------------------------------------------------------- files

def _directories(root: Path) -> list[Path]:
    out = [root]
    for path in sorted(root.rglob("*")):
        if path.is_dir() and not (set(path.relative_to(root).parts) & SKIP_DIRS):
            out.append(path)
    return out


def _rel(path: Path, root: Path) -> str:
    rel = path.resolve().relative_to(root).as_posix()
    return "" if rel == "." else rel


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


_EXIT_STATUS = re.compile(r"\b(?:exit|return)\s*\(?[^;]*\?[^;]*EXIT_(?:SUCCESS|FAILURE)|\bEXIT_FAILURE\b")


def self_checking(text: str) -> bool:
    """A program (its sources together) with a main() that prints a PASS or FAIL marker as a string
    literal, or reports its check by its exit status (`exit(ok ? EXIT_SUCCESS : EXIT_FAILURE)`)."""
    return bool(_MAIN.search(text)) and (any(_PASS.search(s) or _FAIL.search(s) for s in _STRING.findall(text))
                                         or bool(_EXIT_STATUS.search(text)))


def needs_arguments(text: str) -> bool:
    """A main() that refuses to run without command-line arguments (`if (argc < 2) usage()`)."""
    return bool(_ARGV_NEEDED.search(text))


def data_files_of(command: str, directory: Path, root: Path) -> tuple[list[str], list[str]]:
    """(found, missing) files a run command names as arguments, relative to the root.

    A file outside the tree is missing even where it exists: the port's tree does not hold it.
    """
    found, missing = [], []
    for line in command.splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = line.split()
        for k, word in enumerate(words[1:], 1):
            # an output the program writes is not data it needs: `-o x`, `out.txt`, `output.out`
            if not _FILE_LIKE.match(word) or word.startswith("$") or words[k - 1] in ("-o", "--output", ">") \
                    or re.match(r"(?:.*/)?out(?:put)?(?:[-_.]\w+)*\.\w+$", word):
                continue
            path = (directory / word).resolve()
            inside = path.is_relative_to(root)
            shown = _rel(path, root) if inside else word
            (found if inside and path.exists() else missing).append(shown)
    return found, missing


# ---------------------------------------------------------------------------------- Make

class _Makefile(Frozen):
    variables: dict[str, str]
    rules: list[tuple[str, list[str], list[str], int]]  # target, prerequisites, recipe lines, line number
    includes: list[str]


_ASSIGN = re.compile(r"^(?:override\s+|export\s+)?(?P<name>[A-Za-z_][\w.]*)\s*(?P<op>:::=|::?=|\?=|\+=|=)\s*(?P<value>.*)$")
_RULE = re.compile(r"^(?P<targets>[^\t#:=][^:=]*?)\s*::?(?!=)\s*(?P<prereqs>[^;]*)(?:;(?P<recipe>.*))?$")
_VAR_REF = re.compile(r"\$[({](?P<name>[A-Za-z_][\w.]*)[)}]|\$(?P<one>[A-Za-z_@<^])")


def parse_makefile(text: str) -> _Makefile:
    """Variables (simple and recursive alike), rules with their recipes, and includes."""
    lines: list[tuple[int, str]] = []  # (first line number, logical line): continuations joined
    pending: tuple[int, str] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        start, body = pending if pending else (number, "")
        body += raw[:-1] + " " if raw.endswith("\\") else raw
        pending = (start, body) if raw.endswith("\\") else None
        if pending is None:
            lines.append((start, body))
    if pending:
        lines.append(pending)
    variables: dict[str, str] = {}
    rules: list[tuple[str, list[str], list[str], int]] = []
    includes: list[str] = []
    current: list[str] | None = None
    for number, line in lines:
        if line.startswith("\t"):
            if current is not None:
                current.append(line.strip())
            continue
        stripped = line.split("#", 1)[0].rstrip()
        if not stripped.strip():
            continue
        current = None
        if m := re.match(r"^-?s?include\s+(.*)$", stripped):
            includes += m[1].split()
            continue
        if m := _ASSIGN.match(stripped.strip()):
            name, op, value = m["name"], m["op"], m["value"].strip()
            if op == "?=" and name in variables:
                continue
            variables[name] = f"{variables.get(name, '')} {value}".strip() if op == "+=" else value
            continue
        if stripped.strip().startswith(("ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "define", "endef")):
            continue
        if m := _RULE.match(stripped):
            recipe = [m["recipe"].strip()] if m["recipe"] else []
            for target in m["targets"].split():
                rules.append((target, m["prereqs"].split(), recipe, number))
            current = recipe
    return _Makefile(variables=variables, rules=rules, includes=includes)


def expand(text: str, variables: dict[str, str], depth: int = 0) -> str:
    """`$(VAR)` and `${VAR}` replaced by their values (unknown ones by nothing); functions left alone."""
    if depth > 10:
        return text

    def sub(m: re.Match[str]) -> str:
        name = m["name"] or m["one"]
        if name in "@<^" and len(name) == 1:
            return m.group(0)
        return expand(variables.get(name, ""), variables, depth + 1)

    return _VAR_REF.sub(sub, text)


def _make_checks(makefile: Path, root: Path) -> tuple[list[DiscoveredCheck], list[Undiscovered]]:
    directory = makefile.parent
    rel_dir, origin = _rel(directory, root), _rel(makefile, root)
    mk = parse_makefile(_read(makefile))
    checks: list[DiscoveredCheck] = []
    skipped: list[Undiscovered] = []
    outside = [inc for inc in (expand(i, mk.variables) for i in mk.includes)
               if not (directory / inc).resolve().is_relative_to(root) or not (directory / inc).exists()]
    if outside:
        skipped.append(Undiscovered(where=origin, reason=f"the build reads {', '.join(outside)}, which is not in "
                                                         "the tree: copy it in, or give a porter.toml"))
        return checks, skipped
    targets = [t for t, *_ in mk.rules if not t.startswith(".") and "%" not in t]
    default = targets[0] if targets else None
    make = "make" if makefile.name in ("Makefile", "makefile", "GNUmakefile") else f"make -f {makefile.name}"
    for target, _prereqs, recipe, line in mk.rules:
        if target not in MAKE_CHECK_TARGETS:
            continue
        body = "\n".join(expand(r, mk.variables) for r in recipe)
        found, missing = data_files_of(body, directory, root)
        where = f"{origin}:{line}"
        if missing:
            skipped.append(Undiscovered(where=where, reason=f"`make {target}` reads {', '.join(missing)}, "
                                                            "which is not in the tree"))
            continue
        checks.append(DiscoveredCheck(name=f"{rel_dir or '.'}:make {target}", kind="make-target", origin=where,
                                      directory=rel_dir, build=None if default == target else make,
                                      run=f"{make} -s {target}", data_files=tuple(found)))
    if checks:
        return checks, skipped
    script = next((directory / s for s in RUN_SCRIPTS if (directory / s).is_file()), None)
    if script is not None:
        body = _read(script)
        found, missing = data_files_of(body, directory, root)
        where = _rel(script, root)
        if missing:
            skipped.append(Undiscovered(where=where, reason=f"reads {', '.join(missing)}, which is not in the tree"))
        else:
            checks.append(DiscoveredCheck(name=f"{rel_dir or '.'}:{script.name}", kind="run-script", origin=where,
                                          directory=rel_dir, build=make, run=f"sh {script.name}",
                                          data_files=tuple(found)))
        return checks, skipped
    for target, prereqs, recipe, line in mk.rules:
        program = expand(target, mk.variables)
        if target.startswith(".") or "%" in target or program.endswith((".o", ".a", ".so")) or program in (
                "all", "clean", "install", "clobber"):
            continue
        body = " ".join(expand(r, mk.variables) for r in recipe)
        if not re.search(r"(?:^|\s)-o\s*(?:\$@|" + re.escape(program) + r")(?:\s|$)", body):
            continue
        words = [w for p in prereqs for w in expand(p, mk.variables).split()] + body.split()
        sources = _program_sources(directory, words)
        texts = {s: _read(directory / s) for s in sources}
        if not self_checking("\n".join(texts.values())):
            continue
        where = f"{origin}:{line}"
        if any(needs_arguments(t) for t in texts.values() if _MAIN.search(t)):
            skipped.append(Undiscovered(where=where, reason=f"{program} needs command-line arguments and no run "
                                                            "target or run script says which"))
            continue
        build = make if target == default else f"{make} {shlex.quote(program)}"
        checks.append(DiscoveredCheck(name=f"{rel_dir or '.'}:{program}", kind="self-checking", origin=where,
                                      directory=rel_dir, build=build, run=f"./{program}",
                                      sources=tuple(_join(rel_dir, s) for s in sources)))
    if not checks and not skipped:
        skipped.append(Undiscovered(where=origin, reason="no run/test/check target, no run script and no program "
                                                         "that prints PASS/FAIL markers"))
    return checks, skipped


def _join(directory: str, name: str) -> str:
    return str(PurePosixPath(directory) / name) if directory else name


def _program_sources(directory: Path, words: list[str]) -> list[str]:
    """Source files named (directly, or as objects of the same stem) among `words`, that exist."""
    out: list[str] = []
    for word in words:
        candidates = [word] if word.endswith(SOURCE_SUFFIXES) else \
            [word[:-2] + s for s in SOURCE_SUFFIXES] if word.endswith(".o") else []
        for c in candidates:
            if len(c) < 255 and "$" not in c and (directory / c).is_file() and c not in out:
                out.append(c)
                break
    return out


# ---------------------------------------------------------------------------------- CMake

_CMAKE_CALL = re.compile(r"^\s*(?P<cmd>add_test|add_executable|add_subdirectory|project)\s*\((?P<args>[^)]*)\)",
                         re.M | re.I)


def _cmake_checks(directory: Path, root: Path) -> tuple[list[DiscoveredCheck], list[Undiscovered]]:
    """CTest entries of this CMake project, else its executables whose sources print PASS/FAIL."""
    rel_dir = _rel(directory, root)
    build = (f"cmake -S . -B {CMAKE_BUILD_DIR} -DCMAKE_BUILD_TYPE=Release >/dev/null && "
             f"cmake --build {CMAKE_BUILD_DIR} -j 2")
    tests: list[DiscoveredCheck] = []
    programs: list[DiscoveredCheck] = []
    skipped: list[Undiscovered] = []
    for cmake_dir in _cmake_dirs(directory):
        text = re.sub(r"#[^\n]*", "", _read(cmake_dir / "CMakeLists.txt"))
        origin = _rel(cmake_dir / "CMakeLists.txt", root)
        sub = _rel(cmake_dir, directory.resolve()) if cmake_dir != directory else ""
        for m in _CMAKE_CALL.finditer(text):
            cmd, args = m["cmd"].lower(), m["args"].split()
            line = text.count("\n", 0, m.start()) + 1
            if cmd == "add_test" and args:
                name = args[args.index("NAME") + 1] if "NAME" in args and args.index("NAME") + 1 < len(args) \
                    else args[0]
                command = args[args.index("COMMAND") + 1:] if "COMMAND" in args else args[1:]
                command = [w.replace("${CMAKE_CURRENT_SOURCE_DIR}", str(cmake_dir))
                           .replace("${PROJECT_SOURCE_DIR}", str(directory))
                           .replace("${CMAKE_SOURCE_DIR}", str(directory)) for w in command]
                found, missing = data_files_of(" ".join(["x", *command[1:]]), cmake_dir, root)
                if missing:
                    skipped.append(Undiscovered(where=f"{origin}:{line}",
                                                reason=f"test {name} reads {', '.join(missing)}, not in the tree"))
                    continue
                tests.append(DiscoveredCheck(
                    name=f"{rel_dir or '.'}:ctest {name}", kind="ctest", origin=f"{origin}:{line}",
                    directory=rel_dir, build=build, data_files=tuple(found),
                    run=f"ctest --test-dir {CMAKE_BUILD_DIR} -R {shlex.quote('^' + re.escape(name) + '$')} "
                        "--output-on-failure"))
            elif cmd == "add_executable" and args and "IMPORTED" not in args and "ALIAS" not in args:
                name = args[0]
                sources = [a for a in args[1:] if a.endswith(SOURCE_SUFFIXES) and (cmake_dir / a).is_file()]
                texts = {s: _read(cmake_dir / s) for s in sources}
                if not self_checking("\n".join(texts.values())):
                    skipped.append(Undiscovered(where=f"{origin}:{line}",
                                                reason=f"{name} prints no PASS/FAIL marker and reports no check by "
                                                       "its exit status: nothing says whether its output is right"))
                    continue
                if any(needs_arguments(t) for t in texts.values() if _MAIN.search(t)):
                    skipped.append(Undiscovered(where=f"{origin}:{line}",
                                                reason=f"{name} needs command-line arguments and no add_test "
                                                       "says which"))
                    continue
                binary = PurePosixPath(CMAKE_BUILD_DIR, sub, name) if sub else PurePosixPath(CMAKE_BUILD_DIR, name)
                programs.append(DiscoveredCheck(
                    name=f"{rel_dir or '.'}:{name}", kind="self-checking", origin=f"{origin}:{line}",
                    directory=rel_dir, build=build, run=f"./{binary}",
                    sources=tuple(_rel(cmake_dir / s, root) for s in sources)))
    if tests or programs:  # a project with a check: its other executables are not worth a line each
        skipped = [u for u in skipped if "prints no PASS/FAIL marker" not in u.reason]
    return (tests or programs), skipped


def _cmake_dirs(directory: Path) -> list[Path]:
    """This CMake project's folders: its own, and those its add_subdirectory calls reach (not separate projects)."""
    out, todo = [], [directory]
    while todo:
        d = todo.pop(0)
        out.append(d)
        for m in _CMAKE_CALL.finditer(_read(d / "CMakeLists.txt")):
            if m["cmd"].lower() == "add_subdirectory" and m["args"].split():
                child = (d / m["args"].split()[0]).resolve()
                own = _read(child / "CMakeLists.txt")
                if child.is_relative_to(directory.resolve()) and own and child not in out \
                        and not re.search(r"^\s*project\s*\(", own, re.M | re.I):
                    todo.append(child)
    return out


# ---------------------------------------------------------------------------------- pytest

def _pytest_checks(root: Path) -> tuple[list[DiscoveredCheck], list[Undiscovered]]:
    """One check per top-most folder holding pytest files; a CUDA extension is built in place first."""
    folders: list[str] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if set(rel.parts) & SKIP_DIRS or not re.fullmatch(r"test_\w+\.py|\w+_test\.py", path.name):
            continue
        if not re.search(r"^\s*def test_\w+\s*\(", _read(path), re.M):
            continue
        folder = rel.parent.as_posix()
        folder = "" if folder == "." else folder
        if not any(folder == f or folder.startswith(f + "/") or not f for f in folders):
            folders = [f for f in folders if not f.startswith(folder + "/")] + [folder]
    if not folders:
        return [], []
    setup = root / "setup.py"
    build = None
    if setup.is_file() and re.search(r"CUDAExtension|BuildExtension|CppExtension", _read(setup)):
        build = "${PYTHON:-python3} setup.py build_ext --inplace"
    return [DiscoveredCheck(name=f"pytest {folder or '.'}", kind="pytest", origin=folder or ".", directory="",
                            build=build, run=f"${{PYTHON:-python3}} -m pytest -q -p no:cacheprovider {folder or '.'}")
            for folder in folders], []
