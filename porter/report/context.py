"""What a report names besides the state: the HIP header set, the translation tables, the toolchains.

`report_context(engine)` asks each toolchain for its version once per process; `engine` names the
translation tables the translator ported with, which porter.graph (the one engine module that
names the agents) reads from the translator and passes in.
"""

from __future__ import annotations

from functools import cache
from typing import TypedDict

from porter.toolchains import ToolchainMissing, clang_hip, nvcc, process


class ReportContext(TypedDict):
    """`build_report`'s keywords besides the state."""

    header_set: str
    engine: str
    toolchains: dict[str, str]  # each toolchain's version line, or why it is missing


@cache
def report_context(engine: str) -> ReportContext:
    """What the report names besides the state, for translation tables `engine`."""
    toolchains = {}
    for name, find in (("clang-hip", clang_hip.find_clang), ("nvcc", nvcc.find_nvcc)):
        try:
            exe = find()
        except ToolchainMissing as e:
            toolchains[name] = f"missing: {e}"
            continue
        out = process.run([exe, "--version"]).stdout
        toolchains[name] = next((line for line in out.splitlines() if "version" in line.lower() or "release" in line), str(exe)).strip()
    return ReportContext(header_set=clang_hip.HEADER_SET, engine=engine, toolchains=toolchains)
