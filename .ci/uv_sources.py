"""Print shell assignments of the uv variables that point uv where pip is configured to look.

pip's indexes, wheel directories, constraints and certificate come from its configuration files and
PIP_* variables (``pip config list`` shows both); uv reads neither. Each becomes the uv variable of
the same meaning (UV_INDEX_URL, UV_EXTRA_INDEX_URL, UV_FIND_LINKS, UV_CONSTRAINT, SSL_CERT_FILE), so
that ``uv pip install`` and pip see the same packages and the same caps. pip looks at every index for
the best version; UV_INDEX_STRATEGY=unsafe-best-match asks uv for the same. Used by .ci/run as
``eval "$(python .ci/uv_sources.py)"``.
"""

from __future__ import annotations

import ast
import shlex
import subprocess
import sys

# pip's option -> (uv's variable, the separator uv reads in it)
VARIABLES = {
    "index-url": ("UV_INDEX_URL", " "),
    "extra-index-url": ("UV_EXTRA_INDEX_URL", " "),
    "find-links": ("UV_FIND_LINKS", ","),
    "constraint": ("UV_CONSTRAINT", " "),
    "cert": ("SSL_CERT_FILE", " "),
}

listed = subprocess.run(
    [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True
).stdout
values: dict[str, list[str]] = {}
for line in listed.splitlines():
    key, _, quoted = line.partition("=")
    option = key.rpartition(".")[2]
    if option in VARIABLES and quoted:
        for value in ast.literal_eval(quoted).split():
            if value not in values.setdefault(option, []):
                values[option].append(value)
print("export UV_INDEX_STRATEGY=unsafe-best-match")
for option, found in values.items():
    variable, separator = VARIABLES[option]
    chosen = found[-1:] if option in ("index-url", "cert") else found
    print(f"export {variable}={shlex.quote(separator.join(chosen))}")
