"""The entries of the inline-PTX catalog (agents/microarch/ptx_catalog.py), one function per opcode family.

Each entry registers itself with `ptx_eval.entry` (ptx_catalog imports this module for that).
It names its sources: the PTX ISA section (NVIDIA PTX ISA 8.5, by section title) for what the
instruction computes, and the AMD side (HIP's amd_device_functions.h, clang's AMDGPU builtins
in BuiltinsAMDGPU.def, the AMD Instinct CDNA3 ISA reference) for what replaces it. An entry
either builds the C++ expression for its destination or raises NotCovered, which leaves the
whole block to PTX001. Anything whose AMD form would differ for some input stays uncovered or
goes through an exact helper in porter's compat header (shims/compat/ptx_*.h).
"""

from __future__ import annotations

import re

from porter.agents.microarch.ptx_eval import SLEEP_CLOCK_MHZ, SLEEP_MAX, Eval, NotCovered, entry

LANEMASK_NOTE = "a lane mask is 64-bit on a wave64: a 32-bit destination keeps only lanes 0-31"
BALLOT_NOTE = "a ballot is 64-bit on a wave64: a 32-bit destination keeps only lanes 0-31"
SHUFFLE_NOTE = "a full-warp shuffle becomes a full-wave one (64 lanes on gfx950), as HIP's __shfl_*_sync"
WARPID_NOTE = "%warpid becomes the wave's index in its workgroup (PTX documents %warpid as volatile; use %tid)"


def _args(args: tuple[str, ...], n: int, what: str) -> tuple[str, ...]:
    if len(args) != n:
        raise NotCovered(f"{what} with {len(args)} operands")
    return args


# ---- PTX002: special registers ----------------------------------------------------------------
# PTX ISA 8.5, "Special Registers": %laneid, %warpid, %nwarpid, %smid, %gridid, %clock,
# %clock_hi, %clock64, %globaltimer(_lo/_hi). AMD side: HIP amd_device_functions.h (__lane_id is
# mbcnt_hi(~0, mbcnt_lo(~0, 0)); __smid reads HW_ID's CU and SE fields; clock64 is S_MEMTIME, the
# shader clock; wall_clock64 is S_MEMREALTIME, a constant-rate counter), clang's
# __builtin_amdgcn_dispatch_id (the HSA dispatch packet's unique id).
SPECIAL = {
    "%laneid": ("__lane_id()", False),
    "%warpid": ("((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) / warpSize", False),
    "%nwarpid": ("(blockDim.x * blockDim.y * blockDim.z + warpSize - 1) / warpSize", False),
    "%smid": ("__smid()", False),
    "%gridid": ("__builtin_amdgcn_dispatch_id()", False),
    "%clock": ("(unsigned int)clock64()", True),
    "%clock_hi": ("(unsigned int)((unsigned long long)clock64() >> 32)", True),
    "%clock64": ("clock64()", True),
    # ns since an epoch; porter_compat.h scales wall_clock64() (shims/compat/ptx_timers.h)
    "%globaltimer": ("__porter_globaltimer()", True),
    "%globaltimer_lo": ("(unsigned int)__porter_globaltimer()", True),
    "%globaltimer_hi": ("(unsigned int)(__porter_globaltimer() >> 32)", True),
}

# ---- PTX003: lane masks -------------------------------------------------------------------------
# PTX ISA 8.5, "Special Registers": %lanemask_eq/le/lt/ge/gt, the lanes below/above the caller
# regardless of which are active. HIP's __lanemask_lt/__lanemask_gt AND in the active lanes, so
# they are not used; the shifts are exact for lanes 0-63 (2ull << 63 wraps to 0, 0 - 1 = ~0).
LANEMASK = {
    "%lanemask_eq": "(1ull << __lane_id())",
    "%lanemask_lt": "((1ull << __lane_id()) - 1)",
    "%lanemask_le": "((2ull << __lane_id()) - 1)",
    "%lanemask_gt": "(~0ull << __lane_id() << 1)",
    "%lanemask_ge": "(~0ull << __lane_id())",
}


@entry(r"mov\.[bus](32|64)")
def mov(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    """mov d, %sreg (PTX002/PTX003) or a register copy (glue). PTX ISA 8.5, "Data Movement: mov"."""
    d, s = _args(args, 2, "mov")
    if s in SPECIAL:
        text, effect = SPECIAL[s]
        ev.use("special", f"mov {s}", WARPID_NOTE if s == "%warpid" else "")
        ev.set(d, text, simple=re.fullmatch(r"\w+\(\)", text) is not None, effect=effect)
    elif s in LANEMASK:
        ev.use("lanemask", f"mov {s}", LANEMASK_NOTE)
        ev.set(d, LANEMASK[s], simple=True)
    elif s.startswith("%"):
        raise NotCovered(f"special register {s} is not in the catalog")
    elif s.startswith("{"):
        raise NotCovered("mov of a vector")
    else:
        ev.use("glue", "mov")
        ev.write(d, ev.value(s))


# ---- glue: predicates and selects that wrap a catalog instruction -------------------------------
# PTX ISA 8.5, "Comparison and Selection": setp, selp; "Integer Arithmetic": popc.


@entry(r"setp\.(eq|ne)\.[bus](16|32|64)")
def setp(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    p, a, b = _args(args, 3, "setp")
    ev.use("glue", "setp")
    ev.set(p, f"{ev.read(a)} {'!=' if m.group(1) == 'ne' else '=='} {ev.read(b)}", kind="pred")


@entry(r"selp\.[busf](16|32|64)")
def selp(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    d, a, b, p = _args(args, 4, "selp")
    ev.use("glue", "selp")
    ev.set(d, f"{ev.read_pred(p)} ? {ev.read(a)} : {ev.read(b)}")


@entry(r"popc\.b(32|64)")
def popc(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    d, a = _args(args, 2, "popc")
    ev.use("glue", "popc")
    ev.set(d, f"{'__popc' if m.group(1) == '32' else '__popcll'}({ev.arg(a)})", simple=True)


# ---- PTX004: cache-hinted global loads and stores -----------------------------------------------
# PTX ISA 8.5, "Data Movement: ld", "ld.global.nc", "st" (cache operators: Cache Operators table).
# AMD side: HIP hip_ldg.h (__ldg is a plain load on CDNA: there is no separate read-only path),
# porter's SHIM001 piece (shims/compat/cache_hint_memory.h: .cs/.lu are nontemporal accesses,
# clang __builtin_nontemporal_load/store, the nt bit of global_load/global_store).
C_TYPES = {
    "f32": "float", "f64": "double", "b32": "unsigned int", "u32": "unsigned int", "s32": "int",
    "b64": "unsigned long long", "u64": "unsigned long long", "s64": "long long",
    "b16": "unsigned short", "u16": "unsigned short", "s16": "short",
    "b8": "unsigned char", "u8": "unsigned char", "s8": "signed char",
}
# Vector types __ldg has an overload for (HIP hip_ldg.h).
VECTOR_TYPES = {
    ("v2", "f32"): "float2", ("v4", "f32"): "float4", ("v2", "f64"): "double2",
    ("v2", "u32"): "uint2", ("v4", "u32"): "uint4", ("v2", "b32"): "uint2", ("v4", "b32"): "uint4",
    ("v2", "s32"): "int2", ("v4", "s32"): "int4", ("v2", "u64"): "ulonglong2", ("v2", "b64"): "ulonglong2",
}
_LOAD_HINT = {"cs": "__ldcs", "lu": "__ldlu", "cg": "__ldcg", "cv": "__ldcv", "ca": "", "nc": "__ldg"}
_STORE_HINT = {"cs": "__stcs", "cg": "__stcg", "wt": "__stwt", "wb": ""}
# Eviction-priority and prefetch-size qualifiers are performance hints with no value semantics.
_HINT_QUALIFIER = re.compile(r"^(L1::(evict_normal|evict_unchanged|evict_first|evict_last|no_allocate)|"
                             r"L2::(evict_normal|evict_first|evict_last|64B|128B|256B))$")


def _qualifiers(opcode: str, head: str) -> tuple[list[str], str | None, str]:
    """(cache operators, vector width, element type) of ld.global.* / st.global.*."""
    parts = opcode.split(".")[2:]
    if not parts or parts[-1] not in C_TYPES:
        raise NotCovered(f"{head} type in `{opcode}`")
    ctype, parts = parts[-1], parts[:-1]
    vec = parts.pop() if parts and parts[-1] in ("v2", "v4") else None
    ops = []
    for q in parts:
        if _HINT_QUALIFIER.match(q):
            continue
        ops.append(q)
    return ops, vec, ctype


def _address(ev: Eval, arg: str) -> str:
    m = re.fullmatch(r"\[(\$\d+)\]", arg)
    if not m:
        raise NotCovered(f"address `{arg}` (porter handles [%n] only)")
    return ev.arg(m.group(1))


@entry(r"ld\.global(\.[\w:]+)+")
def load(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    d, a = _args(args, 2, "ld")
    ops, vec, ctype = _qualifiers(m.group(0), "ld")
    if len(ops) > 1 or any(op not in _LOAD_HINT for op in ops):
        raise NotCovered(f"`{m.group(0)}`: qualifiers {ops}")
    fn = _LOAD_HINT[ops[0]] if ops else ""
    if vec:
        if fn not in ("", "__ldg") or (vec, ctype) not in VECTOR_TYPES:
            raise NotCovered(f"vector load `{m.group(0)}`")
        vtype = VECTOR_TYPES[vec, ctype]
        dests = re.fullmatch(r"\{(.*)\}", d)
        names = dests.group(1).split(",") if dests else []
        if len(names) != int(vec[1]):
            raise NotCovered(f"vector destination `{d}`")
        pointer = f"reinterpret_cast<const {vtype}*>({_address(ev, a)})"
        load_text = f"__ldg({pointer})" if fn else f"*{pointer}"
        ev.touched.clear()
        ev.temps.append(f"const {vtype} __porter_v = {load_text}")
        for name, lane in zip(names, "xyzw"):
            ev.set(name, f"__porter_v.{lane}", simple=True)
    else:
        pointer = f"reinterpret_cast<const {C_TYPES[ctype]}*>({_address(ev, a)})"
        ev.set(d, f"{fn}({pointer})" if fn else f"*{pointer}", simple=bool(fn), effect=True)
    ev.use("cache", f"ld.global{'.' + ops[0] if ops else ''}")


@entry(r"st\.global(\.[\w:]+)+")
def store(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    a, v = _args(args, 2, "st")
    ops, vec, ctype = _qualifiers(m.group(0), "st")
    if vec or len(ops) > 1 or any(op not in _STORE_HINT for op in ops):
        raise NotCovered(f"`{m.group(0)}`")
    fn = _STORE_HINT[ops[0]] if ops else ""
    pointer = f"reinterpret_cast<{C_TYPES[ctype]}*>({_address(ev, a)})"
    value = ev.arg(v)
    ev.effect(f"{fn}<{C_TYPES[ctype]}>({pointer}, {value})" if fn else f"*{pointer} = {value}")
    ev.use("cache", f"st.global{'.' + ops[0] if ops else ''}")


# ---- PTX005: warp shuffles and votes -------------------------------------------------------------
# PTX ISA 8.5, "Data Movement: shfl.sync" (and the deprecated shfl), "Parallel Synchronization:
# vote.sync", "activemask". AMD side: HIP amd_warp_functions.h (__shfl, __shfl_up, __shfl_down,
# __shfl_xor over ds_bpermute with a width that splits the wave into segments; __ballot, __any,
# __all over the 64-bit exec mask) and porter's overlay __activemask (64-bit).
_SHFL = {"idx": "__shfl", "up": "__shfl_up", "down": "__shfl_down", "bfly": "__shfl_xor"}


@entry(r"shfl(\.sync)?\.(idx|up|down|bfly)\.b32")
def shfl(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    synced, mode = bool(m.group(1)), m.group(2)
    d, a, b, c, *mask = _args(args, 5 if synced else 4, m.group(0))
    if "|" in d:
        raise NotCovered("shfl with a predicate destination")
    code = ev.const(c)
    if code is None:
        raise NotCovered("shfl with a run-time clamp/segment operand")
    # c packs the clamp (bits 4:0) and the segment mask (bits 12:8); CUDA's __shfl*_sync use
    # ((32 - width) << 8) | (up ? 0 : 0x1f). Other encodings have no HIP form.
    width = 32 - ((code >> 8) & 0x1F)
    if code & ~0x1F1F or width & (width - 1) or (code & 0x1F) != (0 if mode == "up" else 0x1F):
        raise NotCovered(f"shfl clamp/segment operand {code:#x}")
    if mask:
        ev.discard(mask[0])  # the member mask: CDNA has no independent thread scheduling
    extra = f", {width}" if width < 32 else ""
    ev.use("warp", f"shfl.{mode}", SHUFFLE_NOTE if width == 32 else "")
    ev.set(d, f"{_SHFL[mode]}({ev.arg(a)}, {ev.arg(b)}{extra})", simple=True)


@entry(r"vote(\.sync)?\.(ballot\.b32|any\.pred|all\.pred|uni\.pred)")
def vote(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    synced, mode = bool(m.group(1)), m.group(2).split(".")[0]
    d, p, *mask = _args(args, 3 if synced else 2, m.group(0))
    if mask:
        ev.discard(mask[0])
    bare = mode != "uni"
    pred = ev.read_pred(p, bare=bare)
    if mode == "ballot":
        ev.use("warp", "vote.ballot", BALLOT_NOTE)
        ev.set(d, f"__ballot({pred})", simple=True)
    elif mode == "uni":
        ev.use("warp", "vote.uni")
        ev.set(d, f"__all({pred}) || !__any({pred})", kind="pred")
    else:
        ev.use("warp", f"vote.{mode}")
        ev.set(d, f"__{mode}({pred})", simple=True, kind="pred")


@entry(r"activemask\.b32")
def activemask(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    (d,) = _args(args, 1, "activemask")
    ev.use("warp", "activemask", BALLOT_NOTE)
    ev.set(d, "__activemask()", simple=True)


# ---- PTX006: bit-field extract/insert and byte permute ------------------------------------------
# PTX ISA 8.5, "Integer Arithmetic: bfe, bfi" and "Data Movement: prmt". AMD side: clang
# __builtin_amdgcn_ubfe/sbfe (V_BFE_U32/I32: offset and width are taken mod 32, so they equal
# PTX bfe only for 0 <= pos < 32 and 0 <= len < 32, where both zero- or sign-fill above bit 31),
# __builtin_amdgcn_perm (V_PERM_B32: bytes 0-3 from the second source, 4-7 from the first;
# selectors 8-11 replicate the sign of bytes 1, 3, 5, 7, 12 gives 0x00, 13+ 0xff). Operands
# outside those ranges use porter's exact helpers (shims/compat/ptx_bit_ops.h).


@entry(r"bfe\.([us])32")
def bfe(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    d, a, b, c = _args(args, 4, "bfe")
    pos, length = ev.const(b), ev.const(c)
    kind = m.group(1)
    ev.use("bits", f"bfe.{kind}32")
    if pos is not None and length is not None and 0 <= pos & 0xFF < 32 and 0 <= length & 0xFF < 32:
        fn = "__builtin_amdgcn_ubfe" if kind == "u" else "__builtin_amdgcn_sbfe"
        ev.set(d, f"{fn}({ev.arg(a)}, {pos & 0xFF}, {length & 0xFF})", simple=True)
    else:
        ev.set(d, f"__porter_bfe_{kind}32({ev.arg(a)}, {ev.arg(b)}, {ev.arg(c)})", simple=True)


@entry(r"bfi\.b32")
def bfi(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    f, a, b, c, d = _args(args, 5, "bfi")
    pos, length = ev.const(c), ev.const(d)
    ev.use("bits", "bfi.b32")
    if pos is not None and length is not None:
        pos, length = pos & 0xFF, length & 0xFF
        if length == 0 or pos >= 32:
            ev.set(f, ev.read(b))
            return
        field_mask = (((1 << min(length, 32 - pos)) - 1) << pos) & 0xFFFFFFFF
        ev.set(f, f"({ev.read(b)} & {~field_mask & 0xFFFFFFFF:#010x}u) | (((unsigned int){ev.read(a)} << {pos}) & {field_mask:#010x}u)")
    else:
        ev.set(f, f"__porter_bfi_b32({ev.arg(a)}, {ev.arg(b)}, {ev.arg(c)}, {ev.arg(d)})", simple=True)


def perm_selector(c: int) -> int | None:
    """The V_PERM_B32 selector for PTX prmt's default mode with selector `c`, or None.

    prmt: result byte i is byte (c >> 4i) & 7 of {b, a} (a = bytes 0-3); with bit 3 of that
    nibble set, the selected byte's sign bit is replicated instead. V_PERM_B32 can replicate
    the sign of bytes 1, 3, 5 and 7 only (selectors 8-11).
    """
    sel = 0
    for i in range(4):
        nibble = (c >> (4 * i)) & 0xF
        byte = nibble & 7
        if nibble & 8:
            if byte % 2 == 0:
                return None
            code = 8 + byte // 2
        else:
            code = byte
        sel |= code << (8 * i)
    return sel


@entry(r"prmt\.b32")
def prmt(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    d, a, b, c = _args(args, 4, "prmt")
    code = ev.const(c)
    sel = perm_selector(code) if code is not None else None
    ev.use("bits", "prmt.b32")
    if sel is not None:
        ev.set(d, f"__builtin_amdgcn_perm({ev.arg(b)}, {ev.arg(a)}, {sel:#010x}u)", simple=True)
    else:
        ev.set(d, f"__porter_prmt_b32({ev.arg(a)}, {ev.arg(b)}, {ev.arg(c)})", simple=True)


# ---- PTX007: packed and scalar half conversions -------------------------------------------------
# PTX ISA 8.5, "Data Movement and Conversion: cvt" (cvt.rn.bf16x2.f32 d, a, b puts a in the upper
# half, b in the lower). AMD side: clang's __bf16 and _Float16 conversions round to nearest even;
# on gfx950 a bf16 pair is one V_CVT_PK_BF16_F32 (new in CDNA4; there is no clang builtin for it,
# the backend selects it from the conversions). NaN payloads may differ; both give a quiet NaN.
_HALF = {"bf16": "__bf16", "f16": "_Float16"}


def _bits(half: str, value: str) -> str:
    return f"__builtin_bit_cast(unsigned short, ({_HALF[half]}){value})"


@entry(r"cvt\.rn\.(bf16|f16)x2\.f32")
def cvt_pack(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    d, a, b = _args(args, 3, "cvt")
    half = m.group(1)
    ev.use("convert", m.group(0))
    ev.set(d, f"((unsigned int){_bits(half, ev.read(a))} << 16) | {_bits(half, ev.read(b))}")


@entry(r"cvt\.rn\.(bf16|f16)\.f32")
def cvt_narrow(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    d, a = _args(args, 2, "cvt")
    ev.use("convert", m.group(0))
    ev.set(d, _bits(m.group(1), ev.read(a)), simple=True)


@entry(r"cvt\.f32\.(bf16|f16)")
def cvt_widen(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    d, a = _args(args, 2, "cvt")
    ev.use("convert", m.group(0))
    ev.set(d, f"(float)__builtin_bit_cast({_HALF[m.group(1)]}, (unsigned short){ev.read(a)})")


# ---- PTX008: nanosleep ---------------------------------------------------------------------------
# PTX ISA 8.5, "Miscellaneous: nanosleep" (sleeps approximately t ns, guaranteed within [0, 2t]).
# AMD side: clang __builtin_amdgcn_s_sleep(imm) (S_SLEEP, about 64 * imm[6:0] clocks; the
# argument must be a constant). A literal t becomes the nearest immediate at the MI350X clock,
# which stays within [0, 2t]; a run-time t goes through porter's __porter_nanosleep.


def sleep_immediate(ns: int) -> int:
    return (ns * SLEEP_CLOCK_MHZ + 32_000) // 64_000


@entry(r"nanosleep\.u32")
def nanosleep(ev: Eval, m: re.Match[str], args: tuple[str, ...]) -> None:
    (t,) = _args(args, 1, "nanosleep")
    ns = ev.const(t)
    ev.use("sleep", "nanosleep")
    if ns is not None and 0 <= ns and sleep_immediate(ns) <= SLEEP_MAX:
        ev.read(t)
        ev.effect(f"__builtin_amdgcn_s_sleep({sleep_immediate(ns)})")
    else:
        ev.effect(f"__porter_nanosleep({ev.arg(t)})")
