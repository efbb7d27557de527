"""Learners' notebooks made from the built ones: answered, solved, wrong, unanswered, broken.

`tests/test_strict.py`, `tests/test_grade.py` and `benchmarks/grade_speed.py` hand these to nbval
and to `cafe grade` as a class would. Each helper takes a notebook (the JSON dict) and returns a
new one with some cells' sources changed in place, never with cells added or removed, so a
code cell keeps its number ("Cell 18" in nbval's report) whatever was done to the others.

- `answered(nb)`: every prediction recorded before its run, with the offline outcome declared
  in `cafe/data/predictions/sNN.json` (so every prediction matches); `skip=` leaves some out;
- `solved_s00(nb, names)`: session 00's exercises replaced by the references in `cafe.exercises.s00`;
- `wrong(nb, name, body)`: the stub `name` given a wrong body instead of its `NotImplementedError`;
- `live_down(nb, key)`: the live story `key` run on a function that raises a timeout, as a dead
  endpoint would;
- `code_cell_number(nb, text)`: the number nbval gives the code cell holding `text`.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
DECLARATIONS = ROOT / "cafe" / "data" / "predictions"
# A predict cell assigns its handle: `guess = course.predict(\n    "s00.first_reply", ...`.
PREDICT = re.compile(r'^(\w+) = course\.predict\(\s*"(s\d{2}\.\w+)"', re.M)


def load(name: str) -> dict[str, Any]:
    """A built notebook, by its file name (`s00-setup.ipynb`)."""
    return json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))


def save(nb: dict[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _source(cell: dict[str, Any]) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def _code_cells(nb: dict[str, Any]) -> list[dict[str, Any]]:
    return [cell for cell in nb["cells"] if cell["cell_type"] == "code"]


def code_cell_number(nb: dict[str, Any], text: str) -> int:
    """nbval's number ("Cell N") for the first code cell whose source holds `text`."""
    for number, cell in enumerate(_code_cells(nb)):
        if text in _source(cell):
            return number
    raise LookupError(f"no code cell holds {text!r}")


def _outcome(key: str) -> str:
    """The offline outcome declared for prediction `key`."""
    declared = json.loads((DECLARATIONS / f"{key[:3]}.json").read_text(encoding="utf-8"))
    return str(declared[key]["outcome"])


def answered(nb: dict[str, Any], skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """Every prediction but those in `skip` recorded (as its declared outcome) in its own cell."""
    new = copy.deepcopy(nb)
    for cell in _code_cells(new):
        text = _source(cell)
        for handle, key in PREDICT.findall(text):
            if key not in skip:
                text += f"\n{handle}.value = {_outcome(key)!r}\n"
        cell["source"] = text
    return new


def _replace_in_cell(nb: dict[str, Any], holding: str, old: str, new_text: str) -> dict[str, Any]:
    new = copy.deepcopy(nb)
    cell = _code_cells(new)[code_cell_number(new, holding)]
    text = _source(cell)
    if old not in text:
        raise LookupError(f"the cell holding {holding!r} has no {old!r}")
    cell["source"] = text.replace(old, new_text, 1)
    return new


def _stub_cell(nb: dict[str, Any], name: str) -> dict[str, Any]:
    return _code_cells(nb)[code_cell_number(nb, f"def {name}(")]


def solved_s00(
    nb: dict[str, Any], names: tuple[str, ...] = ("tool_arguments", "responder")
) -> dict[str, Any]:
    """Session 00 with its exercises (or those `names`) answered by the course's references."""
    new = copy.deepcopy(nb)
    for name in names:
        _stub_cell(new, name)["source"] = (
            f"from cafe.exercises.s00 import reference_{name} as {name}\n"
        )
    return new


def wrong(nb: dict[str, Any], name: str, body: str = "return None") -> dict[str, Any]:
    """The stub `name` with `body` where its `raise NotImplementedError(...)` was."""
    new = copy.deepcopy(nb)
    cell = _stub_cell(new, name)
    text = _source(cell)
    start = text.index("raise NotImplementedError(")
    depth, end = 0, start
    for end in range(text.index("(", start), len(text)):
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        if depth == 0:
            break
    cell["source"] = text[:start] + body + text[end + 1 :]
    return new


def live_down(nb: dict[str, Any], key: str) -> dict[str, Any]:
    """The live story `key` run on a function that times out, as a dead endpoint does."""
    new = copy.deepcopy(nb)
    cell = _code_cells(new)[code_cell_number(new, f'course.live_story("{key}"')]
    text = _source(cell)
    down = (
        "def _endpoint_down():\n"
        "    from cafe.endpoint.errors import EndpointError\n\n"
        '    raise EndpointError("the endpoint did not answer in 30 s", kind="timeout")\n\n\n'
    )
    call = re.search(rf'course\.live_story\("{re.escape(key)}", (\w+)', text)
    assert call is not None
    cell["source"] = down + text.replace(
        call.group(0), f'course.live_story("{key}", _endpoint_down'
    )
    return new
