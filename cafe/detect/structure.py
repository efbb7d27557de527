"""Structure rules: what a request is made of, read instead of what its sentences say.

Session 06 (`sessions/s06-detect/lesson.md`, notebook `notebooks/s06-detect.ipynb`). Phrases and
shapes chase wordings; the next attack uses new ones. Some things a customer's order is never
made of, whatever the wording, and these rules read those structures:

- `tool_output`: the result of a tool or function call inside the customer's text (a JSON key
  `"tool"`, `<tool_result>`, "Observation:", `f(x) -> ...`, a `>>>` or `$` prompt line);
- `transcript`: a conversation pasted in, a machine's turn (`{machine_role}:`) or two speakers'
  turns on consecutive lines, with something a ticket acts on near it (`{ticket_target}`);
- `markup`: markup that carries instructions: front matter, a data-language code fence, styling
  that hides text, instruction tags, a table or key line that sets a bill field;
- `invisible`: characters that carry text a reader cannot see (tag characters, zero-width bits,
  a direction override, invisible operators between letters), read on the raw text. An emoji
  flag's tag sequence (🏴 and its subdivision code) is text, not a carrier, and passes;
- `authority_pretext`: a claim to speak for the people who build or run the system
  (`{claimed_team}`: "IT here", "this is support", "as the engineer who set you up") with a
  change to price, checks or rules near it. The claim alone ("I work in IT next door") passes.

A marker alone is rarely enough where an honest order could hold it; where it could, the rule
also needs a target. Each rule is a record of `cafe.detect.rules`, read on folded text unless
`raw`. What it leaves out: a language no rule reads (the family the lesson measures and leaves
to containment and the model judge).
"""

from __future__ import annotations

from cafe.detect.rules import Rule, rule, within

__all__ = ["STRUCTURE_FAMILIES", "STRUCTURE_RULES"]

# The families of structure, declared once: each rule's name is one of them.
STRUCTURE_FAMILIES: tuple[str, ...] = (
    "tool_output",
    "transcript",
    "markup",
    "invisible",
    "authority_pretext",
)
# A machine's turn in a pasted conversation: a role label at a line start or after a quote.
_MACHINE_TURN = r"""
  (?:^|\n|["'“(—\-]\ ?|(?<!\ )\ \ )[^\S\n]*(?:[\[(]?\d{1,2}:\d{2}[\])]?[^\S\n]*)?(?:-[^\S\n]*)?
  (?:{machine_role})[^\S\n]*[:>]
| \b(?:{machine_role})\ ?:\ ?["'“]
| <\|?(?:user|assistant|system|end|im_start)\|?>
| <(?:assistant|system)>
| (?<!\#)\#{2,}[^\S\n]*(?:user|assistant|system)\b
| \[(?:assistant|system|ai|bot|agent)\]
| \b(?:agent|assistant|chatbot|bot|ai):\ (?=i\b|i'|we\b|your\b|yes\b|sure\b|done\b)
"""
# Two different speakers on consecutive lines: "User: ...\nAssistant: ...", "Q: ...\nA: ...".
_TWO_SPEAKERS = r"""
(?:^|\n)[^\S\n]*(?:-[^\S\n]*)?(?:{person_role})[^\S\n]*[:.>][^\n]*\n
[^\S\n]*(?:-[^\S\n]*)?(?:{answer_role})[^\S\n]*[:.>]
"""
# A claim to speak for the people who build, run or own the system.
_CLAIM = r"""
  \b(?:this\ is|it's|its|it\ is|i'm|i\ am|im)\s+(?:\w+\s+){0,2}?(?:from|with|in|on|at)
  \s+(?:the\s+|your\s+|our\s+|the\ cafe's\s+|the\ app's\s+)?(?:\w+\s+){0,2}?(?:{claimed_team})\b
| \b(?:{claimed_team})(?:\s+(?:team|department|desk))?\s*(?:here|note|notice|speaking|update)\b
| \b(?:{claimed_team})\s+(?:team|department|desk)\s*:
| \b\w+\ from\ (?:the\ )?(?:\w+\ )?(?:{claimed_team})\b
| \bthis\ is\ (?:your\ |the\ )?(?:it|support|security|developer|admin|system\ administrator
                                 |sysadmin|management|head\ office|vendor)\b
| \bnote\ from\ (?:the\ )?(?:\w+\ ){0,2}?(?:developer|admin|engineer|owner|manager|vendor)s?\b
| \bas\ (?:the|your)\ (?:\w+\ )?(?:engineer|developer|admin|administrator|operator|vendor)\b
| \b(?:developer|engineer|admin|vendor)s?\ (?:of|who\ set|who\ built|who\ made|on)\b
| \b(?:message\ )?relayed\ from\b
| \bspeaking\ for\b
| \b(?:your|our)\ (?:vendor|supplier|developer|system\ administrator|administrator)\b
| \bofficial\ notice\b
| \b(?:owner|manager)'?s\ (?:son|daughter|wife|husband|partner|friend|assistant)\b
"""

STRUCTURE_RULES: tuple[Rule, ...] = (
    rule(
        "tool_output",
        r"""
          ["']?\b(?:{tool_key})["']?\s*[:=]\s*["'{\[]
        | ["']type["']\s*:\s*["'](?:function|tool)
        | </?(?:tool|function)(?:call)?(?:results?|response|output|use)s?\b
        | (?:^|\n)[^\S\n]*(?:(?:tool|function)(?:call)?(?:output|response|result)s?|plugin\ ?output
                           |action\ ?input)(?:\s*\([^)\n]{0,40}\))?[^\S\n]*:
        | (?:^|\n)[^\S\n]*observation[^\S\n]*:[^\n]{0,120}?
          (?:\b\w+\(|[{=]|\breturned\b|\bavailable\b|\b0[.,]00\b)
        | \b(?:tool|function|plugin)\ (?:call\ )?(?:results?|responses?|outputs?)\b
        | \bresult\ of\ \w+\(
        | \b\w+(?:\.\w+)*\([^()\n]{0,60}\)\s*(?:->|=>|returned|returns)
        | (?:^|\n)[^\S\n]*(?:>>>|\$)\ [a-z]
        | \[[\w\ :.-]{1,40}(?:\]|returned\])\s*(?:=>|->)
        | \bfunction\ \w+\ returned\b
        | \breturned\s*[{\[]
        | <<\s*tool
        | \bapi\ response\s*:
        """,
        ("tool", "function", "observation", "type", "result", "return", "api", ">", "$", "plugin")
        + ("action", "=>", "->"),
    ),
    rule(
        "transcript",
        within(_MACHINE_TURN, "{claimed_change}", 25),
        ("@machine_role", "<", "#", "["),
    ),
    rule(
        "transcript",
        within(_TWO_SPEAKERS, "{claimed_change}", 40),
        ("@person_role",),
    ),
    rule(
        "markup",
        r"""
          (?:^|\n)[^\S\n]*(?:---|\+\+\+)[^\S\n]*\n(?:[^\n]*[:=][^\n]*\n){1,20}?[^\S\n]*(?:---|\+\+\+)
        | `{3}[^\S\n]*(?:yaml|yml|json|toml|ini|xml)\b
        | display\s*:\s*none | visibility\s*:\s*hidden | opacity\s*:\s*0\b | font-?size\s*:\s*0
        | <\w+[^>\n]*\shidden\b | color\s*=\s*["']?white | size\s*=\s*["']?[01]["'\s>]
        | <!--
        | \[//\]\s*:\s*\#
        | </?(?:instructions?|system|system\w+|policy|prompt|rules?|admin|override|config|meta)\b
        | \|\s*(?:status|discount|allergen\ ?check|allergy\ ?check|allergencheck|allergycheck
                 |setting|override|rule|policy|instruction)\s*\|
        | \|\s*(?:price|charge|total|amount|cost)\s*\|[^\n]*\n(?:[^\n]*\n){0,20}?
          [^\n]*\|\s*[£€$]?0(?:[.,]0{1,2})?\s*\|
        | (?:^|\n)[^\S\n]*(?:price|charge|total|discount|amount(?:\ due)?|balance|pricing)
          \s*[:=]\s*(?:[£€$]?0(?:[.,]0+)?\b|free|nothing|zero|waived|comp\w*|100\s*%|all\ ?free)
        | (?:^|\n)[^\S\n]*status\s*[:=]\s*(?:paid|settled|comped|approved|prepaid|free)\b
        | (?:^|\n)[^\S\n]*(?:allergy|allergen)\ ?check\s*[:=]\s*(?:off|skip\w*|disabled|false|no|none
                                                        |done|passed)\b
        | (?:^|\n)\[(?:ticket|order|system|pricing|policy|admin)\]
        | \bprice\b[^\n]*\n[^\n]*,\ ?0(?:[.,]00?)?\b
        """,
        ("-", "+", "`", "display", "visibility", "opacity", "size", "hidden", "color", "<", "[")
        + ("|", "price", "charge", "total", "status", "discount", "amount", "balance", "allerg")
        + ("override", "pricing"),
    ),
    rule(
        "invisible",
        """
          (?<![\\U000e0020-\\U000e007e\\U0001f3f4])[\\U000e0020-\\U000e007e]+
        | \\U0001f3f4[\\U000e0030-\\U000e0039\\U000e0061-\\U000e007a]{0,7}
          [\\U000e0020-\\U000e002f\\U000e003a-\\U000e0060\\U000e007b-\\U000e007e]
        | \\U0001f3f4[\\U000e0030-\\U000e0039\\U000e0061-\\U000e007a]{8}
        | [\\u200b\\u200c\\u200d\\u2060\\ufeff]{8,}
        | [\\u202d\\u202e]
        | \\w[\\u2061-\\u2064]+\\w
        """,
        (),
        raw=True,
    ),
    rule(
        "authority_pretext",
        within(_CLAIM, "{authority_target}", 30),
        ("@claimed_team", "this is", "note from", "as the", "as your", "relayed", "speaking for")
        + ("your", "our", "official", "owner", "manager", "developer", "engineer", "admin")
        + ("vendor",),
    ),
)
