"""Sample values and helpers shared by several test modules (pytest puts this folder on the path)."""

# The answer text the reveal tests hide and then load.
ANSWER = "The cap turns a repeated defect into an honest stop."


def run_notebook_source(folder: str) -> dict:
    """Run `sessions/<folder>/notebook.py` top to bottom, quietly; return its namespace.

    How a test reaches a notebook's your-turn stub without a kernel.
    """
    import contextlib
    import io
    from pathlib import Path

    source = Path(__file__).resolve().parents[1] / "sessions" / folder / "notebook.py"
    namespace: dict = {"__name__": "__notebook__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source.read_text(encoding="utf-8"), str(source), "exec"), namespace)
    return namespace
