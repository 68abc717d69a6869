"""The package version (one place: ``symfdp.__version__`` and the modules that
record it import it from here)."""

from __future__ import annotations

from typing import Final

__version__: Final = "0.1.0"
