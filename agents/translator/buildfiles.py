"""Build files as the translator's BLD rules see them: which files they are, their tokens, nvcc's flags.

The scan (porter.scan.build_lang) says which build language a path is; the BLD rules under
`rules/` then read the file through one of the views here, so that no rule edits a comment or a
message string:

- CMake: tree-sitter-cmake (`cmake_tree`, `commands`), plus `cmake_flag_tokens`, which splits one
  argument into compiler flags, looking through `$<cond:...>` generator expressions.
- Makefiles: `make_lines`, a GNU make lexer over logical lines (backslash continuations joined).
  tree-sitter-make 1.1 keeps a trailing `# comment` inside an assignment's value and does not see
  `$(info ...)` text as a message, so the lexer follows the GNU make manual (3.1 "What Makefiles
  Contain", 5.1 "Recipe Syntax") instead.
- setup.py: libcst (`setup_py`), with byte spans and parents for each node.
- nvcc flags, for all three build languages: `nvcc_flag_changes` and `nvcc_arch_changes` map a
  token sequence to `FlagChange`s; `whitespace_hits` turns them into edits for space-separated text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath

import libcst as cst
import tree_sitter_cmake
from libcst.metadata import ByteSpanPositionProvider, MetadataWrapper, ParentNodeProvider
from tree_sitter import Language, Node, Parser, Tree

from porter.rules import Hit
from porter.state import Edit, Severity


def second_arch(arch: str) -> str:
    """The other MI300-family target, for places where the original named a list of architectures."""
    return "gfx942" if arch != "gfx942" else "gfx950"


def arch_list(arch: str, n: int) -> list[str]:
    """`n` original architectures become the target, plus gfx942 when there were several."""
    return [arch] if n <= 1 else [arch, second_arch(arch)]


@dataclass(frozen=True)
class Token:
    """A word of a build file: bytes [start, end) of the file, and its text."""

    start: int
    end: int
    text: str


# ---------------------------------------------------------------------------------------------- nvcc flags

@dataclass(frozen=True)
class FlagChange:
    """Tokens [first, first+count) become `new` (nothing: dropped). `fix=False` reports only."""

    first: int
    count: int
    new: tuple[str, ...]
    why: str
    severity: Severity = Severity.info
    fix: bool = True


# nvcc options with a clang spelling: (nvcc spellings, clang options (none: dropped), why).
# Sources: nvcc manual (CUDA 12.x, "NVCC Command Options"); clang's HIP options (ROCm 6.3,
# "HIP compiler options"; clang --help).
_CLANG_SPELLING: tuple[tuple[tuple[str, ...], tuple[str, ...], str], ...] = (
    (("--use_fast_math", "-use_fast_math"), ("-ffast-math",),
     "clang's fast-math covers nvcc's ftz, prec-div, prec-sqrt and fmad set"),
    (("-lineinfo", "--generate-line-info"), ("-gline-tables-only",), "line tables for profilers, no full debug info"),
    (("--expt-relaxed-constexpr", "-expt-relaxed-constexpr"), (),
     "clang lets device code call constexpr host functions by default"),
    (("--expt-extended-lambda", "-expt-extended-lambda", "--extended-lambda"), (),
     "clang accepts __device__ lambdas by default"),
    (("-rdc=true", "--relocatable-device-code=true"), ("-fgpu-rdc",),
     "clang's relocatable device code (link with -fgpu-rdc too)"),
    (("-rdc=false", "--relocatable-device-code=false"), (), "whole-program device code is clang's default"),
    (("-dc",), ("-fgpu-rdc", "-c"), "compile relocatable device code"),
    (("-G", "--device-debug"), ("-g",), "clang emits device debug info with -g (add -O0 for unoptimized device code)"),
    (("--resource-usage", "-res-usage"), ("-Rpass-analysis=kernel-resource-usage",),
     "the AMDGPU backend reports VGPRs, SGPRs, LDS, scratch and occupancy per kernel"),
    (("-Wno-deprecated-gpu-targets",), (), "an nvcc-only warning switch"),
    (("--keep", "-keep"), ("-save-temps",), "keep the intermediate files"),
    (("--fmad=false", "-fmad=false"), ("-ffp-contract=off",), "no fused multiply-add contraction"),
    (("--ftz=true", "-ftz=true"), ("-fgpu-flush-denormals-to-zero",), "flush fp32 denormals to zero"),
    (("--prec-div=false", "-prec-div=false", "--prec-sqrt=false", "-prec-sqrt=false"),
     ("-fno-hip-fp32-correctly-rounded-divide-sqrt",), "fast fp32 division and square root"),
)
_SAME_MEANING: dict[str, tuple[tuple[str, ...], str]] = {
    opt: (new, f"{opt} -> {' '.join(new)}: {why}" if new else f"{opt} dropped: {why}")
    for opts, new, why in _CLANG_SPELLING for opt in opts
}
# Options that take the next token as their value (or `=value`).
_HOST_COMPILER = ("-Xcompiler", "--compiler-options")
_DROP_WITH_VALUE = {
    "-ccbin": "-ccbin dropped: clang compiles host and device code itself, there is no separate host compiler",
    "--compiler-bindir": "--compiler-bindir dropped: clang compiles host code itself",
    "-cudart": "-cudart dropped: HIP links the shared runtime libamdhip64",
    "--cudart": "--cudart dropped: HIP links the shared runtime libamdhip64",
}
_PTXAS = ("-Xptxas", "--ptxas-options")
_REPORT_ONLY = {
    "-maxrregcount": "-maxrregcount has no clang flag: bound registers per kernel with __launch_bounds__ or "
                     "__attribute__((amdgpu_num_vgpr(N)))",
    "--maxrregcount": "--maxrregcount has no clang flag: bound registers per kernel with __launch_bounds__",
    "-Xnvlink": "-Xnvlink: there is no nvlink; pass linker options with -Wl,",
    "--nvlink-options": "--nvlink-options: there is no nvlink; pass linker options with -Wl,",
    "-Xcudafe": "-Xcudafe: the CUDA front end is nvcc's; map the diagnostic to a clang -Wno-... by hand",
    "-dlink": "-dlink: clang links relocatable device code in the final link (-fgpu-rdc --hip-link); "
              "drop this step by hand",
    "--device-link": "--device-link: clang links device code in the final link (-fgpu-rdc --hip-link)",
}


def _split_value(tokens: Sequence[str], i: int, option: str) -> tuple[str | None, int]:
    """The value of `option` at tokens[i], given as `option=v` or `option v`; and tokens consumed."""
    tok = tokens[i]
    if tok.startswith(option + "="):
        return tok[len(option) + 1:], 1
    if tok == option and i + 1 < len(tokens):
        return tokens[i + 1], 2
    return None, 1


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def nvcc_flag_changes(tokens: Sequence[str]) -> Iterator[FlagChange]:
    """nvcc-only options (not architectures) in a token list, and what clang takes instead."""
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        head = tok.split("=", 1)[0]
        if tok in _SAME_MEANING:
            new, why = _SAME_MEANING[tok]
            yield FlagChange(i, 1, new, why)
        elif head in _HOST_COMPILER:
            value, n = _split_value(tokens, i, head)
            if value is not None:
                # nvcc splits the host options on commas (nvcc manual 4.2.4.1 "--compiler-options").
                opts = tuple(o for o in re.split(r"[,\s]+", _unquote(value)) if o)
                yield FlagChange(i, n, opts, f"{head} {value} -> {' '.join(opts)}: clang takes host options directly")
            i += n
            continue
        elif head in _PTXAS:
            value, n = _split_value(tokens, i, head)
            if value is not None:
                if _unquote(value) in ("-v", "--verbose"):
                    yield FlagChange(i, n, ("-Rpass-analysis=kernel-resource-usage",),
                                     f"{head} -v -> -Rpass-analysis=kernel-resource-usage: the AMDGPU backend reports "
                                     "VGPRs, SGPRs, LDS, scratch and occupancy per kernel")
                else:
                    yield FlagChange(i, n, (), f"{head} {value} dropped: there is no ptxas on AMD; check whether the "
                                     "option's intent needs a clang flag", Severity.warning)
            i += n
            continue
        elif head in _DROP_WITH_VALUE:
            value, n = _split_value(tokens, i, head)
            if value is not None:
                yield FlagChange(i, n, (), _DROP_WITH_VALUE[head])
            i += n
            continue
        elif head in ("--default-stream", "-default-stream"):
            value, n = _split_value(tokens, i, head)
            if value == "per-thread":
                yield FlagChange(i, n, ("-fgpu-default-stream=per-thread",),
                                 f"{head} per-thread -> -fgpu-default-stream=per-thread")
            elif value is not None:
                yield FlagChange(i, n, (), f"{head} {value} dropped: the legacy default stream is clang's default")
            i += n
            continue
        elif head in _REPORT_ONLY:
            yield FlagChange(i, 1, (), _REPORT_ONLY[head], Severity.warning, fix=False)
        i += 1


_GENCODE = ("-gencode", "--generate-code")
_ARCH = ("-arch", "--gpu-architecture", "-code", "--gpu-code")
_SM = re.compile(r"(?:sm|compute|lto)_(\d+[a-z]?)")


def nvcc_arch_changes(tokens: Sequence[str], arch: str) -> Iterator[FlagChange]:
    """NVIDIA architecture options -> --offload-arch. The first becomes `arch`, the second gfx942; the rest go."""
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(tokens):
        head = tokens[i].split("=", 1)[0]
        if head in _GENCODE or head in _ARCH:
            value, n = _split_value(tokens, i, head)
            if value is not None and (_SM.search(value) or value in ("native", "all", "all-major")):
                found.append((i, n, f"{head} {value}" if n == 2 else tokens[i]))
            i += n
            continue
        i += 1
    targets = arch_list(arch, len(found))
    for k, (i, n, original) in enumerate(found):
        if k < len(targets):
            yield FlagChange(i, n, (f"--offload-arch={targets[k]}",),
                             f"{original} -> --offload-arch={targets[k]}: MI350X is gfx950"
                             + (", MI300X is gfx942" if len(found) > 1 else ""))
        else:
            yield FlagChange(i, n, (), f"{original} dropped: the ported build targets {', '.join(targets)}")


def whitespace_hits(tokens: Sequence[Token], changes: Iterable[FlagChange], *, anchor: int,
                    sep: str = " ") -> Iterator[Hit]:
    """Hits for changes to space-separated tokens. A dropped token goes with the blank before it
    (back to `anchor` for the first), so drops and replacements of neighbours never overlap."""
    for c in changes:
        first, last = tokens[c.first], tokens[c.first + c.count - 1]
        sev = None if c.severity == Severity.info else c.severity
        if not c.fix:
            yield Hit(first.start, last.end, c.why, severity=sev)
        elif c.new:
            yield Hit(first.start, last.end, c.why, (Edit(start=first.start, end=last.end, text=sep.join(c.new)),), sev)
        else:
            start = tokens[c.first - 1].end if c.first > 0 else anchor
            yield Hit(first.start, last.end, c.why, (Edit(start=start, end=last.end, text=""),), sev)


# ---------------------------------------------------------------------------------------------- CMake

@cache
def _cmake_parser() -> Parser:
    return Parser(Language(tree_sitter_cmake.language()))


def cmake_tree(data: bytes) -> Tree:
    return _cmake_parser().parse(data)


_COMMAND_NODES = frozenset({"normal_command", "if_command", "elseif_command", "while_command"})


def commands(tree: Tree) -> Iterator[tuple[str, Node]]:
    """Every command invocation, `if()` and `while()` included, in file order, with its name lowercased
    (CMake command names are case-blind)."""
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in _COMMAND_NODES:
            yield node.child(0).text.decode().lower(), node
        stack.extend(reversed(node.children))


def arguments(command: Node) -> list[Node]:
    """The `argument` nodes of a command, in order (comments between them are not arguments)."""
    args = next((c for c in command.children if c.type == "argument_list"), None)
    return [] if args is None else [a for a in args.children if a.type == "argument"]


def argument_value(arg: Node) -> tuple[int, int]:
    """Byte range of an argument's content: inside the quotes of a quoted argument."""
    inner = arg.child(0)
    if inner is not None and inner.type == "quoted_argument":
        return inner.start_byte + 1, inner.end_byte - 1
    return arg.start_byte, arg.end_byte


def cmake_flag_tokens(data: bytes, start: int, end: int) -> list[Token]:
    """Compiler flags in one CMake argument: split on blanks and `;`, looking through generator
    expressions: in `$<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>` the token is `-lineinfo`."""
    text = data[start:end].decode("latin-1")  # one char per byte, so indices are byte offsets
    tokens: list[Token] = []
    depth = 0
    i = 0
    while i < len(text):
        if text.startswith("$<", i):
            j, level = i + 2, 0
            while j < len(text) and not (level == 0 and text[j] in ":>"):
                if text.startswith("$<", j):
                    level, j = level + 1, j + 2
                    continue
                level -= text[j] == ">"
                j += 1
            if j < len(text) and text[j] == ":":
                depth, i = depth + 1, j + 1
                continue
            i = j + 1  # a payload-less expression such as $<CONFIG>: not a flag
            continue
        if text[i] == ">" and depth:
            depth, i = depth - 1, i + 1
            continue
        if text[i] in " \t\r\n;":
            i += 1
            continue
        j = i
        while j < len(text) and text[j] not in " \t\r\n;" and not (depth and text[j] == ">") \
                and not text.startswith("$<", j):
            j += 1
        tokens.append(Token(start + i, start + j, data[start + i:start + j].decode()))
        i = j
    return tokens


def line_indent(data: bytes, offset: int) -> str:
    """The blanks that start the line holding `offset`."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    m = re.match(rb"[ \t]*", data[line_start:offset])
    return m.group().decode() if m else ""


# ---------------------------------------------------------------------------------------------- Makefiles

@dataclass(frozen=True)
class MakeLine:
    """One logical line of a Makefile. `kind` is "assign", "recipe" or "other"; for an assignment,
    `name` is the variable and `name_start` where its name begins; `anchor` is where the value
    (assignment) or the command (recipe) begins. `words` are the blank-separated words that are
    neither comments nor message text."""

    start: int
    end: int
    kind: str
    name: str
    name_start: int
    anchor: int
    words: tuple[Token, ...]


# GNU make 6.5 "Setting Variables": the assignment operators, after optional export/override/private
_ASSIGN = re.compile(r"^[ ]*(?:(?:export|override|private)[ ]+)*([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*"
                     r"(::?=|:::=|\?=|\+=|!=|=)")
_MESSAGE_FUNCS = ("info", "warning", "error")


def make_lines(data: bytes) -> Iterator[MakeLine]:
    text = data.decode("latin-1")  # byte offsets; GNU make itself is byte-oriented
    i, in_define = 0, False
    while i < len(text):
        end = i
        while True:  # a logical line ends at a newline not escaped by an odd run of backslashes
            nl = text.find("\n", end)
            if nl < 0:
                end = len(text)
                break
            run = len(text[end:nl]) - len(text[end:nl].rstrip("\\"))
            if run % 2 == 0:
                end = nl
                break
            end = nl + 1
        line = text[i:end]
        stripped = line.strip()
        if in_define:
            in_define = stripped != "endef"
            # a define body is usually a canned recipe (GNU make manual 5.8): lex it as shell text
            yield _line(data, text, i, end, "recipe", "", i, i, shell=True)
        elif line.startswith("\t"):
            yield _line(data, text, i, end, "recipe", "", i, i + 1, shell=True)
        elif stripped.startswith("define ") or stripped == "define":
            in_define = True
        elif (m := _ASSIGN.match(line)):
            yield _line(data, text, i, end, "assign", m.group(1), i + m.start(1), i + m.end(), shell=False)
        else:
            yield _line(data, text, i, end, "other", "", i, i, shell=False)
        i = end + 1


def _line(data: bytes, text: str, start: int, end: int, kind: str, name: str, name_start: int,
          anchor: int, *, shell: bool) -> MakeLine:
    return MakeLine(start, end, kind, name, name_start, anchor, tuple(_words(data, text, anchor, end, shell)))


def _words(data: bytes, text: str, i: int, end: int, shell: bool) -> Iterator[Token]:
    """Words of text[i:end]. Outside recipes `#` starts a comment except inside $(...) (GNU make 3.1);
    in recipes a shell comment starts at a word-initial `#`. Quoted text stays inside its word, so a
    quoted message is one word that never equals a flag. In $(info|warning|error ...) only the
    variable references are words."""
    message_end = -1  # inside $(info ...) only variable references are words; the rest is prose
    while i < end:
        c = text[i]
        if c in " \t\r\n" or (c == "\\" and text.startswith("\\\n", i)):
            i += 1
            continue
        if c == "#" and i >= message_end:
            return
        if text.startswith(tuple(f"$({f} " for f in _MESSAGE_FUNCS), i):
            message_end = _close(text, i + 1, end)
            i = text.index(" ", i)
            continue
        if i < message_end and not text.startswith(("$(", "${"), i):
            while i < message_end and text[i] not in " \t\r\n" and not text.startswith(("$(", "${"), i):
                i += 1
            continue
        j, depth = i, 0
        while j < (message_end if i < message_end else end):
            c = text[j]
            if depth == 0 and (c in " \t\r\n" or (c == "#" and not shell and text[j - 1] != "\\")):
                break
            if c in "'\"":
                q = text.find(c, j + 1, end)
                j = end if q < 0 else q + 1
                continue
            if text.startswith("$(", j) or text.startswith("${", j):
                depth, j = depth + 1, j + 2
                continue
            depth -= depth > 0 and c in ")}"
            j += 1
        yield Token(i, j, data[i:j].decode("utf-8", "replace"))
        i = j


def _close(text: str, i: int, end: int) -> int:
    """Index past the bracket that closes the one at text[i]."""
    depth = 0
    for j in range(i, end):
        depth += text[j] in "({"
        depth -= text[j] in ")}"
        if depth == 0:
            return j + 1
    return end


def make_word_hits(data: bytes, changes_for: Callable[[MakeLine], Iterable[FlagChange]]) -> Iterator[Hit]:
    """Apply a flag mapping to every assignment and recipe line of a Makefile."""
    for line in make_lines(data):
        if line.kind in ("assign", "recipe") and line.words:
            yield from whitespace_hits(line.words, changes_for(line), anchor=line.anchor)


# ---------------------------------------------------------------------------------------------- setup.py

@dataclass(frozen=True)
class SetupPy:
    """A setup.py as a libcst tree, with each node's byte span and parent."""

    module: cst.Module
    spans: dict
    parents: dict

    def span(self, node: cst.CSTNode) -> tuple[int, int]:
        s = self.spans[node]
        return s.start, s.start + s.length

    def nodes(self, kind: type) -> Iterator:
        return (n for n in self.spans if isinstance(n, kind))


def setup_py(data: bytes) -> SetupPy | None:
    """The parsed file, or None when libcst cannot parse it (the rule then has nothing to say)."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(data))
    except cst.ParserSyntaxError:
        return None
    return SetupPy(wrapper.module, dict(wrapper.resolve(ByteSpanPositionProvider)),
                   dict(wrapper.resolve(ParentNodeProvider)))


# ---------------------------------------------------------------------------------------------- tree escapes

def outside_tree(unit_path: str, ref: str) -> str | None:
    """Where a relative path `ref`, written in the file `unit_path` (relative to the project root),
    lands when it leaves the project tree ("../other-project/include"); None when it stays inside,
    is absolute, or is built from variables other than the file's own directory."""
    ref = ref.strip('"')
    for var in ("${CMAKE_CURRENT_SOURCE_DIR}/", "${CMAKE_CURRENT_LIST_DIR}/", "$(CURDIR)/"):
        ref = ref.removeprefix(var)
    if not ref.startswith("..") or "$" in ref:
        return None
    parts = [p for p in PurePosixPath(unit_path).parent.parts if p not in ("", ".")]
    depth = len(parts)
    for part in PurePosixPath(ref).parts:
        if part == "..":
            depth -= 1
            if depth < 0:
                return ref
        elif part != ".":
            depth += 1
    return None
