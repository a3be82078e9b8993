"""devkb's development tooling — loopback emulators of Jira, Confluence, GitHub and Ollama, the demo
workspace, benchmarks, evaluation and the test kit. Not part of the product: the product never
imports it (the demo workspace reaches it through the ``devkb.workspaces`` entry point)."""
