"""Drive a course notebook in the JupyterLab the course installs, in headless Chromium.

`running_lab(tmp)` starts `jupyter lab` on 127.0.0.1 (an ephemeral port, a token, a temporary
HOME, Jupyter folders and `CAFE_HOME`, widgets ON: `CAFE_HEADLESS` is removed). One server and one
page serve many notebooks in turn, as a learner works notebook after notebook in one JupyterLab
tab: `open_notebook` closes the last notebook's tab (and waits until no notebook is left on the
page), shuts down the kernels it left, deletes `CAFE_HOME` (no progress carries over), copies the
next notebook into a folder of its own (nothing the browser saves touches the repository) and opens
it with JupyterLab's own `docmanager:open` command, which starts it a new kernel. Only the first
notebook, or one after a step left a dialog on the page, loads the page afresh: loading
JupyterLab's page and extensions again for each notebook cost 8 to 10 s a notebook on a busy
two-core machine (an open in the same page 3 to 8 s, a fresh page 12 to 16 s, kernel start
included) and checked nothing more. `LabPage` is what a learner's hands do: open the notebook, run every cell, click a prediction, run one cell, flip a
reveal switch, type into a cell. Every wait is bounded and polls the page's own state (a cell's
execution count, the kernel's status indicator, a widget's DOM node), never a fixed sleep; a wait
that runs out fails with what the page showed, and a screenshot of it.

A screenshot costs a fifth of a second or so on a busy machine, six a notebook: `LabPage` takes the
screenshots of each step (`step_shot`) only when asked (`every_step`, set from
`$CAFE_SCREENSHOT_DIR`), and one of the page as it stood whenever a step fails (`screenshot`).

The cells are addressed by their index in the notebook file (read with `json`), not by reading code
back out of the page: JupyterLab renders every cell here (windowing off), in file order.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

LAB_START_S = 120.0  # JupyterLab's first start on a busy 2-core machine takes a few seconds
NOTEBOOK_OPEN_S = 90.0  # the page, its extensions and the kernel
RUN_ALL_S = 240.0  # every cell of a notebook whose stories run real pytest (session 13)
CELL_S = 60.0  # one cell
WIDGET_S = 30.0  # a widget's DOM node or a comm message's effect
REST_S = 30.0  # one REST call; shutting a kernel down waits for it to exit
POLL_S = 0.1
# How often the long wait for Run All looks: one look costs about 6 ms of CPU across the test,
# chromedriver and Chromium (measured on a busy 2-core machine), taken from the kernel running the
# notebook; four looks a second see the end within a quarter of a second.
RUN_ALL_POLL_S = 0.25

TOKEN = "cafe-lab-test-token"
# JupyterLab's own settings for this run: every cell in the DOM (no virtual scrolling), and no
# "would you like news?" pop-up over the cells.
USER_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}
PAGE_CONFIG = {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}
# The cells of the notebook on show (a hidden panel's cells would be someone else's).
CELLS = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell"
# JupyterLab's page puts its application on `window.jupyterapp` when the server is started with
# `--LabApp.expose_app_in_browser=True` (JupyterLab's own browser tests, Galata, run it so): the
# test opens the next notebook with the app's commands instead of loading the page again.
EXPOSE_APP = "--LabApp.expose_app_in_browser=True"


class LabTimeout(AssertionError):
    """A bounded wait ran out; the message says what was awaited and what the page showed."""


@dataclass(frozen=True)
class Lab:
    url: str  # http://127.0.0.1:PORT
    token: str
    home: Path  # HOME and CAFE_HOME live under it
    work: Path  # the folder JupyterLab serves (holds the copied notebooks)
    log: Path

    @property
    def cafe_home(self) -> Path:
        return self.home / ".cafe"

    @property
    def progress_file(self) -> Path:
        return self.cafe_home / "progress.json"

    def progress(self) -> dict[str, Any]:
        return (
            json.loads(self.progress_file.read_text(encoding="utf-8"))
            if self.progress_file.exists()
            else {}
        )

    def api(self, method: str, path: str) -> Any:
        """One call to the server's REST API (`/api/...`); its JSON answer, or None when it has none."""
        request = urllib.request.Request(
            f"{self.url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=REST_S) as answer:
            body = answer.read()
        return json.loads(body) if body else None

    def shut_down_kernels(self) -> None:
        """End every session (and so its kernel), then any kernel left without a session."""
        for session in self.api("GET", "/api/sessions"):
            self.api("DELETE", f"/api/sessions/{session['id']}")
        for kernel in self.api("GET", "/api/kernels"):
            self.api("DELETE", f"/api/kernels/{kernel['id']}")

    def fresh_start(self, notebook: Path) -> str:
        """A learner's first day with `notebook`: no kernel running, no progress file, a fresh copy in
        a folder of its own (the kernel's working folder). The copy's path as JupyterLab names it."""
        self.shut_down_kernels()
        shutil.rmtree(self.cafe_home, ignore_errors=True)
        folder = self.work / notebook.stem
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        shutil.copy(notebook, folder / notebook.name)
        return f"{notebook.stem}/{notebook.name}"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def lab_environment(home: Path) -> dict[str, str]:
    """The environment JupyterLab (and so the kernel) gets: a private home, widgets drawn."""
    env = {k: v for k, v in os.environ.items() if k not in ("CAFE_HEADLESS", "CAFE_HOME")}
    jupyter = home / ".jupyter"
    env.update(
        HOME=str(home),
        CAFE_HOME=str(home / ".cafe"),
        JUPYTER_CONFIG_DIR=str(jupyter),
        JUPYTER_DATA_DIR=str(home / "jupyter-data"),
        JUPYTER_RUNTIME_DIR=str(home / "jupyter-runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(jupyter / "lab" / "user-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(jupyter / "lab" / "workspaces"),
        COURSE_MODE="offline",
    )
    return env


@contextmanager
def running_lab(tmp: Path) -> Iterator[Lab]:
    """JupyterLab serving the empty folder `tmp/work` on loopback; stopped (and its kernels) on exit."""
    home, work = tmp / "home", tmp / "work"
    work.mkdir(parents=True)
    env = lab_environment(home)
    for name, settings in USER_SETTINGS.items():
        _write_json(Path(env["JUPYTERLAB_SETTINGS_DIR"]) / name, settings)
    _write_json(Path(env["JUPYTER_CONFIG_DIR"]) / "labconfig" / "page_config.json", PAGE_CONFIG)
    port, log = _free_port(), tmp / "jupyterlab.log"
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--allow-root",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={TOKEN}",
        f"--ServerApp.root_dir={work}",
        EXPOSE_APP,
    ]
    with log.open("w") as sink:
        process = subprocess.Popen(
            command, env=env, cwd=work, stdout=sink, stderr=subprocess.STDOUT
        )
    lab = Lab(f"http://127.0.0.1:{port}", TOKEN, home, work, log)
    try:
        _wait_for_status(lab, process)
        yield lab
    finally:
        if (
            process.poll() is None
        ):  # kernels first: a server stopping with one up may use all its grace
            with suppress(OSError):  # (and a failure here leaves `terminate` to end them)
                lab.shut_down_kernels()
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _wait_for_status(lab: Lab, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + LAB_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"jupyter lab exited with {process.returncode}:\n{_tail(lab.log)}")
        try:
            with urllib.request.urlopen(f"{lab.url}/api/status?token={lab.token}", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise LabTimeout(f"jupyter lab did not answer within {LAB_START_S:.0f} s:\n{_tail(lab.log)}")


def _tail(path: Path, lines: int = 30) -> str:
    return (
        "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
        if path.exists()
        else ""
    )


def notebook_cells(notebook: Path) -> list[dict[str, Any]]:
    """The cells of a notebook file, as JupyterLab will show them (in order)."""
    return json.loads(notebook.read_text(encoding="utf-8"))["cells"]


def cell_index(cells: list[dict[str, Any]], pattern: str, *, after: int = -1) -> int:
    """The index of the first cell after `after` whose source matches `pattern` (a regex)."""
    for index, cell in enumerate(cells):
        if index > after and re.search(pattern, "".join(cell["source"])):
            return index
    raise AssertionError(f"no cell after #{after} matches {pattern!r}")


class LabPage:
    """One notebook open in the browser, with what a learner can do to it."""

    def __init__(self, driver: Any, lab: Lab, notebook: str, shots: Path, every_step: bool):
        """`notebook` is the notebook's path in the lab (`Lab.fresh_start` gives it); screenshots go
        to `shots`, of every step when `every_step`, else only of a failure."""
        self.driver, self.lab, self.notebook, self.shots = driver, lab, notebook, shots
        self.every_step = every_step
        self.name = PurePosixPath(notebook).stem  # names its screenshots and its workspace

    # -- waiting -------------------------------------------------------------------------------

    def wait(
        self, what: str, condition: Callable[[], Any], timeout: float, poll: float = POLL_S
    ) -> Any:
        """Poll `condition` every `poll` seconds until it returns something truthy; fail naming
        `what` and the page."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = condition()
            except Exception:  # the DOM changes under us while JupyterLab re-renders; poll again
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                shot = self.screenshot("timeout")
                raise LabTimeout(
                    f"waited {timeout:.0f} s for {what}; screenshot {shot}; the page shows:\n"
                    f"{self.body_text()[-3000:]}"
                )
            time.sleep(poll)

    def body_text(self) -> str:
        return self.driver.execute_script("return document.body.innerText") or ""

    def show(self, index: int) -> None:
        """Scroll cell `index` to the top of the notebook panel, where a screenshot will see it."""
        self.driver.execute_script(
            "arguments[0].scrollIntoView({block: 'start'});", self.cell(index)
        )

    def screenshot(self, name: str) -> Path:
        """The browser's screen now, saved as `<notebook>-<name>.png` in the screenshot folder."""
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{self.name}-{name}.png"
        self.driver.save_screenshot(str(path))
        return path

    def step_shot(self, name: str) -> None:
        """A screenshot of a step that went well: taken only when every step's was asked for."""
        if self.every_step:
            self.screenshot(name)

    # -- the notebook --------------------------------------------------------------------------

    def open(self) -> None:
        """Load JupyterLab afresh with only this notebook open: a workspace of its own (named after
        it) has no tabs left over from the notebook the same browser worked before."""
        self.driver.get(
            f"{self.lab.url}/lab/workspaces/{self.name}/tree/{self.notebook}?token={self.lab.token}"
        )
        self.wait("the notebook's cells", lambda: self._cells(), NOTEBOOK_OPEN_S)
        self.wait("the kernel to start", self._kernel_ready, NOTEBOOK_OPEN_S)

    def open_in_this_page(self) -> None:
        """Open this notebook in the JupyterLab already on the page, as a learner double-clicks a
        second notebook: the app's `docmanager:open` command, which starts it a kernel of its own."""
        self.driver.execute_script(
            "window.jupyterapp.commands.execute('docmanager:open',"
            " {path: arguments[0], factory: 'Notebook'});",
            self.notebook,
        )
        self.wait("the notebook's cells", lambda: self._cells(), NOTEBOOK_OPEN_S)
        self.wait("the kernel to start", self._kernel_ready, NOTEBOOK_OPEN_S)

    def _kernel_ready(self) -> bool:
        """True once the notebook's kernel is up and idle. A "Select Kernel" dialog, where this
        JupyterLab asks, is answered as a learner would: with its default, the Python 3 kernel."""
        asked, kernel, status = self.driver.execute_script(_KERNEL_STATE)  # one trip a poll
        if asked:
            self.driver.find_element("css selector", ".jp-Dialog .jp-mod-accept").click()
            return False
        return bool(kernel) and "No Kernel" not in kernel and status == "idle"

    def _cells(self) -> list[Any]:
        return self.driver.find_elements("css selector", CELLS)

    def cell(self, index: int) -> Any:
        return self._cells()[index]

    def output(self, index: int) -> str:
        return self.driver.execute_script(
            "const out = arguments[0].querySelector('.jp-OutputArea'); return out ? out.innerText : '';",
            self.cell(index),
        )

    def prompts_and_status(self) -> tuple[list[str], str | None]:
        """Every cell's input prompt (`[3]:`, `[*]:`, or empty) and the kernel's status, in one
        round trip to the browser. Read as `textContent`, which needs no layout: the polls of a
        notebook's run (read with `innerText`, one trip for the prompts and two for the status)
        cost about 20 ms of CPU each, and this one about 6."""
        prompts, status = self.driver.execute_script(_PROMPTS_AND_STATUS, CELLS)
        return prompts, status

    def run_all(self, code_cells: list[int]) -> None:
        """Run > Run All Cells, then wait until every code cell shows an execution count."""
        self._menu("Run", "Run All Cells")

        def every_code_cell_ran() -> bool:
            prompts, status = self.prompts_and_status()
            return all(re.fullmatch(r"\[\d+\]:", prompts[i]) for i in code_cells) and (
                status == "idle"
            )

        self.wait("every code cell to run", every_code_cell_ran, RUN_ALL_S, RUN_ALL_POLL_S)

    def _menu(self, menu: str, item: str) -> None:
        """Click `menu` in the menu bar, then `item` in the menu it opens. Each look for a label is
        one round trip (`_SHOWN_LABELLED`); reading each label's text through WebDriver took about
        twenty trips a menu, 46 of a notebook pair's 250 (measured, 7 Dec 2026)."""
        for what, css, text in (
            (f"the {menu} menu", ".lm-MenuBar-itemLabel", menu),
            (f"the menu item {item!r}", ".lm-Menu-itemLabel", item),
        ):
            found = self.wait(
                what,
                lambda css=css, text=text: self.driver.execute_script(_SHOWN_LABELLED, css, text),
                WIDGET_S,
            )
            found[0].click()

    def run_cell(self, index: int) -> str:
        """Select the cell, press Shift+Enter, wait for its new execution count; its output."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        before = self.prompts_and_status()[0][index]
        # to the top of the panel first: a prompt at the panel's bottom edge is under the panel's
        # own border, and the click lands there instead ("element click intercepted")
        self.show(index)
        self.cell(index).find_element("css selector", ".jp-InputPrompt").click()
        ActionChains(self.driver).send_keys(Keys.ESCAPE).key_down(Keys.SHIFT).send_keys(
            Keys.ENTER
        ).key_up(Keys.SHIFT).perform()

        def ran_again() -> bool:
            prompts, status = self.prompts_and_status()
            now = prompts[index]
            return bool(re.fullmatch(r"\[\d+\]:", now)) and now != before and status == "idle"

        self.wait(f"cell #{index} to run again", ran_again, CELL_S)
        return self.output(index)

    def replace_source(self, index: int, code: str) -> None:
        """Click into the cell's editor, select everything, type `code` (one line: no auto-indent)."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        assert "\n" not in code, "type one line: the editor indents after a colon"
        editor = self.cell(index).find_element("css selector", ".cm-content")
        editor.click()
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("a").key_up(
            Keys.CONTROL
        ).send_keys(Keys.DELETE).send_keys(code).perform()
        self.wait(
            f"cell #{index} to hold the typed code", lambda: editor.text.strip() == code, WIDGET_S
        )

    # -- the course's widgets ------------------------------------------------------------------

    def click_prediction(self, key: str, option: str) -> None:
        """Click `option` on the predict widget titled with `key`."""
        xpath = (
            f"//div[contains(@class,'widget-vbox')][.//div[contains(@class,'widget-html')]"
            f"[contains(., '({key})')]]//button[normalize-space(.)={_xpath_text(option)}]"
        )
        button = self.wait(
            f"the predict widget {key} with option {option!r}",
            lambda: self.driver.find_elements("xpath", xpath),
            WIDGET_S,
        )[0]
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
        cut = self.driver.execute_script(_CUT_OFF_OPTIONS, button)
        assert not cut, (
            f"{key}: options cut off in their buttons at this width (read {cut!r}); every option "
            "must be read whole before it is chosen"
        )
        button.click()
        self.wait(
            f"option {option!r} to show as chosen",
            lambda: "mod-active" in (button.get_attribute("class") or ""),
            WIDGET_S,
        )

    def reveal_switch(self, key: str) -> Any:
        xpath = f"//button[contains(@class,'widget-toggle-button')][contains(normalize-space(.), ': {key}')]"
        switch = self.wait(
            f"the reveal switch {key}", lambda: self.driver.find_elements("xpath", xpath), WIDGET_S
        )[0]
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", switch)
        return switch


# Whether a dialog asks for a kernel, the kernel's name in the notebook's toolbar, and its status.
_KERNEL_STATE = """
const named = document.querySelector('.jp-NotebookPanel-toolbar .jp-KernelName');
const indicator = document.querySelector('.jp-Notebook-ExecutionIndicator');
return [
    document.querySelector('.jp-Dialog .jp-mod-accept') !== null,
    named ? named.textContent : null,
    indicator ? indicator.getAttribute('data-status') : null,
];
"""
# Every cell's input prompt and the kernel's status indicator, for `LabPage.prompts_and_status`.
_PROMPTS_AND_STATUS = """
const prompts = Array.from(document.querySelectorAll(arguments[0]), cell => {
    const prompt = cell.querySelector('.jp-InputPrompt');
    return prompt ? prompt.textContent.trim() : '';
});
const indicator = document.querySelector('.jp-Notebook-ExecutionIndicator');
return [prompts, indicator ? indicator.getAttribute('data-status') : null];
"""
# The elements matching a CSS selector that are shown and whose text is exactly the given label
# (what WebDriver's `.text` of each, read one trip at a time, compared).
_SHOWN_LABELLED = """
return Array.from(document.querySelectorAll(arguments[0]))
    .filter(e => e.textContent.trim() === arguments[1] && e.checkVisibility());
"""
# The options whose text does not fit its button (a cut text ends in "…"): run on one button of
# a predict widget, it looks at every button of that widget, now that it is on the screen.
_CUT_OFF_OPTIONS = """
const row = arguments[0].closest('.widget-toggle-buttons') || arguments[0].parentElement;
return Array.from(row.querySelectorAll('button'))
    .filter(b => b.scrollWidth > b.clientWidth + 1)
    .map(b => b.textContent.trim());
"""


# True when the page is a JupyterLab whose app the test can drive, with no dialog left open on it
# (a step that failed may have left one; the next notebook then loads the page afresh).
_APP_READY = """
return Boolean(window.jupyterapp && window.jupyterapp.shell)
    && document.querySelector('.jp-Dialog') === null;
"""
# Close every tab of the main area without asking to save (the copy is thrown away anyway).
_CLOSE_TABS = """
for (const widget of Array.from(window.jupyterapp.shell.widgets('main'))) { widget.dispose(); }
"""


def _close_last_notebook(driver: Any, lab: Lab) -> bool:
    """Close the tabs of the notebook the page worked last; False when the page holds no usable
    JupyterLab (the first notebook, or a dialog left open), to be loaded afresh instead."""
    if not driver.current_url.startswith(lab.url) or not driver.execute_script(_APP_READY):
        return False
    driver.execute_script(_CLOSE_TABS)
    deadline = time.monotonic() + WIDGET_S
    while driver.find_elements("css selector", ".jp-NotebookPanel"):
        if time.monotonic() > deadline:
            return False
        time.sleep(POLL_S)
    return True


def open_notebook(driver: Any, lab: Lab, notebook: Path, shots: Path, every_step: bool) -> LabPage:
    """`notebook` open as on a learner's first day with it: its own copy, a new kernel (the last
    notebook's are shut down first), no progress file, and no other notebook on the page. In the
    JupyterLab page the browser already shows when it can be reused, else on a fresh page."""
    reuse = _close_last_notebook(driver, lab)
    if not reuse:
        driver.get("about:blank")  # leave the last notebook's page before its kernel is shut down
    page = LabPage(driver, lab, lab.fresh_start(notebook), shots, every_step)
    if reuse:
        page.open_in_this_page()
    else:
        page.open()
    return page


def _xpath_text(text: str) -> str:
    """A string literal for XPath 1.0 (which has no escapes)."""
    if "'" not in text:
        return f"'{text}'"
    return "concat(" + ', "\'", '.join(f"'{part}'" for part in text.split("'")) + ")"
