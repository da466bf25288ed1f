"""shim: compatibility headers for what a translated unit needs and HIP does not declare.

Runs after microarch. The SHIM### rules name each use of a CUDA declaration that HIP lacks;
this node gathers the header pieces they point to (shims/compat/*.h), writes one project header,
`porter_compat.h`, at the top of the output tree, and includes it in each unit that needs it.
The rules run one file a task through the run's dispatcher (porter.cluster).
Units the verifier sends back with an undeclared name no piece provides go to the model, with
the compiler's messages, when the run has one; otherwise they are recorded for a person.
"""

from __future__ import annotations

import importlib
import posixpath
from importlib import resources

from porter import cluster
from porter.llm import asks
from porter.llm.session import Model
from porter.rules import RuleContext, rules_for, run_on_files, run_rules, triggered
from porter.state import AgentOutput, Edit, FileKind, Finding, Patch, PortState, content_hash
from porter.syntax import SourceFile, kept, lang_for
from porter.workspace import Workspace

AGENT = "shim"
COMPAT_HEADER = "porter_compat.h"
_INCLUDES = "(preproc_include) @inc"


def shim(state: PortState, ws: Workspace, model: Model | None = None) -> AgentOutput:
    rules = rules_for(AGENT, "cuda")
    ctx = RuleContext(state.options)
    findings: list[Finding] = []
    patches: list[Patch] = []
    pieces: set[str] = set()
    todo = [r.path for r in state.files if r.kind in (FileKind.cuda, FileKind.cpp) and r.path != COMPAT_HEADER]
    ran = cluster.current().map(_shim_file, [(path, ws.read(path)) for path in todo], resources=cluster.RULES,
                                shared=ctx, label=lambda item: f"{AGENT}:{item[0]}")
    for path, result in zip(todo, ran):
        if isinstance(result, cluster.TaskFailed):  # its node was lost twice: run it here
            result = _shim_file(ctx, (path, ws.read(path)))
        hits, include = result
        if not hits:
            continue
        pieces |= {importlib.import_module(r.module).HEADER for r in rules if any(f.rule == r.id for f in hits)}
        if include:
            patches.append(include)
        findings.extend(f.model_copy(update={"fixable": True, "fixed": True}) for f in hits)
    if pieces:
        patches.insert(0, _header_patch(ws, pieces, ",".join(sorted({f.rule for f in findings}))))
    # Triton modules get their definitions in place (SHIM030), not from a header.
    triton_findings, triton_patches = run_on_files(
        AGENT, [r for r in state.files if r.kind == FileKind.triton], ws.read, ctx)
    findings += triton_findings
    patches += triton_patches
    patches = [p for p in patches if p]
    if not state.iteration:
        return AgentOutput(findings=tuple(findings), patches=tuple(patches))
    # The model answers for the units sent back, on the tree as the rules above leave it.
    return asks.failures(state, ws, AGENT, model, "no compat piece declares this name",
                         patches).output(findings, patches)


def _shim_file(ctx: RuleContext, item: tuple[str, bytes]) -> tuple[list[Finding], Patch | None]:
    """The SHIM### rules over one file: their findings, and the include of the compat header it then needs."""
    path, data = item
    rules = triggered(rules_for(AGENT, "cuda"), data, ctx)
    if not rules:
        return [], None  # no rule's trigger holds: the file is not parsed
    unit = SourceFile(path, data, lang_for(path) or "cpp", base=kept(path, data))  # from the tree microarch left of it
    hits = run_rules(unit, rules, ctx, agent=AGENT, triggers=False).findings
    if not hits:
        return [], None
    return hits, _include_patch(unit, ",".join(sorted({f.rule for f in hits})))


def render_header(pieces: set[str]) -> str:
    shims = resources.files("porter.shims")
    parts = [
        "// porter_compat.h: declarations this port needs that HIP does not provide.\n"
        "// Written by porter's shim agent from shims/compat/; regenerate rather than edit.\n"
        "#pragma once\n#include <hip/hip_runtime.h>\n"
    ]
    parts += [shims.joinpath(p).read_text() for p in sorted(pieces)]
    return "\n".join(parts)


def _header_patch(ws: Workspace, pieces: set[str], rule: str) -> Patch | None:
    text = render_header(pieces)
    reason = f"compat header with {', '.join(sorted(pieces))}"
    path = ws.root / COMPAT_HEADER
    if not path.exists():
        return Patch.create(COMPAT_HEADER, text, agent=AGENT, rule=rule, reason=reason)
    current = path.read_bytes()
    if current.decode() == text:
        return None
    return Patch(path=COMPAT_HEADER, base_hash=content_hash(current),
                 edits=(Edit(start=0, end=len(current), text=text, rule=rule),), agent=AGENT, rule=rule, reason=reason)


def _include_patch(unit: SourceFile, rule: str) -> Patch | None:
    """Include the compat header after the unit's last top-level #include (or at the top)."""
    target = posixpath.relpath(COMPAT_HEADER, posixpath.dirname(unit.path) or ".")
    line = f'#include "{target}"\n'
    if line.encode() in unit.data:
        return None
    top_level = [n for n in unit.captures(_INCLUDES) if n.parent == unit.tree.root_node]
    at = top_level[-1].end_byte if top_level else 0
    if at and unit.data[at - 1 : at] != b"\n":
        line = "\n" + line
    return Patch(path=unit.path, base_hash=content_hash(unit.data), edits=(Edit(start=at, end=at, text=line, rule=rule),),
                 agent=AGENT, rule=rule, reason=f"include {COMPAT_HEADER}")
