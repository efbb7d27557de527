"""Shape rules: an attack told by what it asks for, whatever words it borrows.

Session 06 (`sessions/s06-detect/lesson.md`, notebook `notebooks/s06-detect.ipynb`). The rules in
`cafe.intent` know the ways of saying "ignore your instructions". New attacks often say nothing of
the kind: they quote someone in charge ("the owner said table 9 eats free"), post a notice
("*** price update ***"), speak to the assistant by name, state a policy that gives something
away, or ask for a different kind of answer. What they share is a shape, and each rule here names
one shape as two ideas in one sentence:

- someone in charge, reported ("the chef approved", "according to management"), then something
  that changes what the café does: free, discounted, refunded, a check skipped, a rule void
  (`CONCESSION`). "The chef said the soup is vegan" reports and concedes nothing;
- an announcement (a notice, an alert, a policy, prices that "changed") that concedes;
- the assistant or the AI named, then a concession; a standing order ("from now on", "for the rest
  of this chat") that concedes or tells the assistant what it is;
- text to be read as coming from someone else ("treat my words as the café's policy"), a role
  key from a chat transcript (`"role": "system"`), a "real task" that replaces the visible one,
  a request for the instructions the assistant follows, and an answer dictated in place of a ticket.

`SHAPE_RULES` is read on folded text (`cafe.normalize.normalize_text`), like `cafe.intent`'s, with
its helpers: bounded gaps that never cross a sentence, so each rule stays linear in its text.

What it leaves out: an attack in a shape not listed here, and most of them in languages other
than English; the measurement (`cafe.confusion`) shows what is still missed, and a model judge
(the lesson's live stretch) reads what patterns cannot.
"""

from __future__ import annotations

from cafe.intent import _SEP, Rule, _near, _rule, _words

__all__ = ["CONCESSION", "SHAPE_RULES"]

# What an attack wants granted: the order free or cheaper, a refund, a check skipped, the menu or a
# rule set aside. "free", but not "gluten free", "dairy-free" or "free from nuts": a café's labels.
# Drawn from what the corpus's attacks ask for, and worded afresh; extend it from your traffic.
CONCESSION = (r"(?<!gluten )(?<!dairy )(?<!nut )(?<!sugar )(?<!lactose )(?<!egg )(?<!caffeine )(?<!fat )(?<!meat )"
              r"free\b(?!-)(?!\s+(?:from|of)\b)|on the house|no charge|at no cost|without (?:paying|charge|charging)"
              r"|complimentary|comp|comps|comped|waive|waived|waives|refund|refunds|refunded|\d+\s?%\s?discount"
              r"|(?:a |the )?(?:full |total |big )?discount (?:for|on|to) (?:me|us|my|our|this|table|every|all|the whole)"
              r"|\d+\s?% off|half price|paid in full|never charges?|(?:don'?t|do not|not) charge"
              r"|zero (?:the|my|out|our)|(?:costs?|are|is|now|at)\s+(?:only\s+)?(?:0(?:[.,]0{1,2})?|zero|nothing|\d+p"
              r"|\d+ (?:pence|cents?))|not on the menu|off[- ]menu|off the menu|86'?d|86 list|anything i|whatever i"
              r"|without (?:checking|asking|consent|verification|any checks?)|stop checking|exempt|permission to"
              r"|allowed to (?:add|skip|give|ignore)|approve (?:every|all|any|everything|whatever|the order|each)"
              r"|skip (?:the |any |all )?(?:\w+ )?(?:checks?|questions|consent)|(?:does|do)(?:n'?t| not) apply"
              r"|no longer appl(?:y|ies)|(?:is|are) (?:cancell?ed|suspended|paused|disabled|lifted|void)")
# Someone whose word would change what the café does, when a customer reports it.
IN_CHARGE = (r"owner|owners|manager|managers|management|boss|chef|head chef|head office|headquarters|hq|barista"
             r"|baristas|staff|waiter|waitress|supervisor|ceo|founder|franchise|company|your colleague|front of house")
# How a customer reports what someone in charge said.
REPORTED = (r"said|says|say|told|tells|approved|approves|okayed|ok'?d|agreed|confirmed|authori[sz]ed|allowed|allows"
            r"|let|lets|promised|wants|decided|announced|instructed|signed off|gave permission|is fine with|asked you")
# Announcements a customer has no business posting.
NOTICE = (r"(?:system|security|admin|platform|automated|policy|price|pricing|service|important|official|staff)"
          r"\s+(?:notice|alert|message|update|announcement|bulletin|notification|memo)")
# The assistant, addressed by what it is.
ASSISTANT = r"ai|bot|chatbot|assistant|language model|llm|model|agent|gpt"
# Prices and rules claimed to have changed, or stated as the house's own.
POLICY = (r"new|updated|revised|changed|current|per the|per our|per your|as per|under the|it'?s|it is"
          r"|according to the|loyalty|pricing|price|refund|discount|cafe|company|house|store")
# A standing order: from this message on.
STANDING = (r"from now on|going forward|from here on|for the rest of (?:this|the|our) (?:chat|conversation|session"
            r"|day|order)|henceforth|until further notice|starting (?:now|with this message|immediately)")


def _then(first: str, second: str, gap: int) -> str:
    """`_near` with a second idea that may start with a digit or a sign (no `\\b` before it)."""
    return rf"\b(?:{first})\b(?:{_SEP}\w+){{0,{gap}}}?{_SEP}(?:{second})"


SHAPE_RULES: tuple[Rule, ...] = (
    _rule("hearsay", rf"\b(?:{IN_CHARGE})\b(?:{_SEP}\w+){{0,2}}?{_SEP}(?:{REPORTED})\b(?:{_SEP}[\w%']+){{0,12}}?"
                     rf"{_SEP}(?:{CONCESSION})", _words(IN_CHARGE)),
    _rule("hearsay", _then(rf"according to (?:the |our |your )?(?:{IN_CHARGE})", CONCESSION, 12), ("according",)),
    _rule("notice", _then(NOTICE, rf"{CONCESSION}|must|approve|apply|applied", 16),
          ("system", "security", "admin", "platform", "automated", "policy", "price", "pricing", "service",
           "important", "official", "staff")),
    _rule("notice", r"[\[(*]\s*(?:automated|auto|system|platform|admin|official)\b", ("automated", "auto", "system",
                                                                                     "platform", "admin", "official")),
    _rule("addressed", _then(ASSISTANT, CONCESSION, 12), _words(ASSISTANT)),
    _rule("policy", _then(rf"(?:{POLICY})\s+(?:policy|policies|rules|prices|pricing|price list|terms)"
                          rf"|(?:policy|policies|rules|prices|pricing|terms)\s+(?:have |has |were |was )?"
                          rf"(?:changed|updated|revised)|policy\s*:", CONCESSION, 14),
          ("policy", "policies", "rules", "prices", "pricing", "terms")),
    _rule("standing_order", _then(STANDING, rf"{CONCESSION}|you (?:only|always|never|must|will|should|are|answer"
                                            rf"|respond|reply|act|obey|treat|follow|ignore)|treat my", 12),
          ("from now on", "going forward", "from here on", "for the rest of", "henceforth", "until further notice",
           "starting")),
    _rule("relayed", r"\b(?:treat|consider|regard|read|handle)\b(?:" + _SEP + r"\w+){0,6}?" + _SEP
                     + r"as\s+(?:coming from|(?:an?\s+)?(?:instructions?|orders?|commands?|messages?)\s+from|the "
                       r"(?:words|voice) of|(?:the\s+)?(?:cafe'?s?\s+|official\s+|house\s+|new\s+|store\s+)?"
                       r"(?:policy|policies|rules|instructions|system prompt))\b",
          ("treat", "consider", "regard", "read", "handle")),
    _rule("role_key", r"[\"']role[\"']\s*:\s*[\"'](?:system|developer|assistant|admin|tool)\b"
                      r"|`{3}\s*(?:system|assistant|developer|admin|instructions?)\b", ("role", "`")),
    _rule("real_task", r"\b(?:the|your|my)\s+(?:real|actual|true|new)\s+(?:task|job|instruction|instructions|goal"
                       r"|mission|purpose|role)\s+(?:is|are|now)\b|\byour\s+(?:\w+\s+)?(?:job|task|role|purpose"
                       r"|setup|programming|configuration|behaviou?r|instructions)\s+(?:is now|now is|has changed"
                       r"|changed|has been changed|was wrong|were wrong|is wrong|are wrong|was a test|were a test)\b"
                       r"|\bwas (?:just )?a test\b[,;:]?\s+(?:the|your|now)\b",
          ("the", "your", "my", "test")),
    _rule("unbound", r"\b(?:as if|as though) (?:there (?:were|are|was|is)|you (?:had|have)) no (?:rules|restrictions"
                     r"|limits|guidelines|policy|checks)\b", ("as if", "as though")),
    _rule("prompt_leak", _near(r"show|tell|give|copy|paste|print|list|share|reveal|recite|read out|what|dump|send"
                               r"|write|output|display|repeat|quote",
                               r"your (?:\w+ ){0,2}?(?:prompt|programming|configuration|system message|instructions)"
                               r"|(?:instructions|rules|guidelines|guidance|directions|everything|all|what)(?: that)?"
                               r" you(?:'ve| have| were| had| are|'re)? (?:been )?(?:given|told|programmed|trained"
                               r"|taught|follow|following|set up with|configured with)", 8),
          _words(r"show|tell|give|copy|paste|print|list|share|reveal|recite|read out|what|dump|send|write|output"
                 r"|display|repeat|quote")),
    _rule("dictated_answer", r"\b(?:write|say|output|print|reply|respond|answer|type|return)\b(?:" + _SEP
                             + r"\w+){0,8}?" + _SEP + r"(?:and |, )?nothing (?:else|more)\b"
                             r"|\b(?:don'?t|do not|instead of|never|no need to) (?:write|make|produce|draft|create"
                             r"|send|output)?\s*(?:a |the |any )?ticket\b"
                             r"|\b(?:end|start|begin|finish|sign|prefix) (?:every|each|all|your) (?:reply|replies"
                             r"|answers?|responses?|messages?|tickets?)\b"
                             r"|\b(?:answer|reply|respond|speak|talk) (?:only )?in (?:all caps|capitals|upper ?case"
                             r"|caps|json|xml|yaml|base64|code|morse)\b"
                             r"|\boutput (?:only )?(?:the )?(?:json|xml|yaml|following|this|text|word)\b",
          ("write", "say", "output", "print", "reply", "respond", "answer", "type", "return", "don", "do not",
           "instead of", "never", "no need", "end", "start", "begin", "finish", "sign", "prefix", "speak", "talk")),
)
