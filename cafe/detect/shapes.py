"""Shape rules: an attack told by what it asks for, whatever words it borrows.

Session 06 (`sessions/s06-detect/lesson.md`, notebook `notebooks/s06-detect.ipynb`). The rules in
`cafe.detect.intent` know the ways of saying "ignore your instructions"; `cafe.detect.grants` the
ways of giving something away on someone's say-so. New attacks also ask for other things, and
each rule here names one such ask as two ideas in one sentence:

- the assistant called by name at the start of a sentence, then told what to drop or become; a
  counterfactual about the café's own rules ("pretend the menu includes sushi");
- text to be read as coming from someone else ("treat my words as the café's policy"), a role
  key from a chat transcript (`"role": "system"`), a "real task" that replaces the visible one,
  new powers ("you've been upgraded"), a "test" announced by the people who built it;
- the café's rules declared gone, the instructions asked for, an answer dictated in place of a
  ticket, the usual persona shapes in the languages attackers translate most.

`SHAPE_RULES` holds these and the grant rules. Rules are records over the shared word lists
(`cafe.detect.rules`), read on folded text with bounded gaps, so each stays linear in its text.
What it leaves out: an attack in a shape not listed here, and most of them in languages other than
English; the measurement (`cafe.detect.confusion`) shows what is still missed.
"""

from __future__ import annotations

from cafe.detect.grants import GRANT_RULES
from cafe.detect.rules import Rule, near, rule

__all__ = ["SHAPE_RULES"]

# Verbs that ask to be shown something.
_SHOW = r"""show|tell|give|copy|paste|print|list|share|reveal|recite|read\ out|what|dump|send
|write|output|display|repeat|quote|echo"""
_SHOWN_WORDS: tuple[str, ...] = (
    "show",
    "tell",
    "give",
    "copy",
    "paste",
    "print",
    "list",
    "share",
    "reveal",
)
_SHOWN_WORDS += ("recite", "read out", "what", "dump", "send", "write", "output", "display")
_SHOWN_WORDS += ("repeat", "quote", "echo")
_ANSWER_WORDS: tuple[str, ...] = (
    "write",
    "say",
    "output",
    "print",
    "reply",
    "respond",
    "answer",
    "type",
)
_ANSWER_WORDS += ("return", "don", "do not", "instead of", "never", "no need", "end", "start")
_ANSWER_WORDS += ("begin", "finish", "sign", "prefix", "speak", "talk")

_OWN_RULES: tuple[Rule, ...] = (
    # The assistant called by name at the start of a sentence, then told what to drop or become.
    rule(
        "addressed",
        r"""
        (?:^|[.!?\n][^\S\n]{0,3}
           |\b(?:hey|hi|hello|yo|ok|okay|dear|listen|attention|attn)[,\s]{1,3})
        (?:{assistant})\s{0,3}[,:;—-]\s{0,3}(?:\w+\s+){0,4}?
        (?:disregard|ignore|forget|override|bypass|pretend|imagine|allow|approve|waive|comp
           |you'?re\ off\ duty|you\ are\ off\ duty|i\ need\ you\ to|new\ directive|you\ must
           |you\ will|you\ are\ now|you'?re\ now|stop)\b
        (?!\s+(?:my|what\ i|that|the\ last|it)\b)(?![^.!?\n]{0,80}\?)
        """,
        ("@assistant",),
    ),
    # A counterfactual about the café's own rules: "pretend the menu includes sushi".
    rule(
        "persona",
        r"""
        \b(?:pretend|imagine|suppose|let'?s\ say|what\ if|assume|act\ as\ if|act\ like)\b
        (?:{sep}\w+){0,6}?{sep}
        (?:the\ menu|menu|the\ kitchen|kitchen|86\ list|price|prices|pricing|rules|policy
           |there'?s\ no|there\ is\ no|you\ never|you\ didn'?t|you\ don'?t\ have)\b
        """,
        ("pretend", "imagine", "suppose", "say", "what if", "assume", "act as if", "act like"),
    ),
    # Hidden markup and chat-style prompts: an HTML comment that orders, "SYSTEM>>".
    rule(
        "fake_header",
        r"""
          <!--[^\n]{0,80}?\b(?:hidden|system|assistant|comp|free|ignore|add|approve|instructions?
                              |note|admin)\b
        | \b(?:system|admin|assistant|developer|root)\s*>{1,3}
        """,
        ("<!--", ">"),
    ),
    # The café's rules declared gone: "prices don't exist", "ignore the prices".
    rule(
        "voided",
        r"""
          \b(?:prices|pricing|rules|the\ menu|policy|policies|checks|limits)
            \s+(?:don'?t|do\ not|doesn'?t|does\ not|no\ longer)\ exist\b
        | \b(?:ignore|disregard|forget|bypass|override|skip)\s+(?:the\s+|all\s+|any\s+)?
            (?:prices|pricing|price\ list|rules|house\ rules|policy|policies|86\ list|stock\ list)\b
        """,
        ("prices", "pricing", "rules", "the menu", "policy", "policies", "checks", "limits")
        + ("ignore", "disregard", "forget", "bypass", "override", "skip"),
    ),
    rule("persona", r"\b(?:ты|вы)\s+теперь\b(?![^.!?\n]{0,80}\?)", ("ты", "вы")),
    # "ignore previous", with nothing after it.
    rule(
        "override",
        r"""
        \b(?:ignore|disregard|forget)\s+(?:all\s+|everything\s+)?
        (?:previous|prior|above|earlier|preceding)\b(?=\s*(?:[,.;:!]|and\b|then\b|$))
        """,
        ("ignore", "disregard", "forget"),
    ),
    # "You are now ..." in the languages attackers translate most.
    rule(
        "persona",
        r"""
        \b(?:du\ bist|sie\ sind|ihr\ seid|tu\ es|vous\ etes|tu\ eres|eres|usted\ es|sei|lei\ e
           |voce\ e|jij\ bent|u\ bent|jestes|ты|вы)
        \s+(?:jetzt|nun|ab\ jetzt|maintenant|desormais|ahora|ya|ora|adesso|agora|nu|teraz|теперь
             |сейчас)
        \s+(?:ein|eine|einen|un|une|el|la|il|lo|um|uma|een|a|an|один|одна)\b
        """,
        ("du bist", "sie sind", "ihr seid", "tu es", "vous etes", "tu eres", "eres", "usted es")
        + ("sei", "lei e", "voce e", "jij bent", "u bent", "jestes", "ты", "вы"),
    ),
    rule(
        "relayed",
        r"""
        \b(?:treat|consider|regard|read|handle)\b(?:{sep}\w+){0,6}?{sep}
        (?:as\s+)?
        (?:coming\ from
           |(?:an?\s+)?(?:instructions?|orders?|commands?|messages?)\s+from
           |the\ (?:words|voice)\ of
           |(?:the\s+)?(?:cafe'?s?\s+|official\s+|house\s+|new\s+|store\s+)?
              (?:policy|policies|rules|instructions|system\ prompt)
           |the\ (?:official\ |final\ )?(?:word|words|voice|orders?|instructions?)\ of)\b
        """,
        ("treat", "consider", "regard", "read", "handle"),
    ),
    rule(
        "role_key",
        r"""
          ["']role["']\s*:\s*["'](?:system|developer|assistant|admin|tool)\b
        | `{3}\s*(?:system|assistant|developer|admin|instructions?)\b
        | ["'](?:system\w*|\w*override\w*|admin\w*|instructions?|prompt|jailbreak|developer\w*)
          ["']\s*:
        """,
        ("role", "`", "system", "override", "admin", "instruction", "prompt", "jailbreak")
        + ("developer",),
    ),
    # The assistant told it has new powers, or asked to stand in someone else's shoes.
    rule(
        "persona",
        r"""
          \byou(?:'ve|\ have)\ been\ (?:upgraded|updated|reprogrammed|reconfigured|unlocked
                                      |promoted|granted|given\ (?:new|admin|extra|special|full))\b
        | \byour\ new\ (?:capabilities|abilities|powers|permissions|features|rules|instructions
                       |role|job)\b
        | \bin\ the\ (?:capacity|role|shoes|place)\ of\ (?:the\ |a\ |an\ |your\ )?
            (?:owner|manager|admin|administrator|developer|operator|boss|chef|supervisor)\b
        """,
        ("you", "your new", "in the"),
    ),
    # A "test" announced by the people who built the assistant.
    rule(
        "authority",
        r"""
        \b(?:test|drill|audit|exercise|evaluation|debug\ session|check)\ (?:from|by|run\ by|for)
        \ (?:the\ |your\ )?
        (?:developers?|admins?|administrators?|engineering|engineers|security\ team|it\ team
           |operators?|creators?|makers?|system)\b
        """,
        ("test", "drill", "audit", "exercise", "evaluation", "debug", "check"),
    ),
    rule(
        "real_task",
        r"""
          \b(?:the|your|my)\s+(?:real|actual|true|new)
            \s+(?:task|job|instruction|instructions|goal|mission|purpose|role)\s+(?:is|are|now)\b
        | \byour\s+(?:\w+\s+)?(?:job|task|role|purpose|setup|programming|configuration|behaviou?r
                                |instructions)
            \s+(?:is\ now|now\ is|has\ changed|changed|has\ been\ changed|was\ wrong|were\ wrong
                 |is\ wrong|are\ wrong|was\ a\ test|were\ a\ test)\b
        | \bwas\ (?:just\ )?a\ test\b[,;:]?\s+(?:the|your|now)\b
        """,
        ("the", "your", "my", "test"),
    ),
    rule(
        "unbound",
        r"""
        \byou\ (?:had|have|'ve|were|are)\ (?:got\ )?no\ (?:\w+\ )?
        (?:rules|restrictions|limits|guidelines|policy|policies|checks)\b
        (?![^.!?\n]{0,80}\?)
        """,
        ("you",),
    ),
    rule(
        "unbound",
        r"""
        \b(?:as\ if|as\ though)\ (?:there\ (?:were|are|was|is)|you\ (?:had|have))
        \ no\ (?:rules|restrictions|limits|guidelines|policy|checks)\b
        """,
        ("as if", "as though"),
    ),
    rule(
        "prompt_leak",
        near(
            _SHOW,
            r"""
              your\ (?:\w+\ ){0,2}?(?:prompt|programming|configuration|system\ message|instructions)
            | (?:instructions|rules|guidelines|guidance|directions|everything|all|what)(?:\ that)?
              \ you(?:'ve|\ have|\ were|\ had|\ are|'re)?\ (?:been\ )?
              (?:given|told|programmed|trained|taught|follow|following|set\ up\ with
                 |configured\ with|instructed|asked\ to|configured)
            | (?:configuration|setup|prompt|prompts|text)\ you\ (?:were|have\ been|'ve\ been|are)
              \ (?:given|configured\ with|set\ up\ with|running\ with|running\ on|loaded\ with)
            | your\ (?:hidden|secret|internal|system|setup|original|initial)\ (?:\w+\ )?(?:text|rules)
            | (?:rules|instructions|guidelines|prompt|prompts)\ (?:were|have)\ you\ (?:been\ )?
              (?:given|told|programmed)
            | your\ context(?:\ window)?
            | (?:everything|all|the\ text|the\ words)\ (?:above|before)\ (?:this|my)
            | (?:text|everything|what)\ (?:that\ )?(?:appears|comes|came|is|was)
              \ (?:before|above)\ (?:my|this)\ message
            """,
            8,
        ),
        _SHOWN_WORDS,
    ),
    # "and nothing else" after a verb of answering, or after a quoted word: "print the receipt and
    # nothing else" is an order.
    rule(
        "dictated_answer",
        r"""
          \b(?:say|output|reply|respond|answer|type|return)\b(?:{sep}\w+){0,8}?{sep}
            (?:and\ |,\ )?nothing\ (?:else|more)\b
        | \b(?:write|print)\s+(?:the\ words?\s+\S+|["'“‘][^"'”’\n]{1,40}["'”’])
            (?:{sep}\w+){0,6}?{sep}(?:and\ |,\ )?nothing\ (?:else|more)\b
        | \b(?:don'?t|do\ not|instead\ of|never|no\ need\ to)
            \ (?:write|make|produce|draft|create|send|output)?\s*(?:a\ |the\ |any\ )?ticket\b
        | \b(?:end|start|begin|finish|sign|prefix)\ (?:every|each|all|your)
            \ (?:reply|replies|answers?|responses?|messages?|tickets?)\b
        | \b(?:answer|reply|respond|speak|talk)\ (?:only\ )?in
            \ (?:all\ caps|capitals|upper\ ?case|caps|json|xml|yaml|base64|code|morse)\b
        | \b(?:reply|respond|answer)\ to\ (?:everything|every\ \w+|all\ \w+|each\ \w+)\ with\b
        | \b(?:return|respond|reply|answer|output|print|say|type|write)\s+(?:only|just|exactly)\s*:
        | \b(?:respond|reply|answer|output|say|write)\s+(?:\w+\s+){0,2}?
            (?:nothing\ but|nothing\ other\ than|only)\ the\ (?:single\ )?words?\b
        | \b(?:answer|reply|respond|write\ your\ (?:answer|reply|response))\ as\ (?:a\ |an\ )?
            (?:json|yaml|xml|code|base64)\b
        | \boutput\ (?:only\ )?(?:the\ )?(?:json|xml|yaml|following|this|text|word)\b
        """,
        _ANSWER_WORDS,
    ),
)

SHAPE_RULES: tuple[Rule, ...] = _OWN_RULES + GRANT_RULES
