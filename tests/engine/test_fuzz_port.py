"""Property-based fuzzing of `porter port` over generated trees (hypothesis; issue 14).

Each example is a small tree built from CUDA, build-file and Triton seeds, mutated at the byte
level, re-encoded, renamed (non-UTF-8 names too) and linked (symlink loops, links to
directories). For every tree: no traceback, an exit code porter documents (0, 1, 2 or 3), the
source tree unchanged, and porting the port changes nothing (a second port is idempotent).

Bounded for CI: PORTER_FUZZ_EXAMPLES examples (default 200: one to two minutes on one busy core).
"""

from __future__ import annotations

import codecs
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from porter.cli import app

runner = CliRunner()
EXAMPLES = int(os.environ.get("PORTER_FUZZ_EXAMPLES", "200"))
REPORTS = {"porter-report.md", "porter-report.json", "porter-report.sarif"}

SEEDS = {
    ".cu": [
        b"#include <cuda_runtime.h>\n__global__ void k(float* x) { __shared__ float s[256];\n"
        b"  int lane = threadIdx.x % 32; s[lane] = x[lane];\n"
        b"  for (int o = 16; o > 0; o /= 2) s[0] += __shfl_down_sync(0xffffffff, s[lane], o);\n  x[0] = s[0]; }\n"
        b"int main() { float* d; cudaMalloc(&d, 1024); k<<<1, 64>>>(d); cudaDeviceSynchronize(); return 0; }\n",
        b"__global__ void t(int* o) { unsigned m = __ballot_sync(0xffffffff, threadIdx.x & 1);\n"
        b"  asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(o[0])); o[1] = m; }\n",
    ],
    ".cpp": [b"#include <cuda_runtime.h>\nvoid f() { cudaStream_t s; cudaStreamCreate(&s); cudaStreamDestroy(s); }\n"],
    "CMakeLists.txt": [b"cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\n"
                       b"set(CMAKE_CUDA_ARCHITECTURES 80)\nadd_executable(p main.cu)\n"],
    "Makefile": [b"NVCC ?= nvcc\nall:\n\t$(NVCC) -arch=sm_80 -o p main.cu\n"],
    "setup.py": [b"from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                 b"setup(name='x', ext_modules=[CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': ['-O3']})])\n"],
    ".py": [b"import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n"
            b"    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    tl.store(x_ptr + i, tl.load(x_ptr + i) * 2, mask=i < n)\n"],
}
ODD_BYTES = [b"\0", b"\xff", b"\xe9", b"\xa9", b"<<<", b">>>", b"{", b"}", b"(", b"\"", b"/*", b"\n", b"\r\n", b"0x1'0",
             b"__shared__ float q[010];", b"\xef\xbb\xbf", b"\\\n", b"#define W 32\n"]


@st.composite
def mutated(draw: st.DrawFn, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["insert", "delete", "flip"]))
        if op == "insert":
            data[at:at] = draw(st.sampled_from(ODD_BYTES) | st.binary(min_size=1, max_size=4))
        elif op == "delete" and data:
            del data[at:at + draw(st.integers(1, 8))]
        elif data:
            data[min(at, len(data) - 1)] ^= draw(st.integers(1, 255))
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8", "bom", "utf-16", "latin-1"]))
    if encoding == "bom":
        return codecs.BOM_UTF8 + bytes(data)
    if encoding in ("utf-16", "latin-1"):
        text = bytes(data).decode("utf-8", "replace")
        try:
            return text.encode(encoding)
        except UnicodeEncodeError:
            return bytes(data)
    return bytes(data)


@st.composite
def trees(draw: st.DrawFn) -> list[tuple[bytes, bytes | str]]:
    """(relative path as bytes, content bytes, or "link:TARGET" for a symbolic link)."""
    entries: list[tuple[bytes, bytes | str]] = []
    for i in range(draw(st.integers(1, 4))):
        suffix = draw(st.sampled_from(sorted(SEEDS)))
        content = draw(mutated(draw(st.sampled_from(SEEDS[suffix]))))
        folder = draw(st.sampled_from([b"", b"src/", b"src/deep/", b"include/"]))
        if suffix in ("CMakeLists.txt", "Makefile", "setup.py"):
            name = suffix.encode()
        else:
            name = draw(st.sampled_from([b"k", b"main", b"caf\xe9", b"a b", b"x" * 40])) + suffix.encode()
        entries.append((folder + name.replace(b"k", str(i).encode(), 0), content))
    for kind in draw(st.lists(st.sampled_from(["file loop", "dir up", "dir self", "file alias", "dangling"]),
                              max_size=2, unique=True)):
        if kind == "file loop":
            entries += [(b"l1.cu", "link:l2.cu"), (b"l2.cu", "link:l1.cu")]
        elif kind == "dir up":
            entries += [(b"src/up", "link:..")]
        elif kind == "dir self":
            entries += [(b"src/self", "link:../src")]
        elif kind == "file alias" and entries and not isinstance(entries[0][1], str):
            entries += [(b"alias" + os.path.splitext(entries[0][0])[1], "link:" + os.fsdecode(entries[0][0]))]
        else:
            entries += [(b"gone.h", "link:nowhere.h")]
    return entries


def _write(root: Path, entries: list[tuple[bytes, bytes | str]]) -> None:
    base = os.fsencode(root)
    for rel, content in entries:
        path = os.path.join(base, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.lexists(path):
            continue
        if isinstance(content, str):
            os.symlink(os.fsencode(content[len("link:"):]), path)
        else:
            with open(path, "wb") as fh:
                fh.write(content)


def _digest(root: Path, *, skip_reports: bool = False) -> dict[bytes, str]:
    """Every file and link of a tree by relative path: content hash, or the link's target."""
    out: dict[bytes, str] = {}
    base = os.fsencode(root)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = [d for d in dirnames if d != b".porter"]
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, base)
            if skip_reports and os.fsdecode(rel) in REPORTS:
                continue
            if os.path.islink(path):
                out[rel] = "link:" + os.fsdecode(os.readlink(path))
            else:
                with open(path, "rb") as fh:
                    out[rel] = hashlib.sha256(fh.read()).hexdigest()
    return out


def _port(src: Path, out: Path) -> int:
    result = runner.invoke(app, ["port", str(src), "-o", str(out), "--no-verify"], terminal_width=200)
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1, 2, 3), result.output
    return result.exit_code


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(trees())
def test_porting_a_generated_tree_never_crashes_keeps_the_source_and_is_idempotent(entries) -> None:
    work = Path(tempfile.mkdtemp(prefix="porter-fuzz-"))
    try:
        src, out, again = work / "src", work / "out", work / "again"
        src.mkdir()
        _write(src, entries)
        before = _digest(src)
        code = _port(src, out)
        assert _digest(src) == before, "the source tree changed"
        if code == 2:
            return
        ported = _digest(out, skip_reports=True)
        shutil.copytree(out, work / "port", symlinks=True, ignore=shutil.ignore_patterns(".porter", *REPORTS))
        _port(work / "port", again)
        assert _digest(again, skip_reports=True) == ported, "porting the port changed it"
    finally:
        shutil.rmtree(work, ignore_errors=True)
