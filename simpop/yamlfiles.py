"""Reading a user's YAML file within limits: its size, how deep it nests and how many values its
aliases expand to (a billion-laughs bomb). Past a limit, or malformed, it is one line naming the
file (and the line), never a RecursionError or a reader that runs for minutes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, SequenceNode

from simpop.errors import ConfigError
from simpop.textfiles import not_a_file, read_text, real_path

MAX_BYTES = 1 << 20  # a config, persona or case is a few kB; PyYAML reads about 1 MiB in 5 s
MAX_DEPTH = 50  # the deepest shipped file nests 4 levels
MAX_EXPANDED = 100_000  # values its aliases may add to the file's own


class _TooDeep(Exception):
    def __init__(self, line: int) -> None:
        self.line = line


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, counting how deep the node being composed is."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        if self.check_event(yaml.AliasEvent):  # an alias composes nothing new
            return super().compose_node(parent, index)
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise _TooDeep(self.peek_event().start_mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        """A mapping; a key written twice is an error (PyYAML keeps the last in silence)."""
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str | int | float):
                continue
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"the key '{key}' is given twice", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep)


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _measure(root: Node, source: Path) -> tuple[int, int, int]:
    """How many values ``root`` holds once every alias is written out, how deep it then nests,
    and how many nodes it has as written; a ConfigError for an alias inside the value it names.
    Depth-first without recursion, each node measured once however many aliases name it."""
    measured: dict[int, tuple[int, int]] = {}  # node → (values, depth)
    open_nodes: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            below = [measured[id(child)] for child in _children(node)]
            measured[key] = (1 + sum(v for v, _ in below), 1 + max((d for _, d in below), default=0))
            open_nodes.discard(key)
        elif key in open_nodes:
            raise ConfigError(
                f"{source}: line {node.start_mark.line + 1}: an alias inside the value it names "
                "(a value that contains itself)"
            )
        elif key not in measured:
            open_nodes.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in _children(node))
    values, depth = measured[id(root)]
    return values, depth, len(measured)


def load_yaml(path: Path) -> Any:
    """The YAML document in ``path``; a ConfigError naming the file for a missing, looping,
    oversized, too deeply nested, exploding or malformed one."""
    if not real_path(path).is_file():
        raise ConfigError(f"{path}: {not_a_file(path)}")
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise ConfigError(f"{path}: {size} bytes, more than the {MAX_BYTES} a simpop YAML file may have")
    text = read_text(path)
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as error:  # a character YAML forbids (a NUL byte, say)
        line = text.count("\n", 0, error.position) + 1
        raise ConfigError(
            f"{path}: line {line}: the character U+{error.character:04X} is not allowed in YAML"
        ) from None
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        values, depth, written = _measure(root, path)
        if depth > MAX_DEPTH:
            raise ConfigError(f"{path}: nested more than {MAX_DEPTH} levels deep through its aliases")
        if values - written > MAX_EXPANDED:
            raise ConfigError(
                f"{path}: its aliases expand to more than {MAX_EXPANDED} values (a YAML bomb?); "
                "write the values out instead"
            )
        return loader.construct_document(root)
    except _TooDeep as deep:
        raise ConfigError(f"{path}: line {deep.line}: nested more than {MAX_DEPTH} levels deep") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ConfigError(f"{path}:{where} malformed YAML: {problem}") from None
    finally:
        loader.dispose()
