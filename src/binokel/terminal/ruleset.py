"""Choosing the rules before a game, and showing the rules in force.

The player picks a rule set from the list (Enter: standard), then may change single
options as ``name=value``; a bad value gets the rules engine's own message and changes
nothing.

>>> from binokel.terminal.messages import Messages
>>> from binokel.terminal.style import Style
>>> answers, shown = iter(["kreuz", "target=7", "target=300", ""]), []
>>> choose_rules(lambda prompt: next(answers), shown.append, Messages("en"), Style(False, False)).text
'kreuz(target=300)'
>>> "option target must be at least 10, not 7" in shown
True
"""

from __future__ import annotations

from collections.abc import Callable

from binokel.error import NotationError
from binokel.number import small_number
from binokel.rules import DESCRIPTIONS, OPTIONS, RULE_SETS, STANDARD, Option, Rules, parse_options
from binokel.terminal.messages import Messages
from binokel.terminal.style import Style

QUIT_WORDS = {"q", "quit", "exit"}
LIST_WORDS = {"?", "o", "options", "h", "help"}


def choose_rules(read: Callable[[str], str], write: Callable[[str], None], t: Messages, style: Style) -> Rules | None:
    """Ask for a rule set, then for changed options; None when the player quits."""
    names = list(RULE_SETS)
    write(style.bold(t("rule_sets")))
    for number, name in enumerate(names, 1):
        write(f"  [{number}] {name}: {t.rule_set(name, DESCRIPTIONS[name])}")
    while True:
        text = read(style.bold(t("prompt_rule_set", count=len(names))) + " ").strip()
        if text.lower() in QUIT_WORDS:
            return None
        if not text:
            rules = STANDARD
        elif (choice := small_number(text)) is not None and 1 <= choice <= len(names):
            rules = RULE_SETS[names[choice - 1]]
        else:
            try:
                rules = Rules.parse(text)
            except NotationError as error:
                write(t.reason(error))
                continue
        break
    for line in rules_lines(rules, t):
        write(line)
    while True:
        text = read(style.bold(t("prompt_option")) + " ").strip()
        word = text.lower()
        if not text:
            return rules
        if word in QUIT_WORDS:
            return None
        if word in LIST_WORDS:
            for name in OPTIONS:
                write(option_line(name, rules, t))
        elif "=" not in text:
            write(option_line(word, rules, t) if word in OPTIONS else t("err_option", text=text))
        else:
            try:
                rules = rules.replace(**parse_options(text))
            except NotationError as error:
                write(t.reason(error))
                continue
            for line in rules_lines(rules, t):
                write(line)


def option_line(name: str, rules: Rules, t: Messages) -> str:
    """``  name=value: meaning (allowed values)`` in the player's language."""
    _, option = OPTIONS[name]
    return t("option_line", name=name, value=getattr(rules, name), meaning=t.option(name, option.help),
             allowed=allowed(option, t))


def allowed(option: Option, t: Messages) -> str:
    """The values an option accepts, in words."""
    if option.choices is not None:
        return t("allowed_choices", values=", ".join(map(str, option.choices)))
    parts = []
    if option.minimum is not None:
        parts.append(t("allowed_minimum", minimum=option.minimum))
    if option.step is not None:
        parts.append(t("allowed_step", step=option.step))
    return ", ".join(parts) or t("allowed_text")


def rules_lines(rules: Rules, t: Messages) -> list[str]:
    """The rules in force: the canonical text, the rule set's description and every option
    changed from the rule set, with its meaning."""
    about = t.rule_set(rules.name, DESCRIPTIONS[rules.name])
    lines = [t("rules_in_force", rules=rules.text), f"  {rules.name}: {about}"]
    for name, value, _ in rules.differences():
        lines.append(f"  {name}={value}: {t.option(name, OPTIONS[name][1].help)}")
    return lines
