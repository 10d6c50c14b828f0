"""The HTML report: one self-contained page (nothing fetched, no script, input escaped),
and the page as headless Chromium renders it (Debian's ``chromium``; skipped without it)."""

from __future__ import annotations

import os
import re
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from gpulint.allocation.svg import COLORS
from gpulint.cli.report_command import run
from tests.helpers import DATA

DUMPS = DATA / "allocation"
NODES = str(DUMPS / "nodes.yaml")
PODS = str(DUMPS / "pods.yaml")
MANIFESTS = str(DUMPS / "manifests.yaml")
CHROMIUM = "/usr/bin/chromium"
WINDOW = (1200, 1600)


def _page(tmp_path: Path, *paths: str, pods: str = PODS) -> Path:
    out = tmp_path / "report.html"
    assert run((NODES,), pods, paths, "html", str(out)) == 0
    return out


def test_the_page_is_self_contained(tmp_path: Path) -> None:
    page = _page(tmp_path, MANIFESTS).read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert "<script" not in page.lower()
    assert not re.search(r"\b(src|href)\s*=", page, re.IGNORECASE)
    assert "@import" not in page and "url(" not in page
    urls = set(re.findall(r"https?://[^\s\"'<>]+", page))
    assert urls == {"http://www.w3.org/2000/svg"}  # a namespace name, never fetched
    assert page.count("<svg") == 2  # per product, per node
    # a bar's parts say what they are
    assert "<title>a100-1: 7 allocated</title>" in page
    assert "<title>h100-1: 8 free, unschedulable</title>" in page


def test_input_text_is_escaped(tmp_path: Path, write) -> None:
    pods = write(
        "pods.yaml",
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: "<img src=x onerror=alert(1)>", namespace: "a&b"}
        spec:
          containers:
            - {name: c, image: busybox, resources: {limits: {nvidia.com/gpu: 1}}}
        status: {phase: Pending}
        """,
    )
    page = _page(tmp_path, pods=str(pods)).read_text()
    assert "<img" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "a&amp;b" in page


# --- rendered by headless Chromium ------------------------------------------------------

needs_chromium = pytest.mark.skipif(
    not os.access(CHROMIUM, os.X_OK), reason=f"no {CHROMIUM} (apt-get install chromium)"
)


def _chromium(tmp_path: Path, page: Path, *args: str) -> str:
    """Headless, offline, with a profile of its own; standard output (the DOM, if asked)."""
    profile = tmp_path / "profile"
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            f"--window-size={WINDOW[0]},{WINDOW[1]}",
            *args,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path)},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _pixels(png: bytes) -> tuple[int, int, set[tuple[int, int, int]]]:
    """Width, height and the colours of an 8-bit RGB or RGBA PNG (what Chromium writes)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, header = 8, b"", b""
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, body = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        header = body if kind == b"IHDR" else header
        idat += body if kind == b"IDAT" else b""
        at += 12 + length
    width, height, depth, color = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and color in (2, 6)
    step = 3 if color == 2 else 4
    raw, stride = zlib.decompress(idat), width * step
    previous, colors = bytearray(stride), set()
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):  # undo the PNG filter of the line
            a = line[i - step] if i >= step else 0
            b, c = previous[i], previous[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                near = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + near) & 255
        colors.update(tuple(line[i : i + 3]) for i in range(0, stride, step * 4))
        previous = line
    return width, height, colors


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


@pytest.mark.slow
@needs_chromium
def test_chromium_renders_the_page_text(tmp_path: Path) -> None:
    page = _page(tmp_path, MANIFESTS)
    dom = _chromium(tmp_path, page, "--dump-dom")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom))
    assert "GPU allocation report" in text
    for words in (
        "5 GPU nodes",
        "24 GPUs allocatable",
        "14 allocated",
        "10 free",
        "4 pending pods that do not fit",
        "train-b-0 2 1 no fragmentation",
        "h100-job-0 4 1 no cordon",
        "untolerated-0 1 1 no taint",
        "Deployment/embed 1 2 yes",
        "h100-1 NVIDIA-H100-80GB-HBM3 8 0 8 no (cordoned)",
        "NVIDIA-A100-SXM4-80GB 2 16 14 2 2 1",
        "nvidia.com/mig-1g.5gb 2/4 held",
        "nvidia.com/gpu.shared 3/8 held; time-slicing, 4 per GPU",
    ):
        assert words in text, words
    assert "cpu-1" not in text


@pytest.mark.slow
@needs_chromium
def test_chromium_screenshot_shows_the_bars(tmp_path: Path) -> None:
    page = _page(tmp_path, MANIFESTS)
    shot = tmp_path / "report.png"
    _chromium(tmp_path, page, f"--screenshot={shot}")
    width, height, colors = _pixels(shot.read_bytes())
    assert (width, height) == WINDOW
    # the stacked bars were drawn: allocated, free and free-but-cordoned
    for color in COLORS:
        assert _rgb(color) in colors, color
    assert len(colors) > 50  # text, not a blank page
