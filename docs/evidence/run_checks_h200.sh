#!/usr/bin/env bash
# The project's own checks of real programs on an NVIDIA GPU: original (nvcc, its own build
# files) against port (its ported build files, porter's hip-on-cuda hipcc), outputs compared.
#
#   here:   python bench/verify_real_projects.py --corpus /work/src BUNDLE   (stages src/, ports into port/)
#   device: bash docs/evidence/run_checks_h200.sh BUNDLE $OUT
#
# One program per process, ${JOBS:-12} at a time; per step ${CHECK_TIMEOUT:-120} s (a hang is data).
# Needs python3 with pydantic, nvcc, make and cmake; no LangGraph, no tree-sitter.
set -u
bundle=${1:?bundle with src/ and port/}
out=${2:?folder for the results}
export PORTER_HIP_ON_CUDA=$PWD/shims/hip_on_cuda PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
mkdir -p "$out"
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
