"""CUDA -> HIP name tables: one immutable index the translator's HIP rules look names up in.

Sources, in order of precedence:
  0. porter's own entries (`porter_map.py`, "porter"): names the others lack, or spell as an older
     ROCm did.
  1. HIPIFY's own tables ("hipify": `hipify_snapshot.json`, generated from ROCm/HIPIFY's
     bin/hipify-perl by `hipify_tables.py`): its HIP renames and experimental renames, and, for
     each library the run ports to a ROCm library directly (`--blas rocblas`, `--sparse rocsparse`,
     `--solver rocsolver`, `--rand rocrand`, `--dnn miopen`), its `-roc` renames ahead of them.
     Its top-level library headers (hipblas.h) are written in ROCm's include/<lib>/ layout.
  2. torch.utils.hipify's `cuda_to_hip_mappings` ("hipify-torch"), for what HIPIFY lacks and for
     the PyTorch-extension tables. Both hipify formats are read: 1.x values are tuples (hip
     name, conversion type, api type[, HIP_UNSUPPORTED]); 2.x (torch >= 2.9) values are plain HIP
     names. Without torch, the same tables come from `hipify_torch_snapshot.json`, frozen from a
     torch release by `python -m porter.agents.translator.tables` (and `ENGINE` says which).
  3. The names HIPIFY lists as having no HIP counterpart, marked unsupported (HIP005).

PyTorch entries (torch's PYTORCH_SPECIFIC / C10 maps, and the ATen/c10 header renames) live in
separate dictionaries: they apply only to files of a PyTorch extension. Caffe2 maps are left out:
they are Meta-internal path fragments, and some map HIP back to CUDA (HIP_CHECK -> CUDA_CHECK).
cuDNN entries are left out of every rename unless the run asks for `--dnn miopen`: MIOpen is
not a drop-in (HIP006 reports cuDNN use).

`index(choices)` is built once per process and library choice; every lookup is a dict probe.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType

from porter.agents.translator import porter_map

Source = str  # "hipify" | "hipify-torch" | "porter"

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# Classified by the HIP name first (it names the ROCm library), then by the CUDA name.
_FAMILY_BY_PREFIX = (
    ("hipblasLt", "blaslt"), ("hipblaslt", "blaslt"), ("HIPBLASLT", "blaslt"), ("hipblas", "blas"), ("HIPBLAS", "blas"),
    ("hipsparseLt", "sparselt"), ("hipsparselt", "sparselt"), ("HIPSPARSELT", "sparselt"), ("hipsparse", "sparse"), ("HIPSPARSE", "sparse"),
    ("hipsolver", "solver"), ("HIPSOLVER", "solver"), ("hiprand", "rand"), ("HIPRAND", "rand"),
    ("rocblas", "blas"), ("rocsparse", "sparse"), ("rocsolver", "solver"), ("ROCRAND", "rand"),
    ("rocrand", "rand"), ("hipfft", "fft"), ("HIPFFT", "fft"), ("hipcub", "cub"), ("miopen", "dnn"),
    ("MIOPEN", "dnn"), ("hiprtc", "rtc"), ("HIPRTC", "rtc"), ("roctx", "roctx"), ("roctracer", "roctx"),
    ("rsmi", "smi"), ("RSMI", "smi"), ("rocm_smi", "smi"), ("thrust", "thrust"), ("rccl", "nccl"),
    ("cudnn", "dnn"), ("CUDNN", "dnn"), ("nccl", "nccl"), ("NCCL", "nccl"), ("nvml", "smi"),
)
_DRIVER = re.compile(r"^(?:cu[A-Z]|CU[a-z]|CU_|CUDA_ERROR_)")


@dataclass(frozen=True, slots=True)
class Mapping:
    cuda: str
    hip: str
    family: str  # runtime driver blas blaslt rand fft sparse sparselt solver cub nccl thrust rtc roctx smi dnn pytorch
    supported: bool = True
    source: Source = "hipify-torch"

    @property
    def renames(self) -> bool:
        return self.supported and self.hip != self.cuda


@dataclass(frozen=True, slots=True)
class Library:
    cuda: str  # as NVIDIA writes it
    rocm: str  # the ROCm library that replaces it
    package: str  # ROCm package / CMake package to link
    link: str  # linker flag


# Package and library names as ROCm ships them (rocm.docs.amd.com, each project's install page).
LIBRARIES = MappingProxyType({
    "blas": Library("cuBLAS", "hipBLAS", "hipblas", "-lhipblas"),
    "blaslt": Library("cuBLASLt", "hipBLASLt", "hipblaslt", "-lhipblaslt"),
    "rand": Library("cuRAND", "hipRAND", "hiprand (over rocrand)", "-lhiprand"),
    "fft": Library("cuFFT", "hipFFT", "hipfft (over rocfft)", "-lhipfft"),
    "sparse": Library("cuSPARSE", "hipSPARSE", "hipsparse", "-lhipsparse"),
    "sparselt": Library("cuSPARSELt", "hipSPARSELt", "hipsparselt", "-lhipsparselt"),
    "solver": Library("cuSOLVER", "hipSOLVER", "hipsolver", "-lhipsolver"),
    "cub": Library("CUB", "hipCUB", "hipcub (header-only, over rocprim)", "no library"),
    "thrust": Library("Thrust", "rocThrust", "rocthrust (header-only, same thrust:: API)", "no library"),
    "nccl": Library("NCCL", "RCCL", "rccl", "-lrccl"),
    "rtc": Library("NVRTC", "hipRTC", "hip (amdhip64)", "-lhiprtc"),
    "roctx": Library("NVTX", "ROCTX", "roctracer", "-lroctx64"),
    "smi": Library("NVML", "ROCm SMI", "rocm_smi_lib", "-lrocm_smi64"),
    "dnn": Library("cuDNN", "MIOpen", "miopen", "-lMIOpen"),
})
# The libraries a run may port to directly instead of through the hip* wrappers (HIPIFY's -roc).
ROC_LIBRARIES = MappingProxyType({
    "blas": Library("cuBLAS", "rocBLAS", "rocblas", "-lrocblas"),
    "sparse": Library("cuSPARSE", "rocSPARSE", "rocsparse", "-lrocsparse"),
    "solver": Library("cuSOLVER", "rocSOLVER", "rocsolver (over rocblas)", "-lrocsolver"),
    "rand": Library("cuRAND", "rocRAND", "rocrand", "-lrocrand"),
    "dnn": Library("cuDNN", "MIOpen", "miopen", "-lMIOpen"),
})


def library(mapping: Mapping) -> Library:
    """The ROCm library a mapped name belongs to: the direct one for a `-roc` rename."""
    if mapping.source == "hipify-roc":
        return ROC_LIBRARIES[mapping.family]
    return LIBRARIES[mapping.family]


@dataclass(frozen=True, slots=True)
class Choices:
    """The ROCm libraries a run ports CUDA libraries to (PortOptions blas/sparse/solver/rand/dnn)."""

    blas: str = "hipblas"
    sparse: str = "hipsparse"
    solver: str = "hipsolver"
    rand: str = "hiprand"
    dnn: str = "none"  # "miopen": rename cuDNN to MIOpen (HIPIFY's -roc); "none": report it (HIP006)

    @classmethod
    def of(cls, options) -> Choices:
        return cls(options.blas, options.sparse, options.solver, options.rand, options.dnn)

    @property
    def direct(self) -> frozenset[str]:
        """Families ported to the ROCm library itself rather than its hip* wrapper."""
        roc = {"blas": self.blas == "rocblas", "sparse": self.sparse == "rocsparse",
               "solver": self.solver == "rocsolver", "rand": self.rand == "rocrand", "dnn": self.dnn == "miopen"}
        return frozenset(f for f, on in roc.items() if on)


DEFAULT_CHOICES = Choices()

# A name with one of these prefixes keeps its name in ROCm: RCCL exports the NCCL API.
SAME_NAME_PREFIXES = tuple((p, "nccl") for p in porter_map.NCCL_PREFIXES)

# hipify renames includes under these ATen directories by path (hipify_python.preprocessor, mk_repl).
_ATEN_CUDA_DIRS = ("ATen/cuda", "ATen/native/cuda", "ATen/native/nested/cuda", "ATen/native/quantized/cuda",
                   "ATen/native/sparse/cuda", "ATen/native/transformers/cuda")


def family_of(cuda: str, hip: str) -> str:
    for name in (hip, cuda):
        for prefix, family in _FAMILY_BY_PREFIX:
            if name.startswith(prefix):
                return family
    return "driver" if _DRIVER.match(cuda) else "runtime"


@dataclass(frozen=True)
class Index:
    """Everything the HIP rules look up. Read-only views over dicts built once."""

    names: MappingProxyType  # identifier -> Mapping, for any CUDA file
    namespaces: MappingProxyType  # `cub` -> Mapping(hipcub): applies before `::`
    qualified: MappingProxyType  # "thrust::cuda" -> Mapping: a name after `Q::`
    headers: MappingProxyType  # "cuda_runtime.h" -> Mapping("hip/hip_runtime.h")
    header_prefixes: tuple[tuple[str, Mapping], ...]  # directory renames ("thrust/system/cuda")
    header_umbrellas: tuple[tuple[str, Mapping], ...]  # any header under a directory -> one header ("cub/")
    pytorch_names: MappingProxyType  # extension files only
    pytorch_headers: MappingProxyType  # extension files only
    engine: str
    counts: MappingProxyType  # source -> number of entries taken

    def lookup(self, name: str, *, extension: bool = False) -> Mapping | None:
        found = self.names.get(name)
        if found is None and extension:
            found = self.pytorch_names.get(name)
        if found is None:
            for prefix, family in SAME_NAME_PREFIXES:
                if name.startswith(prefix):
                    return Mapping(name, name, family, source="porter")
        return found

    def header(self, path: str, *, extension: bool = False) -> Mapping | None:
        found = self.headers.get(path)
        if found is None and extension:
            found = self.pytorch_headers.get(path) or _aten_header(path)
        if found is None:
            for prefix, mapping in self.header_prefixes:
                if path.startswith(prefix + "/"):
                    return Mapping(path, mapping.hip + path[len(prefix):], mapping.family, source=mapping.source)
            for prefix, mapping in self.header_umbrellas:
                if path.startswith(prefix + "/"):
                    return Mapping(path, mapping.hip, mapping.family, source=mapping.source)
        return found


def _aten_header(path: str) -> Mapping | None:
    """hipify's path rule for ATen CUDA headers: cuda -> hip in directories, CUDA -> HIP in the file name."""
    if not path.startswith(_ATEN_CUDA_DIRS):
        return None
    head, _, base = path.rpartition("/")
    hip = head.replace("cuda", "hip") + "/" + base.replace("cuda", "hip").replace("CUDA", "HIP")
    return Mapping(path, hip, "pytorch")


def _header_key(key: str) -> str:
    """hipify spells some include keys with their context ('include <cuda.h', '<nccl.h>')."""
    key = key.removeprefix("include ").strip()
    return key.strip('<>"')


def _is_header(key: str) -> bool:
    key = _header_key(key)
    return "/" in key or key.endswith((".h", ".hpp", ".cuh"))


class _Builder:
    def __init__(self) -> None:
        self.names: dict[str, Mapping] = {}
        self.namespaces: dict[str, Mapping] = {}
        self.qualified: dict[str, Mapping] = {}
        self.headers: dict[str, Mapping] = {}
        self.prefixes: dict[str, Mapping] = {}
        self.pytorch_names: dict[str, Mapping] = {}
        self.pytorch_headers: dict[str, Mapping] = {}
        self.counts = {"hipify-roc": 0, "hipify": 0, "hipify-torch": 0, "porter": 0}

    def add(self, cuda: str, hip: str, *, supported: bool = True, pytorch: bool = False,
            source: Source = "hipify-torch", family: str | None = None, header: bool | None = None,
            dnn: bool = False) -> None:
        cuda_key = cuda.strip()
        hip = hip.strip()
        if cuda_key.startswith(("hip", "HIP")) or "::hip::" in cuda_key:
            return  # a reverse entry (HIP -> CUDA), Meta-internal
        if header or (header is None and _is_header(cuda)):
            header = _header_key(cuda_key)
            fam = family or ("pytorch" if pytorch else family_of(header, _header_key(hip)))
            if fam == "dnn" and not dnn:
                return  # cudnn.h: HIP006's, unless --dnn miopen
            table = self.pytorch_headers if pytorch else (self.headers if "." in header else self.prefixes)
            self._put(table, header, Mapping(header, _header_key(hip), fam, supported, source))
            return
        if family_of(cuda_key, hip) == "dnn" and not dnn:
            return  # renamed only under --dnn miopen; HIP006 reports cuDNN use
        fam = family or ("pytorch" if pytorch else family_of(cuda_key, hip))
        if cuda_key.endswith("::") and _IDENT.match(cuda_key[:-2]):
            key, table, hip = cuda_key[:-2], self.namespaces, hip.removesuffix("::")
        elif "::" in cuda_key:
            if cuda_key.split("::", 1)[0] in self.namespaces:
                return  # cub::X: covered by the namespace rename
            key, table = cuda_key, self.qualified
        elif _IDENT.match(cuda_key):
            key, table = cuda_key, self.pytorch_names if pytorch else self.names
        else:
            return  # environment settings such as CUDA_LAUNCH_BLOCKING=1
        self._put(table, key, Mapping(key, hip, fam, supported, source))

    def _put(self, table: dict[str, Mapping], key: str, mapping: Mapping) -> None:
        if key not in table:  # hipify's first entry wins, as in its own PYTORCH_MAP; porter never overrides
            table[key] = mapping
            self.counts[mapping.source] += 1

    def index(self, engine: str) -> Index:
        ro = MappingProxyType
        umbrellas = tuple((d, Mapping(d, hip, fam, source="porter")) for d, hip, fam in porter_map.HEADER_UMBRELLAS)
        return Index(ro(self.names), ro(self.namespaces), ro(self.qualified), ro(self.headers),
                     tuple(sorted(self.prefixes.items(), key=lambda kv: -len(kv[0]))), umbrellas,
                     ro(self.pytorch_names), ro(self.pytorch_headers), engine, ro(dict(self.counts)))


Entry = tuple[str, str, bool, bool]  # (cuda, hip, supported, pytorch-only)
SNAPSHOT = Path(__file__).with_name("hipify_torch_snapshot.json")


def torch_entries() -> tuple[list[Entry], str]:
    """hipify-torch's tables as entries, with their version; raises ImportError without torch."""
    mod = importlib.import_module("torch.utils.hipify.cuda_to_hip_mappings")
    unsupported = getattr(mod, "HIP_UNSUPPORTED", 47)  # hipify 1.x constants.py values
    pytorch_apis = {getattr(mod, n, v) for n, v in (("API_PYTORCH", 1337), ("API_C10", 1339))}
    caffe2 = {id(getattr(mod, n, None)) for n in ("CAFFE2_SPECIFIC_MAPPINGS", "CAFFE2_PATH_MAPPINGS")}
    pytorch_maps = {id(getattr(mod, n, None)) for n in ("PYTORCH_SPECIFIC_MAPPINGS", "C10_MAPPINGS")}
    entries: list[Entry] = []
    for table in mod.CUDA_TO_HIP_MAPPINGS:
        if id(table) in caffe2:
            continue
        for cuda, value in table.items():
            hip, meta = (value, ()) if isinstance(value, str) else (value[0], value[1:])
            if getattr(mod, "API_CAFFE2", 1338) in meta:
                continue
            entries.append((cuda, hip, unsupported not in meta,
                            id(table) in pytorch_maps or bool(pytorch_apis.intersection(meta))))
    version = importlib.import_module("torch.utils.hipify.version").__version__
    return entries, f"hipify-torch {version} (torch {importlib.metadata.version('torch')})"


def write_snapshot(path: Path = SNAPSHOT) -> str:
    """Freeze the installed torch's tables into the package, so porter ports without torch."""
    entries, engine = torch_entries()
    path.write_text(json.dumps({"engine": engine, "entries": entries}, indent=0) + "\n")
    return engine


def _cached_torch_entries() -> tuple[list[Entry], str]:
    """torch_entries(), kept on disk by the installed mappings file's identity (porter.diskcache):
    importing torch to read them costs most of a second on every run."""
    spec = importlib.util.find_spec("torch")  # finds torch without importing it
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("torch is not installed")
    mappings = Path(spec.submodule_search_locations[0]) / "utils" / "hipify" / "cuda_to_hip_mappings.py"
    if not mappings.exists():
        return torch_entries()
    from porter.diskcache import cached_json, files_key

    entries, engine = cached_json("hipify-torch", files_key([mappings]), lambda: list(torch_entries()))
    return [tuple(e) for e in entries], engine


def _add_torch(builder: _Builder) -> str:
    """hipify-torch's tables: from torch when installed, else from the snapshot shipped with porter."""
    try:
        entries, engine = _cached_torch_entries()
    except ImportError:
        frozen = json.loads(SNAPSHOT.read_text())
        entries, engine = frozen["entries"], f"{frozen['engine']}, snapshot shipped with porter"
    for cuda, hip, supported, pytorch in entries:
        builder.add(cuda, hip, supported=supported, pytorch=pytorch)
    return engine + " + porter"


def _add_porter(builder: _Builder) -> None:
    for cuda, hip, family in porter_map.NAMES:
        builder.add(cuda, hip, source="porter", family=family)
    for cuda, hip, family in porter_map.HEADERS:
        builder.add(cuda, hip, source="porter", family=family)
    for cuda, hip, family in porter_map.HEADER_DIRS:
        builder.prefixes.setdefault(cuda, Mapping(cuda, hip, family, source="porter"))


HIPIFY_SNAPSHOT = Path(__file__).with_name("hipify_snapshot.json")
# The CUDA library a name of HIPIFY's -roc table belongs to, by its CUDA prefix.
_CUDA_LIBRARY = (("cublasLt", "blaslt"), ("cublas", "blas"), ("CUBLAS", "blas"), ("cusparse", "sparse"),
                 ("CUSPARSE", "sparse"), ("cusolver", "solver"), ("CUSOLVER", "solver"), ("curand", "rand"),
                 ("CURAND", "rand"), ("cudnn", "dnn"), ("CUDNN", "dnn"))
# -roc entries that rename device types (__half -> rocblas_half, a storage-only struct): taking
# them would retype the file's kernels. cuComplex -> rocblas_float_complex is taken, as HIPIFY
# does: rocBLAS's complex arguments are rocblas_*_complex, which has C++ arithmetic of its own.
_SHARED_TYPES = re.compile(r"^__")


def _cuda_library(cuda: str, hip: str) -> str | None:
    for prefix, family in _CUDA_LIBRARY:
        if cuda.startswith(prefix):
            return family
    if _SHARED_TYPES.match(cuda):
        return None
    family = family_of(cuda, hip)  # cudaDataType -> rocblas_datatype, csrsv2Info -> rocsparse_mat_descr
    return family if family in ROC_LIBRARIES else None


def _hipify_header(hip: str) -> str:
    """HIPIFY 6.3 writes some library headers top-level (hipblas.h); ROCm installs them under include/<lib>/."""
    return porter_map.HEADER_LAYOUT.get(hip, hip)


@cache
def hipify_tables() -> dict:
    return json.loads(HIPIFY_SNAPSHOT.read_text())


def _add_hipify(builder: _Builder, choices: Choices) -> str:
    data = hipify_tables()
    direct = choices.direct
    unsupported_for_roc = set(data["roc_only_unsupported"])
    for cuda, roc, kind in data["roc"]:
        family = _cuda_library(cuda, roc)
        if family in direct:
            header = kind.startswith("include")
            builder.add(cuda, _hipify_header(roc) if header else roc, source="hipify-roc", header=header,
                        family=family if header else None, dnn=True)
    for name in sorted(unsupported_for_roc):
        if _cuda_library(name, name) in direct:
            builder.add(name, name, supported=False, source="hipify-roc", header=False, dnn=True)
    for cuda, hip, kind in data["hip"] + data["experimental"]:
        header = kind.startswith("include")
        builder.add(cuda, _hipify_header(hip) if header else hip, source="hipify", header=header)
    return data["engine"]


def _add_hipify_unsupported(builder: _Builder, choices: Choices) -> None:
    data = hipify_tables()
    direct = choices.direct
    names = set(data["unsupported"])
    names |= {n for n in data["hip_only_unsupported"] if _cuda_library(n, n) not in direct}
    for name in sorted(names):
        if CUDA_NAME.match(name):
            builder.add(name, name, supported=False, source="hipify", header=False)


# Only names spelled like the CUDA toolkit's are taken as unsupported: HIPIFY's lists also hold
# generic words (memoryBarrier, gesvdjInfo) a project may define for itself.
CUDA_NAME = re.compile(r"^(?:cuda|cu[A-Z]|CU|cublas|cusparse|cusolver|curand|cufft|nvrtc|__nv|nv[A-Z])")


def index(choices: Choices = DEFAULT_CHOICES) -> Index:
    """The merged, read-only index for one library choice; built on first use, then shared by every rule and file."""
    return _index(choices)


@cache
def _index(choices: Choices) -> Index:
    builder = _Builder()
    _add_porter(builder)
    hipify = _add_hipify(builder, choices)
    engine = hipify + " + " + _add_torch(builder)
    _add_hipify_unsupported(builder, choices)
    return builder.index(engine)


def __getattr__(name: str) -> str:
    # ENGINE is computed on first access, so importing this module never imports torch.
    if name == "ENGINE":
        return index().engine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    print(f"wrote {SNAPSHOT} from {write_snapshot()}")
