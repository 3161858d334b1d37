"""Where a card names its item, and which siblings make one card (for pipelines/gpu/readers/cards.py).

A card may name its GPU more than once, in different wordings: a heading `4x NVIDIA A10` and a spec row
`GPU: 4 pcs NVIDIA A10`. Each such text is a mention; the caller's key says which mentions name the same
thing. A mention is a title when it stands on its own, a spec when a label comes before it (`GPU:`, a `dt`,
`th` or `label` cell, the word GPU). Titles start cards; specs belong to the card they sit in, so a spec naming
another thing is a conflict for the caller to refuse, never a second card.

An element's children split into units, one card's worth of siblings each. A child naming something starts a
new unit when the current unit is already priced and the child holds a title or a price (the next card), or
when it holds a title of another thing after a unit with content of its own (a card with no price, then the
next card). After a self-contained card (a child holding both a name and a price) anything but a spec row
starts a new unit. An element whose children make a single naming unit is one card.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TypeGuard

from bs4 import BeautifulSoup, Tag
from bs4.element import CData, NavigableString, PageElement

from pipelines.reading.values import clean

Node = Tag | NavigableString
_TEXT_TYPES = (NavigableString, CData)  # not comments, doctypes or processing instructions

_LABEL_TAGS = {"dt", "th", "label"}
# A label before a name: words and a colon (`GPU:`, `Graphics card:`), or a GPU word on its own (`GPU`).
_LABEL = re.compile(r"[^\W\d_]+(?:[ -][^\W\d_]+){0,2}\s*:|(?i:gpus?|graphics(?: cards?)?|accelerators?|video cards?)")
_LABELLED_TEXT = re.compile(rf"(?P<label>{_LABEL.pattern})\s*(?P<rest>\S.*)")
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


def is_content(node: PageElement) -> TypeGuard[Node]:
    return isinstance(node, Tag) or type(node) in _TEXT_TYPES


def text_of(node: Node) -> str:
    if isinstance(node, NavigableString):
        return clean(str(node))
    return clean(node.get_text(" ", strip=True))


@dataclass(frozen=True)
class Mention:
    text: str  # the name as printed, any label removed
    node: Node
    key: Hashable  # equal keys: the same thing named
    labelled: bool  # a spec row (`GPU: 4 pcs NVIDIA A10`), not a title


def named_in(text: str, is_title: Callable[[str], bool]) -> str | None:
    """The name a text gives: all of it when it reads as a title, what follows a label (`GPU: ...`), or None."""
    if is_title(text):
        return text
    labelled = _LABELLED_TEXT.fullmatch(text)
    return labelled.group("rest") if labelled and is_title(labelled.group("rest")) else None


def mention_at(text: str, node: Node, is_title: Callable[[str], bool], key: Callable[[str], Hashable]) -> Mention:
    name = named_in(text, is_title)
    assert name is not None  # only texts that name something are passed
    return Mention(name, node, key(name), name != text or _label_before(node))


def _label_before(node: Node) -> bool:
    """Whether the nearest text before the name, on its row, is a label (`GPU`, `GPU:`, a `dt` or `th` cell)."""
    box: Node = node
    while box.parent is not None and text_of(box.parent) == text_of(node):
        box = box.parent
    for sibling in box.previous_siblings:
        if not is_content(sibling) or not text_of(sibling):
            continue
        if isinstance(sibling, Tag) and sibling.name in _LABEL_TAGS:
            return True
        return _LABEL.fullmatch(text_of(sibling)) is not None
    return False


def title_first(mentions: list[Mention]) -> list[Mention]:
    """A card's mentions, the one that best serves as its title first: a heading, then any title, then a spec."""

    def rank(mention: Mention) -> tuple[bool, bool]:
        in_heading = any(getattr(e, "name", None) in _HEADINGS for e in [mention.node, *mention.node.parents])
        return (not in_heading, mention.labelled)

    return sorted(mentions, key=rank)  # stable: page order within a rank


@dataclass
class _Unit:
    children: list[Node] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    priced: bool = False
    closed: bool = False  # its first naming child held a price too: a self-contained card


class CardUnits:
    """Splits elements into units (one card's siblings each), knowing where the names and prices sit."""

    def __init__(self, root: Tag, mentions: list[Mention], price_nodes: list[Node]):
        self.root = root
        self.inside: dict[int, list[Mention]] = {}
        for mention in mentions:
            for element in [mention.node, *mention.node.parents]:
                self.inside.setdefault(id(element), []).append(mention)
        self.priced = {id(element) for node in price_nodes for element in [node, *node.parents]}

    def card_element(self, mention: Mention) -> Tag:
        """The largest element around a mention that is one card, or the run of siblings it heads, wrapped."""
        element = mention.node if isinstance(mention.node, Tag) else mention.node.parent
        assert element is not None  # a string found in the tree has a parent
        while element.parent is not None and element.parent is not self.root:
            units = self.split(element.parent)
            if sum(1 for unit in units if unit.mentions) == 1:
                element = element.parent
                continue
            run = next(unit.children for unit in units if any(child is element for child in unit.children))
            return self._wrapped(run) if len(run) > 1 else element
        return element

    def split(self, parent: Tag) -> list[_Unit]:
        units = [_Unit()]
        for child in parent.children:
            if not is_content(child) or not text_of(child):
                continue
            named = self.inside.get(id(child), [])
            priced = id(child) in self.priced
            if _starts_unit(units[-1], named, priced):
                units.append(_Unit())
            unit = units[-1]
            if named and not unit.mentions:
                unit.closed = priced
            unit.children.append(child)
            unit.mentions += named
            unit.priced |= priced
        return [unit for unit in units if unit.children]

    def _wrapped(self, run: list[Node]) -> Tag:
        wrapper = BeautifulSoup("", "html.parser").new_tag("div")
        run[0].wrap(wrapper)
        for node in run[1:]:
            wrapper.append(node.extract())
        # The wrapper is a new element: it holds what its children held.
        self.inside[id(wrapper)] = [m for node in run for m in self.inside.get(id(node), [])]
        if any(id(node) in self.priced for node in run):
            self.priced.add(id(wrapper))
        return wrapper


def _starts_unit(current: _Unit, named: list[Mention], priced: bool) -> bool:
    if not current.mentions:  # text before the first name stays apart from it
        return bool(named) and bool(current.children)
    if not named:
        return current.closed
    titled = [mention for mention in named if not mention.labelled]
    if not titled and not priced:  # spec rows belong to the card they sit in, wherever they are
        return False
    if current.priced:
        return True
    keys = {mention.key for mention in current.mentions}
    return any(mention.key not in keys for mention in titled) and _has_own_content(current)


def _has_own_content(unit: _Unit) -> bool:
    """Whether a unit says anything besides its names (specs, a 'price on request'): a card of its own."""
    rest = " ".join(text_of(child) for child in unit.children)
    for mention in unit.mentions:
        rest = rest.replace(mention.text, " ", 1)
    return re.search(r"\w", rest) is not None
