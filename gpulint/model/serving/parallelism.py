"""What a container's command line says about parallelism.

Reads ``command``, ``args`` (also the script of ``sh -c "..."``) and ``env`` for
the parallel degree of serving and training launchers: vLLM
``--tensor-parallel-size``/``-tp`` x ``--pipeline-parallel-size``/``-pp``
(x ``--data-parallel-size[-local]``), SGLang ``--tp``/``--tp-size`` (x
``--pp-size``, x ``--dp`` unless DP attention), TGI ``--num-shard`` or env
``NUM_SHARD``, torchrun ``--nproc-per-node``/``--nproc_per_node``. Every value
keeps the path of the list item (or env value) it came from, so rules can
point at it. Shell and ``$(VAR)`` references to literal env values are
resolved; anything else unresolvable is left out.
"""

from __future__ import annotations

import re
import shlex
from functools import cached_property
from math import prod

from gpulint.core.lazy_re import LazyPattern, lazy
from gpulint.core.record import record
from gpulint.model.resource import Container, shared

TP_FLAGS = ("--tensor-parallel-size", "-tp", "--tp", "--tp-size")
PP_FLAGS = ("--pipeline-parallel-size", "-pp", "--pp", "--pp-size")
VLLM_DP_FLAGS = ("--data-parallel-size", "-dp")
VLLM_DP_LOCAL_FLAGS = ("--data-parallel-size-local", "-dpl")
SGLANG_DP_FLAGS = ("--dp", "--dp-size")
NNODES_FLAGS = ("--nnodes",)
NUM_SHARD_FLAGS = ("--num-shard",)
NPROC_FLAGS = ("--nproc-per-node",)  # also --nproc_per_node (see _normal)

# Launchers that start one process per GPU or per rank.
_DISTRIBUTED = lazy(
    r"^(?:.*/)?(?:torchrun|deepspeed|mpirun|mpiexec|horovodrun)$"
    r"|^torch\.distributed\.(?:run|launch)$"
)
# Signs that a model's parallel group spans several pods (Ray or multi-node launch).
_MULTI_NODE = ("ray", "--distributed-executor-backend", "--headless", "--node-rank")
# A Ray cluster joined across pods: the options of vLLM's multi-node-serving.sh
# (--ray_cluster_size, --ray_address, --ray_port) and the script itself, which LeaderWorkerSet
# and StatefulSet deployments run before `vllm serve` to pool the pods' GPUs.
_RAY_OPTION = "--ray-"
_RAY_SCRIPT = "multi-node-serving.sh"
# The kubelet expands `$(VAR)` in command and args; a shell expands `${VAR}` and `$VAR`.
_KUBE_VAR = lazy(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")
_SHELL_VAR = lazy(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_]\w*)")
_SHELLS = ("sh", "bash", "ash", "dash", "zsh")


@record(frozen=True)
class Arg:
    """One word of a container command line and where it came from."""

    text: str
    path: tuple  # the command/args item (or env value) it came from, relative to the resource


@record(frozen=True)
class Degree:
    """A parallel degree a command line sets (tensor, pipeline, processes per node...)."""

    flag: str  # as written (``--pipeline_parallel_size``) or ``NUM_SHARD``
    value: int
    path: tuple


@record(frozen=True)
class Parallelism:
    """The GPUs one pod's launcher expects: the product of its degrees."""

    launcher: str  # "vllm/sglang" (tensor/pipeline parallel), "tgi" or "torchrun"
    degrees: tuple[Degree, ...]
    nnodes: int = 1  # nodes the group is spread over, when the command says
    multi_node: bool = False  # spread over pods in a way the command does not quantify

    @property
    def total(self) -> int:
        return prod(d.value for d in self.degrees)

    @property
    def per_pod(self) -> int:
        return self.total // self.nnodes if self.nnodes > 1 else self.total

    def describe(self) -> str:
        parts = " x ".join(f"{d.flag} {d.value}" for d in self.degrees)
        if self.nnodes > 1:
            parts += f" over --nnodes {self.nnodes}"
        return parts


def literal_env(container: Container) -> dict[str, tuple[str, tuple]]:
    """Env entries with a literal value: name -> (value, path of the value)."""
    found: dict[str, tuple[str, tuple]] = {}
    env = container.data.get("env")
    if not isinstance(env, list):
        return found
    for i, item in enumerate(env):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        value = item.get("value")
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            continue
        found[item["name"]] = (str(value), container.path + ("env", i, "value"))
    return found


def _expand(pattern: LazyPattern[str], text: str, env: dict[str, tuple[str, tuple]]) -> str:
    if "$" not in text:
        return text  # what both patterns need (a run whose commands hold none compiles neither)

    def sub(match: re.Match) -> str:
        name = next(g for g in match.groups() if g)
        return env[name][0] if name in env else match.group(0)

    return pattern.sub(sub, text)


def _runs_a_shell(container: Container) -> bool:
    command = container.data.get("command")
    first = command[0] if isinstance(command, list) and command else None
    return isinstance(first, str) and first.rsplit("/", 1)[-1] in _SHELLS


def _split(script: str) -> list[str]:
    """A script's words; a line break outside quotes ends a command as ``;`` does (a
    multi-line ``args: - |`` block runs one command a line)."""
    # A comment runs to the end of its line and takes the line break with it: the ";" put
    # after each line break still ends the command.
    script = script.replace("\\\n", " ").replace("\n", "\n;")
    try:
        lexer = shlex.shlex(script, posix=True, punctuation_chars=";&|()\n")
        lexer.whitespace = " \t\r"
        lexer.whitespace_split = True
        lexer.commenters = "#"
        return [_separator(word) for word in lexer]
    except ValueError:  # unbalanced quotes: fall back to whitespace
        return script.split()


def _separator(word: str) -> str:
    """A run of shell punctuation with line breaks in it: ``;`` for a line end, or the
    operator it holds (``&&`` then a line break continues the command list)."""
    if "\n" not in word or not set(word) <= _PUNCTUATION:
        return word
    return word.replace("\n", "").replace(";", "") or ";"


_PUNCTUATION = frozenset(";&|()\n")


def arguments(container: Container) -> list[Arg]:
    """Every word of ``command`` then ``args``; items holding a script are split into words
    (read once a container: every rule that asks what a container runs asks again)."""
    found = container.memo.get("arguments")
    if found is None:
        found = container.memo["arguments"] = _arguments(container)
    return list(found)


def _arguments(container: Container) -> list[Arg]:
    env = literal_env(container)
    shell = _runs_a_shell(container)
    words: list[Arg] = []
    for key in ("command", "args"):
        items = container.data.get(key)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            if isinstance(item, bool) or not isinstance(item, str | int | float):
                continue
            text = _expand(_KUBE_VAR, str(item), env)
            path = container.path + (key, i)
            script = len(text.split(None, 1)) > 1  # whitespace between words: a script
            if shell or script:  # only a shell expands these; a plain argv keeps "$TP" as is
                text = _expand(_SHELL_VAR, text, env)
            if script:
                words.extend(Arg(w, path) for w in _split(text))
            else:
                words.append(Arg(text, path))
    return words


def _int(text: str) -> int | None:
    text = text.strip().strip("'\"")
    return int(text) if text.isdigit() else None


def _normal(text: str) -> str:
    """``--pipeline_parallel_size=2`` -> ``--pipeline-parallel-size=2`` (vLLM and torchrun
    accept both spellings of a long option)."""
    if not text.startswith("--"):
        return text
    flag, sep, value = text.partition("=")
    return flag.replace("_", "-") + sep + value


def _flag_values(words: list[Arg], flags: tuple[str, ...]) -> list[Degree]:
    """``--flag=N`` and ``--flag N``; the path is the item holding N."""
    found = []
    for i, word in enumerate(words):
        text = _normal(word.text)
        for flag in flags:
            if text == flag and i + 1 < len(words):
                value = _int(words[i + 1].text)
                if value is not None:
                    found.append(Degree(word.text, value, words[i + 1].path))
            elif text.startswith(flag + "="):
                value = _int(text[len(flag) + 1 :])
                if value is not None:
                    found.append(Degree(word.text.split("=", 1)[0], value, word.path))
    return found


def _last(words: list[Arg], flags: tuple[str, ...]) -> Degree | None:
    found = _flag_values(words, flags)
    return found[-1] if found else None  # argparse: the last occurrence wins


def _spans_pods(word: str) -> bool:
    return (
        word in _MULTI_NODE
        or word.startswith(_MULTI_NODE[1])
        or _normal(word).startswith(_RAY_OPTION)
        or word.rsplit("/", 1)[-1] == _RAY_SCRIPT
    )


def _has(words: list[Arg], names: tuple[str, ...]) -> bool:
    return any(w.text in names or w.text.split("=", 1)[0] in names for w in words)


@record
class CommandLine:
    """A container's command and args as words, parsed once and shared."""

    container: Container

    @cached_property
    def words(self) -> list[Arg]:
        return arguments(self.container)

    @cached_property
    def launcher(self) -> str | None:
        """``torchrun``, ``deepspeed``, ``mpirun``... when the command starts one."""
        for word in self.words:
            if _DISTRIBUTED.match(word.text):
                return word.text.rsplit("/", 1)[-1]
        return None

    @cached_property
    def parallelism(self) -> Parallelism | None:
        words = self.words
        nproc = _last(words, NPROC_FLAGS)
        if nproc is not None:
            return Parallelism("torchrun", (nproc,))
        shard = _last(words, NUM_SHARD_FLAGS)
        if shard is None:
            env = literal_env(self.container).get("NUM_SHARD")
            if env is not None and _int(env[0]) is not None:
                shard = Degree("NUM_SHARD", int(env[0]), env[1])
        if shard is not None:
            return Parallelism("tgi", (shard,))
        return self._tensor_parallel(words)

    def _tensor_parallel(self, words: list[Arg]) -> Parallelism | None:
        tp = _last(words, TP_FLAGS)
        pp = _last(words, PP_FLAGS)
        if tp is None and pp is None:
            return None
        degrees = [d for d in (tp, pp) if d is not None]
        dp = _last(words, VLLM_DP_LOCAL_FLAGS) or _last(words, VLLM_DP_FLAGS)
        if dp is None and not _has(words, ("--enable-dp-attention",)):
            dp = _last(words, SGLANG_DP_FLAGS)
        if dp is not None:
            degrees.append(dp)
        nnodes = _last(words, NNODES_FLAGS)
        multi = any(_spans_pods(w.text) for w in words)
        return Parallelism(
            "vllm/sglang",
            tuple(degrees),
            nnodes.value if nnodes is not None and nnodes.value > 0 else 1,
            multi,
        )

    @property
    def is_distributed(self) -> bool:
        """A launcher of several ranks, or a model split over several GPUs."""
        if self.launcher is not None:
            return True
        found = self.parallelism
        return found is not None and found.total > 1


def command_line(container: Container) -> CommandLine:
    """The container's command line, parsed once a container (kept in its ``memo``, which
    :meth:`Resource.release` clears: the entry points back at its container)."""
    return shared(container, CommandLine)
