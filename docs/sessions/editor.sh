#!/bin/sh
# The "person" of docs/sessions/reduce-session.txt, at the `e` prompt: gives the shuffle its width
# explicitly (HIP's __shfl_down(var, delta, width)), as a reviewer might prefer to read it.
exec sed -i 's|__shfl_down(v, offset)|__shfl_down(v, offset, warpSize)|' "$1"
