"""PTX001: inline PTX assembly in device code.

Why: `asm("...")` in a __device__ or __global__ function holds PTX, NVIDIA's virtual ISA, which
    only ptxas assembles; clang's AMDGPU backend reads inline assembly as AMDGCN, so the port fails
    to build for gfx950 (or, worse, a PTX mnemonic that happens to parse means something else).
    Each block must become a HIP builtin (`%laneid` -> __lane_id()), plain C++, or GCN assembly.
    The finding names the first PTX instruction and carries the whole statement as its detail.

Before:
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
After:
    lane = __lane_id();

Fix safety: none: a rewrite depends on what the PTX computes (and on the AMD lane layouts for
    mma/wgmma), which is the model's or a person's job; this rule finds and describes the block.
    Blocks in porter's PTX catalog (agents/microarch/ptx_catalog.py) are left to the rule that
    rewrites them (PTX002-PTX008); the message says why a block is not in the catalog.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from porter import cuda_patterns as patterns
from porter.agents.microarch import ptx_catalog
from porter.rules import Hit, RuleContext, any_of, rule
from porter.syntax import SourceFile

# PTX mnemonics carry dotted type/state suffixes (mov.u32, shfl.sync.bfly.b32) or name
# special registers (%laneid); x86 or AMDGCN host asm does neither (PTX ISA 8.x, section 9).
PTX_LOOK = re.compile(r"(^|[\s{;])[a-z][a-z0-9_]*(\.[a-z0-9_]+)+(?=[\s;]|$)|%%?(laneid|warpid|smid|lanemask_\w+|clock\w*)\b")
_ASM = "(gnu_asm_expression assembly_code: (_) @code) @asm"
_SPLIT = re.compile(r"\\n|\\t|\n|;")
_STRING = "(string_literal) @s"


@rule(id="PTX001", lang="cuda", severity="error",
      trigger=any_of(["asm"]))
def inline_asm(unit: SourceFile, ctx: RuleContext) -> Iterator[Hit]:
    catalog = {(b.view.base, b.node.start_byte): b for b in ptx_catalog.blocks(unit)}
    for view in patterns.views(unit):
        for m in view.src.matches(_ASM):
            statement, code = m["asm"][0], m["code"][0]
            block = catalog.get((view.base, statement.start_byte))
            if block is not None and block.rewrite is not None:
                continue  # PTX002-PTX008 rewrite it
            ptx = "".join(view.src.text(s)[1:-1] for s in view.src.captures(_STRING, code))
            if not (_in_device_code(view.src, statement) or PTX_LOOK.search(ptx)):
                continue
            first = _first_instruction(ptx)
            named = f"`{first}`" if first else "an empty asm block"
            why = f" (not in porter's PTX catalog: {block.reason})" if block is not None and block.reason else ""
            yield Hit(*view.span(statement), f"inline PTX {named} does not assemble for AMDGCN (gfx950): rewrite it "
                      f"with a HIP builtin, plain C++ or GCN assembly{why}", detail=view.src.text(statement))


def _in_device_code(src: SourceFile, node) -> bool:
    function = patterns.enclosing(node, "function_definition")
    return function is not None and any(src.text(c) in ("__device__", "__global__") for c in function.children)


def _first_instruction(ptx: str) -> str:
    """The first instruction of a PTX block: not a brace, a directive (.reg), a label or a comment."""
    for piece in _SPLIT.split(ptx):
        piece = piece.strip().lstrip("{}").strip()
        if piece and not piece.startswith((".", "//", "}")) and not re.fullmatch(r"[\w$]+:", piece):
            return piece
    return ""
