"""JUnit XML, as Jenkins, GitLab, Azure Pipelines and most CI systems read it.

One ``testsuite`` per file with findings, one ``testcase`` per finding (its
``failure`` carries the location and message; ``type`` is the severity), input
errors as ``error`` test cases of their file. A clean run is one passing test
case, so CI shows the check ran. The shape follows the JUnit schema of
Jenkins' xunit plugin (tests/data/junit.xsd is written from it).
"""

from __future__ import annotations

from collections.abc import Iterator
from xml.sax.saxutils import escape, quoteattr

from gpulint.core.findings import RunResult


def _text(value: str) -> str:
    # XML 1.0 has no place for most control characters, even escaped.
    cleaned = "".join(c for c in value if c in "\t\n\r" or ord(c) >= 0x20)
    return escape(cleaned)


def _attr(value: str) -> str:
    return quoteattr("".join(c for c in value if c in "\t\n\r" or ord(c) >= 0x20))


def chunks(result: RunResult, color: bool = False) -> Iterator[str]:
    by_file: dict[str, list[str]] = {}
    failures: dict[str, int] = {}
    errors: dict[str, int] = {}
    for error in result.errors:
        where = f"{error.file}:{error.line}:{error.column}"
        case = (
            f'    <testcase name="input" classname={_attr(error.file)}>\n'
            f'      <error type="input" message={_attr(error.message)}>'
            f"{_text(where + ': ' + error.message)}</error>\n"
            "    </testcase>\n"
        )
        by_file.setdefault(error.file, []).append(case)
        errors[error.file] = errors.get(error.file, 0) + 1
    for finding in result.active():
        loc = finding.location
        where = f"{loc.file}:{loc.line}:{loc.column}"
        name = f"{finding.code} {finding.name} at {where}"
        case = (
            f"    <testcase name={_attr(name)} classname={_attr(loc.file)}>\n"
            f"      <failure type={_attr(str(finding.severity))} message={_attr(finding.message)}>"
            f"{_text(where + ': ' + finding.message)}</failure>\n"
            "    </testcase>\n"
        )
        by_file.setdefault(loc.file, []).append(case)
        failures[loc.file] = failures.get(loc.file, 0) + 1
    total_failures, total_errors = sum(failures.values()), sum(errors.values())
    tests = sum(len(cases) for cases in by_file.values()) or 1
    yield '<?xml version="1.0" encoding="UTF-8"?>\n'
    yield (
        f'<testsuites name="gpulint" tests="{tests}" failures="{total_failures}" '
        f'errors="{total_errors}">\n'
    )
    if not by_file:
        yield '  <testsuite name="gpulint" tests="1" failures="0" errors="0">\n'
        yield '    <testcase name="gpulint check" classname="gpulint"/>\n'
        yield "  </testsuite>\n"
    for file in sorted(by_file):
        cases = by_file[file]
        yield (
            f'  <testsuite name={_attr(file)} tests="{len(cases)}" '
            f'failures="{failures.get(file, 0)}" errors="{errors.get(file, 0)}">\n'
        )
        yield from cases
        yield "  </testsuite>\n"
    yield "</testsuites>\n"
