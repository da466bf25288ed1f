"""BLD006: a CMakeLists.txt that reaches outside the project tree.

Why: porter ports the tree it is given. `include_directories(../../shared)`,
`add_subdirectory(../lib lib)` or `target_include_directories(app PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/../../x)`
that climb above the project root name files porter never saw: their CUDA code stays CUDA, and
the port builds only where the original's neighbours sit next to it. Each such path is reported
with where it points.

Before:
    include_directories(../../../Common)
After:
    include_directories(../../../Common)

Fix safety: report only (the rule edits nothing). Paths from other variables are not judged.
"""

from __future__ import annotations

from collections.abc import Iterator

from porter.agents.translator.buildfiles import argument_value, arguments, cmake_tree, commands, outside_tree
from porter.rules import Hit, RuleContext, TextFile, rule
from porter.state import Severity

_PATH_COMMANDS = ("include_directories", "target_include_directories", "add_subdirectory", "include",
                  "link_directories", "target_link_directories")


@rule(id="BLD006", lang="cmake", severity="warning")
def cmake_outside_tree(unit: TextFile, ctx: RuleContext) -> Iterator[Hit]:
    data = unit.data
    for name, cmd in commands(cmake_tree(data)):
        if name not in _PATH_COMMANDS:
            continue
        for arg in arguments(cmd):
            start, end = argument_value(arg)
            where = outside_tree(unit.path, data[start:end].decode())
            if where:
                yield Hit(arg.start_byte, arg.end_byte, f"{where} is outside the ported tree: its code is not "
                          "ported; port that folder too", severity=Severity.warning)
