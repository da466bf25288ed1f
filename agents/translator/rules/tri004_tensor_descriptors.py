"""TRI004: TMA tensor descriptors (Hopper/Blackwell) in a kernel ported to gfx950.

Why: `tl.make_tensor_descriptor`, `desc.load/store` and host-side
`triton.tools.tensor_descriptor.TensorDescriptor` are the TMA unit's interface on sm_90+.
gfx950 has no TMA: Triton 3.9's AMD backend rewrites descriptors to masked pointer loads
(`rewrite_tensor_descriptor_to_pointer`, used when the arch lacks TDM, which only gfx1250 has),
with the same zero fill out of bounds. The code compiles and computes the same numbers, so it is
kept, but a Triton older than the AMD descriptor lowering (some ROCm PyTorch wheels pin one)
rejects it, and the descriptor's block shape is then only a load shape, not a TMA box: the
microarch configs (TRI020) matter more than on Hopper. The suggested rewrite to
`tl.make_block_ptr` does not apply: Triton 3.9 removed block pointers in favour of descriptors.
The pre-3.3 experimental API (`tl._experimental_descriptor_load/_store` with a host
`create_1d/2d_tma_descriptor` built through cuTensorMapEncode) is NVIDIA-only: an error.

Before:
    desc = tl.make_tensor_descriptor(q_ptr, shape=[M, D], strides=[D, 1], block_shape=[BM, D])
After:
    desc = tl.make_tensor_descriptor(q_ptr, shape=[M, D], strides=[D, 1], block_shape=[BM, D])  # reported

Fix safety: none: there is nothing to change for Triton 3.9 on gfx950; the finding records that
the port depends on the AMD descriptor lowering (and that `triton.set_allocator` for the
descriptors' global scratch is needed on NVIDIA only).
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from porter import triton_source as src
from porter.pysyntax import PythonFile
from porter.rules import Hit, RuleContext, rule
from porter.state import Severity

LOWERED = {
    "triton.language.make_tensor_descriptor": "device-side tensor descriptor",
    "triton.language.load_tensor_descriptor": "descriptor load",
    "triton.language.store_tensor_descriptor": "descriptor store",
    "triton.tools.tensor_descriptor.TensorDescriptor": "host-side tensor descriptor",
    "triton.tools.tensor_descriptor.TensorDescriptor.from_tensor": "host-side tensor descriptor",
}
NVIDIA_ONLY = ("triton.language._experimental_descriptor_load", "triton.language._experimental_descriptor_store",
               "triton.tools.experimental_descriptor.")
MESSAGE = "{what}: no TMA on gfx950; Triton 3.9 lowers it to masked pointer loads (needs a Triton with AMD descriptor support)"


def _names_descriptors(unit: PythonFile) -> bool:
    # Every name of LOWERED and NVIDIA_ONLY spells `descriptor` or `Descriptor`.
    return b"escriptor" in unit.data


@rule(id="TRI004", lang="triton", severity="warning", fix="none", when=_names_descriptors)
def tensor_descriptors(unit: PythonFile, ctx: RuleContext) -> Iterator[Hit]:
    names = src.aliases(unit.module)
    for call in src.find(unit.module, cst.Call):
        full = src.call_name(call, names) or ""
        if full in LOWERED:
            s, e = unit.span(call)
            yield Hit(s, e, MESSAGE.format(what=LOWERED[full]))
        elif full.startswith(NVIDIA_ONLY):
            s, e = unit.span(call)
            yield Hit(s, e, f"{full}: NVIDIA's experimental TMA API (cuTensorMapEncode); rewrite to "
                            "tl.make_tensor_descriptor or pointer loads", severity=Severity.error)
