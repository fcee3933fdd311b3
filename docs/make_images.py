"""Render the images of docs/charts.md by running the page's own code (``make docs``).

The ```python blocks of the page run in order, in one namespace, in a temporary
directory holding ``examples/`` (as tests/test_docs.py runs them); every image
they save lands in docs/img/.  The page's code and its images can therefore
never differ, and an image the page shows that no block saves is an error.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).parents[1]
PAGE = ROOT / "docs" / "charts.md"
OUT = ROOT / "docs" / "img"


def blocks(page: Path) -> list[str]:
    """The code of the page's ```python blocks, in order."""
    return re.findall(r"^```python\n(.*?)^```$", page.read_text(), flags=re.S | re.M)


def shown(page: Path) -> set[str]:
    """The file names of the images the page shows from img/."""
    return set(re.findall(r"!\[[^\]]*\]\(img/([^)]+)\)", page.read_text()))


def main() -> None:
    OUT.mkdir(exist_ok=True)
    here = Path.cwd()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
        os.chdir(work)
        try:
            namespace: dict[str, object] = {"__name__": "__docs__"}
            for number, code in enumerate(blocks(PAGE), start=1):
                exec(compile(code, f"<{PAGE.name}, block {number}>", "exec"), namespace)
        finally:
            os.chdir(here)
        images = {p.name: p for p in work.iterdir() if p.suffix in (".png", ".svg")}
        missing = shown(PAGE) - set(images)
        if missing:
            msg = f"{PAGE.name} shows images that no block saves: {sorted(missing)}"
            raise SystemExit(msg)
        for name, path in sorted(images.items()):
            shutil.copyfile(path, OUT / name)
            print(f"docs/img/{name}", file=sys.stderr)


if __name__ == "__main__":
    main()
