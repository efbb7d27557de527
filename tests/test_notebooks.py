"""Committed notebooks: present, generated from their sources byte for byte, clean, spoiler-free.

nbval runs the notebooks themselves (`pytest --nbval-lax --nbval-current-env`); this file checks
what is committed, and the builder (`tools/build.py`) that produces it.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from samples import run_notebook_source

from cafe import course
from cafe.course.reveals import load_answer

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(ROOT.glob("sessions/*/notebook.py"))
NOTEBOOKS = sorted(ROOT.glob("notebooks/*.ipynb"))
ANSWER_FILES = sorted((ROOT / "cafe" / "data" / "answers").glob("*.json"))
# Answer lines shorter than this (a closing bracket, `return {}`) may appear anywhere innocently.
MIN_SPOILER_CHARS = 30
# Lines of a reference answer that the stub legitimately shares: its signature, docstring, imports.
INTERFACE_PREFIXES = ("def ", "async def ", "class ", "import ", "from ", '"""', "'''")


def _load_builder():
    spec = importlib.util.spec_from_file_location("course_build", ROOT / "tools" / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


build = _load_builder()
import notebook_guard as guard  # noqa: E402  (tools/, on the path once the builder is loaded)


def _target(source: Path) -> Path:
    return ROOT / "notebooks" / f"{source.parent.name}.ipynb"


def _cells(notebook: Path) -> list[dict]:
    return json.loads(notebook.read_text(encoding="utf-8"))["cells"]


def _cell_text(cell: dict) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def _answer_texts() -> list[tuple[str, str, str]]:
    """(answers file, key, text) for every answer, and every long line of every answer."""
    found = []
    for path in ANSWER_FILES:
        for name, value in json.loads(path.read_text(encoding="utf-8")).items():
            text = "\n".join(value) if isinstance(value, list) else str(value)
            found.append((path.name, name, text.strip()))
            found += [
                (path.name, name, line.strip())
                for line in text.splitlines()
                if len(line.strip()) >= MIN_SPOILER_CHARS
                and not line.strip().startswith(INTERFACE_PREFIXES)
            ]
    return found


def _reveal_keys(source: Path) -> list[str]:
    """Keys of `course.reveal("sNN.name")` / `reveal_now(...)` calls that read the answers files."""
    keys = []
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Attribute, ast.Name))
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in ("reveal", "reveal_now")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and len(node.args) < 2
            and not any(k.arg == "source" for k in node.keywords)
        ):
            keys.append(node.args[0].value)
    return keys


def test_there_are_notebook_sources():
    assert SOURCES, "no sessions/*/notebook.py found"


@pytest.mark.parametrize("source", SOURCES, ids=[s.parent.name for s in SOURCES])
def test_every_notebook_source_has_a_committed_notebook(source):
    target = _target(source)
    assert target.is_file(), (
        f"{target.relative_to(ROOT)} is missing: run `python tools/build.py notebooks`"
    )
    if (ROOT / ".git").exists() and shutil.which("git"):
        tracked = (
            subprocess.run(
                ["git", "ls-files", "--error-unmatch", str(target)], cwd=ROOT, capture_output=True
            ).returncode
            == 0
        )
        assert tracked, f"{target.relative_to(ROOT)} exists but is not committed: git add it"


@pytest.mark.parametrize("source", SOURCES, ids=[s.parent.name for s in SOURCES])
def test_committed_notebook_is_byte_for_byte_what_its_source_generates(source):
    target = _target(source)
    if not target.exists():
        pytest.fail(f"{target.relative_to(ROOT)} is missing")
    assert target.read_bytes() == build.render_notebook(source).encode("utf-8"), (
        f"{target.relative_to(ROOT)} is stale: run `python tools/build.py notebooks` and commit it"
    )


def test_every_committed_notebook_has_a_source():
    sources = {s.parent.name for s in SOURCES}
    orphans = [n.name for n in NOTEBOOKS if n.stem not in sources]
    assert not orphans, f"notebooks without sessions/<name>/notebook.py: {orphans}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.stem for n in NOTEBOOKS])
def test_committed_notebook_has_no_outputs_counts_or_widget_state(notebook):
    data = json.loads(notebook.read_text(encoding="utf-8"))
    assert set(data["metadata"]) <= {"kernelspec", "language_info", "cafe"}, (
        "volatile notebook metadata"
    )
    record = data["metadata"]["cafe"]  # what the builder wrote, so it never overwrites work
    assert record["cells_sha256"] == guard.cells_digest(data), "the build record is stale"
    assert record["source"] == f"sessions/{notebook.stem}/notebook.py"
    assert "widgets" not in data["metadata"]
    assert data["metadata"]["kernelspec"]["name"] == "python3"
    for number, cell in enumerate(data["cells"]):
        where = f"{notebook.name} cell {number}"
        assert set(cell.get("metadata", {})) <= {"tags"}, f"{where}: volatile cell metadata"
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [], f"{where} has outputs"
            assert cell["execution_count"] is None, f"{where} has an execution count"
        assert "attachments" not in cell, f"{where} has attachments"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.stem for n in NOTEBOOKS])
def test_no_cell_contains_an_answer_text(notebook):
    cells = [_cell_text(cell) for cell in _cells(notebook)]
    for file_name, key, text in _answer_texts():
        for number, cell in enumerate(cells):
            assert text not in cell, (
                f"{notebook.name} cell {number} spoils {file_name} {key!r}: {text[:60]!r}"
            )


@pytest.mark.parametrize("source", SOURCES, ids=[s.parent.name for s in SOURCES])
def test_every_reveal_key_in_a_notebook_has_an_answer(source):
    for key in _reveal_keys(source):
        try:
            course.answers_path(key)
            load_answer(key)
        except (LookupError, ValueError) as exc:
            pytest.fail(f"{source.relative_to(ROOT)}: {exc}")


def test_reveal_key_finder_sees_answer_reveals_and_skips_source_reveals():
    # The check above is only as good as this finder: it must not pass by finding nothing.
    keys = _reveal_keys(ROOT / "sessions" / "s00-setup" / "notebook.py")
    assert keys == ["s00.why_tool_call", "s00.tool_arguments"]


# --- the session 00 exercise: the stub is not attempted, the reference answer passes ----------


def test_s00_stub_is_not_attempted_and_the_revealed_answer_passes():
    namespace = run_notebook_source("s00-setup")
    check = namespace["check_tool_arguments"]
    with contextlib.redirect_stdout(io.StringIO()):
        assert course.compare(namespace["tool_arguments"], check).status == "not_attempted"
        reference: dict = {}
        exec(load_answer("s00.tool_arguments"), reference)
        assert course.compare(reference["tool_arguments"], check).status == "passed"
        wrong = course.compare(lambda message: {}, check)
    assert wrong.status == "failed" and len(wrong.problems) == 4  # every reply with a call
    assert wrong.problems[0].startswith("one call: returned {}, expected {'item': 'latte'")


# --- the builder ------------------------------------------------------------------------------

PERCENT_SOURCE = """# %% [markdown]
# # A title

# %% tags=["raises-exception"]
x = 1
x
"""


def _session(tmp_path: Path, folder: str, text: str) -> tuple[Path, Path]:
    sessions, notebooks = tmp_path / "sessions", tmp_path / "notebooks"
    (sessions / folder).mkdir(parents=True)
    (sessions / folder / "notebook.py").write_text(text, encoding="utf-8")
    return sessions, notebooks


def test_builder_finds_a_new_session_and_writes_a_clean_deterministic_notebook(tmp_path, capsys):
    sessions, notebooks = _session(tmp_path, "s42-new-idea", PERCENT_SOURCE)
    assert build.build_notebooks(sessions=sessions, notebooks=notebooks) == 0
    written = notebooks / "s42-new-idea.ipynb"
    first = written.read_bytes()
    data = json.loads(first)
    assert [c["cell_type"] for c in data["cells"]] == ["markdown", "code"]
    assert data["cells"][1]["metadata"] == {"tags": ["raises-exception"]}
    assert data["cells"][1]["source"] == ["x = 1\n", "x"]
    assert data["metadata"]["kernelspec"]["name"] == "python3"
    assert build.build_notebooks(sessions=sessions, notebooks=notebooks) == 0
    assert written.read_bytes() == first


def test_builder_check_lists_stale_missing_and_orphan_notebooks_without_writing(tmp_path, capsys):
    sessions, notebooks = _session(tmp_path, "s42-new-idea", PERCENT_SOURCE)
    notebooks.mkdir()
    (notebooks / "s43-gone.ipynb").write_text("{}")
    assert build.build_notebooks(check=True, sessions=sessions, notebooks=notebooks) == 1
    out = capsys.readouterr().out
    assert "s42-new-idea.ipynb: missing" in out and "s43-gone.ipynb: no source" in out
    assert not (notebooks / "s42-new-idea.ipynb").exists()
    (notebooks / "s43-gone.ipynb").unlink()
    build.build_notebooks(sessions=sessions, notebooks=notebooks)
    assert build.build_notebooks(check=True, sessions=sessions, notebooks=notebooks) == 0
    (sessions / "s42-new-idea" / "notebook.py").write_text(PERCENT_SOURCE + "\n# %%\ny = 2\n")
    assert build.build_notebooks(check=True, sessions=sessions, notebooks=notebooks) == 1
    assert "differs from" in capsys.readouterr().out


def test_builder_error_names_the_file_and_the_fix_for_a_missing_cell_marker(tmp_path, capsys):
    sessions, notebooks = _session(tmp_path, "s42-new-idea", "x = 1\n")
    assert build.build_notebooks(sessions=sessions, notebooks=notebooks) == 1
    err = capsys.readouterr().err
    assert "s42-new-idea/notebook.py" in err and "'# %%'" in err


def test_builder_error_names_the_line_of_a_syntax_error(tmp_path, capsys):
    sessions, notebooks = _session(tmp_path, "s42-new-idea", "# %%\nx = 1\n\n# %%\ndef broken(:\n")
    assert build.build_notebooks(sessions=sessions, notebooks=notebooks) == 1
    assert "notebook.py, line 5" in capsys.readouterr().err


def test_builder_rejects_a_folder_that_is_not_a_session_name(tmp_path, capsys):
    sessions, notebooks = _session(tmp_path, "Session Seven", PERCENT_SOURCE)
    assert build.build_notebooks(sessions=sessions, notebooks=notebooks) == 1
    assert "'Session Seven' is not a session name" in capsys.readouterr().err


def test_builder_site_command_without_sitebuild_says_so(tmp_path, capsys):
    assert build.build_site_command(root=tmp_path) == 1
    assert "sitebuild.py is missing" in capsys.readouterr().err


# --- the session's diagram, shown in its notebook --------------------------------------------

DIAGRAM_SOURCES = sorted(ROOT.glob("sessions/s[0-9][0-9]-*/diagram.dot"))


def test_every_diagram_source_has_its_drawing_committed_and_its_notebook_shows_it():
    assert DIAGRAM_SOURCES
    for source in DIAGRAM_SOURCES:
        drawing = source.parent / "diagram.svg"
        assert drawing.exists(), (
            f"{drawing.relative_to(ROOT)} is missing: run `python tools/build.py diagrams`"
        )
        notebook = ROOT / "notebooks" / f"{source.parent.name}.ipynb"
        if notebook.exists():
            second = "".join(json.loads(notebook.read_text(encoding="utf-8"))["cells"][1]["source"])
            assert f"](../sessions/{source.parent.name}/diagram.svg)" in second, notebook.name


def test_committed_drawings_match_their_diagram_sources():
    sys.path.insert(0, str(ROOT / "tests"))
    from test_site import _needs_graphviz

    _needs_graphviz()
    sys.path.insert(0, str(ROOT / "tools"))
    from diagrams import draw_diagram, drawing_text, find_dot

    stale = []
    for source in DIAGRAM_SOURCES:
        diagram, problems = draw_diagram(source.parent, ROOT, find_dot())
        assert not problems and diagram is not None and diagram.standalone is not None, problems
        if (source.parent / "diagram.svg").read_text(encoding="utf-8") != drawing_text(
            diagram.standalone
        ):
            stale.append(str(source.relative_to(ROOT)))
    assert not stale, (
        f"drawings older than their source: {stale}; run `python tools/build.py diagrams`"
    )
