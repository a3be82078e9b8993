"""devkb: a knowledge base for software teams (Jira, Confluence, GitHub → graph → answers)."""

import os as _os

# No telemetry and no model-hub calls: devkb runs offline and never phones home.
_os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
_os.environ.setdefault("HF_HUB_OFFLINE", "1")
_os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
_os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
_os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
_os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

__version__ = "0.1.0"
