#!/usr/bin/env bash
# One H200 call (2026-12-01, session 2): real programs' own checks (original vs hip-on-cuda port),
# reduction kernel 9 (porter's multi-wave tiles), the hip_on_cuda fixtures and the wave fixtures.
# Run from the repository root: bash docs/evidence/run_checks_h200_run7.sh $OUT
# Prepared here: python bench/verify_real_projects.py --corpus /work/src -j 2 $HERE/bundle && tar -czf $HERE/bundle.tgz -C $HERE bundle
#   for f in wave_halfconv wave_keep32 wave_logical32 wave_seeded wave_compact wave_scan; do porter port fixtures/$f -o $HERE/evid/$f --no-verify; done
set -u
out=$1; here=${HERE:-.gpu/chk5}  # holds bundle.tgz, evid/ (ported wave fixtures) and whl/ (cp312 wheels: pydantic, tree-sitter)
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site $here/whl/*.whl && export PYTHONPATH=/tmp/site
mkdir -p /tmp/b /tmp/res /tmp/logs && tar -xzf $here/bundle.tgz -C /tmp/b
export PYTHONUNBUFFERED=1
python3 -c "import tree_sitter, tree_sitter_cuda, pydantic; print(\"tree-sitter\", tree_sitter.__version__ if hasattr(tree_sitter, \"__version__\") else \"ok\")" > /tmp/logs/imports.txt 2>&1; cat /tmp/logs/imports.txt
( CUDA_LIBS="$(python3 -c "import nvidia,os;print(os.path.join(nvidia.__path__[0],\"cu13\"))" 2>/dev/null)" BUILD_DIR=/tmp/fx TIMEOUT=120 \
  bash fixtures/hip_on_cuda/run.sh > /tmp/logs/fixtures.txt 2>&1; echo "fixtures exit $?" >> /tmp/logs/fixtures.txt ) &
fx=$!
start=$(date +%s)
PIN_SM90=1 JOBS=14 CHECK_TIMEOUT=60 bash docs/evidence/run_checks_h200.sh /tmp/b/bundle /tmp/res > /tmp/logs/checks.txt 2>&1
echo "checks took $(( $(date +%s) - start )) s" >> /tmp/logs/checks.txt
cp /tmp/res/combined.json "$out/combined.json"; cp /tmp/res/*.log /tmp/logs/ 2>/dev/null
# reduction kernel 9: porter::multi_wave_tile under hip-on-cuda, against the original
red=/tmp/b/bundle/port/cuda-samples_reduction
{
  for side in original port; do
    exe=$(find "$red/.porter/verify" -path "*/checks/$side/*" -type f -name reduction -perm -u+x 2>/dev/null | head -1)
    echo "## $side: ${exe:-not built}"
    [ -n "$exe" ] || continue
    for ty in int float double; do for th in 128 256 512 1024; do
      r=$(cd "$(dirname "$exe")" && timeout 60 "$exe" --kernel=9 --threads=$th --type=$ty 2>&1 | grep -E "Test (passed|failed)|Reduction,|GPU result|CPU result" | tr '\n' ' ')
      echo "$side kernel=9 threads=$th type=$ty: exit ${PIPESTATUS[0]} $r"
    done; done
  done
} > /tmp/logs/reduction9.txt 2>&1
# wave fixtures: original (nvcc) and port (hip-on-cuda)
for d in $here/evid/*/; do
  name=$(basename "$d")
  for f in "$d"*.cu; do
    src=fixtures/$name/$(basename "$f")
    nvcc -std=c++17 -arch=sm_90 -O2 -o /tmp/orig_$name "$src" > /tmp/logs/$name.orig.build.log 2>&1 \
      && echo "== $name original: $(timeout 60 /tmp/orig_$name 2>&1 | tail -1)" || echo "== $name original: build failed"
    nvcc -std=c++17 -arch=sm_90 -O2 --options-file shims/hip_on_cuda/nvcc.opts -I shims/hip_on_cuda -x cu -o /tmp/port_$name "$f" > /tmp/logs/$name.port.build.log 2>&1 \
      && echo "== $name port (hip-on-cuda): $(timeout 60 /tmp/port_$name 2>&1 | tail -1)" || echo "== $name port: build failed"
  done
done > /tmp/logs/wave_fixtures.txt 2>&1
wait $fx
{ nvcc --version | tail -1; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > /tmp/logs/machine.txt 2>&1
cp /tmp/logs/fixtures.txt /tmp/logs/reduction9.txt /tmp/logs/wave_fixtures.txt /tmp/logs/checks.txt "$out/"
tar -czf "$out/logs.tgz" -C /tmp logs
tail -5 /tmp/logs/checks.txt; cat /tmp/logs/fixtures.txt /tmp/logs/reduction9.txt /tmp/logs/wave_fixtures.txt
