from __future__ import annotations

from adk_eval_gate.cli import main

raise SystemExit(main())
