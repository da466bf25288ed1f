"""porter.toolchains.find_cuda_libs: the one lookup of the CUDA libraries' folder."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from porter.toolchains import CUDA_LIBS_ENV, find_cuda_libs


def _wheels(root: Path, with_headers: bool) -> types.ModuleType:
    """A stand-in for the nvidia namespace package of the nvidia-* wheels, rooted at `root`."""
    inc = root / "cu13" / "include"
    inc.mkdir(parents=True)
    if with_headers:
        (inc / "cublas_v2.h").write_text("")
    mod = types.ModuleType("nvidia")
    mod.__path__ = [str(root)]
    return mod


def test_an_explicit_folder_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CUDA_LIBS_ENV, str(tmp_path / "env"))
    assert find_cuda_libs(tmp_path / "given") == tmp_path / "given"
    assert find_cuda_libs() == tmp_path / "env"


def test_the_wheels_folder_when_nothing_is_given(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(CUDA_LIBS_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "nvidia", _wheels(tmp_path, with_headers=True))
    assert find_cuda_libs() == tmp_path / "cu13"


def test_none_when_the_wheels_have_no_headers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(CUDA_LIBS_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "nvidia", _wheels(tmp_path, with_headers=False))
    assert find_cuda_libs() is None
