"""``picture``: run a block of Python that draws with ``hockeystick.plots`` and show the code and the picture.

hockeystick's drawing functions save to a path (they draw on their own ``Figure``, not on pyplot's), so
matplotlib's plot directive, which collects pyplot's open figures, does not see them. This directive
runs its content in a fresh namespace with the working directory set to ``_pictures/`` of the source
tree, expects the file its argument names to exist afterwards, and renders the code above the image::

    :::{picture} epsilon-along-run.png
    :alt: the certified epsilon bracket after every epoch
    from hockeystick.plots import curve_along_run
    ...
    curve_along_run(curve, "epsilon-along-run.png")
    :::

So every picture of the site is drawn at build time by the code shown beside it, and an error in that
code fails the build.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

PICTURES = "_pictures"  # under the source directory; written at build time, never committed


class Picture(SphinxDirective):
    required_arguments = 1
    has_content = True
    option_spec = {"alt": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        if re.fullmatch(r"[\w.-]+\.png", name) is None:
            raise self.error(f"picture: {name!r} is not a plain .png file name")
        out = Path(self.env.srcdir) / PICTURES
        out.mkdir(exist_ok=True)
        (out / ".gitignore").write_text("*\n", encoding="utf-8")
        (out / name).unlink(missing_ok=True)
        code = "\n".join(self.content)
        here = os.getcwd()
        os.chdir(out)
        try:
            exec(
                compile(code, f"{self.env.docname}: picture {name}", "exec"),
                {"__name__": "__picture__"},
            )
        except Exception as error:
            raise self.error(f"picture {name}: the code raised {error!r}") from error
        finally:
            os.chdir(here)
        if not (out / name).is_file():
            raise self.error(f"picture {name}: the code ran but did not write {name}")
        source = nodes.literal_block(code, code, language="python")
        image = nodes.image(uri=f"/{PICTURES}/{name}", alt=self.options.get("alt", name))
        return [source, image]


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("picture", Picture)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
