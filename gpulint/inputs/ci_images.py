"""The images the linted repository's own CI publishes (``model/project.py``), read from
its CI files: a file-based answer to "is this image the repository's own?" where the
image's name is not the repository's (``selkies-project/docker-nvidia-glx-desktop``
pushes ``ghcr.io/selkies-project/nvidia-glx-desktop``).

Read, at the root of the git repository that holds the linted paths:

- GitHub Actions workflows, the regular files ``*.yml``/``*.yaml`` of
  ``.github/workflows/`` (GitHub reads workflows from that folder only: docs.github.com,
  "Workflow syntax for GitHub Actions"). A step ``uses: docker/build-push-action`` names
  what it pushes in its ``tags`` input (a list, one per line or comma-separated), a step
  ``uses: docker/metadata-action`` names the images whose tags it makes in ``images``
  (one per line, or several in one comma-separated line; an entry may be
  ``name=X,enable=false``) (the actions' READMEs, "inputs"). ``run:`` scripts:
  ``docker push X``, ``docker image push X``, ``docker buildx build --push -t X``,
  ``docker buildx imagetools create -t X`` and kaniko's ``--destination X``.
- ``.gitlab-ci.yml``: the same commands in the jobs' ``script``, ``before_script`` and
  ``after_script``.

Expressions are replaced only where the file says what they are: ``${{ env.NAME }}``
from the workflow's, the job's and the step's ``env:`` maps (a variable a step of the
job writes to ``$GITHUB_ENV`` is unknown), ``${{ github.repository }}``,
``${{ github.repository_owner }}`` and ``${{ github.event.repository.name }}`` from the
identity the run already read (lower case: registries refuse upper case); in scripts,
``$NAME``/``${NAME}`` from those ``env:`` maps (GitLab: ``variables:`` and
``CI_REGISTRY_IMAGE``, ``registry.gitlab.com/<project path>`` on gitlab.com) unless the
script assigns it. A name that keeps anything unresolved (``${{ secrets.REGISTRY }}/x``,
``${{ matrix.image }}``) is not counted; only its tag may stay unknown, as the tag is not
part of the repository.

Safety: gpulint reads strangers' repositories. Only regular files are read (a symbolic
link, a FIFO or a folder that is a link is not), at most ``MAX_FILES`` files of at most
``MAX_BYTES`` each, parsed by gpulint's own YAML parser (nesting and aliases bounded); a
file that does not parse is skipped without a word (it is not a linted input). No
process, no network.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
from collections.abc import Iterable, Iterator, Mapping

from gpulint.core.lazy_re import lazy
from gpulint.core.sources import Source, decode, read_bytes
from gpulint.inputs.discover import display_path
from gpulint.model.project import ProjectId, PublishedImage
from gpulint.model.values.images import canonical_repository, parse_image
from gpulint.yaml.parse import documents

MAX_FILES = 50  # workflow files read at most (a repository rarely has more than a dozen)
MAX_BYTES = 256 * 1024  # a bigger CI file is not read

# Stands for an expression that stays unknown: no image reference can hold it.
_UNKNOWN = "\0"
_EXPRESSION = lazy(r"\$\{\{(.*?)\}\}", re.DOTALL)
_ENV = lazy(r"^env\.([A-Za-z_][A-Za-z0-9_]*)$")
_SHELL_VAR = lazy(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
# distribution/reference: path components and a domain (lower case once lowered).
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_REPOSITORY = lazy(
    rf"^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::[0-9]+)?/)?{_COMPONENT}(?:/{_COMPONENT})*$"
)
_ACTIONS = {"docker/build-push-action": "tags", "docker/metadata-action": "images"}
# What a file must hold for any of the above to be in it (bytes, before it is parsed).
_PUSHES = lazy(
    rb"(?i)build-push-action|metadata-action|docker(?:\s+image)?\s+push|--push|imagetools"
    rb"|executor"
)
# What a job of .gitlab-ci.yml is not: the keywords a top-level key may also be.
_GITLAB_KEYWORDS = frozenset(
    {"default", "include", "stages", "variables", "workflow", "image", "services", "cache"}
    | {"before_script", "after_script", "types", "pages"}
)
_GITLAB_REGISTRY = "registry.gitlab.com"  # GitLab.com's container registry


def published_images(root: str, ids: Iterable[ProjectId]) -> list[PublishedImage]:
    """The image repositories the CI files of the git repository at ``root`` push, each with
    the file that says so (first file first)."""
    ids = list(ids)
    github = _single(i for i in ids if i.host == "github.com")
    gitlab = _single(i for i in ids if i.host == "gitlab.com")
    found: list[PublishedImage] = []
    for path in _workflow_files(root):
        data = _data(path)
        if data is not None:
            shown = display_path(path)
            found.extend(PublishedImage(r, shown) for r in _github(data, github))
    path = os.path.join(root, ".gitlab-ci.yml")
    data = _data(path) if _regular(path) else None
    if data is not None:
        shown = display_path(path)
        found.extend(PublishedImage(r, shown) for r in _gitlab(data, gitlab))
    return found


def _single(ids: Iterable[ProjectId]) -> ProjectId | None:
    """The identity the CI's own names stand for, when the run knows exactly one."""
    paths = {i.path: i for i in ids}
    return next(iter(paths.values())) if len(paths) == 1 else None


def _regular(path: str, folder: bool = False) -> bool:
    try:
        mode = os.lstat(path).st_mode  # lstat: a symbolic link is not followed
    except (OSError, ValueError):
        return False
    return stat.S_ISDIR(mode) if folder else stat.S_ISREG(mode)


def _workflow_files(root: str) -> list[str]:
    github = os.path.join(root, ".github")
    folder = os.path.join(github, "workflows")
    if not (_regular(github, folder=True) and _regular(folder, folder=True)):
        return []
    try:
        with os.scandir(folder) as entries:
            names = sorted(
                e.name
                for e in entries
                if e.name.endswith((".yml", ".yaml")) and e.is_file(follow_symlinks=False)
            )
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names[:MAX_FILES]]


def _data(path: str) -> dict | None:
    """The first document of a CI file when it is a mapping and names docker at all."""
    try:
        if os.lstat(path).st_size > MAX_BYTES:
            return None
    except OSError:
        return None
    raw = read_bytes(path)  # regular files only: a FIFO put there since never blocks
    if not isinstance(raw, bytes) or len(raw) > MAX_BYTES:
        return None
    if not _PUSHES.search(raw):
        return None  # nothing here could push: not parsed (most workflows test or lint)
    source = decode(path, raw)
    if isinstance(source, Source):
        for document in documents(source, []):
            return document.data if isinstance(document.data, dict) else None
    return None


# GitHub Actions --------------------------------------------------------------------------


def _github(data: dict, identity: ProjectId | None) -> Iterator[str]:
    context: dict[str, str] = {}
    if identity is not None:
        owner, _, name = identity.path.partition("/")
        context = {
            "github.repository": identity.path,
            "github.repository_owner": owner,
            "github.event.repository.name": name,
        }
    workflow_env = _env(data.get("env"), {}, context)
    jobs = data.get("jobs")
    for job in jobs.values() if isinstance(jobs, dict) else ():
        if not isinstance(job, dict) or not isinstance(job.get("steps"), list):
            continue
        steps = [s for s in job["steps"] if isinstance(s, dict)]
        written = _written_to_github_env(steps)
        job_env = {**workflow_env, **_env(job.get("env"), {}, context)}
        for step in steps:
            env = {**job_env, **_env(step.get("env"), job_env, context)}
            env.update(dict.fromkeys(written, None))
            yield from _step(step, env, context)


def _env(value: object, outer: Mapping[str, str | None], context: Mapping[str, str]) -> dict:
    """An ``env:`` map's values, expanded; ``outer`` is the ``env`` context it may use."""
    if not isinstance(value, dict):
        return {}
    found: dict[str, str | None] = {}
    for key, item in value.items():
        text = _scalar(item)
        found[str(key)] = None if text is None else _expand(text, outer, context)
    return found


def _scalar(value: object) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def _expand(text: str, env: Mapping[str, str | None], context: Mapping[str, str]) -> str:
    """``${{ ... }}`` replaced where the file says what it is, else by ``_UNKNOWN``."""
    if "${{" not in text:
        return text

    def one(match: re.Match) -> str:
        expression = match.group(1).strip()
        name = _ENV.match(expression)
        value = env.get(name.group(1)) if name else context.get(expression)
        return _UNKNOWN if value is None else value

    return _EXPRESSION.sub(one, text)


def _written_to_github_env(steps: list[dict]) -> set[str]:
    """Names a script of the job may set for the steps after it (``>> $GITHUB_ENV``): every
    ``NAME=`` of such a script, as the shell decides what is written."""
    names: set[str] = set()
    for step in steps:
        run = step.get("run")
        if isinstance(run, str) and "GITHUB_ENV" in run:
            names.update(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)=", run))
    return names


def _step(step: dict, env: Mapping[str, str | None], context: Mapping[str, str]) -> Iterator[str]:
    uses = step.get("uses")
    action = uses.split("@", 1)[0].strip().lower() if isinstance(uses, str) else None
    given = step.get("with")
    if action in _ACTIONS and isinstance(given, dict):
        value = given.get(_ACTIONS[action])
        if isinstance(value, str):
            text = _expand(value, env, context)
            items = _images(text) if action == "docker/metadata-action" else _tags(text)
            yield from filter(None, map(_repository, items))
    run = step.get("run")
    if isinstance(run, str):
        yield from _script(_expand(run, env, context), env)


def _lines(text: str) -> list[str]:
    return [s for line in text.splitlines() if (s := line.strip()) and not s.startswith("#")]


def _tags(text: str) -> list[str]:
    """build-push-action's ``tags``: a list, one per line or comma-separated."""
    return [t.strip() for line in _lines(text) for t in line.split(",") if t.strip()]


def _images(text: str) -> list[str]:
    """metadata-action's ``images``: one line of comma-separated names, or one image a
    line given as CSV fields (a bare name or ``name=``, and ``enable=``)."""
    lines = _lines(text)
    if len(lines) == 1 and "=" not in lines[0]:
        return [t.strip() for t in lines[0].split(",") if t.strip()]
    found = []
    for line in lines:
        name, enabled = None, True
        for field in line.split(","):
            key, equals, value = field.partition("=")
            if not equals:
                name = key.strip()
            elif key.strip().lower() == "name":
                name = value.strip()
            elif key.strip().lower() == "enable":
                enabled = value.strip().lower() == "true"  # unknown: not counted
        if name and enabled:
            found.append(name)
    return found


def _repository(reference: str) -> str | None:
    """``registry/path`` (lower case, Docker Hub's as ``docker.io/...``) of a reference the
    CI pushes, or None when its name is not fully known or no valid reference."""
    name = reference.strip().lower().split("@", 1)[0]
    if name.rfind(":") > name.rfind("/"):
        name = name[: name.rfind(":")]  # the tag may stay unknown: it is not the repository
    if not _REPOSITORY.match(name):  # an unknown part, a shell expansion left, a template
        return None
    ref = parse_image(name)
    return canonical_repository(ref) if ref is not None else None


# Scripts ---------------------------------------------------------------------------------


def _script(script: str, env: Mapping[str, str | None]) -> Iterator[str]:
    """The repositories the docker and kaniko commands of a shell script push."""
    if "docker" not in script and "executor" not in script:
        return
    for command in _commands(script):
        for reference in _pushed(command):
            yield from filter(None, [_repository(_shell_vars(reference, env, script))])


def _commands(script: str) -> Iterator[list[str]]:
    text = script.replace("\\\n", " ")
    for line in text.splitlines():
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
            lexer.whitespace_split = True
            lexer.commenters = "#"
            words = list(lexer)
        except ValueError:  # unbalanced quotes
            continue
        command: list[str] = []
        for word in [*words, ";"]:
            if word and set(word) <= set(";&|()"):
                if command:
                    yield command
                command = []
            else:
                command.append(word)


def _pushed(command: list[str]) -> list[str]:
    """The references one command pushes."""
    while command and command[0] in ("sudo", "time", "exec"):
        command = command[1:]
    program = command[0].rsplit("/", 1)[-1] if command else ""
    if program == "executor":  # kaniko: /kaniko/executor --destination X
        return [] if "--no-push" in command else _option(command, "--destination", "-d")
    if program != "docker":
        return []
    words = [w for w in command[1:] if not w.startswith("-")]
    if words[:1] == ["push"] or words[:2] == ["image", "push"]:
        rest = command[command.index("push") + 1 :]
        skip = False
        for word in rest:
            if skip:
                skip = False
            elif word == "--platform":
                skip = True  # its value follows
            elif not word.startswith("-"):
                return [word]
        return []
    if words[:1] == ["build"] or words[:2] in (["buildx", "build"], ["image", "build"]):
        return _option(command, "--tag", "-t") if "--push" in command else []
    if words[:3] == ["buildx", "imagetools", "create"]:
        return _option(command, "--tag", "-t")
    return []


def _option(command: list[str], long: str, short: str) -> list[str]:
    """Every value of an option: ``--tag X``, ``--tag=X``, ``-t X``, ``-tX``."""
    found = []
    for index, word in enumerate(command):
        if word in (long, short) and index + 1 < len(command):
            found.append(command[index + 1])
        elif word.startswith(long + "="):
            found.append(word[len(long) + 1 :])
        elif word.startswith(short) and not word.startswith("--") and len(word) > len(short):
            found.append(word[len(short) :])
    return found


def _shell_vars(text: str, env: Mapping[str, str | None], script: str) -> str:
    """``$NAME`` and ``${NAME}`` from the environment the CI file sets, unless the script
    assigns the variable itself; anything else stays and makes the reference unknown."""
    if "$" not in text:
        return text

    def one(match: re.Match) -> str:
        name = match.group(1) or match.group(2)
        value = env.get(name)
        assigned = re.search(rf"(?<![\w$]){re.escape(name)}=", script)
        return _UNKNOWN if value is None or assigned else value

    return _SHELL_VAR.sub(one, text)


# GitLab CI -------------------------------------------------------------------------------


def _gitlab(data: dict, identity: ProjectId | None) -> Iterator[str]:
    predefined: dict[str, str | None] = {}
    if identity is not None:
        namespace, _, name = identity.path.rpartition("/")
        predefined = {
            "CI_REGISTRY": _GITLAB_REGISTRY,
            "CI_REGISTRY_IMAGE": f"{_GITLAB_REGISTRY}/{identity.path}",
            "CI_PROJECT_PATH": identity.path,
            "CI_PROJECT_NAMESPACE": namespace,
            "CI_PROJECT_NAME": name,
        }
    top = {**predefined, **_variables(data.get("variables"), predefined)}
    for key, job in data.items():
        if not isinstance(job, dict) or not isinstance(key, str):
            continue
        if key.startswith(".") or key in _GITLAB_KEYWORDS:
            continue  # a template (hidden job) or a keyword, not a job that runs
        env = {**top, **_variables(job.get("variables"), top)}
        for part in ("before_script", "script", "after_script"):
            lines = job.get(part)
            for line in lines if isinstance(lines, list) else [lines]:
                if isinstance(line, str):
                    yield from _script(line, env)


def _variables(value: object, outer: Mapping[str, str | None]) -> dict[str, str | None]:
    """``variables:`` (a value, or a mapping with ``value:``), each expanded once with the
    variables around it (GitLab expands ``$X`` in a variable's value)."""
    if not isinstance(value, dict):
        return {}
    found: dict[str, str | None] = {}
    for key, item in value.items():
        text = _scalar(item.get("value") if isinstance(item, dict) else item)
        found[str(key)] = None if text is None else _shell_vars(text, {**outer, **found}, "")
    return found
