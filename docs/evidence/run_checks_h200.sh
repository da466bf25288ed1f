#!/usr/bin/env bash
# The project's own checks of real programs on an NVIDIA GPU: original (nvcc, its own build
# files) against port (its ported build files, porter's hip-on-cuda hipcc), outputs compared.
#
#   here:   python bench/verify_real_projects.py --corpus /work/src BUNDLE   (stages src/, ports into port/)
#   device: [PIN_SM90=1] bash docs/evidence/run_checks_h200.sh BUNDLE $OUT
#
# One program per process, ${JOBS:-12} at a time; per step ${CHECK_TIMEOUT:-120} s (a hang is data).
# Needs python3 with pydantic, nvcc, make and cmake; no LangGraph, no tree-sitter.
set -u
bundle=${1:?bundle with src/ and port/}
out=${2:?folder for the results}
export PORTER_HIP_ON_CUDA=$PWD/shims/hip_on_cuda PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
mkdir -p "$out"
# PIN_SM90=1: every nvcc call (the original's build files, porter's hip-on-cuda hipcc) builds for
# sm_90 only, the H200's: cuda-samples' CMakeLists list nine SM versions (nine device compiles
# each), Rodinia's Makefiles name sm_13/sm_20, which nvcc 13 rejects. PORTER_NVCC is the nvcc
# porter puts first on the original's PATH (CMake and `nvcc` in Makefiles find it) and wraps for
# the port; CUDA_DIR (Rodinia's make.config) is set on make's command line through MAKEFLAGS.
if [ "${PIN_SM90:-0}" = 1 ]; then
  pin=$(mktemp -d)/cuda-sm90 real=$(readlink -f "$(command -v nvcc)")
  mkdir -p "$pin/bin"
  top=$(cd "$pin" && nvcc --dryrun -c x.cu 2>&1 | sed -n 's/^#\$ TOP=//p')  # the toolkit nvcc runs from
  for e in "$(readlink -f "$top")"/*; do [ "$(basename "$e")" = bin ] || ln -s "$e" "$pin/"; done
  cat > "$pin/bin/nvcc" <<'PY'
#!/usr/bin/env python3
import os, re, sys
real, args, seen, i = "@REAL@", [], set(), 1
while i < len(sys.argv):
    a = sys.argv[i]
    unit = [a, sys.argv[i + 1]] if a in ("-gencode", "--generate-code") and i + 1 < len(sys.argv) else [a]
    i += len(unit)
    unit = tuple(re.sub(r"\b(sm|compute)_\d+[af]?\b", r"\1_90", u) for u in unit)
    if unit in seen and re.match(r"-gencode|--generate-code|-arch|--gpu-architecture|--gpu-name", unit[0]):
        continue  # a target that is now a duplicate
    seen.add(unit)
    args += unit
os.execv(real, [real, *args])
PY
  sed -i "s|@REAL@|$real|" "$pin/bin/nvcc"
  chmod +x "$pin/bin/nvcc"
  export PORTER_NVCC=$pin/bin/nvcc MAKEFLAGS="CUDA_DIR=$pin"
fi
{ nvcc --version | tail -1; cmake --version | head -1; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } \
  > "$out/machine.txt" 2>&1
verify_one() {
  name=$1 bundle=$2 out=$3
  python3 -m porter.verify.evidence "$bundle/port/$name" --executor "${EXECUTOR:-hip-on-cuda}" \
    --source "$bundle/src/$name" --check-timeout "${CHECK_TIMEOUT:-120}" > "$out/$name.log" 2>&1
  echo "== $name: exit $?"
  [ -f "$bundle/port/$name/porter-verify.json" ] && cp "$bundle/port/$name/porter-verify.json" "$out/$name.json"
}
export -f verify_one
ls "$bundle/port" | xargs -P "${JOBS:-12}" -I{} bash -c 'verify_one "$1" "$2" "$3"' _ {} "$bundle" "$out"
python3 - "$out" <<'PY'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
runs = {p.stem: json.loads(p.read_text()) for p in sorted(out.glob("*.json")) if p.name != "combined.json"}
(out / "combined.json").write_text(json.dumps(runs, indent=1, sort_keys=True) + "\n")
print(f"combined {len(runs)} programs")
PY
