"""LDS bank-conflict model: how many times one wavefront's shared-memory access is serialised.

Pure functions of (per-lane byte addresses, access width, target). The LDS rules (LDS003) use
them to score a `__shared__` layout before and after a padding or XOR-swizzle rewrite; the
perfmodel may use them too. Nothing here reads files or trees.

The model, and where each fact comes from (see ../shared/HARDWARE.md; "?" marks a figure that
is third-party or derived, to be re-checked):
- gfx942 (CDNA3): 32 banks of 4 bytes; bank = (byte address / 4) mod 32. Source: AMD ROCm blog
  "Avoiding LDS Bank Conflicts on AMD GPUs Using CK-Tile" (rocm.blogs.amd.com, 2025) and CK's
  "Understanding AMD GPU LDS and Bank Conflicts" (rocm.docs.amd.com/projects/composable_kernel).
- A 64-lane access is served in phases; only lanes of one phase can conflict. ds_write_b128 /
  ds_read_b128: 8 phases of 8 lanes (CK docs, above). b32: 2 phases of 32 lanes (AMD APP
  OpenCL optimisation guide, "threads 0-31 are checked for conflicts as are threads 32-63").
  b64: 4 phases of 16 lanes (?: the same guide says float2 accesses should be conflict-free per
  quarter wave; derived here as 128 B per clock / 8 B per lane).
  All three are one rule: a phase moves banks x 4 bytes, so lanes per phase = banks x 4 / width.
- gfx950 (CDNA4): 64 banks of 4 bytes (?: reported by a third party; CK's docs say "32 or 64
  banks depending on the hardware architecture" without naming which). Phases follow the same
  rule (?): b32 64 lanes in one phase, b64 2 x 32, b128 4 x 16.
- Lanes of one phase reading the same dword are served once (broadcast); distinct dwords on
  one bank are serialised. The conflict degree of a phase is the largest number of distinct
  dwords any one bank must serve; 1 means conflict-free.
- An access wider than 4 bytes covers width / 4 consecutive dwords, so consecutive banks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from porter import hardware

WAVE = hardware.get(hardware.TARGET).wave_size  # lanes in a CDNA wavefront (64 on gfx9)
BANK_BYTES = 4


@dataclass(frozen=True)
class LdsTarget:
    """The LDS of one GPU target, as the bank model needs it."""

    arch: str
    banks: int
    lds_bytes: int  # per workgroup
    source: str

    def lanes_per_phase(self, width: int) -> int:
        """Lanes served together by one access of `width` bytes per lane (see the module docstring)."""
        if width not in (1, 2, 4, 8, 16):
            raise ValueError(f"LDS access width {width}: expected 1, 2, 4, 8 or 16 bytes")
        return min(WAVE, self.banks * BANK_BYTES // max(width, BANK_BYTES))

    def phases(self, width: int) -> int:
        return WAVE // self.lanes_per_phase(width)

    @classmethod
    def of(cls, arch: str) -> LdsTarget:
        """The LDS of an AMD target, from its device data (porter.hardware)."""
        spec = hardware.get(arch).spec
        return cls(arch, banks=int(spec.lds_banks.value), lds_bytes=int(spec.lds_bytes_per_workgroup.value),
                   source=f"{spec.lds_banks.source}; {spec.lds_bytes_per_workgroup.source}")


GFX942 = LdsTarget.of("gfx942")
GFX950 = LdsTarget.of("gfx950")
TARGETS = (GFX950, GFX942)


@dataclass(frozen=True)
class Conflicts:
    """One access scored on one target."""

    arch: str
    width: int
    per_phase: tuple[int, ...]  # degree of each phase (0 where no lane of the phase is active)

    @property
    def degree(self) -> int:
        """The worst phase: how many times its busiest bank is used; 1 is conflict-free."""
        return max(self.per_phase, default=0)

    @property
    def cycles(self) -> int:
        """Bank cycles for the whole wave: the phases run one after another."""
        return sum(self.per_phase)


Address = int | None  # a lane's byte address; None for an inactive lane


def conflicts(addresses: Sequence[Address], width: int, target: LdsTarget) -> Conflicts:
    """Score one wavefront access: `addresses[lane]` is lane's byte address, `width` bytes each."""
    if len(addresses) != WAVE:
        raise ValueError(f"expected {WAVE} lane addresses, got {len(addresses)}")
    per_lane = max(1, width // BANK_BYTES)  # dwords one lane covers
    n = target.lanes_per_phase(width)
    degrees = []
    for first in range(0, WAVE, n):
        banks: dict[int, set[int]] = {}
        for addr in addresses[first:first + n]:
            if addr is None:
                continue
            for d in range(addr // BANK_BYTES, addr // BANK_BYTES + per_lane):
                banks.setdefault(d % target.banks, set()).add(d)
        degrees.append(max((len(s) for s in banks.values()), default=0))
    return Conflicts(target.arch, width, tuple(degrees))


def affine(base: int, stride: int, lanes: int = WAVE) -> list[Address]:
    """Byte addresses base + stride * lane, the first `lanes` lanes active."""
    return [base + stride * lane if lane < lanes else None for lane in range(WAVE)]


def conflict_degree(base: int, stride: int, width: int, target: LdsTarget) -> int:
    """Degree of an access whose address is affine in the lane id (stride and base in bytes)."""
    return conflicts(affine(base, stride), width, target).degree


# --- 2-D tiles: padding and XOR swizzle -------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """A row-major 2-D shared array: `row_elems` elements per row (padding included).

    With `xor` = k > 0, element (row, col) is stored at column col ^ (row % k): the XOR
    pre-shuffle AMD's CK recommends over padding (HARDWARE.md, CDNA3 LDS). k must be a power of
    two no larger than the logical width, so the stored column stays inside the row.
    """

    rows: int
    row_elems: int
    elem_bytes: int
    xor: int = 0

    def __post_init__(self) -> None:
        if self.xor and (self.xor & (self.xor - 1) or self.xor > self.row_elems):
            raise ValueError(f"xor swizzle k={self.xor}: a power of two no larger than the row ({self.row_elems})")

    def offset(self, row: int, col: int) -> int:
        if self.xor:
            col ^= row % self.xor
        return (row * self.row_elems + col) * self.elem_bytes

    @property
    def bytes(self) -> int:
        return self.rows * self.row_elems * self.elem_bytes

    def describe(self) -> str:
        swz = f", col ^ (row % {self.xor})" if self.xor else ""
        return f"[{self.rows}][{self.row_elems}]{swz}"


Cell = tuple[int, int] | None  # a lane's (row, col); None for an inactive lane


def layout_conflicts(layout: Layout, cells: Sequence[Cell], target: LdsTarget) -> Conflicts:
    """Score one access of a 2-D tile, given each lane's (row, col)."""
    addrs = [None if c is None else layout.offset(*c) for c in cells]
    return conflicts(addrs, layout.elem_bytes, target)


def candidates(layout: Layout, logical_cols: int, max_pad: int = 4) -> list[Layout]:
    """Rewrites worth scoring for a tile whose code uses columns [0, logical_cols).

    Paddings logical_cols + 0..max_pad, and (for a power-of-two width) the XOR swizzle
    col ^ (row % logical_cols) on the unpadded row.
    """
    found = [Layout(layout.rows, logical_cols + p, layout.elem_bytes) for p in range(max_pad + 1)]
    if logical_cols & (logical_cols - 1) == 0:
        found.append(Layout(layout.rows, logical_cols, layout.elem_bytes, xor=logical_cols))
    return [c for c in found if c != layout]


@dataclass(frozen=True)
class Score:
    """A layout scored over a set of accesses on every target: per-access degrees by arch."""

    layout: Layout
    degrees: dict[str, tuple[int, ...]]

    def total(self, arch: str) -> int:
        return sum(self.degrees[arch])


def score(layout: Layout, accesses: Sequence[Sequence[Cell]], targets: Sequence[LdsTarget] = TARGETS) -> Score:
    return Score(layout, {t.arch: tuple(layout_conflicts(layout, a, t).degree for a in accesses) for t in targets})


def best_rewrite(current: Layout, logical_cols: int, accesses: Sequence[Sequence[Cell]],
                 primary: LdsTarget = GFX950, secondary: LdsTarget = GFX942) -> tuple[Score, Score | None]:
    """(score of `current`, the best candidate's score or None when nothing beats it).

    A candidate must have fewer summed conflicts on `primary` and no more on `secondary`; ties
    go to padding over swizzling (the smaller edit), then to fewer bytes.
    """
    now = score(current, accesses, (primary, secondary))
    best = None
    for cand in candidates(current, logical_cols):
        s = score(cand, accesses, (primary, secondary))
        if s.total(primary.arch) >= now.total(primary.arch) or s.total(secondary.arch) > now.total(secondary.arch):
            continue
        key = (s.total(primary.arch), s.total(secondary.arch), bool(cand.xor), cand.bytes)
        if best is None or key < best[0]:
            best = (key, s)
    return now, best[1] if best else None


def cells(block: tuple[int, int, int], index: Callable[[int, int, int], tuple[int, int]], wave: int = 0) -> list[Cell]:
    """Each lane's (row, col) for an index function of (threadIdx.x, .y, .z)."""
    bx, by, bz = block
    threads = bx * by * bz
    out: list[Cell] = []
    for lane in range(WAVE):
        t = wave * WAVE + lane
        if t >= threads:
            out.append(None)
            continue
        out.append(index(t % bx, (t // bx) % by, t // (bx * by)))
    return out
