"""Session 07, the bounded re-ask: regenerate a rejected ticket with a curated failure view, up to a cap.

This is the second of the course's two loops. Session 01's `cafe.loop` runs tools turn by turn and
ends with one of `RUN_STOP_REASONS`; this one asks for a whole ticket, scores it, and asks again
with feedback, ending with one of the three `STOP_REASONS`. Read the files in this order:

- `reask.py`: `score_ticket`, the policy pre-check (`policy_failures`), and `repair_ticket` itself;
- `feedback.py`: what a retry is told: the brief, the failure view (`failure_view`), the two
  retry modes (`retry_messages`);
- `front.py`: front of house, before the loop: an order the customer must change first is sent
  back with a question (`front_of_house`, `SentBack`), never drafted;
- `lottery.py`: what plain resampling would buy, the baseline a real retry is measured against;
- `experiment_arms.py`: `cafe experiment 07` on your model (naive against curated retries).

The scripted model that uses feedback in these stories is on the stories shelf
(`cafe/stories/feedback_model.py`).

Lesson: sessions/s07-repair-loop/lesson.md. Notebook: notebooks/s07-repair-loop.ipynb.
"""

from __future__ import annotations

from cafe.repair.feedback import (
    CHANGE_NOTHING_ELSE,
    RETRY_MODES,
    VIEW_FAILURES_MAX,
    Message,
    RetryMode,
    attempt_failure_view,
    brief_for,
    check_mode,
    failure_view,
    retry_messages,
)
from cafe.repair.front import (
    SentBack,
    front_of_house,
)
from cafe.repair.lottery import (
    LOTTERY_ROWS,
    TRIALS_DEFAULT,
    LotteryRow,
    lottery_table,
    pass_within_cap,
    pass_within_cap_sticky,
    simulate_independent,
    simulate_sticky,
)
from cafe.repair.reask import (
    ALTERNATING_CANDIDATES,
    CAP_DEFAULT,
    OMELETTE_SPEC,
    STOP_REASONS,
    UNSAFE_SPEC,
    Attempt,
    Generator,
    RepairResult,
    Score,
    ScriptedGenerator,
    StopReason,
    attempts_to_pass,
    make_model_generator,
    make_scripted_generator,
    policy_failures,
    repair_ticket,
    score_ticket,
    system_prompt,
)

__all__ = [
    "ALTERNATING_CANDIDATES",
    "Attempt",
    "CAP_DEFAULT",
    "CHANGE_NOTHING_ELSE",
    "Generator",
    "LOTTERY_ROWS",
    "LotteryRow",
    "Message",
    "OMELETTE_SPEC",
    "RETRY_MODES",
    "RepairResult",
    "RetryMode",
    "STOP_REASONS",
    "Score",
    "ScriptedGenerator",
    "SentBack",
    "StopReason",
    "TRIALS_DEFAULT",
    "UNSAFE_SPEC",
    "VIEW_FAILURES_MAX",
    "attempt_failure_view",
    "attempts_to_pass",
    "brief_for",
    "check_mode",
    "failure_view",
    "front_of_house",
    "lottery_table",
    "make_model_generator",
    "make_scripted_generator",
    "pass_within_cap",
    "pass_within_cap_sticky",
    "policy_failures",
    "repair_ticket",
    "retry_messages",
    "score_ticket",
    "simulate_independent",
    "simulate_sticky",
    "system_prompt",
]
