"""The single writer: landing, idempotence on resume, per-unit history and revert, refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.state import Edit, Patch, content_hash
from porter.workspace import BadInput, PatchConflict, Workspace, check_output_dir, tree_files


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.cu").write_text("cudaMalloc(&p, 4);\n")
    (src / "sub" / "b.h").write_text("int x;\n")
    return src, tmp_path / "out"


def _rename(ws: Workspace, rel: str, old: str, new: str, agent: str = "translator") -> Patch:
    data = ws.read(rel)
    at = data.index(old.encode())
    return Patch(path=rel, base_hash=content_hash(data), edits=(Edit(start=at, end=at + len(old), text=new),),
                 agent=agent, rule="HIP001", reason="rename")


def test_create_copies_tree_and_apply_lands(tmp_path: Path) -> None:
    src, out = _tree(tmp_path)
    ws, notes = Workspace.create(src, out)
    assert ws.files() == ["a.cu", "sub/b.h"] and notes == []
    ws.apply([_rename(ws, "a.cu", "cudaMalloc", "hipMalloc")])
    assert (out / "a.cu").read_text() == "hipMalloc(&p, 4);\n"
    assert (src / "a.cu").read_text() == "cudaMalloc(&p, 4);\n"  # the source is never written


def test_apply_is_idempotent_after_a_resume(tmp_path: Path) -> None:
    ws, _ = Workspace.create(*_tree(tmp_path))
    patch = _rename(ws, "a.cu", "cudaMalloc", "hipMalloc")
    ws.apply([patch])
    assert ws.apply([patch]) == [patch]  # already on disk: recognised, not re-applied
    assert len(ws.history("a.cu")) == 1


def test_stale_patch_is_refused(tmp_path: Path) -> None:
    ws, _ = Workspace.create(*_tree(tmp_path))
    stale = _rename(ws, "a.cu", "cudaMalloc", "hipMalloc")
    ws.apply([_rename(ws, "a.cu", "(&p", "(&q")])
    with pytest.raises(PatchConflict, match="changed since"):
        ws.apply([stale])


def test_revert_last_patch_of_an_agent(tmp_path: Path) -> None:
    ws, _ = Workspace.create(*_tree(tmp_path))
    ws.apply([_rename(ws, "a.cu", "cudaMalloc", "hipMalloc")])
    ws.apply([_rename(ws, "a.cu", "4", "8", agent="microarch")])
    reverted = ws.revert_last("a.cu", "microarch")
    assert reverted is not None and reverted.agent == "microarch"
    assert ws.read("a.cu") == b"hipMalloc(&p, 4);\n"
    assert ws.revert_last("a.cu", "shim") is None


def test_a_revert_is_never_itself_reverted(tmp_path: Path) -> None:
    """Two rounds of revert walk back through the agent's patches; the same patch landed again
    after its revert can be reverted again."""
    ws, _ = Workspace.create(*_tree(tmp_path))
    ws.apply([_rename(ws, "a.cu", "4", "8", agent="microarch")])
    ws.apply([_rename(ws, "a.cu", "cudaMalloc", "hipMalloc", agent="microarch")])
    assert ws.revert_last("a.cu", "microarch").edits[0].text == "hipMalloc"
    assert ws.revert_last("a.cu", "microarch").edits[0].text == "8"
    assert ws.read("a.cu") == b"cudaMalloc(&p, 4);\n"
    assert ws.revert_last("a.cu", "microarch") is None
    ws.apply([_rename(ws, "a.cu", "4", "8", agent="microarch")])
    assert ws.revert_last("a.cu", "microarch") is not None and ws.read("a.cu") == b"cudaMalloc(&p, 4);\n"


def test_patches_are_confined_to_the_output_tree(tmp_path: Path) -> None:
    ws, _ = Workspace.create(*_tree(tmp_path))
    with pytest.raises(PatchConflict, match="outside"):
        ws.apply([Patch.create("../escape.h", "x", agent="shim", rule="SHIM001", reason="t")])
    with pytest.raises(PatchConflict, match="porter's own state"):
        ws.apply([Patch.create(".porter/x", "x", agent="shim", rule="SHIM001", reason="t")])


def test_output_dir_refusals(tmp_path: Path) -> None:
    src, out = _tree(tmp_path)
    with pytest.raises(BadInput, match="inside the source"):
        check_output_dir(src, src / "port", force=True)
    with pytest.raises(BadInput, match="inside the source"):
        check_output_dir(src, src, force=True)
    with pytest.raises(BadInput, match="contain the source"):
        check_output_dir(src, tmp_path, force=True)
    out.mkdir()
    (out / "keep.txt").write_text("user data")
    with pytest.raises(BadInput, match="not empty"):
        check_output_dir(src, out, force=False)
    check_output_dir(src, out, force=True)
    with pytest.raises(BadInput, match="not a directory"):
        check_output_dir(src / "a.cu", tmp_path / "o2", force=False)


def test_links_leaving_the_tree_are_not_followed(tmp_path: Path) -> None:
    src, _ = _tree(tmp_path)
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "key.h").write_text("secret")
    (src / "escape").symlink_to(outside)
    (src / "escape.h").symlink_to(outside / "key.h")
    (src / "inside.h").symlink_to(src / "sub" / "b.h")
    files, notes = tree_files(src)
    assert files == ["a.cu", "sub/b.h"]  # inside.h is a link to sub/b.h: one real file, ported once
    assert sorted(n.path for n in notes) == ["escape", "escape.h", "inside.h"]
    assert all("leaves the source tree" in n.note for n in notes if n.path != "inside.h")
    assert [n.target for n in notes if n.path == "inside.h"] == ["sub/b.h"]
    ws, _ = Workspace.create(src, tmp_path / "out")
    assert (tmp_path / "out" / "inside.h").is_symlink() and (tmp_path / "out" / "inside.h").read_text() == "int x;\n"
    assert ws.files() == ["a.cu", "sub/b.h"]


def test_ledger_lines_are_parsed_once_however_many_patches_land(tmp_path: Path, monkeypatch) -> None:
    """A landing reads only the ledger lines past those read before (a 1,000-file port re-read and
    re-validated the whole ledger for every patch: ten minutes); another writer's lines are seen."""
    import porter.workspace as workspace

    src = tmp_path / "src"
    src.mkdir()
    for i in range(20):
        (src / f"k{i}.cu").write_text("cudaFree(p);\n")
    ws, _ = Workspace.create(src, tmp_path / "out")
    parsed = []
    real_loads = workspace.json.loads
    monkeypatch.setattr(workspace.json, "loads", lambda line: parsed.append(line) or real_loads(line))
    for i in range(20):
        ws.apply([_rename(ws, f"k{i}.cu", "cudaFree", "hipFree")])
    assert len(parsed) == 19  # each landing read the one line the one before it wrote
    other = Workspace(ws.root)  # a second writer on the same tree (a session, a resumed run)
    other.apply([_rename(other, "k0.cu", "(p", "(q")])
    assert [e.seq for e in ws.history()] == list(range(21)) and ws.history("k0.cu")[-1].patch.edits[0].text == "(q"
    assert len(ws.history("k7.cu")) == 1 and ws.history("k7.cu")[0].patch.path == "k7.cu"
