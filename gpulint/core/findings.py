"""What a run produces: findings, input errors and their locations.

Reporters import this module and nothing else from the engine, so everything a
report needs is here as plain data.
"""

from __future__ import annotations

import enum
import re

from gpulint.core.lazy_re import lazy
from gpulint.core.record import field, record


class Severity(enum.IntEnum):
    """Ordered so that ``severity >= fail_on`` decides the exit code."""

    NOTE = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (use error, warning or note)") from None

    def __str__(self) -> str:
        return self.name.lower()


class FixSafety(str, enum.Enum):
    """How a fix may be applied (Ruff's fix safety): SAFE fixes yield the only value the API
    server accepts or the one the author evidently meant, and ``--fix`` applies them; UNSAFE
    fixes may change behaviour beyond the finding: only ``--fix --unsafe-fixes``."""

    SAFE = "safe"
    UNSAFE = "unsafe"

    def __str__(self) -> str:
        return self.value


@record(frozen=True, slots=True)
class Location:
    """A span in a file; lines and columns are 1-based, the end is exclusive."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int


@record(frozen=True, slots=True)
class ValueSource:
    """Where a rendered value came from: a Helm values file's key, or a ``--set``."""

    key: str  # dotted, as helm's --set spells it
    location: Location | None  # the key in values.yaml or a --values file
    set_by: str | None = None  # the --set assignment, when one gave the value

    def label(self) -> str:
        if self.set_by is not None or self.location is None:
            return f"--set {self.set_by}"
        loc = self.location
        return f"{loc.file}:{loc.line}:{loc.column}"


@record(frozen=True, slots=True)
class ResourceRef:
    """The Kubernetes object a finding is about."""

    kind: str
    name: str
    namespace: str | None = None
    api_version: str | None = None

    def label(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {ns}{self.name}"


@record(frozen=True, slots=True)
class Suppression:
    """Why a finding is not counted: the source of the silence and its reason."""

    kind: str  # "annotation", "comment", "baseline", "config"
    reason: str | None = None


@record(frozen=True, slots=True)
class Edit:
    """Replace the text from ``offset`` to ``end`` (characters into the linted text, line
    breaks counted as one) with ``text``; the same span as 1-based lines and columns."""

    offset: int
    end: int
    text: str
    line: int
    column: int
    end_line: int
    end_column: int


@record(frozen=True, slots=True)
class FixInfo:
    """A finding's fix: its edits in ``file``, or no edits and the reason why not."""

    title: str
    safety: FixSafety
    file: str
    edits: tuple[Edit, ...] = ()
    reason: str | None = None  # why it cannot be applied here
    via: str = "file"  # "kustomize": the edits are in the origin file of a Kustomize build
    newline: str = "\n"  # the file's line break: edits' text says "\n", reporters write this

    def text_of(self, edit: Edit) -> str:
        """An edit's text with the file's own line breaks (for SARIF and JSON)."""
        return edit.text.replace("\n", self.newline) if self.newline != "\n" else edit.text

    @property
    def applicable(self) -> bool:
        return bool(self.edits)


@record(frozen=True, slots=True)
class Related:
    """Another place a finding concerns (the file a cross-file rule compares with)."""

    location: Location
    message: str  # what is there: "nvidia-device-plugin values deploy v0.17.0"


@record(slots=True)
class Finding:
    """One problem a rule found: code, severity, message, place and what else it carries."""

    code: str
    name: str
    severity: Severity
    message: str
    location: Location
    pointer: str = ""  # JSON pointer of the offending node inside its document
    resource: ResourceRef | None = None
    container: str | None = None
    template: str | None = None  # Helm template (``# Source:``) or Kustomize origin
    template_location: Location | None = None
    related: tuple[Related, ...] = ()  # other places the finding concerns
    value_source: ValueSource | None = None  # the Helm values key a rendered value came from
    suppression: Suppression | None = None
    held: tuple[str, ...] = ()  # cluster facts it needs that the run lacks: held back, not shown
    fix: FixInfo | None = None  # gpulint/fix/: what --fix would change

    def sort_key(self) -> tuple:
        loc = self.location
        return (loc.file, loc.line, loc.column, self.code, self.message)

    def fingerprint(self) -> str:
        """Stable across unrelated line shifts: no line numbers in it."""
        import hashlib

        res = self.resource.label() if self.resource else ""
        raw = "\0".join((self.code, self.location.file, res, self.container or "", self.pointer))
        # A file name that is not UTF-8 arrives surrogate-escaped: hash its real bytes.
        return hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()[:32]


@record(frozen=True, slots=True)
class InputError:
    """Input that could not be read, parsed or rendered; always exit code 2."""

    file: str
    message: str
    line: int = 1
    column: int = 1
    # A chart or kustomization that was not rendered (no helm, a failed render): what it
    # produces is unchecked; --skip-unrenderable turns it into a note.
    unrendered: bool = False

    def sort_key(self) -> tuple:
        return (self.file, self.line, self.column, self.message)


@record(frozen=True, slots=True)
class RuleInfo:
    """What reporters need to know about a rule (SARIF's tool.driver.rules)."""

    code: str
    name: str
    severity: Severity
    summary: str
    doc: str
    help_uri: str | None = None  # the rule's documentation page (built-in rules: docs/rules/)
    fix: FixSafety | None = None  # whether its findings carry fixes, and how safe
    default: bool = True  # on without being selected (False: opt-in)


# What each cluster fact a rule may need is (model/profile.py names them), for the reports.
FACT_HELP = {
    "gpu-taints": "whether GPU nodes are tainted, and with which keys",
    "gpu-models": "which GPU models the cluster has",
    "max-gpus-per-node": "the most GPUs a node holds",
    "nvidia-runtime": (
        "whether the NVIDIA container runtime runs the pods (containerd's default runtime, or "
        "their RuntimeClass): lint the nodes' containerd config, the GPU Operator values or "
        "the RuntimeClass with the workloads"
    ),
}


@record(frozen=True, slots=True)
class HeldBack:
    """Findings of one rule held back for want of cluster facts (model/profile.py)."""

    code: str
    name: str
    needs: tuple[str, ...]
    count: int


@record
class RunResult:
    """What a run produced: findings, input errors, the rules that ran, notices."""

    findings: list[Finding]
    errors: list[InputError]
    rules: list[RuleInfo]
    files_checked: int = 0
    notices: list[str] = field(default_factory=list)
    held_back: list[HeldBack] = field(default_factory=list)

    def active(self) -> list[Finding]:
        return [f for f in self.findings if f.suppression is None]


# Text from input made safe for terminals and CI logs.
#
# File names, keys and values reach human-readable output inside messages; a raw
# ESC starts a terminal escape sequence and a raw newline forges a line (a GitHub
# ``::add-mask::`` workflow command in a CI log). Control characters, the Unicode
# line separators, bidirectional overrides ("Trojan source") and the surrogates that
# stand for the bytes of a file name that is not UTF-8 are written as backslash escapes.


_UNSAFE = lazy(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for one byte that is not UTF-8
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return _NAMED.get(char, f"\\x{code:02x}")
    return f"\\u{code:04x}"


def printable(text: str, keep: str = "") -> str:
    """``text`` with every unsafe character escaped, except those in ``keep``."""
    if text.isprintable():  # every unsafe character is one that str.isprintable refuses
        return text
    if keep:
        return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)
    return _UNSAFE.sub(_escape, text)


# A safety net: rules quote values cut short (quoted()), but a message must never grow
# with a value's length. Long enough for a --verbose list of every node of a cluster.
MAX_MESSAGE = 65_536


def quoted(value: object, limit: int = 60) -> str:
    """A value from input for a message: quoted, escaped, and cut to ``limit`` characters,
    so a finding never repeats a long value (or a secret) whole."""
    text = printable(str(value))
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return "'" + text.replace("'", "\\'") + "'"


def bounded(message: str) -> str:
    """``message`` cut to :data:`MAX_MESSAGE` characters: output grows with the input's
    findings, never with the length of the values they quote."""
    if len(message) <= MAX_MESSAGE:
        return message
    return f"{message[: MAX_MESSAGE - 40]}... ({len(message) - MAX_MESSAGE + 40} characters cut)"
