#!/bin/bash
# Eleventh look (2026-12-01, i18k): the nn unseen-11 set (bench/perfmodel_validate.py nn_eleventh_set) on the H200,
# in one device call of at most 290 s; bf16 and fp8, new shapes stopped 240 s after the start (what it cuts: the
# largest grid shapes, measured last). The steps: perfmodel_nn_look_h200.sh.
exec bash "$(dirname "$0")/perfmodel_nn_look_h200.sh" nn-eleventh bf16,fp8 240
