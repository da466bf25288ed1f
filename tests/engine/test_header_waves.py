"""porter.rules.run_on_files: headers that name other headers run in waves, each seeing exactly what
it saw when they ran one after the other in order (every earlier header, as it left it)."""

from __future__ import annotations

import pytest

from porter import cluster
from porter.rules import (
    RuleContext,
    _FileJob,
    _header_views,
    _is_header,
    _left,
    _names_no_header,
    _read,
    _rules_on_file,
    rule_lang,
    rules_for,
    run_on_files,
)
from porter.state import FileKind, FileRecord

BASE = b"""#pragma once
#include <cuda_runtime.h>
struct Pair { float a, b; };
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) return; } while (0)
"""
OPS = b"""#pragma once
#include "base.cuh"
__device__ Pair shuffle_pair(Pair p, int lane) { return __shfl_sync(0xffffffff, p, lane); }
__device__ int lo(int a, int b) { return min(a, b); }
"""
MID = b"""#pragma once
#include "../common/ops.cuh"
__global__ void mid(float* o) { o[threadIdx.x] = lo(1, 2); cudaDeviceSynchronize(); }
"""
TOP = b"""#pragma once
#include "mid.h"
#include "later.h"
inline void top(float* p) { CHECK(cudaMalloc(&p, 4)); mid<<<1, 32>>>(p); }
"""
LATER = b"""#pragma once
#include "top.h"
__device__ float warp_sum(float v) { return __shfl_down_sync(0xffffffff, v, 1) + v; }
"""
ANY = b"""#pragma once
// names a folder, "lib/", which could be any header's: it sees every earlier one
#include "lib/"
#include "ops.cuh"
__device__ Pair again(Pair p) { return __shfl_xor_sync(0xffffffff, p, 1); }
"""
ALONE = b"""#pragma once
__device__ int alone(int v) { return __shfl_sync(0xffffffff, v, 0) + max(v, 1); }
"""
UNIT = b"""#include "app/top.h"
#include "common/any.cuh"
int main() { float* p; cudaMalloc(&p, 4); top(p); cudaFree(p); return 0; }
"""
KERNEL = b"""__global__ void k(float* o) { o[0] = __shfl_down_sync(0xffffffff, o[0], 1); }
int main() { k<<<1, 32>>>(nullptr); return 0; }
"""

TREE = {
    "common/base.cuh": BASE,
    "common/ops.cuh": OPS,
    "app/mid.h": MID,
    "app/top.h": TOP,
    "app/later.h": LATER,
    "common/any.cuh": ANY,
    "common/alone.cuh": ALONE,
    "main.cu": UNIT,
    "k.cu": KERNEL,
}


def _records(tree: dict[str, bytes]) -> list[FileRecord]:
    return [FileRecord(path=p, kind=FileKind.cuda if p.endswith((".cu", ".cuh")) else FileKind.cpp) for p in tree]


def _one_after_the_other(agent: str, records: list[FileRecord], tree: dict[str, bytes]):
    """run_on_files as it ran before the waves: the headers that name no header in one map, the
    others here in order, each seeing every earlier header as it left it; then the other files."""
    ctx = RuleContext()
    from dataclasses import replace

    from porter.symbols import ProjectNames

    ctx = replace(ctx, tree=dict(tree), project=ProjectNames(tree.values()))
    read = tree.__getitem__
    hdrs = [r for r in records if _is_header(r.path) and (lang := rule_lang(r)) is not None and rules_for(agent, lang)]
    hdr_data = {r.path: _read(read, r.path) for r in hdrs}
    done = {}
    for r in hdrs:
        if _names_no_header(r.path, hdr_data[r.path], hdr_data):
            done[r.path] = _rules_on_file(_FileJob(agent, ctx, (), {}), (r, hdr_data[r.path]))
    for r in hdrs:
        if r.path not in done:
            done[r.path] = _rules_on_file(_FileJob(agent, ctx, (), _left(hdrs, done)), (r, hdr_data[r.path]))
    job = _FileJob(agent, ctx, (), _left(hdrs, done), "ref", data=False)
    for r in records:
        if r.path not in done and (lang := rule_lang(r)) is not None and rules_for(agent, lang):
            done[r.path] = _rules_on_file(job, (r, read(r.path)))
    ordered = [done[r.path] for r in records if r.path in done]
    from porter.rules import _made

    return [_made(f) for out in ordered for f in out.findings], [p for out in ordered for p in out.patches]


def _dump(result):
    findings, patches = result
    return [f.model_dump() for f in findings], [p.model_dump() for p in patches]


def test_views_follow_names_to_earlier_headers_only() -> None:
    order = ["common/base.cuh", "common/ops.cuh", "app/mid.h", "app/top.h", "app/later.h", "common/any.cuh",
             "common/alone.cuh"]
    alone = {p for p in order if _names_no_header(p, TREE[p], TREE)}
    assert alone == {"common/base.cuh", "common/alone.cuh"}
    views = _header_views(order, TREE, alone)
    assert views["common/base.cuh"] == () and views["common/alone.cuh"] == ()
    assert views["common/ops.cuh"] == ("common/base.cuh",)
    assert views["app/mid.h"] == ("common/base.cuh", "common/ops.cuh")  # through ops.cuh, transitively
    # top.h names later.h, which comes after it: one after the other, it did not see it yet
    assert views["app/top.h"] == ("common/base.cuh", "common/ops.cuh", "app/mid.h")
    assert views["app/later.h"] == ("common/base.cuh", "common/ops.cuh", "app/mid.h", "app/top.h")
    assert views["common/any.cuh"] == tuple(order[:5])  # "lib/": any earlier header


def test_a_name_matches_by_its_last_component_wherever_it_resolves() -> None:
    # "x/util.h" resolves to no header here, but a trigger asks by the last component: both util.h are seen
    tree = {"a/util.h": b"int a;\n", "b/util.h": b"int b;\n", "c/use.h": b'#include "x/util.h"\n#include "../a/util.h"\n'}
    views = _header_views(list(tree), tree, set())
    assert views["c/use.h"] == ("a/util.h", "b/util.h")


def test_a_header_that_cannot_be_read_waits_on_nothing() -> None:
    tree = {"a.h": b'#include "b.h"\n', "b.h": OSError("gone")}
    assert _header_views(["b.h", "a.h"], tree, set()) == {"b.h": (), "a.h": ("b.h",)}


@pytest.mark.parametrize("agent", ["translator", "microarch"])
def test_waves_give_what_one_after_the_other_gave(agent: str) -> None:
    records = _records(TREE)
    expected = _dump(_one_after_the_other(agent, records, TREE))
    got = _dump(run_on_files(agent, records, TREE.__getitem__, RuleContext()))
    assert got == expected
    assert expected[0]  # the tree gives this agent findings to compare


def test_waves_on_worker_processes_give_the_same() -> None:
    records = _records(TREE)
    expected = _dump(_one_after_the_other("translator", records, TREE))
    dispatcher = cluster.LocalDispatcher(processes=2)  # a map under 8 items or 1 MiB stays in the driver...
    try:
        with cluster.using(dispatcher):
            got = _dump(run_on_files("translator", records, TREE.__getitem__, RuleContext()))
        # ... but not a map of headers, however small (waves of one among them): the two .cu files stayed
        assert dispatcher.offloaded == len([p for p in TREE if _is_header(p)]) == 7
    finally:
        dispatcher.close()
    assert got == expected


def test_project_names_are_scanned_once_per_process_whatever_the_copies(monkeypatch) -> None:
    import pickle

    from porter import symbols

    calls = []
    real = symbols.project_names
    monkeypatch.setattr(symbols, "project_names", lambda files: calls.append(1) or real(files))
    names = symbols.ProjectNames([BASE, OPS])  # the driver's: never asked here
    first = pickle.loads(pickle.dumps(names))  # a map's copy in a worker: scans when asked
    assert "CHECK" in first and "shuffle_pair" in first and calls == [1]
    second = pickle.loads(pickle.dumps(names))  # a later map's copy in the same worker: the names it found
    assert set(second) == set(first) and calls == [1]
    other = pickle.loads(pickle.dumps(symbols.ProjectNames([BASE])))  # another run's: its own scan
    assert "shuffle_pair" not in other and calls == [1, 1]
