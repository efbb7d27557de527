"""What comes after the notebook is folded, on the site and in lesson.md (issue 27).

A lesson is read up to the end of Build, then the notebook, then the rest. The site folds the
sections after Build (Checkpoint to Self-check) under one closed "After the notebook" marker that
no script and no stylesheet opens; lesson.md may fold each self-check answer in
`<details><summary>Answer</summary>` ... `</details>` lines, which the site strips and folds its
own way; and `lesson_order.check_reading_order` reports a lesson whose Build section does not end
with the reading-order line or whose answers are not folded, once `REQUIRE_READING_ORDER` is on.
The fixture lessons come from tests/test_site.py.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import lesson_format  # noqa: E402
from lesson_format import (  # noqa: E402
    AFTER_NOTEBOOK,
    ANSWER_CLOSE,
    ANSWER_OPEN,
    READING_ORDER_LINE,
    REQUIRED_SECTIONS,
)
from lesson_order import check_reading_order, strip_answer_wrappers  # noqa: E402
from lessons import split_front_matter  # noqa: E402
from sitebuild import build_site, load_lesson  # noqa: E402
from test_site import BODY, Fold, failure, text_of, write_course, write_lesson  # noqa: E402

REL = "sessions/s01-agent-loop/lesson.md"
BUILD_END = "Open the [toy](toy.py) and the [module docs](../../docs/AUTHORING.md)."
ANSWERS = (
    "The fixture page for session {number}; the answer stays collapsed until opened.",
    "Yes, one `details` block per question.",
)


def in_order(number: int = 1, *, line: bool = True, wrapped: bool = True) -> str:
    """The fixture lesson body, with the reading-order line ending Build and/or folded answers."""
    body = BODY  # test_site's fixture lesson has both, as every lesson must
    if not line:
        body = body.replace("{extra_build}\n\n" + READING_ORDER_LINE, "{extra_build}")
    if not wrapped:
        for answer in ANSWERS:
            body = body.replace(f"{ANSWER_OPEN}\n\n{answer}\n\n{ANSWER_CLOSE}", answer)
    return body.format(number=number, extra_build="", extra_unlocks="")


def problems_of(body: str, *, required: bool) -> list[str]:
    return [str(p) for p in check_reading_order(body, 1, REL, required=required)]


# --- the site's fold ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = write_course(tmp_path_factory.mktemp("course"))
    out = tmp_path_factory.mktemp("out") / "site"
    build_site(root, out)
    return (out / "s07-repair-loop.html").read_text(encoding="utf-8")


def test_fold_holds_checkpoint_to_self_check_closed_and_nothing_else(page: str) -> None:
    fold = Fold(page)
    assert fold.count == 1 and fold.closed
    assert fold.inside == [
        "checkpoint-the-number-you-bank",
        "state-of-the-art-as-of-november-2026",
        "annotated-readings",
        "misconceptions-and-failure-modes",
        "self-check",
    ]
    assert len(fold.inside) == len(AFTER_NOTEBOOK) == 5
    assert fold.outside == [
        "the-hook",
        "the-promise",
        "the-theory-in-depth",
        "build-in-the-notebook-predict-first",
        "what-this-unlocks",
    ]
    assert AFTER_NOTEBOOK == REQUIRED_SECTIONS[4:9]


def test_fold_says_what_it_holds_and_the_contents_point_at_it(page: str) -> None:
    summary = re.search(
        r'<details class="after-notebook"[^>]*>\s*<summary>(.*?)</summary>', page, re.S
    )
    assert summary is not None
    assert text_of(summary.group(1)).strip() == (
        "After the notebook checkpoint, state of the art, readings, misconceptions, self-check"
    )
    toc = re.search(r'<nav class="toc".*?</nav>', page, re.S).group(0)
    assert '<a href="#after-the-notebook">After the notebook</a>' in toc
    assert "#checkpoint-the-number-you-bank" not in toc and "#self-check" not in toc


def test_no_script_and_no_style_opens_the_fold(page: str, tmp_path: Path) -> None:
    assert re.findall(r"<script[^>]*>", page) == ['<script src="search.js" defer>']
    assert '<details class="after-notebook" id="after-the-notebook">' in page  # no `open`
    css = (ROOT / "tools" / "site_templates" / "style.css").read_text(encoding="utf-8")
    openers = [
        rule
        for rule in re.findall(r"[^{}]*\{[^{}]*\}", css)
        if re.search(r"details-content|content-visibility", rule)
    ]
    assert openers, "the desktop rule that unfolds the sidebar is gone: update this test"
    for rule in openers:
        selector = rule.split("{")[0]
        assert "after-notebook" not in selector and re.search(r"details\.fold\b", selector), rule
    assert "fold" not in re.search(r'<details class="([^"]*)" id="after-the-notebook"', page)[1]


# --- self-check answers folded in lesson.md -----------------------------------------------------


def test_folded_answers_render_as_the_site_always_folded_them(tmp_path: Path) -> None:
    write_course(tmp_path)
    write_lesson(tmp_path, 1, "agent-loop", body=in_order())
    build_site(tmp_path, tmp_path / "site")
    html = (tmp_path / "site" / "s01-agent-loop.html").read_text(encoding="utf-8")
    blocks = re.findall(
        r'<details class="self-check" id="([^"]+)">\s*<summary>(.*?)</summary>\s*'
        r'<div class="answer">(.*?)</div>\s*</details>',
        html,
        re.S,
    )
    assert [anchor for anchor, _, _ in blocks] == [
        "which-page-renders-this-question",
        "does-a-second-question-get-its-own-block",
    ]
    assert text_of(blocks[0][2]).strip() == ANSWERS[0].format(number=1)
    assert (
        "&lt;details" not in html and "&lt;/details" not in html and "Answer</summary>" not in html
    )
    assert READING_ORDER_LINE in text_of(html)


def test_stripping_blanks_exactly_the_wrapper_lines_inside_self_check() -> None:
    body = in_order() + f"\n```markdown\n{ANSWER_OPEN}\n```\n"
    stripped = strip_answer_wrappers(body)
    assert len(stripped.split("\n")) == len(body.split("\n"))  # line numbers stay right
    assert stripped.count(ANSWER_OPEN) == 1  # the one in a code block stays
    assert ANSWER_CLOSE not in stripped
    assert stripped.replace("\n", "") == body.replace(ANSWER_OPEN, "", 2).replace(
        ANSWER_CLOSE, ""
    ).replace("\n", "")


def test_a_wrapper_outside_self_check_is_reported_with_its_line(tmp_path: Path) -> None:
    write_course(tmp_path)
    body = in_order().replace("By the end you have a fixture.", f"{ANSWER_OPEN}\n\nBy the end")
    write_lesson(tmp_path, 1, "agent-loop", body=body)
    (problem,) = [p for p in failure(tmp_path) if "folds a self-check answer" in p]
    line = 1 + (tmp_path / REL).read_text(encoding="utf-8").split("\n").index(ANSWER_OPEN)
    assert problem.startswith(f"{REL}: line {line}: '{ANSWER_OPEN}' folds a self-check answer")


@pytest.mark.parametrize(
    "broken",
    [
        lambda body: body.replace(f"\n\n{ANSWER_CLOSE}", "", 1),  # never closed
        lambda body: body.replace(ANSWER_OPEN, ANSWER_CLOSE, 1),  # closed twice
        lambda body: body.replace(f"{ANSWER_OPEN}\n\nThe", f"The fixture.\n\n{ANSWER_OPEN}\n\nThe"),
    ],
    ids=["never-closed", "closed-twice", "text-before-the-fold"],
)
def test_a_broken_fold_is_reported_even_while_not_required(broken) -> None:
    (problem,) = problems_of(broken(in_order()), required=False)
    assert "self-check question 'Which page renders this question?'" in problem
    assert "has a broken fold" in problem


# --- the reading order, required or not --------------------------------------------------------


def test_a_lesson_in_reading_order_passes_both_ways() -> None:
    assert problems_of(in_order(), required=True) == []
    assert problems_of(in_order(), required=False) == []


def test_a_lesson_not_yet_in_order_passes_until_required() -> None:
    body = in_order(line=False, wrapped=False)
    assert problems_of(body, required=False) == []
    found = problems_of(body, required=True)
    assert len(found) == 3, found
    build_line = 1 + body.split("\n").index("## Build (in the notebook, predict first)")
    assert found[-1] == (
        f"{REL}: section '## Build (in the notebook, predict first)' (line {build_line}): must end "
        f"with the reading-order line, alone as its last paragraph: '{READING_ORDER_LINE}' (add it "
        f"after line {build_line + 2})"
    )
    assert all("is not folded" in p for p in found[:2])
    assert "question 'Does a second question get its own block?'" in found[1]


def test_the_line_must_end_build_and_every_answer_must_be_folded() -> None:
    late = in_order().replace(READING_ORDER_LINE, READING_ORDER_LINE + "\n\nOne more step.")
    (problem,) = problems_of(late, required=True)
    assert "must end with the reading-order line" in problem
    one = (
        in_order()
        .replace(f"{ANSWER_OPEN}\n\nYes", "Yes", 1)
        .replace(f"question.\n\n{ANSWER_CLOSE}", "question.", 1)
    )
    (problem,) = problems_of(one, required=True)
    assert "'Does a second question get its own block?'" in problem and "is not folded" in problem


def test_the_switch_makes_the_build_refuse_a_lesson_out_of_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_course(tmp_path)
    for number, slug in (
        (0, "setup"),
        (1, "agent-loop"),
        (7, "repair-loop"),
        (13, "stall-detection"),
    ):
        path = tmp_path / "sessions" / f"s{number:02d}-{slug}" / "lesson.md"
        front, _, _ = split_front_matter(path.read_text(encoding="utf-8"))
        path.write_text(f"---\n{front}---\n\n" + in_order(number), encoding="utf-8")
    assert build_site(tmp_path, tmp_path / "site").ok
    monkeypatch.setattr(lesson_format, "REQUIRE_READING_ORDER", True)
    assert build_site(tmp_path, tmp_path / "site2").ok
    old_shape = in_order(1, line=False, wrapped=False)  # no line, answers not folded
    write_lesson(tmp_path, 1, "agent-loop", body=old_shape)
    found = failure(tmp_path)
    assert len(found) == 3 and all(p.startswith(REL) for p in found), found
    monkeypatch.setattr(lesson_format, "REQUIRE_READING_ORDER", False)
    assert build_site(tmp_path, tmp_path / "site3").ok


def test_the_real_lessons_load_with_or_without_folded_answers() -> None:
    for path in sorted(ROOT.glob("sessions/s[0-9][0-9]-*/lesson.md")):
        lesson = load_lesson(path)
        assert ANSWER_OPEN not in lesson.body and ANSWER_CLOSE not in lesson.body, path
