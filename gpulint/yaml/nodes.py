"""The node tree's classes: ruamel.yaml's, built with one Python call each.

libyaml's composer (ruamel.yaml.clib) builds a node by calling the class it finds
in its module as ``ScalarNode(tag, value, start_mark, end_mark, style)`` or
``MappingNode(tag, [], start_mark, None, flow_style)``, once per key and value of
every document. ruamel's classes spend two Python frames on that and turn every
tag into a ``Tag``; these subclasses take the same arguments in one frame and
keep the ``Tag`` objects our composer hands them. They stay subclasses, so
anything written for ruamel's nodes reads them, and :func:`our_nodes` lends them
to the C composer only while one of our documents is being composed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import _ruamel_yaml  # type: ignore[import-not-found]  # ruamel.yaml.clib, no stubs
from ruamel.yaml import nodes
from ruamel.yaml.nodes import Node
from ruamel.yaml.tag import Tag

__all__ = ["MappingNode", "Node", "ScalarNode", "SequenceNode", "our_nodes"]


def _tag(tag: Any) -> Tag:
    return tag if tag.__class__ is Tag else Tag(suffix=tag)


class ScalarNode(nodes.ScalarNode):
    __slots__ = ()

    def __init__(
        self,
        tag: Any,
        value: Any,
        start_mark: Any = None,
        end_mark: Any = None,
        style: Any = None,
        comment: Any = None,
        anchor: Any = None,
    ) -> None:
        self.ctag = tag if tag.__class__ is Tag else _tag(tag)
        self.value = value
        self.start_mark = start_mark
        self.end_mark = end_mark
        self.style = style
        self.comment = comment
        self.anchor = anchor


class SequenceNode(nodes.SequenceNode):
    __slots__ = ()

    def __init__(
        self,
        tag: Any,
        value: Any,
        start_mark: Any = None,
        end_mark: Any = None,
        flow_style: Any = None,
        comment: Any = None,
        anchor: Any = None,
    ) -> None:
        self.ctag = tag if tag.__class__ is Tag else _tag(tag)
        self.value = value
        self.start_mark = start_mark
        self.end_mark = end_mark
        self.flow_style = flow_style
        self.comment = comment
        self.anchor = anchor


class MappingNode(nodes.MappingNode):
    __slots__ = ()

    def __init__(
        self,
        tag: Any,
        value: Any,
        start_mark: Any = None,
        end_mark: Any = None,
        flow_style: Any = None,
        comment: Any = None,
        anchor: Any = None,
    ) -> None:
        self.ctag = tag if tag.__class__ is Tag else _tag(tag)
        self.value = value
        self.start_mark = start_mark
        self.end_mark = end_mark
        self.flow_style = flow_style
        self.comment = comment
        self.anchor = anchor
        self.merge = None


_OURS = {"ScalarNode": ScalarNode, "SequenceNode": SequenceNode, "MappingNode": MappingNode}


@contextmanager
def our_nodes() -> Iterator[None]:
    """The C composer builds these classes inside the block, ruamel's again after it.

    Scoped, not set once at import: ruamel's own C loader, if anything else in the
    process uses it, keeps the classes it was written for.
    """
    module = vars(_ruamel_yaml)
    theirs = {name: module[name] for name in _OURS}
    module.update(_OURS)
    try:
        yield
    finally:
        module.update(theirs)
