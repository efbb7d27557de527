"""The notebook builder never destroys work: `tools/build.py` refuses a notebook someone edited or ran.

Each case builds a small course under `tmp_path` (sessions/s42-new-idea/notebook.py and its
notebook), then does to the notebook what a learner does: edits a cell, runs it, saves it from
Jupyter. The builder must refuse what would lose work, by name and with the flag that forces it;
rebuild what an earlier build wrote and nobody touched; and, when forced, keep a copy first.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from test_notebooks import PERCENT_SOURCE, build, guard  # the builder and tools/notebook_guard.py

ROOT = Path(__file__).resolve().parents[1]
FOLDER = "s42-new-idea"
CHANGED_SOURCE = PERCENT_SOURCE + "\n# %%\ny = 2\n"


def _course(tmp_path: Path, text: str = PERCENT_SOURCE) -> dict[str, Path]:
    paths = {
        "sessions": tmp_path / "sessions",
        "notebooks": tmp_path / "notebooks",
        "backups": tmp_path / "build" / "replaced-notebooks",
    }
    (paths["sessions"] / FOLDER).mkdir(parents=True)
    (paths["sessions"] / FOLDER / "notebook.py").write_text(text, encoding="utf-8")
    return paths


def _build(paths: dict[str, Path], **options: bool) -> int:
    return build.build_notebooks(
        sessions=paths["sessions"],
        notebooks=paths["notebooks"],
        backups=paths["backups"],
        **options,
    )


def _notebook(paths: dict[str, Path], folder: str = FOLDER) -> Path:
    return paths["notebooks"] / f"{folder}.ipynb"


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def _new_source(paths: dict[str, Path], text: str = CHANGED_SOURCE, folder: str = FOLDER) -> None:
    (paths["sessions"] / folder / "notebook.py").write_text(text, encoding="utf-8")


def _learner_edits_a_cell(data: dict) -> None:
    data["cells"][1]["source"] = ["x = 1  # my own note\n", "x"]


def test_build_records_the_digest_of_the_cells_it_wrote(tmp_path):
    paths = _course(tmp_path)
    assert _build(paths) == 0
    data = json.loads(_notebook(paths).read_text(encoding="utf-8"))
    assert data["metadata"]["cafe"] == {
        "cells_sha256": guard.cells_digest(data),
        "source": f"sessions/{FOLDER}/notebook.py",
    }
    nbformat.validate(nbformat.reads(json.dumps(data), as_version=4))


def test_build_refuses_to_overwrite_an_edited_notebook_naming_it_and_the_flag(tmp_path, capsys):
    paths = _course(tmp_path)
    _build(paths)
    _edit(_notebook(paths), _learner_edits_a_cell)
    before = _notebook(paths).read_bytes()
    _new_source(paths)
    capsys.readouterr()
    assert _build(paths) == 1
    err = capsys.readouterr().err
    assert (
        f"build: notebooks/{FOLDER}.ipynb: not rewritten: its cells were edited after the build "
        "wrote it" in err.replace(str(tmp_path) + "/", "")
    )
    assert "python tools/build.py notebooks --force" in err and "keeping a copy" in err
    assert _notebook(paths).read_bytes() == before
    assert not paths["backups"].exists()


def test_build_refuses_a_notebook_with_outputs_even_when_its_cells_are_unchanged(tmp_path, capsys):
    paths = _course(tmp_path)
    _build(paths)

    def ran(data: dict) -> None:
        data["cells"][1]["execution_count"] = 1
        data["cells"][1]["outputs"] = [
            {"output_type": "execute_result", "data": {"text/plain": "1"}, "metadata": {}}
        ]

    _edit(_notebook(paths), ran)
    _new_source(paths)
    assert _build(paths) == 1
    assert "not rewritten: cell 2 holds outputs from a run" in capsys.readouterr().err


def test_build_rewrites_an_untouched_notebook_when_its_source_changes(tmp_path):
    paths = _course(tmp_path)
    _build(paths)
    _new_source(paths)
    assert _build(paths) == 0
    cells = json.loads(_notebook(paths).read_text(encoding="utf-8"))["cells"]
    assert cells[-1]["source"] == ["y = 2"]


def test_a_notebook_saved_by_jupyter_without_edits_still_rebuilds(tmp_path):
    # JupyterLab rewrites the JSON on save and adds its own metadata; no cell changed, nothing lost.
    paths = _course(tmp_path)
    _build(paths)
    saved = nbformat.read(_notebook(paths), as_version=4)
    saved.metadata["language_info"] = {"name": "python", "version": "3.11.7", "codemirror_mode": 3}
    nbformat.write(saved, _notebook(paths))
    _new_source(paths)
    assert _build(paths) == 0


def test_build_force_keeps_a_copy_of_what_it_replaces(tmp_path, capsys):
    paths = _course(tmp_path)
    _build(paths)
    _edit(_notebook(paths), _learner_edits_a_cell)
    before = _notebook(paths).read_bytes()
    _new_source(paths)
    assert _build(paths, force=True) == 0
    copies = list(paths["backups"].glob(f"{FOLDER}-*.ipynb"))
    assert len(copies) == 1 and copies[0].read_bytes() == before
    assert "kept the old" in capsys.readouterr().out
    assert "my own note" not in _notebook(paths).read_text(encoding="utf-8")


def test_keep_copy_never_replaces_an_earlier_copy(tmp_path):
    target = tmp_path / "s42-new-idea.ipynb"
    folder = tmp_path / "copies"
    copies = []
    for text in ("first", "second"):
        target.write_text(text, encoding="utf-8")
        copies.append(guard.keep_copy(target, folder, clock=lambda: 0.0))
    assert copies[0] != copies[1]
    assert [c.read_text(encoding="utf-8") for c in copies] == ["first", "second"]
    assert copies[0].name == "s42-new-idea-19700101T000000Z.ipynb"


def test_a_notebook_from_before_the_record_rebuilds_only_when_it_matches_its_source(tmp_path):
    paths = _course(tmp_path)
    _build(paths)
    _edit(_notebook(paths), lambda data: data["metadata"].pop("cafe"))
    assert _build(paths) == 0  # landing the record needs no --force
    assert "cafe" in json.loads(_notebook(paths).read_text(encoding="utf-8"))["metadata"]
    _edit(_notebook(paths), lambda data: data["metadata"].pop("cafe"))
    _new_source(paths)
    assert _build(paths) == 1  # an old source's notebook without a record: no proof it is untouched


def test_a_notebook_whose_cells_equal_its_source_rebuilds_whatever_its_record_says(tmp_path):
    # After a merge the record can be stale while the cells already match the merged source.
    paths = _course(tmp_path)
    _build(paths)
    _edit(_notebook(paths), lambda data: data["metadata"]["cafe"].update(cells_sha256="0" * 64))
    assert _build(paths) == 0


def test_an_unreadable_notebook_is_refused_not_replaced(tmp_path, capsys):
    paths = _course(tmp_path)
    _build(paths)
    _notebook(paths).write_text("<<<<<<< HEAD\n{", encoding="utf-8")
    assert _build(paths) == 1
    assert "it cannot be read as a notebook" in capsys.readouterr().err


def test_one_refusal_still_builds_every_other_notebook(tmp_path, capsys):
    paths = _course(tmp_path)
    (paths["sessions"] / "s43-other").mkdir()
    _new_source(paths, PERCENT_SOURCE, folder="s43-other")
    _build(paths)
    _edit(_notebook(paths), _learner_edits_a_cell)
    _new_source(paths)
    _new_source(paths, folder="s43-other")
    assert _build(paths) == 1
    out = capsys.readouterr().out
    assert "wrote" in out and "s43-other.ipynb" in out and "1 built, 1 refused" in out
    assert "y = 2" in _notebook(paths, "s43-other").read_text(encoding="utf-8")


def test_command_line_names_force_in_its_help_and_rejects_it_for_the_site():
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, str(ROOT / "tools" / "build.py"), *args],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "COLUMNS": "300"},  # argparse wraps help at hyphens otherwise
        )

    helped = run("--help")
    assert helped.returncode == 0 and "--force" in helped.stdout
    assert "build/replaced-notebooks/" in helped.stdout
    refused = run("site", "--force")
    assert refused.returncode == 2 and "apply to notebooks only" in refused.stderr
    both = run("notebooks", "--check", "--force")
    assert both.returncode == 2 and "cannot be combined" in both.stderr


@pytest.mark.parametrize(
    ("change", "safe"),
    [
        (lambda data: None, True),
        (lambda data: data["cells"][0]["metadata"].update(tags=["skip"]), False),
        (lambda data: data["cells"].pop(), False),
        (lambda data: data["cells"][1]["metadata"].update(collapsed=True), True),
    ],
    ids=["unchanged", "tag added", "cell deleted", "cell folded"],
)
def test_the_digest_covers_what_a_person_writes_and_nothing_else(tmp_path, change, safe):
    paths = _course(tmp_path)
    _build(paths)
    _edit(_notebook(paths), change)
    _new_source(paths)
    wanted = build.render_notebook(paths["sessions"] / FOLDER / "notebook.py")
    assert guard.safe_to_rewrite(_notebook(paths), wanted).safe is safe
